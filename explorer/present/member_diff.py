"""A repeated member's diff, as the views show it: unified-diff lines written from the report's hunks.

The report keeps how a group of a family differs from its first group as data (``MemberGroup.diff``: hunks of
listing lines, each with its side: alike in both, or one group's only; ``diff_cut``, the lines left out). The
views show it as a unified diff (``@@ -56,3 +56,3 @@``, `` `` alike, ``-`` the first group's, ``+`` this group's),
name the first op it swaps (``silu → gelu``) and count the lines that differ: all from that data, here.
"""

from __future__ import annotations

from typing import Sequence

from ..structure.model import ListingHunk, MemberGroup
from .blocks import Details, Row

__all__ = ["changed_lines", "diff_block", "diff_lines", "first_change"]
_CLS = {" ": "cx-rep-ctx", "-": "cx-rep-del", "+": "cx-rep-add"}
CLASS_ONLY = "(the same ops; the members differ in their class)"


def diff_lines(g: MemberGroup) -> list[tuple[str, str]]:
    """The diff as unified-diff lines, each with its row's class (``cx-rep-del``, ``cx-rep-add``, ``cx-rep-ctx``)."""
    out = []
    for h in g.diff:
        out.append((f"@@ -{_range(h.first_start, h.first_count)} +{_range(h.this_start, h.this_count)} @@",
                    "cx-rep-ctx"))
        out += [(side + line, _CLS[side]) for side, line in zip(h.sides, h.lines)]
    if g.diff_cut:
        out.append((f"… {g.diff_cut} more diff lines", "cx-rep-ctx"))
    return out or [(CLASS_ONLY, "cx-rep-ctx")]


def _range(start: int, count: int) -> str:
    """A hunk's range as a unified diff heads it (``difflib``): ``7`` for one line, ``7,3``; ``6,0`` for none."""
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def diff_block(title: str, g: MemberGroup) -> Details:
    """A member's diff against the group it differs from, folded: ``-`` its lines, ``+`` this member's."""
    rows: list[Row] = [{"c": [{"code": text}], "cls": cls} for text, cls in diff_lines(g)]
    return {"t": "details", "cls": "cx-rep cx-rep-diff", "lazy": True, "s": title,
            "body": [{"t": "table", "cls": "cx-rep-lines", "head": [], "rows": rows}]}


def changed_lines(g: MemberGroup) -> tuple[int, int]:
    """Lines of the diff shown that only the first group has, and that only this group has."""
    sides = "".join(h.sides for h in g.diff)
    return sides.count("-"), sides.count("+")


def first_change(diff: Sequence[ListingHunk]) -> str:
    """``silu → gelu``: the first op a diff of two graph listings swaps, when it reads as one."""
    lines = [(side, line) for h in diff for side, line in zip(h.sides, h.lines)]
    old = next((line for side, line in lines if side == "-"), None)
    new = next((line for side, line in lines if side == "+"), None)
    if old is None or new is None:
        return ""
    a, b = _op(old), _op(new)
    return f"{a} → {b}" if a and b and a != b else ""


def _op(line: str) -> str:
    what = line.partition(": ")[2].partition("(")[0]
    return what.rsplit(".", 1)[-1] if what.startswith("torch.") else what
