"""Which names the cell may read before its own code binds them (those get no placeholder).

A forward "definitely bound" walk over the cell's top-level statements, one method per kind of
statement (``BoundWalk.STATEMENTS``).
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterator, Optional


def read_before_bound(stmts: list[ast.stmt]) -> set[str]:
    """Names some top-level statement may read (or delete) before the cell's own code bound them.

    A forward "definitely bound" walk over the cell's statements in order: branches
    meet with the names bound on every path, loop bodies and except handlers may
    not run. Reads inside functions and lambdas the cell defines happen later and
    are not counted (a placeholder read there is a graph break, see NameWindows).
    """
    walk = _BoundWalk()
    walk.block(stmts, frozenset())
    return walk.early


class _BoundWalk:
    """The walk's state: ``early`` collects names read where they may not be bound yet."""

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

    def stmt(self, s: ast.stmt, bound: frozenset) -> frozenset:
        """``bound`` after ``s`` ran: the method for its kind, else its expressions are only read."""
        for kinds, method in self.STATEMENTS:
            if isinstance(s, kinds):
                return method(self, s, bound)
        if type(s).__name__ == "TryStar":  # Python 3.11+
            return self._try(s, bound)
        for child in ast.iter_child_nodes(s):  # raise, assert, return, ...: reads only
            if isinstance(child, ast.expr):
                bound = self.reads(child, bound)
        return bound

    def _expr(self, s: ast.Expr, bound: frozenset) -> frozenset:
        return self.reads(s.value, bound)

    def _assign(self, s: ast.Assign, bound: frozenset) -> frozenset:
        bound = self.reads(s.value, bound)
        for t in s.targets:
            bound = self.store(t, bound)
        return bound

    def _aug_assign(self, s: ast.AugAssign, bound: frozenset) -> frozenset:
        bound = self.reads(s.value, bound)
        if not isinstance(s.target, ast.Name):
            return self.reads(s.target, bound)
        if s.target.id not in bound:
            self.early.add(s.target.id)
        return bound | {s.target.id}

    def _ann_assign(self, s: ast.AnnAssign, bound: frozenset) -> frozenset:
        bound = self.reads(s.annotation, self.reads(s.value, bound))
        return self.store(s.target, bound) if s.value is not None else bound

    def _delete(self, s: ast.Delete, bound: frozenset) -> frozenset:
        for t in s.targets:
            if not isinstance(t, ast.Name):
                bound = self.reads(t, bound)
                continue
            if t.id not in bound:
                self.early.add(t.id)
            bound = bound - {t.id}
        return bound

    def _import(self, s: ast.Import | ast.ImportFrom, bound: frozenset) -> frozenset:
        return bound | {(a.asname or a.name).split(".")[0] for a in s.names if a.name != "*"}

    def _function(self, s: ast.FunctionDef | ast.AsyncFunctionDef, bound: frozenset) -> frozenset:
        for d in s.decorator_list:
            bound = self.reads(d, bound)
        bound = self.reads(s.args, bound) if s.args else bound
        return bound | {s.name}

    def _class(self, s: ast.ClassDef, bound: frozenset) -> frozenset:
        for node in [*s.decorator_list, *s.bases, *(k.value for k in s.keywords)]:
            bound = self.reads(node, bound)
        self.block(s.body, bound)  # the class body runs now; what it binds is the class's
        return bound | {s.name}

    def _if(self, s: ast.If, bound: frozenset) -> frozenset:
        bound = self.reads(s.test, bound)
        return self.block(s.body, bound) & self.block(s.orelse, bound)

    def _for(self, s: ast.For | ast.AsyncFor, bound: frozenset) -> frozenset:
        bound = self.reads(s.iter, bound)
        self.block(s.body, self.store(s.target, bound))
        after_else = self.block(s.orelse, bound)
        return bound if _breaks(s) else after_else

    def _while(self, s: ast.While, bound: frozenset) -> frozenset:
        bound = self.reads(s.test, bound)
        self.block(s.body, bound)
        after_else = self.block(s.orelse, bound)
        return bound if _breaks(s) else after_else

    def _with(self, s: ast.With | ast.AsyncWith, bound: frozenset) -> frozenset:
        for item in s.items:
            bound = self.reads(item.context_expr, bound)
            if item.optional_vars is not None:
                bound = self.store(item.optional_vars, bound)
        return self.block(s.body, bound)

    def _try(self, s: Any, bound: frozenset) -> frozenset:
        """``try`` and ``try/except*``: bound after it is what every path (else, each handler) bound."""
        after_body = self.block(s.body, bound)
        paths = [self.block(s.orelse, after_body)]
        for h in s.handlers:
            start = self.reads(h.type, bound)
            start = start | {h.name} if h.name else start
            paths.append(self.block(h.body, start) - ({h.name} if h.name else set()))
        return frozenset.intersection(*paths) | self.block(s.finalbody, bound)

    def _match(self, s: ast.Match, bound: frozenset) -> frozenset:
        bound = self.reads(s.subject, bound)
        for case in s.cases:
            names = {n.name for n in ast.walk(case.pattern) if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name}
            names |= {n.rest for n in ast.walk(case.pattern) if isinstance(n, ast.MatchMapping) and n.rest}
            self.block(case.body, self.reads(case.guard, bound | names))
        return bound

    STATEMENTS: tuple[tuple[Any, Callable[..., frozenset]], ...] = (
        (ast.Expr, _expr), (ast.Assign, _assign), (ast.AugAssign, _aug_assign), (ast.AnnAssign, _ann_assign),
        (ast.Delete, _delete), ((ast.Import, ast.ImportFrom), _import),
        ((ast.FunctionDef, ast.AsyncFunctionDef), _function), (ast.ClassDef, _class), (ast.If, _if),
        ((ast.For, ast.AsyncFor), _for), (ast.While, _while), ((ast.With, ast.AsyncWith), _with),
        (ast.Try, _try), (ast.Match, _match),
    )


def _breaks(loop: ast.stmt) -> bool:
    """The loop may end by ``break`` (its ``else`` then may not run)."""
    return any(isinstance(n, ast.Break) for n in ast.walk(loop))


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
