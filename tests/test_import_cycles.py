"""explorer/ imports downward only: every module sits on a floor of ``FLOORS``, and no import runs back up.

``FLOORS`` is the one table of the layers (README, "How it is built"), lowest first. A module
may import its own floor and those below it; an import of a higher floor fails the test, as
does a module the table does not place (a new module takes its floor with it). No cycle
either, within a floor included.

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

# (floor, modules and packages on it, named below ``explorer``; "__init__" is the package itself), lowest first
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("plain helpers", ("serial", "ipython_compat", "hosts", "plural")),
    ("capture", ("capturing",)),
    ("stages", ("stages",)),
    ("analyses", ("clinic", "timing", "lineage", "structure", "distributed", "preview")),
    ("report", ("report", "options", "schema", "upgrade")),
    ("pipeline", ("pipeline", "targets", "cell", "roomy_stack", "jobs", "traces")),
    ("presentation", ("present",)),
    ("entry points", ("api", "magic", "cli", "widget", "why", "progress", "tracebacks", "__init__", "__main__")),
)


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


def floor_of(module: str) -> int | None:
    """The floor of the longest entry of ``FLOORS`` naming the module or a package above it."""
    name = "__init__" if module == ROOT.name else module.partition(".")[2]
    best: tuple[int, int] | None = None
    for level, (_, names) in enumerate(FLOORS):
        for entry in names:
            if (name == entry or name.startswith(entry + ".")) and (best is None or len(entry) > best[0]):
                best = (len(entry), level)
    return best[1] if best else None


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a higher floor, as ``a (floor) -> b (floor)``."""
    out = []
    for name in sorted(graph):
        for target in sorted(graph[name]):
            low, high = floor_of(name), floor_of(target)
            if low is not None and high is not None and high > low:
                out.append(f"{name} ({FLOORS[low][0]}) -> {target} ({FLOORS[high][0]})")
    return out


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


def test_every_module_has_a_floor_and_every_floor_entry_a_module():
    mods = modules()
    unplaced = sorted(m for m in mods if floor_of(m) is None)
    assert not unplaced, "modules on no floor of FLOORS: " + ", ".join(unplaced)
    named = {"__init__" if m == ROOT.name else m.partition(".")[2] for m in mods}
    stale = [e for _, entries in FLOORS for e in entries if e not in named]
    assert not stale, "FLOORS names what explorer/ no longer has: " + ", ".join(stale)


def test_no_import_runs_up_a_floor():
    found = upward(edges(modules()))
    assert not found, "imports of a higher floor:\n" + "\n".join(found)


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


def test_an_upward_import_is_found(tmp_path):
    """The floors check finds what it is for: a lower floor importing a higher one lazily, inside a function,
    and nothing where the import goes down."""
    pkg = tmp_path / "explorer"
    (pkg / "capturing").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "capturing" / "__init__.py").write_text("")
    (pkg / "capturing" / "model.py").write_text("def f():\n    from ..report import Report\n")
    (pkg / "report.py").write_text("from .capturing.model import f\n")
    global ROOT
    old, ROOT = ROOT, pkg
    try:
        assert upward(edges(modules())) == ["explorer.capturing.model (capture) -> explorer.report (report)"]
    finally:
        ROOT = old
