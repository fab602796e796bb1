"""Every name the package defines is used by the package, or is its public face: no dead code, no test-only code.

A function, class, method or module-level constant defined in ``explorer/`` and used nowhere but in its own
definition (and in tests) fails. Read with ``ast`` over ``explorer/``; a name counts as used where

- it is read elsewhere in ``explorer/``: a name, an attribute (``module.f``, ``obj.method``) or an import;
- a string of the package holds it as code, docstrings aside: the whole string (``getattr(obj, name)`` over a
  tuple of names such as ``_json_derived``, ``__all__``), or ``.name`` or ``name(`` in it (code the package writes
  into the user's cell: ``magic.not_compiled("await")``); the words of a sentence do not count;
- ``pyproject.toml`` names it as an entry point (``explorer.cli:main``);
- the user-facing docs name it in code (README.md and ``docs/``, but for ``docs/architecture.md``, which describes
  the inside): it is public API, such as ``Lineage.reached_from`` or ``diff_ranks``;
- it is a method that something outside the package calls by its name: it overrides a method of a base class
  (``logging.Handler.emit``), ``ast.NodeVisitor`` dispatches to it (``visit_Call``), or IPython's display asks for
  it (``_repr_html_``).

Names are matched by name, not resolved: a dead function that shares its name with a live one elsewhere passes (a
miss, never a false alarm). Dunder methods are Python's; dataclass fields are data (the schema and the JSON are
their use) and class attributes (anywidget's ``_esm``, traitlets) are not judged. The front end's JavaScript reads
payload keys, which are dict keys, not Python names, so it needs no rule here. What is left is ``ALLOWED``, each
with its reason.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ALLOWED = {
    "explorer/preview/fake_inputs.py:FakeReader.unsupported":
        "FakeReader stands in for torch's InputReader: the repro text torch writes calls reader.unsupported(name)",
}
IPYTHON_DISPLAY = {"_repr_html_", "_repr_markdown_", "_repr_mimebundle_", "_repr_pretty_", "_ipython_display_",
                   "_repr_svg_", "_repr_png_", "_repr_json_", "_repr_latex_"}
PUBLIC_DOCS = ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").rglob("*.md")
                                    if p.name != "architecture.md")]


def package_sources() -> dict[str, str]:
    return {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted((REPO / "explorer").rglob("*.py"))}


def _definitions(path: str, tree: ast.Module) -> list[tuple[str, ast.AST, ast.ClassDef | None]]:
    """(qualified name, its node, its class for a method) of each module-level def, class, constant and method."""
    found: list[tuple[str, ast.AST, ast.ClassDef | None]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node, None))
            if isinstance(node, ast.ClassDef):
                found += [(f"{node.name}.{sub.name}", sub, node) for sub in node.body
                          if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(n.id, node, None) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return [(name, node, cls) for name, node, cls in found if not re.fullmatch(r"__\w+__", name.split(".")[-1])]


def _docstrings(tree: ast.Module) -> set[int]:
    return {id(body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and (body := node.body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)}


def _uses(trees: dict[str, ast.Module]) -> dict[str, list[tuple[str, int]]]:
    """Each word the package reads (a name, an attribute, an import, a word of a string): where."""
    uses: dict[str, list[tuple[str, int]]] = {}
    for path, tree in trees.items():
        docs = _docstrings(tree)
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store):
                words = [n.id]
            elif isinstance(n, ast.Attribute):
                words = [n.attr]
            elif isinstance(n, ast.alias):
                words = [n.name.rsplit(".", 1)[-1]]
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                words = _code_words(n.value)
            else:
                continue
            for word in words:
                uses.setdefault(word, []).append((path, n.lineno))
    return uses


def _code_words(text: str) -> list[str]:
    """The names a string holds as code: all of it when it is one name (``getattr``, ``__all__``, a tuple of names),
    else each ``.attribute`` and each ``call(`` in it (code the package writes); not the words of a sentence."""
    if re.fullmatch(r"\w+", text):
        return [text]
    return re.findall(r"\.(\w+)", text) + re.findall(r"(\w+)\(", text)


def _named_outside(root: Path) -> set[str]:
    """Words the entry points and the user-facing docs' code name."""
    words = {point.split(".")[-1] for point in _entry_points((root / "pyproject.toml").read_text(encoding="utf-8"))}
    for doc in PUBLIC_DOCS:
        text = (root / doc).read_text(encoding="utf-8")
        for code in re.findall(r"```.*?```|`[^`\n]+`", text, flags=re.S):
            words |= set(re.findall(r"\w+", code))
    return words


def _entry_points(pyproject: str) -> list[str]:
    """What ``[project.scripts]`` and ``[project.entry-points.*]`` point at (``main`` of ``explorer.cli:main``)."""
    points, inside = [], False
    for line in pyproject.splitlines():
        if line.startswith("["):
            inside = line.strip() in ("[project.scripts]", "[project.gui-scripts]") or \
                line.startswith("[project.entry-points")
        elif inside and (m := re.match(r'\s*"?[\w.-]+"?\s*=\s*"([\w.]+):([\w.]+)"', line)):
            points.append(m.group(2))
    return points


def _called_from_outside(path: str, cls: ast.ClassDef, method: str) -> bool:
    """A method that code outside the package calls by its name: an override, a visitor's, a display hook."""
    if method in IPYTHON_DISPLAY:
        return True
    if not cls.bases:
        return False
    return _overrides(path, cls.name, method)


def _overrides(path: str, cls_name: str, method: str) -> bool:
    cls = getattr(importlib.import_module(path[:-3].replace("/", ".")), cls_name)
    if issubclass(cls, ast.NodeVisitor) and method.startswith("visit_"):
        return True
    return any(method in vars(base) for base in cls.__mro__[1:])


def dead_names(sources: dict[str, str], root: Path = REPO) -> list[str]:
    """``path:qualified.name`` of each name of ``sources`` (path -> text) that nothing uses."""
    trees = {path: ast.parse(text, filename=path) for path, text in sources.items()}
    uses, outside = _uses(trees), _named_outside(root)
    dead = []
    for path, tree in trees.items():
        for qualname, node, cls in _definitions(path, tree):
            name = qualname.split(".")[-1]
            used = any(p != path or not node.lineno <= line <= node.end_lineno for p, line in uses.get(name, ()))
            if used or name in outside or (cls and _called_from_outside(path, cls, name)):
                continue
            dead.append(f"{path}:{qualname}")
    return dead


def test_every_name_the_package_defines_is_used_by_it():
    dead = [name for name in dead_names(package_sources()) if name not in ALLOWED]
    assert not dead, ("defined in explorer/ and used nowhere else there (tests do not count): delete it, or move "
                      "what only tests use into tests/:\n" + "\n".join(dead))


def test_the_entry_points_are_read_from_pyproject():
    assert _entry_points((REPO / "pyproject.toml").read_text(encoding="utf-8")) == ["main"]


def test_every_allowed_name_is_still_there_and_still_unused():
    assert set(ALLOWED) <= set(dead_names(package_sources())), "take the entries that no longer apply out of ALLOWED"


def test_a_planted_unused_function_is_found_and_a_use_by_a_test_does_not_save_it():
    sources = package_sources()
    before = set(dead_names(sources))
    sources["explorer/stages.py"] += "\n\ndef planted_helper(x):\n    return planted_helper(x - 1) if x else 0\n"
    sources["explorer/plural.py"] += "\n\nclass _Planted:\n    def only_mine(self):\n        return self.only_mine\n"
    found = set(dead_names(sources)) - before
    assert found == {"explorer/stages.py:planted_helper", "explorer/plural.py:_Planted",
                     "explorer/plural.py:_Planted.only_mine"}
    sources["explorer/report.py"] += "\n\ndef _reads_it():\n    return planted_helper\n"  # a use in the package
    assert "explorer/stages.py:planted_helper" not in dead_names(sources)
