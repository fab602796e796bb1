"""Graph-break text (artifact ``dynamo_graph_break_reason``) -> GraphBreak.

torch's text has a fixed shape: a first line with the user location, a
``Graph Break Reason:`` paragraph with a title, ``Explanation:``/``Hint:`` lines
and a gbXXXX link, the user code traceback, then Dynamo's own traceback (dropped).
Older torch prints less; every field is optional.
"""

from __future__ import annotations

import linecache
import os
import re
from typing import Optional

from .inductor_code import stack_frames
from .model import GraphBreak, SourceLoc

_AT_RE = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)\s*$", re.M)
_GB_RE = re.compile(r"(https?://\S+/(?P<gb>gb\d+)\.html)", re.I)


def parse_graph_break(text: str) -> GraphBreak:
    user_part = text.split("\nTraceback (most recent call last):", 1)[0]
    body, _, tb_text = user_part.partition("User code traceback:")
    traceback = tuple(SourceLoc(f.filename, f.lineno, f.function, f.code)
                      for f in stack_frames(tb_text) if not is_instrumentation(f.filename))
    at = _AT_RE.search(body)
    filename = at["file"] if at else (traceback[-1].filename if traceback else None)
    lineno = int(at["line"]) if at else (traceback[-1].lineno if traceback else None)
    reason_text = body.split("Graph Break Reason:", 1)[-1] if "Graph Break Reason:" in body else body
    explanation = _field(reason_text, "Explanation")
    hints = tuple(h.strip() for h in re.findall(r"^\s*Hint: (.*)$", reason_text, re.M))
    gb = _GB_RE.search(reason_text)
    return GraphBreak(
        reason=_headline(reason_text, explanation),
        filename=filename,
        lineno=lineno,
        source_line=_source_line(filename, lineno, traceback),
        explanation=explanation,
        hints=hints,
        gb_code=gb["gb"].upper() if gb else None,
        doc_url=gb.group(1) if gb else None,
        user_traceback=traceback,
        detail=_without_instrumentation(user_part).strip(),
    )


# torch's gb_type when a break happens inside a for/while loop: Dynamo skips the whole frame (symbolic_convert.py's
# raise_loop_graph_break, 2.11-2.14; GB7000)
_IN_LOOP_RE = re.compile(r"^graph break in loop$|\bGB7000\b", re.M | re.I)


def in_loop(brk: GraphBreak, failure: str = "") -> bool:
    """The break happened inside a loop, so Dynamo skipped the frame (torch says so in the break's text or in the
    failure of the compile it ended)."""
    return bool(_IN_LOOP_RE.search(brk.detail) or _IN_LOOP_RE.search(failure or ""))


_EXPLORER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_RUNNERS = ("<frozen runpy>", os.path.join("", "runpy.py"))


def is_instrumentation(filename: str) -> bool:
    """The explorer's own frames and the runner that started a script are not the user's code."""
    return filename.startswith(_EXPLORER_DIR) or filename.endswith(_RUNNERS)


_FRAME_BLOCK_RE = re.compile(r'^(?P<indent>[ \t]*)File "(?P<file>[^"]+)", line \d+, in .*\n'
                             r'(?:(?P=indent)[ \t]+\S.*\n)*', re.M)


def _without_instrumentation(text: str) -> str:
    """torch's text without the traceback entries (header, source, caret lines) of our own frames."""
    return _FRAME_BLOCK_RE.sub(lambda m: "" if is_instrumentation(m["file"]) else m.group(), text + "\n")


def _field(text: str, name: str) -> Optional[str]:
    m = re.search(rf"^\s*{name}: (.*)$", text, re.M)
    return m.group(1).strip() if m else None


def _headline(reason_text: str, explanation: Optional[str]) -> str:
    """The short title torch puts above the explanation, e.g. 'Data-dependent branching'."""
    lines = [line.strip() for line in reason_text.strip().splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith(("Explanation:", "Hint:")) and i > 0:
            return lines[i - 1]
    if explanation:
        return explanation
    return lines[0] if lines else "graph break"


def _source_line(filename: Optional[str], lineno: Optional[int], tb: tuple[SourceLoc, ...]) -> Optional[str]:
    for loc in reversed(tb):
        if loc.filename == filename and loc.lineno == lineno and loc.code:
            return loc.code
    if filename and lineno:
        return linecache.getline(filename, lineno).strip() or None
    return None
