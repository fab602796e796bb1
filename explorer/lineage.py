"""The line-level chain: which user line each line of every stage came from.

For each compilation, a list of ``LineLink``s: one per line of a stage's text
as the views show it (a bytecode listing row, an FX graph line, an IR line, a
wrapper or kernel line) with the user lines (``"FILE:LINE"``) it came from.
A line whose ``origins`` is empty came from no user line: guards, glue,
wrapper bookkeeping. Views colour lines of the same origin alike and light
the whole chain when one line is hovered or clicked; other tools can read the
same mapping from the report's JSON (``lineage``).

Sits on the capture model: pure functions, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .capturing.model import CaptureData


@dataclass(frozen=True)
class LineLink:
    """One line of one stage's text and the user lines it came from."""

    stage: str  # a stage id of explorer.stages ("kernels" for a kernel's source)
    line: int  # 1-based line of that text as shown
    origins: tuple[str, ...] = ()  # "FILE:LINE" of user code; empty: no user line (glue)
    part: int = 0  # which item of the stage's content (IR dump, wrapper module) the line is in
    kernel: Optional[str] = None  # for stage "kernels": the kernel's name
    element: Optional[str] = None  # what the line defines: an FX node, a buffer, a scheduler node


@dataclass(frozen=True)
class Lineage:
    compile_id: str
    links: tuple[LineLink, ...] = ()


def lineage_of(data: CaptureData) -> tuple[Lineage, ...]:
    """Every compilation's chain (to be built: see the front-end issue)."""
    return ()
