"""The cell's top-level code compiled as the body of one function, under the cell's own file name.

The cell's top-level statements become the body of a function whose every top-level name
is declared ``global``: assignments, imports, ``def``/``class`` and ``del`` then act on the
user's namespace exactly as a plain run would, as they happen. A trailing expression becomes
the ``return`` value (not when it ends with ``;``). Where module and function code differ, the
statement is rewritten (``rewrite.py``). The function is compiled from the AST under a file
name registered in ``linecache``, with the cell's line numbers kept, so tracebacks, graph-break
locations and the explorer's source pane all point at cell lines.
"""

from __future__ import annotations

import ast
import builtins
import io
import linecache
import symtable
import tokenize
import types
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..hosts import CELL_FUNCTION_NAME
from .bound import read_before_bound
from .rewrite import COMPILE, DEL, EVAL, EXEC, NS, OUTER, PLAIN, Rewriter

# Read once at the top of the cell function, bound to the torch module while the cell runs.
# Dynamo compiles a resume function (the cell's code after a graph break) only if the frame
# has tensors in its locals or a global torch module among its names (has_tensor_in_frame):
# a cell's names are all globals, so without this the rest of the cell ran uncompiled.
TORCH_MARKER = "__compile_explorer_torch__"
_QUALNAME_PREFIX = f"{OUTER}.<locals>.{CELL_FUNCTION_NAME}.<locals>."
_QUALNAME_IN_CONSTS = not hasattr(types.CodeType, "co_qualname")  # Python 3.10


@dataclass(frozen=True)
class CellFunction:
    """The cell as a callable, with what ``run_cell`` and the view need."""

    fn: Callable[[], Any]
    filename: str
    returns_value: bool  # the cell ends with an expression (its value is the cell's value)
    bound_names: tuple[str, ...] = ()  # names the cell's top level binds
    # names Dynamo may find a placeholder under while it compiles (see NameWindows)
    seedable: tuple[str, ...] = ()
    annotates: bool = False  # the top level annotates a name: module code creates __annotations__ first
    # why the cell runs as plain Python from the start (torch.compile cannot compile it), or None
    plain_reason: Optional[str] = None
    nested_compiles: tuple[int, ...] = ()  # lines whose torch.compile calls run as plain Python (see PLAIN)
    is_compiling_lines: tuple[int, ...] = ()  # top-level lines asking is_compiling() (run as plain Python)
    is_compiling_inside: tuple[int, ...] = ()  # lines asking it inside the cell's functions

    @property
    def namespace(self) -> dict:
        return self.fn.__globals__


def register_source(text: str, ipython: Any = None) -> str:
    """Puts ``text`` in linecache under a name tracebacks will show as the cell.

    IPython's own code cache is used when there is a shell: it also maps the
    name to the execution count, which makes tracebacks read ``Cell In[5]``.
    """
    compiler = getattr(ipython, "compile", None)
    if compiler is not None and hasattr(compiler, "cache"):
        from ..ipython_compat import running_cell_number

        return compiler.cache(text, running_cell_number(ipython), raw_code=text)
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
    early = read_before_bound(ast.parse(padded, filename, "exec").body)  # before the rewrite changes the tree
    names, bound = _top_level_names(padded, filename)
    rewriter = Rewriter(padded, filename)
    body = rewriter.block(tree.body)
    returns_value = bool(tree.body) and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(padded)
    if returns_value:
        last = body[-1]
        assert isinstance(last, ast.Expr)
        body[-1] = ast.copy_location(ast.Return(value=last.value), last)
    if rewriter.annotates and "__annotations__" not in names:
        names.append("__annotations__")
    fn_def = _function(CELL_FUNCTION_NAME, [],
                       ([ast.Global(names=names)] if names else []) + [_torch_marker()] + (body or [ast.Pass()]))
    _place(fn_def, 1)
    for stmt in fn_def.body[:2 if names else 1]:
        _place(stmt, 1)
    give_back = ast.Return(value=ast.Name(id=CELL_FUNCTION_NAME, ctx=ast.Load()))
    outer = _function(OUTER, [EVAL, EXEC, COMPILE, NS, DEL, PLAIN], [fn_def, give_back])
    _place(outer, 1)
    _place(outer.body[-1], 1)
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec", dont_inherit=True)
    outer_code = _module_level_names_kept(next(c for c in code.co_consts if isinstance(c, types.CodeType)))
    globals_ns.setdefault("__builtins__", builtins)  # as exec() of module code does (Dynamo reads it)
    make = types.FunctionType(outer_code, globals_ns, OUTER)
    fn = make(builtins.eval, builtins.exec, builtins.compile, globals_ns, _deleter(globals_ns), _plain_helper())
    # A name the cell may read before binding it is not seedable: a placeholder would stand where a plain
    # run raises NameError (`try: q / except NameError:`). A builtin's name always is: read before the
    # cell binds it, a plain run finds the builtin, and so does the read Dynamo leaves to plain Python.
    early -= set(dir(builtins))
    seedable = () if rewriter.reads_namespace else tuple(sorted(set(bound) - early))
    return CellFunction(fn=fn, filename=filename, returns_value=returns_value, bound_names=bound,
                        seedable=seedable, annotates=rewriter.annotates, plain_reason=_plain_reason(tree),
                        nested_compiles=tuple(sorted(set(rewriter.nested_compiles))),
                        is_compiling_lines=tuple(sorted(set(rewriter.is_compiling))),
                        is_compiling_inside=tuple(n for n in _lines_naming(tree, "is_compiling")
                                                  if n not in rewriter.is_compiling))


def _plain_reason(tree: ast.Module) -> Optional[str]:
    """Why torch.compile cannot compile this cell at all, so that it runs as plain Python from the start.

    ``torch.compiler.set_stance`` (a call, a ``with``, a decorator) raises inside a
    compiled region ("attempted to set_stance in a torch.compile region"), and
    Dynamo refuses to trace it: the cell's frame, or the part after a graph break,
    would run inside the region and raise where a plain run does not.
    """
    if _lines_naming(tree, "set_stance"):
        return ("it uses torch.compiler.set_stance, which raises inside a torch.compile region "
                "(Dynamo refuses to trace it)")
    return None


def _lines_naming(tree: ast.AST, name: str) -> tuple[int, ...]:
    """Lines where the cell (its functions included) names ``name`` (``x.name`` or ``name``)."""
    lines = {n.lineno for n in ast.walk(tree)
             if (isinstance(n, ast.Attribute) and n.attr == name) or (isinstance(n, ast.Name) and n.id == name)}
    return tuple(sorted(lines))


def _plain_helper() -> Callable[[Any], Any]:
    """``__compile_explorer_plain__(torch.compile)``: torch.compile as a plain run calls it.

    Inside a compiled frame Dynamo treats ``torch.compile(f)`` as a no-op that returns
    ``f`` itself, so ``opt = torch.compile(model)`` in the cell would leave ``opt`` the
    plain module; and it folds ``torch.compiler.is_compiling()`` to True, where the
    cell, module code, gets False. Through this helper (which Dynamo does not trace: a
    graph break at that line) the call runs as plain Python and returns what a plain
    run returns.
    """
    from ..capturing import torch_door

    def plain(fn: Any) -> Any:
        return torch_door.dynamo.not_traced(fn)

    plain.__name__ = plain.__qualname__ = PLAIN
    return torch_door.dynamo.not_traced(plain)


def _deleter(ns: dict) -> Callable[[str], None]:
    """``del name`` as module code does it, run as plain Python (Dynamo: a graph break, not a skipped cell)."""
    from ..capturing import torch_door

    def delete(name: str) -> None:
        try:
            del ns[name]
        except KeyError:
            raise NameError(f"name {name!r} is not defined", name=name) from None

    return torch_door.dynamo.not_traced(delete)


def _function(name: str, args: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    return ast.FunctionDef(
        name=name,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args], vararg=None, kwonlyargs=[],
                           kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)


def _module_level_names_kept(code: types.CodeType) -> types.CodeType:
    """Functions, classes, lambdas and comprehensions made by the cell get the qualified
    names module code gives them (``<lambda>``, not ``compiled_cell.<locals>.<lambda>``).
    Python 3.10 has no ``co_qualname``: there the name is a string constant of the code that
    makes the function (``MAKE_FUNCTION`` takes it) or the class (its body stores ``__qualname__``)."""
    consts = tuple(_module_level_names_kept(c) if isinstance(c, types.CodeType)
                   else c[len(_QUALNAME_PREFIX):] if _QUALNAME_IN_CONSTS and isinstance(c, str)
                   and c.startswith(_QUALNAME_PREFIX) else c for c in code.co_consts)
    qualname = getattr(code, "co_qualname", None)
    changes: dict[str, Any] = {"co_consts": consts}
    if qualname is not None and qualname.startswith(_QUALNAME_PREFIX):
        changes["co_qualname"] = qualname[len(_QUALNAME_PREFIX):]
    return code.replace(**changes)


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
    bound = {s.get_name() for s in symbols if s.is_assigned() or s.is_imported() or s.is_namespace()}
    bound |= _comprehension_walrus_targets(ast.parse(source, filename, "exec"))
    return [s.get_name() for s in symbols], tuple(sorted(bound))


def _comprehension_walrus_targets(tree: ast.Module) -> set[str]:
    """``[last := i for i in xs]`` binds ``last`` in the cell's scope (symtable counts it in the comprehension's)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _ends_with_semicolon(source: str) -> bool:
    """IPython's rule: a cell whose last token is ``;`` shows no value."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER,
                                    tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return False
    return bool(tokens) and tokens[-1].type == tokenize.OP and tokens[-1].string == ";"


def _place(node: ast.AST, lineno: int) -> None:
    node.lineno = lineno  # type: ignore[attr-defined]
    node.col_offset = 0  # type: ignore[attr-defined]
    node.end_lineno = lineno  # type: ignore[attr-defined]
    node.end_col_offset = 0  # type: ignore[attr-defined]
