"""Turns a notebook cell into one function, so Dynamo sees the cell's own code as a frame.

torch.compile compiles functions, but a cell is module-level code. The cell's
top-level statements become the body of a function whose every top-level name
is declared ``global``: assignments, imports, ``def``/``class`` and ``del``
then act on the user's namespace exactly as a plain run would, as they happen
(so whatever ran before an exception stays defined). A trailing expression
becomes the ``return`` value, which the magic hands to IPython's display hook
like a plain cell's last value.

The function is compiled from the AST under a file name registered in
``linecache``, with the cell's line numbers kept, so tracebacks, graph-break
locations and the explorer's source pane all point at cell lines.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import linecache
import symtable
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator

CELL_FUNCTION_NAME = "compiled_cell"
# Read once at the top of the cell function, bound to the torch module while the cell runs.
# Dynamo compiles a resume function (the cell's code after a graph break) only if the frame
# has tensors in its locals or a global torch module among its names (has_tensor_in_frame):
# a cell's names are all globals, so without this the rest of the cell ran uncompiled.
TORCH_MARKER = "__compile_explorer_torch__"


class _NotYetDefined:
    """Stands for a name the cell binds but has not bound yet (see ``names_seeded``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name!r} is not defined yet>"


@dataclass(frozen=True)
class CellFunction:
    """The cell as a callable, with what the magic needs to display its result."""

    fn: Callable[[], Any]
    filename: str
    returns_value: bool  # the cell ends with an expression (its value is the cell's value)
    bound_names: tuple[str, ...] = ()  # names the cell's top level binds

    @contextlib.contextmanager
    def names_seeded(self) -> Iterator[None]:
        """Makes every name the cell binds exist in its globals while it runs.

        Dynamo resolves a global that is missing from the frame's globals as a
        builtin *before* looking at globals the frame stored itself, so
        ``a = torch.ones(3); b = a + 1`` in a fresh namespace stops its trace.
        Each missing name gets a placeholder (the builtin of that name, if any),
        and placeholders still there afterwards are removed, so the namespace ends
        as a plain run leaves it. The cost: reading such a name before the cell
        assigns it gives the placeholder instead of a NameError.
        """
        import torch

        ns = self.fn.__globals__
        seeds: dict[str, Any] = {}
        if TORCH_MARKER not in ns:
            seeds[TORCH_MARKER] = ns[TORCH_MARKER] = torch
        for name in self.bound_names:
            if name not in ns:
                seeds[name] = getattr(builtins, name, _NotYetDefined(name))
                ns[name] = seeds[name]
        try:
            yield
        finally:
            for name, seed in seeds.items():
                if ns.get(name, None) is seed:
                    del ns[name]


def register_source(text: str, ipython: Any = None) -> str:
    """Puts ``text`` in linecache under a name tracebacks will show as the cell.

    IPython's own code cache is used when there is a shell: it also maps the
    name to the execution count, which makes tracebacks read ``Cell In[5]``.
    """
    compiler = getattr(ipython, "compile", None)
    if compiler is not None and hasattr(compiler, "cache"):
        return compiler.cache(text, getattr(ipython, "execution_count", 0) or 0, raw_code=text)
    name = f"<compiled-cell-{abs(hash(text)):x}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    return name


def build_cell_function(source: str, filename: str, globals_ns: dict, *, first_line: int = 1) -> CellFunction:
    """Compiles ``source`` (already IPython-transformed) as the body of one function.

    ``first_line`` is the line of ``filename`` where ``source`` starts (2 when the
    registered text begins with the ``%%compile`` line). A SyntaxError is raised
    exactly as a plain run would raise it, pointing at the cell line, and nothing runs.
    """
    padded = "\n" * (first_line - 1) + source
    # A full compile as module code first: it raises every SyntaxError a plain run
    # would (including 'return outside function', which the wrapper would accept).
    compile(padded, filename, "exec", dont_inherit=True)
    tree = ast.parse(padded, filename, "exec")
    names, bound = _top_level_names(padded, filename)
    body, returns_value = _function_body(tree.body, padded)
    fn_def = ast.FunctionDef(
        name=CELL_FUNCTION_NAME,
        args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                           kwarg=None, defaults=[]),
        body=([ast.Global(names=names)] if names else []) + [_torch_marker()] + body,
        decorator_list=[], returns=None, type_comment=None,
    )
    # the function starts at the registered text's first line (the %%compile line),
    # so its source, as Dynamo and the source pane read it, is the whole cell
    _place(fn_def, 1)
    for stmt in fn_def.body[:2 if names else 1]:
        _place(stmt, 1)
    module = ast.Module(body=[fn_def], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec", dont_inherit=True)
    fn_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    fn = types.FunctionType(fn_code, globals_ns, CELL_FUNCTION_NAME)
    return CellFunction(fn=fn, filename=filename, returns_value=returns_value, bound_names=bound)


def _torch_marker() -> ast.stmt:
    return ast.Expr(value=ast.Name(id=TORCH_MARKER, ctx=ast.Load()))


def _top_level_names(source: str, filename: str) -> tuple[list[str], tuple[str, ...]]:
    """Every name the cell's top level uses: at module level all of them are globals.

    Declaring names that are only read is harmless (the lookup is the same), and
    it also covers what plain module code binds that is easy to miss: walrus
    targets inside comprehensions, ``except ... as e``, ``with ... as x``, ``del``.
    """
    table = symtable.symtable(source, filename, "exec")
    symbols = sorted(table.get_symbols(), key=lambda s: s.get_name())
    bound = tuple(s.get_name() for s in symbols
                  if s.is_assigned() or s.is_imported() or s.is_namespace())
    return [s.get_name() for s in symbols], bound


def _function_body(stmts: list[ast.stmt], source: str) -> tuple[list[ast.stmt], bool]:
    """The cell's statements, rewritten where module and function semantics differ."""
    body: list[ast.stmt] = []
    for stmt in stmts:
        body.append(_as_function_statement(stmt, source))
    returns_value = bool(stmts) and isinstance(stmts[-1], ast.Expr)
    if returns_value:
        last = body[-1]
        assert isinstance(last, ast.Expr)
        body[-1] = ast.copy_location(ast.Return(value=last.value), last)
    if not body:
        body = [ast.Pass()]
    return body, returns_value


def _as_function_statement(stmt: ast.stmt, source: str) -> ast.stmt:
    # `global x` at top level is a no-op; inside the wrapper every name is global already.
    if isinstance(stmt, ast.Global):
        return ast.copy_location(ast.Pass(), stmt)
    # An annotated name cannot be declared global in a function: keep the assignment
    # (the annotation itself is evaluated, as at module level, but not recorded).
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        annotation = ast.Expr(value=stmt.annotation)
        if stmt.value is None:
            return ast.copy_location(annotation, stmt)
        assign = ast.Assign(targets=[ast.Name(id=stmt.target.id, ctx=ast.Store())], value=stmt.value)
        return ast.copy_location(assign, stmt)
    # `from m import *` is only allowed at module level: run that one statement as module code.
    if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
        text = ast.get_source_segment(source, stmt) or ast.unparse(stmt)
        call = ast.Call(func=ast.Name(id="exec", ctx=ast.Load()),
                        args=[ast.Constant(text), ast.Call(func=ast.Name(id="globals", ctx=ast.Load()),
                                                           args=[], keywords=[])],
                        keywords=[])
        return ast.copy_location(ast.Expr(value=call), stmt)
    return stmt


def _place(node: ast.AST, lineno: int) -> None:
    node.lineno = lineno  # type: ignore[attr-defined]
    node.col_offset = 0  # type: ignore[attr-defined]
    node.end_lineno = lineno  # type: ignore[attr-defined]
    node.end_col_offset = 0  # type: ignore[attr-defined]
