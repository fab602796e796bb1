"""Compile time per phase, from torch's ``chromium_event`` records (the spans ``dynamo_timed`` writes).

Each span is a begin (``ph: "B"``) and an end (``"E"``) event with a name (``entire_frame_compile``,
``backend_compile``, ``inductor_compile``, ``GraphLowering.codegen``, ...) and a time in microseconds; they
nest. ``PhaseClock`` is a recorder subscriber (``keep=("chromium_event",)``: the recorder counts these records
as noise and keeps none of them) that pairs the spans per compile id as they arrive and keeps only the sums,
so a trace of thousands of spans costs a few numbers per phase. ``phases`` gives one compilation's tree of
phases, in the order they began.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from .model import Phase
from .raw import RawEvent

EVENT = "chromium_event"
MAX_DEPTH = 4  # deeper spans (single passes of a pass manager) are summed into their parent's time only


@dataclass
class _Frame:
    name: str
    start_us: float
    path: tuple[str, ...]


@dataclass
class PhaseClock:
    """Sums each compile id's spans by their place in the tree (``path``: the names from the outermost)."""

    sums: dict[str, dict[tuple[str, ...], list[float]]] = field(default_factory=dict)  # key -> path -> [s, n]
    _open: dict[str, list[_Frame]] = field(default_factory=dict)
    unreadable: int = 0

    def __call__(self, event: RawEvent) -> None:
        if event.name != EVENT or event.compile_id is None:
            return
        try:
            span = json.loads(event.payload or "")
            kind, name, ts = span["ph"], span["name"], float(span["ts"])
        except (ValueError, KeyError, TypeError):
            self.unreadable += 1  # a cut or edited record: its MD5 problem names it
            return
        key = event.compile_id.compilation.key
        stack = self._open.setdefault(key, [])
        if kind == "B":
            path = (stack[-1].path if stack else ()) + (str(name),)
            stack.append(_Frame(str(name), ts, path))
        elif kind == "E":
            self._end(key, stack, str(name), ts)
        elif kind == "X" and isinstance(span.get("dur"), (int, float)):
            path = (stack[-1].path if stack else ()) + (str(name),)
            self._add(key, path, span["dur"] / 1e6)

    def _end(self, key: str, stack: list[_Frame], name: str, ts: float) -> None:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].name == name:
                frame = stack[i]
                del stack[i:]  # spans left open inside it ended without their end event
                self._add(key, frame.path, (ts - frame.start_us) / 1e6)
                return

    def _add(self, key: str, path: tuple[str, ...], seconds: float) -> None:
        if len(path) > MAX_DEPTH:
            return
        row = self.sums.setdefault(key, {}).setdefault(path, [0.0, 0])
        row[0] += max(seconds, 0.0)
        row[1] += 1

    def phases(self, key: str) -> tuple[Phase, ...]:
        """One compilation's phases, parents before their children, in the order they first began."""
        rows = self.sums.get(key)
        if not rows:
            return ()
        order = {path: i for i, path in enumerate(rows)}
        # a child can end (and be summed) before its parent: sort by each ancestor's first appearance
        ranked = sorted(rows, key=lambda p: tuple(order.get(p[:i + 1], 1 << 30) for i in range(len(p))))
        return tuple(Phase(p[-1], len(p) - 1, round(rows[p][0], 6), int(rows[p][1])) for p in ranked)


def total(phases: tuple[Phase, ...]) -> Optional[float]:
    """The compile time the outermost spans cover (None when there are none)."""
    top = [p.seconds for p in phases if p.depth == 0]
    return sum(top) if top else None
