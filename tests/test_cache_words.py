"""One truth about caches (issue 40): since issue 33 torch's caches stay on during a capture (each graph's user lines
in its cache key, what a hit skips from the explorer's stage store), so no doc, ``--help``, docstring or notebook says
they are off, and nothing calls the default a cold capture (the label says what happened: lowered now, or served).

Dated records (docs/figures.md, docs/versions.md) describe their own day and are not read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from explorer import api, cli
from explorer.options import flags

ROOT = Path(__file__).resolve().parent.parent
DATED = {"figures.md", "versions.md"}
# what the explorer said while the graph caches were off during every capture
UNTRUE = [r"[Cc]ompile caches are off", r"caches that would skip lowering are off",
          r"turns caches off so every stage", r"caches:? cold\b", r"\b[Cc]old captures?\b"]


def _texts() -> dict[str, str]:
    out = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md")
           if p.name not in DATED}
    out["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        out[nb.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for entry in ("magic", "cli"):
        out[f"{entry} --help"] = "\n".join(str(kw["help"]) for _, kw in flags(entry))
    out["run --help"] = cli.RUN_DESCRIPTION
    out["explore()"] = f"{api.explore.__doc__}\n{api.capture.__doc__}"
    for path in (ROOT / "explorer").rglob("*.py"):
        out[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return out


def test_no_doc_help_or_docstring_says_the_caches_are_off_during_a_capture():
    found = [f"{name}: {m.group(0)!r}" for name, text in _texts().items() for pattern in UNTRUE
             for m in re.finditer(pattern, text)]
    assert not found, found


def test_the_guides_and_the_help_say_the_caches_stay_on():
    texts = _texts()
    assert "torch's caches stay on, as a plain run has them" in texts["docs/guide/python.md"]
    assert "torch's caches stay on during a\ncapture" in texts["docs/guide/real-programs.md"]
    assert "torch's compile caches stay on" in texts["run --help"]
    assert "lowered now" in texts["docs/guide/real-programs.md"] and "served" in texts["docs/guide/real-programs.md"]
