"""The text summary's distributed lines for any capture: DDPOptimizer's splits, and what DDP and FSDP did.

A merged report's "ranks compared" is the view model's (``present.ranks``), drawn as text by
``present.text`` like every other section.
"""

from __future__ import annotations

from ..capturing.model import CaptureData
from . import ddp


def capture_lines(data: CaptureData) -> list[str]:
    """DDPOptimizer's splits (or why a graph was kept whole) and the DDP/FSDP notes, for one capture."""
    lines = [line for c in data.compilations for line in ddp.split_lines(c)]
    for c in data.compilations:
        note = ddp.subgraph_note(c.ddp_optimizer) if c.ddp_optimizer else None
        if note:
            lines.append(f"  note [{c.compile_id}]: {note}")
    return lines + [f"note: {n}" for n in ddp.notes(data)]
