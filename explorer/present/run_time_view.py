"""Where the whole run's compile time went: a header section with a timeline of torch's own timed phases across
every compilation (one row each, nested phases stacked), the costliest phases named and linked to their
compilation (a C++/Triton compile span to its Kernels pane: torch's span names no kernel), and the explorer's own
capture cost beside torch's, each figure with where it comes from.

The spans are the compilations' ``phases`` (``capturing.phases``), placed on the run's clock by ``phases_began_s``:
a live capture and an opened TORCH_TRACE give the same rows. The explorer's own time is measured
(``CaptureData.own_time``, ``Report.step_times``); a trace holds none and the section says so.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import CaptureData, Compilation
from ..capturing.phases import by_own_time, total
from ..report import Report
from .blocks import Block, Go, Row
from .fmt import comp_name, format_time
from .phases_view import COLOURS, LEGEND, part, words
from .timeline_svg import timeline

MAX_ROWS = 60  # compilations drawn; the rest are named in a line
MAX_DEPTH = 5  # nesting drawn (the Compile time pane's tree has every level)
TOP = 10  # the costliest phases listed
TEXT_ROWS = 5  # of which the text summary prints
COMPILE_SPANS = frozenset({"compile_file", "async_compile.wait", "PyCodeCache.load_by_key_path"})


def timed(data: CaptureData) -> list[Compilation]:
    """The compilations with torch's spans, in the order they began."""
    return sorted((c for c in data.compilations if c.phases and c.phases_began_s is not None),
                  key=lambda c: c.phases_began_s or 0.0)


def go(comp: Compilation, name: str) -> Go:
    """Where a phase leads: a kernel compile to the compilation's kernels, any other to its Compile time pane."""
    return {"cid": comp.compile_id, "stage": "kernels" if name in COMPILE_SPANS else "compile_time"}


def picture(comps: list[Compilation]) -> Block:
    """The timeline: one row per compilation, each phase a bar where it began on the run's clock."""
    shown = comps[:MAX_ROWS]
    span = max(((c.phases_began_s or 0.0) + max(p.start_s + p.seconds for p in c.phases) for c in shown),
               default=0.0)
    rows = []
    for i, c in enumerate(shown):
        began = c.phases_began_s or 0.0
        spent = total(c.phases) or 0.0
        bars = [(began + p.start_s, p.seconds, p.depth, COLOURS[part(p.name)],
                 f"{words(p.name)}: {format_time(p.seconds)}" + (f" ({p.count} runs)" if p.count > 1 else ""))
                for p in c.phases if p.depth <= MAX_DEPTH]
        rows.append({"label": f"[{c.compile_id}] {comp_name(c)}", "link": i, "bars": bars,
                     "tip": f"[{c.compile_id}] {comp_name(c)}: {format_time(spent)} in torch's spans, from "
                            f"+{format_time(began)}"})
    title = "torch's timed phases over the run, one row per compilation (click a row for its Compile time pane)"
    text = [f"[{c.compile_id}] {comp_name(c)}: from +{format_time(c.phases_began_s)}, "
            f"{format_time(total(c.phases) or 0.0)}" for c in shown]
    return {"t": "svg", "svg": timeline(rows, title=title, span_s=span, legend=LEGEND), "title": title,
            "links": [{"cid": c.compile_id, "stage": "compile_time"} for c in shown], "text": text,
            "summary": False}


def costliest(comps: list[Compilation], spans_s: float, top: int = TOP) -> Block:
    """The phases that cost the most over the run, by their own time, each leading to where it belongs."""
    rows: list[Row] = [{"c": [words(p.name), f"[{c.compile_id}] {comp_name(c)}", format_time(t),
                              f"{100 * t / spans_s:.0f}%" if spans_s else ""],
                        "go": go(c, p.name),
                        "text": f"{p.name} [{c.compile_id}]: {format_time(t)}"
                                + (f" ({100 * t / spans_s:.0f}%)" if spans_s else "")}
                       for c, p, t in by_own_time(comps)[:top]]
    for r in rows[TEXT_ROWS:]:
        r["summary"] = False  # the text summary stays one screen
    return {"t": "table", "cls": "cx-costliest", "head": ["phase", "compilation", "own time", "share"],
            "rows": rows, "caption": "the costliest phases (own time: less the phases inside; a C++ or Triton "
                                     "compile leads to its compilation's kernels, as torch's span names none)"}


def own_cost(report: Report, data: CaptureData, spans_s: float) -> list[Block]:
    """The run's wall time beside torch's spans and the explorer's own measured work, each saying its source."""
    own = data.own_time
    if own is None:
        return [{"t": "p", "r": "The explorer's own time is not in a trace (torch writes only its spans); a live "
                                "capture measures it."}]
    steps = sorted(report.step_times, key=lambda s: -s.seconds)
    steps_s = sum(s.seconds for s in steps)
    wall = data.wall_time_s or 0.0
    rest = wall - spans_s
    rows: list[Row] = [
        {"c": ["the capture (wall time)", format_time(wall), "the explorer's clock around your code"]},
        {"c": ["torch.compile's timed spans", format_time(spans_s),
               "torch's own spans (chromium_event), the outermost summed"]},
        {"c": ["the explorer listening, inside the wall time", format_time(own.listening_s),
               f"its clock around each of the {own.records} records it took (mostly inside torch's spans: a record "
               f"is taken while torch writes it)"]},
        {"c": ["the wall time outside torch's spans", format_time(max(rest, 0.0)),
               "the wall time less the spans: your code running, torch's work outside its spans (guards, the "
               "calls)"]},
        {"c": ["the explorer reading the records, after", format_time(own.reading_s), "its clock"]},
        {"c": ["the explorer's steps after the capture", format_time(steps_s),
               ", ".join(f"{s.name} {format_time(s.seconds)}" for s in steps[:4]) or "none"]},
    ]
    for r in rows:
        r["text"] = f"{r['c'][0]}: {r['c'][1]} ({r['c'][2]})"
    return [{"t": "table", "cls": "cx-own-cost", "head": ["", "time", "measured by"], "rows": rows,
             "caption": "the explorer's own cost, apart from torch's: drawing the view comes after and is not "
                        "counted here"}]


def section(report: Report, data: CaptureData) -> list[Block]:
    """The header's "Compile time, the whole run" section; none when no compilation has torch's spans."""
    comps = timed(data)
    if not comps:
        return []
    spans_s = sum(total(c.phases) or 0.0 for c in comps)
    body: list[Block] = [picture(comps)]
    if len(comps) > MAX_ROWS:
        body.append({"t": "p", "r": f"{len(comps) - MAX_ROWS} more compilations are not drawn (their Compile "
                                    f"time panes have them)."})
    body.append(costliest(comps, spans_s))
    body += own_cost(report, data, spans_s)
    return [{"t": "section", "title": f"Compile time, the whole run: {format_time(spans_s)} in torch's spans",
             "open": False, "body": body}]


def slowest(data: CaptureData) -> Optional[int]:
    """The index of the compilation with the most time in torch's spans (the one ``--why-slow`` opens on)."""
    best = max(((total(c.phases) or 0.0, i) for i, c in enumerate(data.compilations) if c.phases), default=None)
    return None if best is None else best[1]
