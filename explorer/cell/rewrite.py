"""Module semantics inside a function: the cell's top-level statements rewritten where the two differ.

``x: int = 3`` records ``__annotations__``, ``%time y = ...`` runs its code in the namespace,
``locals()`` is the namespace, ``del name`` and ``from m import *`` run as module code, and a
top-level ``torch.compile`` or ``is_compiling()`` runs as plain Python. The helpers the rewritten
statements call are closure cells of an outer function (``OUTER``): none is a name in the user's
namespace.
"""

from __future__ import annotations

import ast
from typing import Any, Optional

# The cell function is made inside this one, so the helpers its rewritten statements use are
# closure cells: no name of the explorer is ever visible in the user's namespace for them.
OUTER = "__compile_explorer_cell__"
EVAL = "__compile_explorer_eval__"  # builtins.eval, for line magics (they run in the namespace)
NS = "__compile_explorer_ns__"  # the namespace itself, for locals() / vars()
EXEC = "__compile_explorer_exec__"  # builtins.exec and builtins.compile, for `from m import *`
COMPILE = "__compile_explorer_compile__"
DEL = "__compile_explorer_del__"  # `del name`: Dynamo has no DELETE_GLOBAL, and would skip the whole cell
# `torch.compile` at the cell's top level: Dynamo would make the call a no-op inside the compiled cell
PLAIN = "__compile_explorer_plain__"
# calls through which Dynamo would read the namespace dict itself while tracing
_NAMESPACE_READERS = frozenset({"globals", "locals", "vars", "dir"})


class Rewriter:
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
            code = ast.Call(func=ast.Name(id=COMPILE, ctx=ast.Load()),
                            args=[ast.Constant(text), ast.Constant(self.filename), ast.Constant("exec")], keywords=[])
            call = ast.Call(func=ast.Name(id=EXEC, ctx=ast.Load()), args=[code, ast.Name(id=NS, ctx=ast.Load())],
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
            call = ast.Call(func=ast.Name(id=DEL, ctx=ast.Load()), args=[ast.Constant(target.id)], keywords=[])
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

    def __init__(self, rewriter: Rewriter) -> None:
        self.rewriter = rewriter

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        node.args = self.visit(node.args)  # defaults run now; the body later, in its own scope
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        plain = _runs_plainly(node)
        if plain:  # see _plain_helper
            (self.rewriter.nested_compiles if plain == "compile" else self.rewriter.is_compiling).append(node.lineno)
            call = ast.Call(func=ast.Name(id=PLAIN, ctx=ast.Load()), args=[node], keywords=[])
            return ast.copy_location(call, node)
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NAMESPACE_READERS:
            self.rewriter.reads_namespace = True
            if func.id in ("locals", "vars") and not node.args and not node.keywords:
                return ast.copy_location(ast.Name(id=NS, ctx=ast.Load()), node)  # module code: the namespace
        if _is_line_magic(node):
            # IPython's %time / %timeit run their statement in the caller's locals; a function's
            # locals would swallow `y` of `%time y = f(x)`. As module code, locals are the namespace.
            call = ast.Call(func=ast.Name(id=EVAL, ctx=ast.Load()),
                            args=[ast.Constant(ast.unparse(node)), ast.Name(id=NS, ctx=ast.Load())], keywords=[])
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
