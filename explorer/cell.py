"""A notebook cell as one function Dynamo can compile, run so that it ends as a plain run would.

torch.compile compiles functions, but a cell is module-level code. The cell's
top-level statements become the body of a function whose every top-level name
is declared ``global``: assignments, imports, ``def``/``class`` and ``del`` then
act on the user's namespace exactly as a plain run would, as they happen (so
whatever ran before an exception stays defined). A trailing expression becomes
the ``return`` value (not when it ends with ``;``, which hides a plain cell's
value too). Where module and function code differ, the statement is rewritten:
``x: int = 3`` records ``__annotations__``, ``%time y = ...`` runs its code in
the namespace, ``locals()`` is the namespace, and functions, lambdas and
classes keep the qualified names module code gives them.

The function is compiled from the AST under a file name registered in
``linecache``, with the cell's line numbers kept, so tracebacks, graph-break
locations and the explorer's source pane all point at cell lines.

``run_cell`` calls the compiled function with everything a plain outcome needs
around the call (see its docstring); what torch.compile did differently comes
back as findings, not as a changed outcome.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import linecache
import logging
import re
import symtable
import tokenize
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from .capturing.model import Finding

CELL_FUNCTION_NAME = "compiled_cell"
# Read once at the top of the cell function, bound to the torch module while the cell runs.
# Dynamo compiles a resume function (the cell's code after a graph break) only if the frame
# has tensors in its locals or a global torch module among its names (has_tensor_in_frame):
# a cell's names are all globals, so without this the rest of the cell ran uncompiled.
TORCH_MARKER = "__compile_explorer_torch__"
# The cell function is made inside this one, so the helpers its rewritten statements use are
# closure cells: no name of the explorer is ever visible in the user's namespace for them.
_OUTER = "__compile_explorer_cell__"
_EVAL = "__compile_explorer_eval__"  # builtins.eval, for line magics (they run in the namespace)
_NS = "__compile_explorer_ns__"  # the namespace itself, for locals() / vars()
_EXEC = "__compile_explorer_exec__"  # builtins.exec and builtins.compile, for `from m import *`
_COMPILE = "__compile_explorer_compile__"
_DEL = "__compile_explorer_del__"  # `del name`: Dynamo has no DELETE_GLOBAL, and would skip the whole cell
# `torch.compile` at the cell's top level: Dynamo would make the call a no-op inside the compiled cell
_PLAIN = "__compile_explorer_plain__"
_QUALNAME_PREFIX = f"{_OUTER}.<locals>.{CELL_FUNCTION_NAME}.<locals>."
_QUALNAME_IN_CONSTS = not hasattr(types.CodeType, "co_qualname")  # Python 3.10
# calls through which Dynamo would read the namespace dict itself while tracing
_NAMESPACE_READERS = frozenset({"globals", "locals", "vars", "dir"})


@dataclass(frozen=True)
class CellFunction:
    """The cell as a callable, with what ``run_cell`` and the view need."""

    fn: Callable[[], Any]
    filename: str
    returns_value: bool  # the cell ends with an expression (its value is the cell's value)
    bound_names: tuple[str, ...] = ()  # names the cell's top level binds
    # names Dynamo may find a placeholder under while it compiles (see _NameWindows)
    seedable: tuple[str, ...] = ()
    annotates: bool = False  # the top level annotates a name: module code creates __annotations__ first
    # why the cell runs as plain Python from the start (torch.compile cannot compile it), or None
    plain_reason: Optional[str] = None
    nested_compiles: tuple[int, ...] = ()  # lines whose torch.compile calls run as plain Python (see _PLAIN)
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
        from .ipython_compat import running_cell_number

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
    early = _read_before_bound(ast.parse(padded, filename, "exec").body)  # before the rewrite changes the tree
    names, bound = _top_level_names(padded, filename)
    rewriter = _Rewriter(padded, filename)
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
    outer = _function(_OUTER, [_EVAL, _EXEC, _COMPILE, _NS, _DEL, _PLAIN], [fn_def, give_back])
    _place(outer, 1)
    _place(outer.body[-1], 1)
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec", dont_inherit=True)
    outer_code = _module_level_names_kept(next(c for c in code.co_consts if isinstance(c, types.CodeType)))
    globals_ns.setdefault("__builtins__", builtins)  # as exec() of module code does (Dynamo reads it)
    make = types.FunctionType(outer_code, globals_ns, _OUTER)
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
    from .capturing import torch_compat

    def plain(fn: Any) -> Any:
        return torch_compat.not_traced(fn)

    plain.__name__ = plain.__qualname__ = _PLAIN
    return torch_compat.not_traced(plain)


def _deleter(ns: dict) -> Callable[[str], None]:
    """``del name`` as module code does it, run as plain Python (Dynamo: a graph break, not a skipped cell)."""
    from .capturing import torch_compat

    def delete(name: str) -> None:
        try:
            del ns[name]
        except KeyError:
            raise NameError(f"name {name!r} is not defined", name=name) from None

    return torch_compat.not_traced(delete)


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


# ---- module semantics inside a function ----

class _Rewriter:
    """Rewrites the cell's top-level code (not the bodies of its functions and classes)."""

    _BLOCKS = ("body", "orelse", "finalbody")

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename
        self.annotates = False
        self.reads_namespace = False
        self.nested_compiles: list[int] = []
        self.is_compiling: list[int] = []  # top-level lines asking torch.compiler.is_compiling()

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        # `global x` at top level is a no-op; inside the wrapper every name is global already.
        if isinstance(stmt, ast.Global):
            return [ast.copy_location(ast.Pass(), stmt)]
        if isinstance(stmt, ast.AnnAssign):
            return self.annotated(stmt)
        if isinstance(stmt, ast.Delete) and any(isinstance(t, ast.Name) for t in stmt.targets):
            return [self.deletion(t, stmt) for t in stmt.targets]
        # `from m import *` is only allowed at module level: run that one statement as module code.
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            text = "\n" * (stmt.lineno - 1) + (ast.get_source_segment(self.source, stmt) or ast.unparse(stmt))
            code = ast.Call(func=ast.Name(id=_COMPILE, ctx=ast.Load()),
                            args=[ast.Constant(text), ast.Constant(self.filename), ast.Constant("exec")], keywords=[])
            call = ast.Call(func=ast.Name(id=_EXEC, ctx=ast.Load()), args=[code, ast.Name(id=_NS, ctx=ast.Load())],
                            keywords=[])
            return [ast.copy_location(ast.Expr(value=call), stmt)]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # decorators, defaults and bases run now; the body is its own scope
            self._expressions(stmt, skip=("body",))
            return [stmt]
        for name in self._BLOCKS:
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, name, self.block(inner) or [ast.copy_location(ast.Pass(), stmt)])
        for handler in getattr(stmt, "handlers", ()):
            handler.body = self.block(handler.body) or [ast.copy_location(ast.Pass(), handler)]
        for case in getattr(stmt, "cases", ()):
            case.body = self.block(case.body) or [ast.copy_location(ast.Pass(), case)]
        self._expressions(stmt, skip=self._BLOCKS + ("handlers", "cases"))
        return [stmt]

    def deletion(self, target: ast.expr, stmt: ast.Delete) -> ast.stmt:
        """``del a, x[0]``: each target in order; a name through the deleter (see ``_deleter``)."""
        if isinstance(target, ast.Name):
            call = ast.Call(func=ast.Name(id=_DEL, ctx=ast.Load()), args=[ast.Constant(target.id)], keywords=[])
            return ast.copy_location(ast.Expr(value=call), stmt)
        self._expressions(stmt, skip=())
        return ast.copy_location(ast.Delete(targets=[target]), stmt)

    def annotated(self, stmt: ast.AnnAssign) -> list[ast.stmt]:
        """Module code stores ``x: T = v`` as ``x = v`` and records ``__annotations__['x'] = T``;
        for ``obj.attr: T = v`` it evaluates ``T`` and records nothing."""
        out: list[ast.stmt] = []
        self._expressions(stmt, skip=("target",))
        if stmt.value is not None:
            out.append(ast.copy_location(ast.Assign(targets=[stmt.target], value=stmt.value), stmt))
        if isinstance(stmt.target, ast.Name) and stmt.simple:
            self.annotates = True
            record = ast.Subscript(value=ast.Name(id="__annotations__", ctx=ast.Load()),
                                   slice=ast.Constant(stmt.target.id), ctx=ast.Store())
            out.append(ast.copy_location(ast.Assign(targets=[record], value=stmt.annotation), stmt))
        else:
            out.append(ast.copy_location(ast.Expr(value=stmt.annotation), stmt))
        return out

    def _expressions(self, stmt: ast.stmt, skip: tuple[str, ...]) -> None:
        """Rewrites the expressions ``stmt`` evaluates itself (not its nested statements)."""
        visitor = _TopLevelExpr(self)

        def visit(value: Any) -> Any:
            return visitor.visit(value) if isinstance(value, ast.AST) and not isinstance(value, ast.stmt) else value

        for name, value in ast.iter_fields(stmt):
            if name not in skip:
                setattr(stmt, name, [visit(v) for v in value] if isinstance(value, list) else visit(value))


class _TopLevelExpr(ast.NodeTransformer):
    """Expressions that run in the cell's own scope (not inside lambdas or nested functions)."""

    def __init__(self, rewriter: _Rewriter) -> None:
        self.rewriter = rewriter

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.args = self.visit(node.args)  # defaults run now; the body later, in its own scope
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        plain = _runs_plainly(node)
        if plain:  # see _plain_helper
            (self.rewriter.nested_compiles if plain == "compile" else self.rewriter.is_compiling).append(node.lineno)
            call = ast.Call(func=ast.Name(id=_PLAIN, ctx=ast.Load()), args=[node], keywords=[])
            return ast.copy_location(call, node)
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NAMESPACE_READERS:
            self.rewriter.reads_namespace = True
            if func.id in ("locals", "vars") and not node.args and not node.keywords:
                return ast.copy_location(ast.Name(id=_NS, ctx=ast.Load()), node)  # module code: the namespace
        if _is_line_magic(node):
            # IPython's %time / %timeit run their statement in the caller's locals; a function's
            # locals would swallow `y` of `%time y = f(x)`. As module code, locals are the namespace.
            call = ast.Call(func=ast.Name(id=_EVAL, ctx=ast.Load()),
                            args=[ast.Constant(ast.unparse(node)), ast.Name(id=_NS, ctx=ast.Load())], keywords=[])
            return ast.copy_location(call, node)
        self.generic_visit(node)
        return node


def _runs_plainly(node: ast.Attribute) -> Optional[str]:
    """``torch.compile`` or ``<...>.is_compiling`` read by the cell's top level: what ``_plain_helper`` wraps."""
    if not isinstance(node.ctx, ast.Load):
        return None
    if node.attr == "compile" and isinstance(node.value, ast.Name) and node.value.id == "torch":
        return "compile"
    if node.attr == "is_compiling":
        return "is_compiling"
    return None


def _is_line_magic(node: ast.Call) -> bool:
    """``get_ipython().run_line_magic(...)``, what IPython turns ``%magic args`` into."""
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr == "run_line_magic"
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython")


# ---- which names may be placeholders while Dynamo compiles ----

def _read_before_bound(stmts: list[ast.stmt]) -> set[str]:
    """Names some top-level statement may read (or delete) before the cell's own code bound them.

    A forward "definitely bound" walk over the cell's statements in order: branches
    meet with the names bound on every path, loop bodies and except handlers may
    not run. Reads inside functions and lambdas the cell defines happen later and
    are not counted (a placeholder read there is a graph break, see _NameWindows).
    """
    walk = _BoundWalk()
    walk.block(stmts, frozenset())
    return walk.early


class _BoundWalk:
    def __init__(self) -> None:
        self.early: set[str] = set()

    def block(self, stmts: list[ast.stmt], bound: frozenset) -> frozenset:
        for stmt in stmts:
            bound = self.stmt(stmt, bound)
        return bound

    def reads(self, node: Optional[ast.AST], bound: frozenset) -> frozenset:
        """Checks the names ``node`` reads now; returns ``bound`` plus its walrus targets."""
        if node is None:
            return bound
        walrus = {n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)
                  and isinstance(n.target, ast.Name)}
        for name in _loads(node, frozenset()):
            if name not in bound and name not in walrus:
                self.early.add(name)
        return bound | walrus

    def store(self, target: ast.AST, bound: frozenset) -> frozenset:
        if isinstance(target, ast.Name):
            return bound | {target.id}
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                bound = self.store(elt, bound)
            return bound
        if isinstance(target, ast.Starred):
            return self.store(target.value, bound)
        return self.reads(target, bound)  # obj.attr = / obj[i] = read obj (and i)

    def stmt(self, s: ast.stmt, bound: frozenset) -> frozenset:  # one case per statement kind
        if isinstance(s, ast.Expr):
            return self.reads(s.value, bound)
        if isinstance(s, ast.Assign):
            bound = self.reads(s.value, bound)
            for t in s.targets:
                bound = self.store(t, bound)
            return bound
        if isinstance(s, ast.AugAssign):
            bound = self.reads(s.value, bound)
            if isinstance(s.target, ast.Name):
                if s.target.id not in bound:
                    self.early.add(s.target.id)
                return bound | {s.target.id}
            return self.reads(s.target, bound)
        if isinstance(s, ast.AnnAssign):
            bound = self.reads(s.value, bound)
            bound = self.reads(s.annotation, bound)
            return self.store(s.target, bound) if s.value is not None else bound
        if isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    if t.id not in bound:
                        self.early.add(t.id)
                    bound = bound - {t.id}
                else:
                    bound = self.reads(t, bound)
            return bound
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return bound | {(a.asname or a.name).split(".")[0] for a in s.names if a.name != "*"}
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in s.decorator_list:
                bound = self.reads(d, bound)
            bound = self.reads(s.args, bound) if s.args else bound
            return bound | {s.name}
        if isinstance(s, ast.ClassDef):
            for node in [*s.decorator_list, *s.bases, *(k.value for k in s.keywords)]:
                bound = self.reads(node, bound)
            self.block(s.body, bound)  # the class body runs now; what it binds is the class's
            return bound | {s.name}
        if isinstance(s, ast.If):
            bound = self.reads(s.test, bound)
            return self.block(s.body, bound) & self.block(s.orelse, bound)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            bound = self.reads(s.iter, bound)
            self.block(s.body, self.store(s.target, bound))
            has_break = any(isinstance(n, ast.Break) for n in ast.walk(s))
            after_else = self.block(s.orelse, bound)
            return bound if has_break else after_else
        if isinstance(s, ast.While):
            bound = self.reads(s.test, bound)
            self.block(s.body, bound)
            after_else = self.block(s.orelse, bound)
            return bound if any(isinstance(n, ast.Break) for n in ast.walk(s)) else after_else
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                bound = self.reads(item.context_expr, bound)
                if item.optional_vars is not None:
                    bound = self.store(item.optional_vars, bound)
            return self.block(s.body, bound)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            after_body = self.block(s.body, bound)
            paths = [self.block(s.orelse, after_body)]
            for h in s.handlers:
                start = self.reads(h.type, bound)
                start = start | {h.name} if h.name else start
                paths.append(self.block(h.body, start) - ({h.name} if h.name else set()))
            after = frozenset.intersection(*paths)
            return after | self.block(s.finalbody, bound)
        if isinstance(s, ast.Match):
            bound = self.reads(s.subject, bound)
            for case in s.cases:
                names = {n.name for n in ast.walk(case.pattern)
                         if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name}
                names |= {n.rest for n in ast.walk(case.pattern) if isinstance(n, ast.MatchMapping) and n.rest}
                start = self.reads(case.guard, bound | names)
                self.block(case.body, start)
            return bound
        for child in ast.iter_child_nodes(s):  # raise, assert, return, ...: reads only
            if isinstance(child, ast.expr):
                bound = self.reads(child, bound)
        return bound


def _loads(node: ast.AST, local: frozenset) -> Iterator[str]:
    """Global names ``node`` reads when it runs (comprehension variables are their own)."""
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id not in local:
            yield node.id
        return
    if isinstance(node, ast.Lambda):
        yield from _loads(node.args, local)
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        inner = local
        for i, gen in enumerate(node.generators):
            yield from _loads(gen.iter, local if i == 0 else inner)
            inner = inner | {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            for cond in gen.ifs:
                yield from _loads(cond, inner)
        for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
            yield from _loads(part, inner)
        return
    for child in ast.iter_child_nodes(node):
        yield from _loads(child, local)


# ---- running the cell ----

@dataclass(frozen=True)
class CellRun:
    """The outcome of one run of the cell: what a plain run would have given, plus findings."""

    value: Any  # the cell's last expression (None when it has none, or it raised)
    error: Optional[BaseException]  # the exception a plain run raises, unchanged; None if none
    findings: tuple[Finding, ...] = ()
    returns_value: bool = False  # whether `value` is the cell's displayed value
    # (filename, lineno, frame name) of the cell code Dynamo was compiling when Ctrl-C came
    interrupted_at: Optional[tuple[str, int, str]] = None

    @property
    def shown_value(self) -> Any:
        """What IPython displays as the cell's value."""
        return self.value if self.returns_value and self.error is None else None


def run_cell(cell: CellFunction, compiled: Callable[[], Any], *, fullgraph: bool = False) -> CellRun:
    """Calls ``compiled`` (``torch.compile(cell.fn, ...)``) once so that the cell ends as a plain run.

    Around the call, all undone in ``finally`` (also on KeyboardInterrupt):

    * ``torch._dynamo.config.suppress_errors`` is on: a frame whose compile raises
      (a shape error or ``tensor + "x"`` seen while tracing, a deep recursion) runs
      as the plain Python it is, so the cell raises the real exception from its own
      line after binding what came before, and its own ``try/except`` catches it.
      Dynamo's warning for such a frame stays off stderr and becomes a finding.
      Not with ``fullgraph`` (which must fail), nor when the user set
      ``fail_on_recompile_limit_hit`` (torch refuses both at once).
    * ``rewrite_assert_with_torch_assert`` is off: a failing ``assert`` on tensor
      data is an AssertionError from its line, not a RuntimeError from a kernel.
    * Names the cell binds later get a placeholder only while Dynamo compiles
      (``_NameWindows``); no user code ever sees one.
    * Afterwards the compilations made for the cell are dropped (they cannot run
      again: the cell's code object is new each run), and with them every helper
      global Dynamo put in the namespace.
    """
    findings: list[Finding] = []
    if compiled is cell.fn or cell.plain_reason:  # --capture-only, or a cell torch.compile cannot compile
        if compiled is not cell.fn:
            findings.append(Finding(f"the cell ran as plain Python, not compiled: {cell.plain_reason}. "
                                    "What its own torch.compile calls compiled is shown"))
        value, error = _run_plainly(cell, findings)
        return CellRun(value=value if error is None else None, error=error, findings=tuple(_unique(findings)),
                       returns_value=cell.returns_value)
    value: Any = None
    error: Optional[BaseException] = None
    watch = _Watch(cell, findings)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(_recursion_headroom())
            watch.user_suppresses = _user_suppresses()
            watch.suppressing = stack.enter_context(_cell_config(fullgraph, findings))
            stack.enter_context(watch)
            stack.enter_context(_module_state(cell))
            try:
                value = compiled()
            except BaseException as e:  # noqa: BLE001 - handed back in CellRun.error, the caller re-raises it
                error = e
        if error is not None and watch.refused(error):
            # Dynamo refused the cell's own frame before any of it ran: run it as plain Python, with the
            # user's own config (their torch.compile calls behave as in a plain run)
            findings.append(watch.refusal_finding(error))
            value, error = _run_plainly(cell, findings)
    finally:
        watch.forget_compilations()
    findings.extend(watch.conclude(error, fullgraph))
    return CellRun(value=value if error is None else None, error=error, findings=tuple(_unique(findings)),
                   returns_value=cell.returns_value, interrupted_at=watch.interrupted_at(error))


def _run_plainly(cell: CellFunction, findings: list[Finding]) -> tuple[Any, Optional[BaseException]]:
    """The cell as plain Python: Dynamo off for its frame and all it calls (the user's own compiled
    functions still compile, as in a plain run); the config is the user's."""
    from .capturing import torch_compat

    resets = torch_compat.CompileCallbacks().install()
    value: Any = None
    error: Optional[BaseException] = None
    try:
        with _recursion_headroom(), _module_state(cell):
            try:
                value = torch_compat.not_traced(cell.fn)()
            except BaseException as e:  # noqa: BLE001 - handed back in CellRun.error, the caller re-raises it
                error = e
        if resets.reset_seen():
            findings.append(reset_finding())
    finally:
        resets.remove()
    return value, error


def _user_suppresses() -> bool:
    """The user's own ``torch._dynamo.config.suppress_errors`` (torch.compile then falls back to eager)."""
    from .capturing import torch_compat

    return bool(torch_compat.dynamo_config_value("suppress_errors"))


def reset_finding() -> Finding:
    return Finding("the cell called torch._dynamo.reset() (or torch.compiler.reset()): Dynamo forgot "
                   "every compilation made before it, and torch numbers compilations from 0/0 again. The view "
                   "keeps both: a compilation after the reset is named with its generation, [g1 0/0] after "
                   "the first reset, [g2 0/0] after the second")


@contextlib.contextmanager
def _recursion_headroom() -> Iterator[None]:
    """The recursion limit, raised by the frames the magic itself stands on, for the cell's run.

    A plain cell runs in the ``<module>`` frame IPython executes; under the magic the
    cell runs a dozen frames deeper (IPython's magic call, the magic, ``run_cell``,
    torch.compile's wrapper). Inductor lowers a long chain of pointwise ops by
    recursion, one frame per op (``lowering.py: inner_fn``): a 10,000-op cell that
    just fits under the limit plainly raised ``RecursionError`` under the magic. With
    the headroom the cell's own code has the depth a plain run gives it.
    """
    import sys

    depth, frame = 0, sys._getframe()
    while frame is not None and frame.f_code.co_name != "<module>":
        depth, frame = depth + 1, frame.f_back
    if frame is None:  # not called from a cell (e.g. a script's function): nothing to make up for
        yield
        return
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(before + depth + _TORCH_COMPILE_WRAPPER_FRAMES)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == before + depth + _TORCH_COMPILE_WRAPPER_FRAMES:
            sys.setrecursionlimit(before)  # else someone (Inductor raises it to 2000) set it on purpose: kept


_TORCH_COMPILE_WRAPPER_FRAMES = 4  # the compiled function's call, counted with a margin


@contextlib.contextmanager
def rerun(cell: CellFunction) -> Iterator[None]:
    """For running the cell again (``--timeit``): the same names and clean-up as ``run_cell``."""
    watch = _Watch(cell, [])
    try:
        with _cell_config(False, []) as watch.suppressing, watch, _module_state(cell):
            yield
    finally:
        watch.forget_compilations()


def _unique(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        if f.message not in seen:
            seen.add(f.message)
            out.append(f)
    return out


@contextlib.contextmanager
def _cell_config(fullgraph: bool, findings: list[Finding]) -> Iterator[bool]:
    """The config for the cell's run; yields whether compile errors are suppressed."""
    from .capturing import torch_compat

    values: dict[str, Any] = {}
    if not fullgraph:
        # an assert stays Python: a graph break where it reads tensor data (see _Watch)
        values["rewrite_assert_with_torch_assert"] = False
        if torch_compat.dynamo_config_value("fail_on_recompile_limit_hit"):
            findings.append(Finding("torch._dynamo.config.fail_on_recompile_limit_hit is set, so "
                                    "errors while compiling are not turned into plain runs of the frame "
                                    "(torch allows only one of the two)"))
        else:
            values["suppress_errors"] = True
    with torch_compat.dynamo_config(values):
        yield bool(values.get("suppress_errors"))


@contextlib.contextmanager
def _module_state(cell: CellFunction) -> Iterator[None]:
    """What module code has that the function needs: the torch marker, ``__annotations__``."""
    import torch

    ns = cell.namespace
    added = []
    if TORCH_MARKER not in ns:
        ns[TORCH_MARKER] = torch
        added.append(TORCH_MARKER)
    if cell.annotates and "__annotations__" not in ns:
        ns["__annotations__"] = {}  # module code creates it before the first statement, and keeps it
    try:
        yield
    finally:
        for name in added:
            if ns.get(name) is torch:
                del ns[name]


_GRAPH_BREAK_AT = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)")
_RESUME_NAME = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")


class _Watch:
    """Everything ``run_cell`` listens to while the cell runs; removed on exit.

    * a filter on Dynamo's ``convert_frame`` logger: a frame Dynamo could not
      compile and ran unchanged (the suppressed error) becomes a finding instead
      of a traceback on stderr; fake tensors' report of the same failure too;
    * a handler on the structured trace: compile ids and user lines of failed
      compiles, graph breaks the explorer's settings cause, Inductor's RNG;
    * Dynamo's bytecode hook: which code objects were compiled for the cell;
    * ``_NameWindows`` (placeholders while Dynamo compiles, Dynamo's helper globals).
    """

    def __init__(self, cell: CellFunction, findings: list[Finding]) -> None:
        self.cell = cell
        self.findings = findings
        self.names = _NameWindows(cell)
        self.codes: list[Any] = []
        self._failed: dict[str, dict] = {}  # compile id -> compilation_metrics of a failed compile
        self._last_failed: Optional[dict] = None
        self._last_start: Optional[dict] = None
        self._meta_failures: list[str] = []
        self._rng_ids: list[Optional[str]] = []  # compile ids of graphs drawing Inductor's random numbers
        self._stack = contextlib.ExitStack()
        self.suppressing = False  # suppress_errors is on for the cell (set by run_cell)
        self.user_suppresses = False  # the user's own suppress_errors (set by run_cell)
        self._backend_failed = False
        self.rewritten: list[Any] = []  # Dynamo's rewritten code for ``codes``: their helper globals go with them
        self.rewrote_any = False  # Dynamo compiled code of the cell (which ``forget_compilations`` then drops)
        self.resets = 0  # torch._dynamo.reset() calls seen while the cell ran
        self._callbacks: Any = None  # torch_compat.CompileCallbacks
        self._refused: Optional[dict] = None  # compilation_metrics of the cell's own frame, refused and raised
        self._compiling = False  # Dynamo is compiling, for the cell (a plain run of it compiles nothing)
        self.dynamo_warnings: list[str] = []

    # ---- install / remove ----
    def __enter__(self) -> _Watch:
        from .capturing import torch_compat

        try:
            self._filter(torch_compat.SUPPRESSED_FRAME_LOGGER, self._on_convert_frame)
            self._filter(torch_compat.FAKE_TENSOR_LOGGER, self._on_fake_tensor)
            trace = torch_compat.trace_logger()
            handler = _TraceHandler(self)
            trace.addHandler(handler)
            self._stack.callback(trace.removeHandler, handler)
            self._stack.callback(torch_compat.register_bytecode_hook(self._on_bytecode).remove)
            self._callbacks = self._stack.enter_context(
                torch_compat.compile_callbacks(self._on_compile_start, self.names.close))
            self._stack.enter_context(_dynamo_warnings_diverted(self))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> bool:
        try:
            self._note_reset()  # a reset after the last compilation
        finally:
            self._stack.close()
        return False

    def _note_reset(self) -> None:
        if self._callbacks is not None and self._callbacks.reset_seen():
            self.resets += 1

    def _filter(self, name: str, fn: Callable[[logging.LogRecord], bool]) -> None:
        logger = logging.getLogger(name)
        filt = _CallFilter(fn)
        logger.addFilter(filt)
        self._stack.callback(logger.removeFilter, filt)

    # ---- callbacks ----
    def _on_compile_start(self) -> None:
        if self._backend_failed:  # a frame compiled after a backend failure is suppressed again
            from .capturing import torch_compat

            torch_compat.set_dynamo_config("suppress_errors", True)
            self._backend_failed = False
        self.names.open()

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        from .capturing import torch_compat

        if not any(c is code for c in self.codes):
            if not (code is self.cell.fn.__code__ or not torch_compat.cache_entries(code)):
                return  # compiled before this cell: not the cell's to forget
            self.codes.append(code)  # first compiled for this cell: forgotten afterwards
        self.rewritten.append(new_code)
        self.rewrote_any = True

    def _on_convert_frame(self, record: logging.LogRecord) -> bool:
        """False (drop) for Dynamo's "WON'T CONVERT" report of an error it suppressed."""
        from .capturing import torch_compat

        message = record.getMessage()
        if record.levelno < logging.WARNING or not message.startswith(torch_compat.SUPPRESSED_FRAME_PREFIX):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        m = re.match(r"WON'T CONVERT (?P<name>\S+) (?P<file>.+?) line (?P<line>\d+)", message)
        # the cell's own code refused after a graph break: the rest of it runs with Dynamo off, as plain Python
        plainly = bool(m and m["file"] == self.cell.filename and torch_compat.run_frame_plainly(exc))
        self.findings.append(self._frame_ran_plainly(message, exc, plainly))
        return False

    def _on_fake_tensor(self, record: logging.LogRecord) -> bool:
        from .capturing import torch_compat

        message = record.getMessage()
        if not message.startswith(torch_compat.FAKE_TENSOR_META_FAILURE):
            return True
        self._meta_failures.append(message)
        return False

    def on_trace(self, metadata: dict, payload: Optional[str]) -> None:
        if "dynamo_start" in metadata:
            self._last_start = metadata
            self._note_reset()  # Dynamo writes this record before it runs the start callbacks
            self._refused = None
            self._compiling = True
            return
        metrics = metadata.get("compilation_metrics")
        if isinstance(metrics, dict):
            self._compiling = False
            if metrics.get("fail_type"):
                metrics = dict(metrics, explorer_compile_id=_compile_id(metadata))
                self._last_failed = metrics
                self._failed[str(metrics.get("compile_id"))] = metrics
                self._on_failed_compile(metrics)
            return
        artifact = metadata.get("artifact")
        name = artifact.get("name") if isinstance(artifact, dict) else None
        if name == "dynamo_graph_break_reason" and payload:
            self._on_graph_break(payload, _compile_id(metadata))
        elif "inductor_output_code" in metadata and payload:
            from .capturing import torch_compat

            if any(marker in payload for marker in torch_compat.INDUCTOR_RNG_MARKERS):
                self._rng_ids.append(_compile_id(metadata))

    def _on_failed_compile(self, metrics: dict) -> None:
        """A failed compile that must raise instead of running its frame unconverted.

        Compilation metrics are written before Dynamo decides whether to suppress the
        error, so turning suppression off here makes exactly this failure raise; the
        next compile turns it on again.

        * A backend that raised is the user's chosen compiler failing: that raises, as
          with torch.compile (``BackendCompilerFailed``, Inductor's ``InductorError``),
          unless the user set ``suppress_errors`` themselves (torch.compile then falls
          back to eager, and so does the cell).
        * The cell's own frame, refused before any of it ran: it raises out of the
          compiled call, and ``run_cell`` runs the cell as plain Python, so nothing of it
          runs inside a compile region (Dynamo would run the refused frame with its
          callback still installed: ``set_stance`` raises there, ``is_compiling`` lies).
          A refusal Dynamo always skips quietly (a graph break it cannot resume from)
          runs as torch.compile runs it.
        """
        from .capturing import torch_compat

        if not self.suppressing:
            return
        fail_type = str(metrics.get("fail_type"))
        backend = fail_type in torch_compat.BACKEND_FAILURES
        own = metrics.get("co_name") == CELL_FUNCTION_NAME and metrics.get("co_filename") == self.cell.filename
        if backend and not self.user_suppresses:
            torch_compat.set_dynamo_config("suppress_errors", False)
            self._backend_failed = True
        elif own and not torch_compat.is_soft_failure(fail_type):
            torch_compat.set_dynamo_config("suppress_errors", False)
            self._backend_failed = True
            self._refused = metrics

    def refused(self, error: BaseException) -> bool:
        """``error`` is Dynamo refusing the cell's own frame (``_on_failed_compile``): nothing of the cell ran.

        The refusal raises straight out of the compiled call (the cell's frame has not
        started, so no ``try`` of the cell sees it); a backend's failure carries the
        backend's traceback, so the compile is not always among its frames.
        """
        return self._refused is not None and isinstance(error, Exception)

    def refusal_finding(self, error: BaseException) -> Finding:
        metrics = self._refused or {}
        cid = metrics.get("explorer_compile_id")
        lineno = metrics.get("fail_user_frame_lineno") if metrics.get("fail_user_frame_filename") == \
            self.cell.filename else None
        where = f" (it failed at line {lineno})" if lineno else ""
        if str(metrics.get("fail_type")) in ("BackendCompilerFailed", "InductorError"):
            why = (f"the backend raised ({_exception_words(error)}); torch._dynamo.config.suppress_errors is "
                   "True (your setting), so torch.compile falls back to eager")
        else:
            why = _exception_words(error)
        return Finding(f"Dynamo could not compile the cell{where}: {why}; the cell ran as plain Python "
                       "(nothing of it compiled; the torch.compile calls it makes itself still compile)", None,
                       cid, int(lineno) if lineno else None)

    def _on_graph_break(self, payload: str, compile_id: Optional[str]) -> None:
        m = _GRAPH_BREAK_AT.search(payload)
        if m is None or m["file"] != self.cell.filename:
            return
        lineno = int(m["line"])
        line = linecache.getline(self.cell.filename, lineno).strip()
        if line.startswith("assert ") or line.startswith("assert("):
            self.findings.append(Finding(
                f"line {lineno} `{line}`: a graph break here, because the explorer keeps an assert "
                "on tensor data a Python assert (a failing one is an AssertionError, as in a plain run); "
                "plain torch.compile puts it in the graph as torch._assert_async, and a failing one raises "
                "RuntimeError from the kernel", "graph_break", compile_id, lineno))
        elif re.match(r"del\b", line) and "disable" in payload:
            self.findings.append(Finding(
                f"line {lineno} `{line}`: a graph break here, because Dynamo cannot delete a global "
                "(it has no DELETE_GLOBAL): the explorer runs the del as plain Python, where Dynamo alone would "
                "give up on the whole frame", "graph_break", compile_id, lineno))
        elif "RemovableHandle" in payload:
            self.findings.append(Finding(
                f"line {lineno} `{line}` reads a name the cell binds only later: a graph break "
                "here, and that line runs as plain Python (a plain run raises the same NameError)", "graph_break",
                compile_id, lineno))

    # ---- after the run ----
    def _frame_ran_plainly(self, message: str, exc: Optional[BaseException], plainly: bool = False) -> Finding:
        metrics = self._last_failed or {}
        compile_id = metrics.get("explorer_compile_id")
        m = re.match(r"WON'T CONVERT (?P<name>\S+) (?P<file>.+?) line (?P<line>\d+)", message)
        where = self._frame_words(m["name"], m["file"], int(m["line"])) if m else "a frame"
        lineno = None
        if metrics.get("fail_user_frame_filename") == self.cell.filename and metrics.get("fail_user_frame_lineno"):
            lineno = int(metrics["fail_user_frame_lineno"])
            where += f" (it failed at line {lineno})"
        why = _exception_words(exc) if exc is not None else (metrics.get("fail_type") or "an error")
        if str(metrics.get("fail_type")) in ("BackendCompilerFailed", "InductorError") and self.user_suppresses:
            why += ("; torch._dynamo.config.suppress_errors is True (your setting), so torch.compile falls back "
                    "to eager for it")
        self._meta_failures.clear()  # fake tensors' report of this same failure
        ran = "that frame ran as plain Python" + (" (Dynamo off for it and all it called)" if plainly else "")
        return Finding(f"Dynamo could not compile {where}: {why}; {ran}", None, compile_id, lineno)

    def _frame_words(self, name: str, filename: str, lineno: int) -> str:
        resume = _RESUME_NAME.match(name)
        if filename == self.cell.filename:
            if name == CELL_FUNCTION_NAME:
                return "the cell"
            if resume and resume["fn"] == CELL_FUNCTION_NAME:
                return f"the cell from line {resume['line']} on (after a graph break)"
        if resume:
            return f"{resume['fn']} from line {resume['line']} on ({filename.rsplit('/', 1)[-1]})"
        return f"{name} ({filename.rsplit('/', 1)[-1]}:{lineno})"

    def conclude(self, error: Optional[BaseException], fullgraph: bool) -> list[Finding]:
        from .capturing import torch_compat
        from .capturing.compile_id import sort_key

        out: list[Finding] = []
        if self.resets:
            out.append(reset_finding())
        out += self._nested_compile_findings()
        if self.cell.is_compiling_lines:
            lines = ", ".join(str(n) for n in self.cell.is_compiling_lines)
            out.append(Finding(f"line {lines}: torch.compiler.is_compiling() is asked by the cell "
                               "itself. Dynamo would fold it to True inside the compiled cell, where a plain run "
                               "gets False, so the explorer runs that call as plain Python (a graph break there) "
                               "and the cell takes the branch a plain run takes", "graph_break"))
        if self.cell.is_compiling_inside and self.rewrote_any:
            lines = ", ".join(str(n) for n in self.cell.is_compiling_inside)
            out.append(Finding(f"line {lines}: a function of the cell asks torch.compiler.is_compiling(). "
                               "Where the compiled cell calls it, Dynamo traces it as part of the cell and folds "
                               "the answer to True; a plain run of the cell gets False there (unless the function "
                               "is compiled by a torch.compile of your own)"))
        if self.dynamo_warnings:
            out.append(Finding("while compiling the cell Dynamo warned (a plain run compiles nothing and "
                               "warns nothing; kept here, off stderr): " + "; ".join(dict.fromkeys(
                                   self.dynamo_warnings))))
        for message in self._meta_failures:  # a fake-tensor failure no suppressed frame explained
            out.append(Finding(f"fake tensors: {message}"))
        if self._rng_ids and torch_compat.inductor_fallback_random() is False:
            ids = ", ".join(sorted({cid or "?" for cid in self._rng_ids}, key=sort_key))
            out.append(Finding(
                f"graph {ids} draws random numbers with Inductor's own generator: after "
                "torch.manual_seed it gives other values than eager PyTorch. For the same values set "
                "torch._inductor.config.fallback_random = True (slower)", "output_code",
                next(filter(None, self._rng_ids), None)))
        if error is not None and _raised_while_compiling(error):
            at = self.interrupted_at(error)
            where = self._frame_words(at[2], at[0], at[1]) if at else "the cell"
            if isinstance(error, KeyboardInterrupt):
                out.append(Finding(f"interrupted while Dynamo was compiling {where}: none of that code "
                                   "had run yet (what ran before it did, and its names are bound)"))
            elif fullgraph:
                out.append(Finding(f"with --fullgraph torch.compile raised while compiling {where}: "
                                   "none of that code ran"))
        self.names.conclude(out)
        return out

    def _nested_compile_findings(self) -> list[Finding]:
        if not self.cell.nested_compiles:
            return []
        lines = ", ".join(str(n) for n in self.cell.nested_compiles)
        return [Finding(f"line {lines}: the cell calls torch.compile itself. Inside the compiled cell "
                        "Dynamo would make that call a no-op (it returns what it is given, uncompiled), so the "
                        "explorer runs it as plain Python, a graph break at that line: what it returns is compiled "
                        "as in a plain run. Its own compilations show when it runs outside the cell's compiled "
                        "code; %%compile --capture-only runs the cell as it is and shows exactly what the cell's "
                        "own torch.compile calls compile", "graph_break")]

    def interrupted_at(self, error: Optional[BaseException]) -> Optional[tuple[str, int, str]]:
        """Where Dynamo was compiling when ``error`` came out of the compile itself."""
        if error is None or not _raised_while_compiling(error):
            return None
        start = (self._last_start or {}).get("dynamo_start")
        stack = (start.get("stack") if isinstance(start, dict) else None) or []
        frame = stack[-1] if stack else None  # the frame being compiled: its first line and name
        if isinstance(frame, dict) and frame.get("line") and frame.get("name") != CELL_FUNCTION_NAME:
            return (self.cell.filename, int(frame["line"]), str(frame.get("name")))
        return (self.cell.filename, _first_statement_line(self.cell), CELL_FUNCTION_NAME)

    def forget_compilations(self) -> None:
        from .capturing import torch_compat

        reset = []
        while self.codes:
            reset += torch_compat.forget_code(self.codes.pop())
        torch_compat.release_helper_globals(reset, self.rewritten)
        self.rewritten.clear()
        self.names.remove_leftovers()


@contextlib.contextmanager
def _dynamo_warnings_diverted(watch: _Watch) -> Iterator[None]:
    """Warnings Dynamo and Inductor give while they compile for the cell become a finding, not stderr lines.

    A plain run of the cell compiles nothing, so it prints none of them ("Dynamo does
    not know how to trace the builtin ...", "Profiler record function ... will be
    ignored"): Python warnings, and WARNING records of torch's loggers, which torch
    writes through its own stderr handlers. Everything else (the cell's own warnings,
    torch's records outside a compile) is shown as usual.
    """
    import warnings

    shown = warnings.showwarning

    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        if watch._compiling:
            text = str(message).strip().splitlines()
            watch.dynamo_warnings.append(f"{category.__name__}: {text[0] if text else ''}")
            return
        shown(message, category, filename, lineno, file, line)

    def keep(record: logging.LogRecord) -> bool:
        if watch._compiling and record.levelno == logging.WARNING:
            text = record.getMessage().strip().splitlines()
            watch.dynamo_warnings.append(text[0] if text else record.name)
            return False
        return True

    handlers = {h for name, lg in list(logging.root.manager.loggerDict.items())
                if isinstance(lg, logging.Logger) and (name == "torch" or name.startswith("torch."))
                for h in lg.handlers}
    filt = _CallFilter(keep)
    for h in handlers:
        h.addFilter(filt)
    warnings.showwarning = show
    try:
        yield
    finally:
        if warnings.showwarning is show:  # someone else may have replaced it meanwhile: theirs stays
            warnings.showwarning = shown
        for h in handlers:
            h.removeFilter(filt)


def _first_statement_line(cell: CellFunction) -> int:
    lines = [line for _, _, line in cell.fn.__code__.co_lines() if line and line > 1]
    return min(lines) if lines else 1


def _compile_id(metadata: dict) -> Optional[str]:
    """The record's compilation as the report names it (a generation after a reset; see capturing.compile_id)."""
    from .capturing.recorder import compile_id_of

    cid = compile_id_of(metadata)
    return cid.key if cid is not None else None


def _raised_while_compiling(error: BaseException) -> bool:
    """The exception came out of Dynamo's compile (the frame it compiled had not started)."""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(("_dynamo/convert_frame.py", "_dynamo\\convert_frame.py")):
            return True
        tb = tb.tb_next
    return False


def _exception_words(exc: BaseException) -> str:
    """``TorchRuntimeError (from RuntimeError: shape mismatch ...)``: the first line of each."""
    def first(e: BaseException) -> str:
        text = str(e).strip().splitlines()
        return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__

    cause = exc.__cause__ or exc.__context__
    words = first(exc)
    if cause is not None and type(cause).__name__ not in words:
        words += f" (from {first(cause)})"
    return words if len(words) <= 300 else words[:297] + "..."


class _CallFilter(logging.Filter):
    def __init__(self, fn: Callable[[logging.LogRecord], bool]) -> None:
        super().__init__()
        self.fn = fn

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fn(record)


class _TraceHandler(logging.Handler):
    def __init__(self, watch: _Watch) -> None:
        super().__init__(logging.DEBUG)
        self.watch = watch

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict):
            self.watch.on_trace(metadata, getattr(record, "payload", None))

    def handleError(self, record: logging.LogRecord) -> None:
        """A bug in the watcher must not break the compile, nor go unseen: it becomes a finding."""
        import sys
        import traceback

        exc = sys.exc_info()[1]
        where = "".join(traceback.format_exception(exc)[-3:]).strip() if exc is not None else "?"
        self.watch.findings.append(Finding(f"the explorer's watcher failed on a trace record ({where}); "
                                           "please report this"))


@dataclass
class _NameWindows:
    """Placeholders for names the cell binds, present only while Dynamo compiles.

    Dynamo resolves a global missing from the frame's globals as a builtin before
    looking at globals the frame stored itself (``_load_global`` in
    symbolic_convert.py), so in a fresh namespace ``a = torch.ones(3); b = a + 1``
    made it give up on the whole cell (``list = [...]; list.append(1)`` even read
    the builtin ``list``). A name only has to *exist* for Dynamo to use its own
    record of the store, so while a frame is being compiled each such name the
    cell's code never reads before binding it (``CellFunction.seedable``) gets a
    placeholder, removed when the compile ends: no user code runs in between. If
    Dynamo reads a placeholder itself (a function reads the name before the cell
    binds it), it cannot represent it: a graph break, and the read runs as plain
    Python, when the name is missing again, raising the plain NameError.

    Every other name that appears in the namespace during a compile is one of
    Dynamo's helper globals; those left after the compilations are dropped are removed.
    """

    cell: CellFunction
    placeholders: dict[str, Any] = field(default_factory=dict)
    installed: set[str] = field(default_factory=set)
    _before: set[str] = field(default_factory=set)
    _depth: int = 0

    def open(self) -> None:
        from .capturing import torch_compat

        self._depth += 1
        if self._depth > 1:
            return
        ns = self.cell.namespace
        self._before = set(ns)
        for name in self.cell.seedable:
            if name not in ns:
                placeholder = torch_compat.untraceable_placeholder()
                ns[name] = placeholder
                self.placeholders[name] = placeholder

    def close(self) -> None:
        self._depth -= 1
        if self._depth > 0:
            return
        ns = self.cell.namespace
        for name, placeholder in self.placeholders.items():
            if ns.get(name) is placeholder:
                del ns[name]
        self.installed |= set(ns) - self._before - set(self.placeholders)
        self.placeholders.clear()

    def remove_leftovers(self) -> None:
        """Helper globals of compilations that no longer exist (a failed compile leaves its own)."""
        from .capturing import torch_compat

        ns = self.cell.namespace
        live = torch_compat.pending_cleanup_names(ns)
        for name in sorted(self.installed):
            if name in ns and name not in live:
                del ns[name]
        self.installed &= live

    def conclude(self, findings: list[Finding]) -> None:
        ns = self.cell.namespace
        kept = sorted(n for n in self.installed if n in ns)
        if kept:
            findings.append(Finding(f"Dynamo's helper globals {', '.join(kept)} stay in the namespace: "
                                    "they belong to compiled code that is still cached (a function compiled "
                                    "before this cell)"))
