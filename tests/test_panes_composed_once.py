"""Each pane is composed once, by its builder, in the order it is shown (issue 42): no code in the view model
finds a place in a pane after it is built, by a block's class or key, by a position or by its words.

An AST walk of every module of ``explorer/present``: a list of blocks is never spliced (``insert``, an assignment
to a slice) and no condition reads a block's ``cls``, ``key`` or runs (``r``) to find where something goes.
Today's view model was built in four passes with 13 such splices (tests/data/panes holds their output: the same
panes, now composed once).
"""

from __future__ import annotations

import ast
from pathlib import Path

PRESENT = Path(__file__).resolve().parents[1] / "explorer" / "present"
LOOKED_UP = ("cls", "key", "r")  # what a pass would find its place by


def _is_lookup(node: ast.AST) -> bool:
    """``b.get("cls")`` or ``b["cls"]`` (and "key", "r")."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in LOOKED_UP
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in LOOKED_UP


def splices(source: str) -> list[str]:
    """Each place in ``source`` that splices into a list or finds a place by a block's class, key or words."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "insert":
            found.append(f"{node.lineno}: insert")
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice)
                                                  for t in node.targets):
            found.append(f"{node.lineno}: assignment to a slice")
        elif isinstance(node, ast.Compare) and any(_is_lookup(side) for side in (node.left, *node.comparators)):
            found.append(f"{node.lineno}: a condition on a block's {'/'.join(LOOKED_UP)}")
    return found


def test_no_pane_is_spliced_after_it_is_built():
    found = {p.name: s for p in sorted(PRESENT.glob("*.py")) if (s := splices(p.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_finds_the_splices_of_a_pane_built_in_passes():
    old = '''
def fold(blocks, comp):
    at = next((i for i, b in enumerate(blocks) if b.get("cls") == "cx-kindex"), 0)
    blocks.insert(at, {"t": "p", "r": "Launches"})
    blocks[at:at + 1] = []
'''
    assert sorted(splices(old)) == ["3: a condition on a block's cls/key/r", "4: insert", "5: assignment to a slice"]
