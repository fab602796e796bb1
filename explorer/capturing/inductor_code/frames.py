"""Stack frames as torch prints them: provenance stack traces, graph breaks, recompile reasons."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# a frame's source line is optional (code from <stdin> has none): never take the next frame for it
STACK_FRAME = re.compile(r'^[ \t]*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[^\n]+?)[ \t]*$'
                         r'(?:\n(?![ \t]*File ")(?P<code>[^\n]*))?', re.M)


@dataclass(frozen=True)
class StackFrame:
    filename: str
    lineno: int
    function: str
    code: Optional[str]  # the source line, stripped; None when torch printed none


def stack_frames(text: str) -> list[StackFrame]:
    """Every ``File "...", line N, in fn`` frame of a printed traceback, with the source line below it."""
    return [StackFrame(m["file"], int(m["line"]), m["fn"].strip(), (m["code"] or "").strip() or None)
            for m in STACK_FRAME.finditer(text)]
