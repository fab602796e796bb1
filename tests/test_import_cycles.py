"""No import cycle in explorer/: the layers import downward only (README, "How it is built").

An AST walk of every ``import`` and ``from ... import`` in each module, those inside
functions included (a lazy import still ties two modules together). ``from pkg import
name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg`` itself; importing a
module does not count as importing its package's ``__init__`` (Python runs it, but the
package's own imports are its own edges).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "explorer"


def modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_walk_sees_lazy_and_relative_imports():
    graph = edges(modules())
    assert "explorer.report" in graph["explorer.present.viewmodel"]  # module level, relative
    assert "explorer.present.page" in graph["explorer.present.html"]  # inside a function
    assert "explorer.lineage.model" in graph["explorer.lineage.build"]


def test_no_import_cycle_in_explorer():
    found = cycles(edges(modules()))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_cycle_is_found(tmp_path):
    """The walk finds what it is for: two modules importing each other, one of them lazily."""
    pkg = tmp_path / "explorer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("def x():\n    from . import a\n")
    global ROOT
    old, ROOT = ROOT, pkg
    try:
        assert cycles(edges(modules())) == [["explorer.a", "explorer.b"]]
    finally:
        ROOT = old
