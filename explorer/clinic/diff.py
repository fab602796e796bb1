"""Two compilations of one frame side by side: guards, FX graph, output code.

Compared text is normalised only where torch numbers things per compile
(``__builtins_dict___7`` vs ``___13``), so a diff shows what changed for the
user (a size that became dynamic, a new shape guard), not bookkeeping.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from ..capturing.model import Compilation

_NOISE = ((re.compile(r"(__builtins_dict___)\d+"), r"\1N"),)


@dataclass(frozen=True)
class DiffRow:
    """One side-by-side row; ``tag`` is equal | replace | delete | insert (difflib's opcodes)."""

    tag: str
    a_lineno: Optional[int]
    a: Optional[str]
    b_lineno: Optional[int]
    b: Optional[str]


@dataclass(frozen=True)
class SectionDiff:
    name: str  # guards | graph | output_code
    a_text: Optional[str]  # None: that compilation has no such stage
    b_text: Optional[str]
    rows: tuple[DiffRow, ...] = ()

    @property
    def changed(self) -> bool:
        return any(r.tag != "equal" for r in self.rows) or (self.a_text is None) != (self.b_text is None)

    def unified(self, a_label: str = "a", b_label: str = "b") -> str:
        a_lines = [line + "\n" for line in (self.a_text or "").splitlines()]
        b_lines = [line + "\n" for line in (self.b_text or "").splitlines()]
        return "".join(difflib.unified_diff(a_lines, b_lines,
                                            fromfile=f"{a_label} {self.name}", tofile=f"{b_label} {self.name}",
                                            lineterm="\n"))


@dataclass(frozen=True)
class CompilationDiff:
    a_id: str
    b_id: str
    a_label: str
    b_label: str
    sections: tuple[SectionDiff, ...]

    def section(self, name: str) -> SectionDiff:
        return next(s for s in self.sections if s.name == name)

    def to_text(self) -> str:
        """A unified diff per section; unchanged and missing sections say so in one line."""
        out = [f"diff {self.a_label}  vs  {self.b_label}"]
        for s in self.sections:
            if s.a_text is None and s.b_text is None:
                out.append(f"== {s.name}: neither compilation has one")
            elif not s.changed:
                out.append(f"== {s.name}: identical")
            else:
                out.append(f"== {s.name}:")
                out.append(s.unified(self.a_id, self.b_id).rstrip("\n"))
        return "\n".join(out)


def diff_compilations(a: Compilation, b: Compilation) -> CompilationDiff:
    """Guards, Dynamo's FX graph and the output code of ``a`` and ``b``, row by row."""
    sections = (
        _section("guards", _guards_text(a), _guards_text(b)),
        _section("graph", a.graph.code if a.graph else None, b.graph.code if b.graph else None),
        _section("output_code", _output_text(a), _output_text(b)),
    )
    return CompilationDiff(a.compile_id, b.compile_id, a.label, b.label, sections)


def _guards_text(c: Compilation) -> Optional[str]:
    if c.guards:
        lines = []
        for g in c.guards:
            where = f"  # {g.source}" if g.source and g.lineno else ""
            lines.append(f"{g.kind}: {g.code}{where}")
        return normalise("\n".join(lines))
    return normalise(c.guard_tree) if c.guard_tree else None


def _output_text(c: Compilation) -> Optional[str]:
    if not c.output_code:
        return None
    return "\n".join(f"# ---- {o.graph_kind} ----\n{o.code}" for o in c.output_code)


def normalise(text: str) -> str:
    """Bookkeeping torch numbers per compile written away (``__builtins_dict___7`` -> ``___N``): what a diff
    compares, so it shows what changed for the user."""
    for pattern, repl in _NOISE:
        text = pattern.sub(repl, text)
    return text


Opcode = tuple[str, int, int, int, int]
_EXACT_UP_TO = 4_000_000  # line pairs past which difflib may skip popular lines (its autojunk): bounded time


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes (``equal | replace | delete | insert``, ``a[i1:i2]`` against ``b[j1:j2]``) for two lists
    of lines: the one line diff of the explorer (this module's sections, and every pane diff the views draw,
    ``present.diff_view``). The common head and tail are matched first, so near-equal big texts stay quick."""
    pre, suf = common_ends(a, b)
    mid_a, mid_b = a[pre:len(a) - suf], b[pre:len(b) - suf]
    out: list[Opcode] = [("equal", 0, pre, 0, pre)] if pre else []
    if mid_a or mid_b:
        matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=len(mid_a) * len(mid_b) > _EXACT_UP_TO)
        out += [(tag, i1 + pre, i2 + pre, j1 + pre, j2 + pre) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if suf:
        out.append(("equal", len(a) - suf, len(a), len(b) - suf, len(b)))
    return out


def common_ends(a: Sequence, b: Sequence) -> tuple[int, int]:
    """How long a common head ``a`` and ``b`` have, then how long a common tail after it (of lines, or of
    characters: what changed inside a line is between them)."""
    pre = 0
    while pre < len(a) and pre < len(b) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < len(a) - pre and suf < len(b) - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    return pre, suf


def _section(name: str, a: Optional[str], b: Optional[str]) -> SectionDiff:
    a_lines, b_lines = (a or "").splitlines(), (b or "").splitlines()
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in line_opcodes(a_lines, b_lines):
        for k in range(max(i2 - i1, j2 - j1)):
            ai, bj = i1 + k, j1 + k
            a_ok, b_ok = ai < i2, bj < j2
            rows.append(DiffRow(
                tag if (a_ok and b_ok) or tag in ("delete", "insert") else ("delete" if a_ok else "insert"),
                ai + 1 if a_ok else None, a_lines[ai] if a_ok else None,
                bj + 1 if b_ok else None, b_lines[bj] if b_ok else None,
            ))
    return SectionDiff(name, a, b, tuple(rows))
