"""Compile time per phase, from torch's ``chromium_event`` records (the spans ``dynamo_timed`` writes).

Each span is a begin (``ph: "B"``) and an end (``"E"``) event with a name (``entire_frame_compile``,
``backend_compile``, ``inductor_compile``, ``GraphLowering.codegen``, ...) and a time in microseconds; they
nest. ``PhaseClock`` is a recorder subscriber (``keep=("chromium_event",)``: the recorder counts these records
as noise and keeps none of them) that pairs the spans per compile id as they arrive and keeps only the sums,
so a trace of thousands of spans costs a few numbers per phase. ``phases`` gives one compilation's tree of
phases, in the order they began; ``with_phases`` puts them into a capture. A live capture (``CaptureSession``)
and an opened TORCH_TRACE (``traces.opening``) both subscribe one clock to their recorder and call
``with_phases``: the same records, read by the same code.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .model import CaptureData, Compilation, Phase
from .raw import RawEvent

EVENT = "chromium_event"
READ_SPANS = "dropped as noise once read: they make each compilation's compile time per phase (its Compile time pane)"
MAX_DEPTH = 12  # deeper spans are summed into their parent's time only
PASS = "pass."  # a single pass of a pass manager (``pass.post_grad_passes.remove_noop_ops``): in its parent's time


@dataclass
class _Frame:
    name: str
    start_us: float
    path: tuple[str, ...]


@dataclass
class PhaseClock:
    """Sums each compile id's spans by their place in the tree (``path``: the names from the outermost)."""

    sums: dict[str, dict[tuple[str, ...], list[float]]] = field(default_factory=dict)  # key -> path -> [s, n, t0]
    first_us: dict[str, float] = field(default_factory=dict)  # key -> when its first span began
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
            self.first_us.setdefault(key, ts)
            path = (stack[-1].path if stack else ()) + (str(name),)
            stack.append(_Frame(str(name), ts, path))
        elif kind == "E":
            self._end(key, stack, str(name), ts)
        elif kind == "X" and isinstance(span.get("dur"), (int, float)):
            self.first_us.setdefault(key, ts)
            path = (stack[-1].path if stack else ()) + (str(name),)
            self._add(key, path, span["dur"] / 1e6, ts)

    def _end(self, key: str, stack: list[_Frame], name: str, ts: float) -> None:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].name == name:
                frame = stack[i]
                del stack[i:]  # spans left open inside it ended without their end event
                self._add(key, frame.path, (ts - frame.start_us) / 1e6, frame.start_us)
                return

    def _add(self, key: str, path: tuple[str, ...], seconds: float, start_us: float) -> None:
        if len(path) > MAX_DEPTH or any(n.startswith(PASS) for n in path):
            return
        row = self.sums.setdefault(key, {}).setdefault(path, [0.0, 0, start_us])
        row[0] += max(seconds, 0.0)
        row[1] += 1
        row[2] = min(row[2], start_us)

    def phases(self, key: str) -> tuple[Phase, ...]:
        """One compilation's phases, parents before their children, in the order they first began."""
        rows = self.sums.get(key)
        if not rows:
            return ()
        order = {path: i for i, path in enumerate(rows)}
        # a child can end (and be summed) before its parent: sort by each ancestor's first appearance
        ranked = sorted(rows, key=lambda p: tuple(order.get(p[:i + 1], 1 << 30) for i in range(len(p))))
        t0 = self.first_us.get(key, 0.0)
        return tuple(Phase(p[-1], len(p) - 1, round(rows[p][0], 6), int(rows[p][1]),
                           start_s=round(max(rows[p][2] - t0, 0.0) / 1e6, 6), parent=p[-2] if len(p) > 1 else "")
                     for p in ranked)


    def began_s(self, key: str, t0_us: float) -> Optional[float]:
        """When ``key``'s first span began, in seconds after ``t0_us`` (the run's first span); None without spans."""
        first = self.first_us.get(key)
        return None if first is None or key not in self.sums else round(max(first - t0_us, 0.0) / 1e6, 6)


def with_phases(data: CaptureData, clock: PhaseClock, why: str) -> CaptureData:
    """``data`` with each compilation's phases from ``clock``, and the spans' count in ``other_artifacts`` saying
    ``why`` (they were read, not dropped unread)."""
    t0 = min(clock.first_us.values(), default=0.0)  # the run's first span: where the timeline starts
    comps = tuple(dataclasses.replace(c, phases=clock.phases(c.compile_id),
                                      phases_began_s=clock.began_s(c.compile_id, t0))
                  for c in data.compilations)
    others = tuple(dataclasses.replace(a, why=why) if a.name == EVENT else a for a in data.other_artifacts)
    return dataclasses.replace(data, compilations=comps, other_artifacts=others)


def total(phases: tuple[Phase, ...]) -> Optional[float]:
    """The compile time the outermost spans cover (None when there are none)."""
    top = [p.seconds for p in phases if p.depth == 0]
    return sum(top) if top else None


def by_own_time(comps: Sequence[Compilation]) -> list[tuple[Compilation, Phase, float]]:
    """Every phase of ``comps`` that took time of its own, with that time, costliest first (ties in ``comps``'
    order): the Compile time section's costliest phases and ``--why-slow``'s."""
    return sorted(((c, p, t) for c in comps for p, t in zip(c.phases, own_times(c.phases)) if t > 0),
                  key=lambda r: -r[2])


def own_times(phases: tuple[Phase, ...]) -> list[float]:
    """Each phase's time less the phases directly inside it (its children follow it, one deeper)."""
    own = [p.seconds for p in phases]
    for i, p in enumerate(phases):
        for q in phases[i + 1:]:
            if q.depth <= p.depth:
                break
            if q.depth == p.depth + 1:
                own[i] -= q.seconds
    return [max(t, 0.0) for t in own]
