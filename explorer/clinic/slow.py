"""Why did this cell take N s (``--why-slow``): the run's time split into what was measured, the phases of torch's
compile that cost the most (each phase's own time, from torch's spans), and the cache lookups that missed.

Every figure is a measurement: the capture's wall time (the explorer's clock around the code), torch's own timed
spans (``Compilation.phases``), the explorer's own time (``CaptureData.own_time``: its listener during the run,
reading the records after) and its steps after the capture (``Report.step_times``: timing, analyses). Nothing is
estimated; what was not measured (drawing the view, after the report is made) is left out and the answer says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..capturing.model import CaptureData
from ..capturing.phases import by_own_time
from ..capturing.phases import total as spans_total
from ..capturing.usage import CacheLookup, KeyComparison

TOP = 5  # phases named
SAID = 3  # a miss's changed components named in its line


@dataclass(frozen=True)
class SlowPhase:
    """One of the phases that cost the most, by its own time (less the phases inside it)."""

    compile_id: str
    """The compilation it belongs to."""
    name: str
    """torch's span (`GraphLowering.run`, `compile_file`, ...)."""
    seconds: float
    """Its own time: the span less the spans directly inside it, summed over the times it ran."""
    share: float
    """Its share of the run's measured time (0 to 1)."""


@dataclass(frozen=True)
class SlowMiss:
    """A cache lookup that missed: the compile it did not skip."""

    compile_id: str
    """The compilation whose lookup missed."""
    cache: str
    """`fx_graph`, `aotautograd` or `dynamo`."""
    graph_kind: str
    """`forward`, `backward`, `inference` or empty."""
    time_taken_s: Optional[float]
    """The compile the miss cost, as torch measured it (`null` where torch wrote none)."""
    reason: Optional[str] = None
    """Why it missed, where known (the part of the cache key that changed); `null` when not known."""


@dataclass(frozen=True)
class SlowAnswer:
    """``--why-slow``: where the run's time went, in measured parts, biggest phases first."""

    total_s: float
    """The run's measured time: the capture's wall time, then the explorer's reading and its steps after it."""
    wall_s: float
    """The capture's wall time: the code ran, torch.compile compiled (and the explorer listened) inside it."""
    compile_s: float
    """What torch's outermost timed spans cover, summed over the compilations."""
    explorer_s: float
    """The explorer's own measured time: its listener, reading the records, its steps after the capture."""
    steps_s: float
    """Of which the steps after the capture (timing the graphs, analyses), `Report.step_times`."""
    top: tuple[SlowPhase, ...] = ()
    """The phases that cost the most, by their own time, biggest first."""
    misses: tuple[SlowMiss, ...] = ()
    """Each cache lookup that missed, in compile order."""


def miss_reason(lookup: CacheLookup) -> Optional[str]:
    """Why ``lookup`` missed, in one line, from its key's comparison with the last lookup of the same lines
    (``CacheLookup.why``, ``capturing.cache_keys``): the components that changed, or why none could be compared;
    None where the lookup was not compared."""
    why = lookup.why
    if why is None:
        return None
    line = changes_said(why, SAID)
    if not line:
        return why.note or None
    if why.against == "earlier" and why.compile_id:
        line += f" (against compile {why.compile_id})"
    elif why.against == "stored":
        line += " (against the last capture of these lines)"
    return line


def changes_said(why: KeyComparison, most: int) -> str:
    """``most`` of the changed components in words, then how many more (``a; b; c; and 4 more``); "" for none: one
    line for the view's "From where" strip and ``--why-slow`` alike."""
    said = [ch.words for ch in why.changes[:most]]
    rest = len(why.changes) - len(said) + why.more
    return "; ".join(said) + (f"; and {rest} more" if rest > 0 and said else "")


def answer(data: CaptureData, steps: float = 0.0) -> SlowAnswer:
    """Where the time of the run ``data`` captured went, from its measurements (``steps``: seconds of the
    pipeline's steps after the capture, ``Report.step_times``)."""
    wall = data.wall_time_s or 0.0
    own = data.own_time
    reading = own.reading_s if own else 0.0
    total = wall + reading + steps
    top = tuple(SlowPhase(c.compile_id, p.name, round(t, 6), round(t / total, 4) if total else 0.0)
                for c, p, t in by_own_time(data.compilations)[:TOP])
    misses = tuple(SlowMiss(c.compile_id, lk.cache, lk.graph_kind, lk.time_taken_s, miss_reason(lk))
                   for c in data.compilations for lk in c.caches if lk.outcome == "miss")
    compile_s = sum(spans_total(c.phases) or 0.0 for c in data.compilations)
    return SlowAnswer(total_s=round(total, 6), wall_s=round(wall, 6), compile_s=round(compile_s, 6),
                      explorer_s=round((own.listening_s if own else 0.0) + reading + steps, 6),
                      steps_s=round(steps, 6), top=top, misses=misses)
