"""Two compilations of one frame side by side: guards, FX graph, output code.

Compared text is normalised only where torch numbers things per compile
(``__builtins_dict___7`` vs ``___13``), so a diff shows what changed for the
user (a size that became dynamic, a new shape guard), not bookkeeping.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Optional

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
        return _normalise("\n".join(lines))
    return _normalise(c.guard_tree) if c.guard_tree else None


def _output_text(c: Compilation) -> Optional[str]:
    if not c.output_code:
        return None
    return "\n".join(f"# ---- {o.graph_kind} ----\n{o.code}" for o in c.output_code)


def _normalise(text: str) -> str:
    for pattern, repl in _NOISE:
        text = pattern.sub(repl, text)
    return text


def _section(name: str, a: Optional[str], b: Optional[str]) -> SectionDiff:
    a_lines, b_lines = (a or "").splitlines(), (b or "").splitlines()
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            ai, bj = i1 + k, j1 + k
            a_ok, b_ok = ai < i2, bj < j2
            rows.append(DiffRow(
                tag if (a_ok and b_ok) or tag in ("delete", "insert") else ("delete" if a_ok else "insert"),
                ai + 1 if a_ok else None, a_lines[ai] if a_ok else None,
                bj + 1 if b_ok else None, b_lines[bj] if b_ok else None,
            ))
    return SectionDiff(name, a, b, tuple(rows))
