"""``docs/architecture.md`` tells the truth about where things are: every path it names under ``explorer/`` exists,
and every package and top-level module of ``explorer/`` is named in it (a new one is placed in the doc, a removed
one leaves it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
# a path in code quotes: `explorer/capturing/`, `capturing/inductor_code/`, `present/viewmodel.py`, `hosts.py`
_CODE = re.compile(r"`([^`\s]+)`")


def named_paths(text: str) -> set[str]:
    """The package paths the doc names in code quotes, relative to ``explorer/``: ``explorer/x/y.py`` and
    ``x/y.py`` (a path under a package the doc names) alike."""
    out = set()
    for quoted in _CODE.findall(text):
        path = quoted.split("::")[0].rstrip(".,;:")
        if ("/" not in path and not path.endswith(".py")) or not re.match(r"[\w.]", path):
            continue
        if path.startswith(("tests/", "docs/", "notebooks/", "assets/", "../", "http", "~", ".ci/")):
            continue
        out.add(path.removeprefix("explorer/").rstrip("/"))
    return out


def _exists(path: str) -> bool:
    """A path names a module or package of ``explorer/``, directly or under one of its packages."""
    if (ROOT / "explorer" / path).exists():
        return True
    if "*" in path:
        return any((ROOT / "explorer").rglob(path)) or any((ROOT / "explorer").glob(f"*/{path}"))
    name = path.rsplit("/", 1)[-1]
    return any(p.as_posix().endswith(f"/{path}") for p in (ROOT / "explorer").rglob(name))


def top_level() -> set[str]:
    """``explorer/``'s packages (``capturing``) and its top-level modules (``report.py``), but not ``__init__``
    and ``__main__``, and not the front end's files (the doc has its own section on them)."""
    pkg = ROOT / "explorer"
    out = {p.name for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return out | {p.name for p in pkg.glob("*.py") if not p.name.startswith("__")}


def test_every_path_the_doc_names_exists():
    text = DOC.read_text()
    stale = sorted(p for p in named_paths(text) if not _exists(p))
    assert not stale, f"docs/architecture.md names what explorer/ does not have: {stale}"


def test_every_package_and_module_is_placed_in_the_doc():
    text = DOC.read_text()
    named = named_paths(text) | {q for q in _CODE.findall(text)}
    missing = sorted(m for m in top_level()
                     if not ({m, m.removesuffix(".py"), f"explorer/{m}", f"explorer/{m}/", f"{m}/"} & named))
    assert not missing, f"explorer/ has what docs/architecture.md does not place: {missing}"


def test_the_checks_can_fail():
    assert not _exists("capturing/torch_compat_gone.py")
    assert "capturing/x.py" in named_paths("see `capturing/x.py` and `explorer/lineage/`")
    assert "lineage" in named_paths("`explorer/lineage/`")
