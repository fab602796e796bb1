"""``--why-slow``'s answer (``Report.why_slow``, ``clinic.slow``) as blocks: first in the header and in the text
summary, so a cell's output starts with why it took the time it took.

The run's measured time in its parts, the costliest phases of torch's compile (each leading to its compilation's
Compile time pane) and the cache lookups that missed, with the reason where one is known (``slow.miss_reason``).
"""

from __future__ import annotations

from ..report import Report
from .blocks import Block, Item
from .fmt import format_time
from .phases_view import words

UNKNOWN_REASON = "why it missed is not known here"


def headline(report: Report) -> str:
    """One line: the run's time and its measured parts."""
    a = report.why_slow
    if a is None:
        return ""
    return (f"This run took {format_time(a.total_s)}: the code under capture {format_time(a.wall_s)}, of which "
            f"torch.compile's timed spans {format_time(a.compile_s)}; the explorer's own work "
            f"{format_time(a.explorer_s)} (its steps after the capture {format_time(a.steps_s)}). Measured, each "
            f"by its own clock: the Compile time section says where each figure comes from.")


def blocks(report: Report) -> list[Block]:
    """The answer as a header section, open: the headline, the costliest phases, the cache misses."""
    a = report.why_slow
    if a is None:
        return []
    phases: list[Item] = [{"r": [{"b": words(p.name)}, f" [{p.compile_id}]: {format_time(p.seconds)} "
                                 f"({100 * p.share:.0f}% of the run)"],
                           "go": {"cid": p.compile_id, "stage": "compile_time"},
                           "text": f"{p.name} [{p.compile_id}]: {format_time(p.seconds)} ({100 * p.share:.0f}%)"}
                          for p in a.top]
    misses: list[Item] = []
    for m in a.misses:
        what = f"{m.cache} cache missed{' (' + m.graph_kind + ')' if m.graph_kind else ''} [{m.compile_id}]"
        cost = f", the compile it did not skip: {format_time(m.time_taken_s)}" if m.time_taken_s is not None else ""
        line = f"{what}{cost}; {m.reason or UNKNOWN_REASON}"
        misses.append({"r": line, "text": line, "go": {"cid": m.compile_id, "stage": "compile_time"}})
    body: list[Block] = [{"t": "p", "r": headline(report)}]
    body.append({"t": "p", "r": "The costliest phases, by their own time:"} if phases else
                {"t": "p", "r": "torch wrote no timed spans for this run."})
    if phases:
        body.append({"t": "list", "items": phases, "ordered": True})
    if misses:
        body += [{"t": "p", "r": "Cache lookups that missed:"}, {"t": "list", "items": misses}]
    else:
        body.append({"t": "p", "r": "No cache lookup missed."})
    return [{"t": "section", "title": f"Why it took {format_time(a.total_s)}", "open": True, "body": body}]
