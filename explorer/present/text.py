"""Plain text of the view model: the CLI's summary, ``repr(report)``, a notebook's text/plain, one stage.

The words are the view model's (``present.viewmodel``); this module only lays
them out as lines. The timing lines read the timing report itself: a table of
six columns does not fit a terminal line.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..clinic.guard_filter import guard_filter_text
from ..timing.model import GraphTiming, ModeResult, TimingReport
from . import usage_text
from . import viewmodel as vm
from .fmt import (
    calls_text,
    flops_line,
    format_time,
    launched_by_text,
    measurement_text,
    ratio_text,
    short_path,
    speedup_text,
)

rel = short_path


# ---- blocks as text ----

def flat(r: Any) -> str:
    """Inline runs as one string."""
    if r is None:
        return ""
    if isinstance(r, (str, int, float)):
        return str(r)
    if isinstance(r, list):
        return "".join(flat(x) for x in r)
    for key in ("b", "muted", "a", "chip", "code", "origin"):
        if key in r:
            return flat(r[key]) + (" " if key == "chip" else "")
    return "; " if "br" in r else ""


def lines(bs: Sequence[dict], comp: Any = None, indent: str = "") -> list[str]:
    """Blocks as lines; code blocks read their text from ``comp``."""
    out: list[str] = []
    for b in bs:
        t = b["t"]
        if b.get("interactive") or b.get("summary") is False or t in ("button", "chart"):
            continue
        if "text" in b and t != "section":  # its plain form
            out.append(indent + b["text"])
        elif t in ("p", "h", "note"):
            out.append(indent + flat(b["r"]))
        elif t == "section":
            out.append(indent + b.get("text", b["title"]))
            out += lines(b["body"], comp, indent + "  ")
        elif t == "list":
            for i in b["items"]:  # an item's "text" is its whole plain form
                out.append(indent + i.get("text", flat(i["r"])))
                out += [] if "text" in i else lines(i.get("body", ()), comp, indent + "  ")
        elif t == "table":
            out += [indent + r.get("text", "  ".join(flat(c) for c in r["c"])) for r in b["rows"]]
        elif t == "code":
            from .html import resolve

            if b.get("title"):
                out.append(f"{indent}# {b['title']}")
            out += (resolve(comp, b["src"]) or "").rstrip("\n").split("\n")
        elif t == "graph":
            out += lines([b["code"]], comp, indent)
        elif t in ("details", "div"):
            if t == "details":
                out.append(indent + flat(b["s"]))
            out += lines(b["body"], comp, indent)
    return out


# ---- the clinic ----

def clinic_text(report: Any) -> str:
    """The clinic alone (what CI logs want): break sites, then recompiles."""
    report = vm.as_report(report)
    blocks = vm.fix_list(report.clinic.fix_list, len(report.capture.graph_breaks))
    blocks += vm.recompiles(report.clinic.recompiles, cells=report.clinic.cells)
    head = [] if report.clinic.fix_list else ["graph breaks: none"]
    tail = [] if report.clinic.recompiles else ["recompiles: none"]
    return "\n".join(head + lines(blocks) + tail)


# ---- timing ----

def graph_line(t: GraphTiming) -> str:
    comp = "n/a" if t.compile_time_s is None else f"{t.compile_time_s:.2f} s"
    train = ""
    if t.train_eager is not None or t.train_compiled is not None:
        train = (f"; forward+backward: eager {measurement_text(t.train_eager)}, compiled "
                 f"{measurement_text(t.train_compiled)}, speedup {ratio_text(t.train_speedup, t.train_ratio)}")
    return (f"{t.label}: eager {measurement_text(t.eager)}, compiled {measurement_text(t.compiled)}, "
            f"speedup {ratio_text(t.speedup, t.ratio)}{train}; compile {comp} ({t.compile_time_source}), "
            f"break-even {calls_text(t.break_even_calls)}")


def mode_line(r: ModeResult) -> str:
    if r.error:
        return f"{r.mode}: failed ({r.error})"
    return (f"{r.mode}: compile {r.compile_time_s:.1f} s, {format_time(r.compiled_s)} per call, "
            f"{speedup_text(r.speedup)}")


def timing_text(timing: Optional[TimingReport], comparisons: Sequence[ModeResult] = (),
                top_kernels: int = 5) -> list[str]:
    """A few lines per graph: times with spread, speedup, compile cost, break-even, top kernels, warnings."""
    lines: list[str] = []
    if timing is not None:
        lines.append(f"timing on {timing.device} (median per call ± IQR of the repeats)")
        if timing.peak is not None:
            lines.append(f"  device copy bandwidth: {timing.peak.gbs:,.0f} GB/s")
        for t in timing.graphs + ((timing.timeit,) if timing.timeit else ()):
            lines.append("  " + graph_line(t))
            for k in sorted(t.kernels, key=lambda k: -k.time_s)[:top_kernels]:
                bw = "" if k.bandwidth_gbs is None else f", {k.bandwidth_gbs:,.1f} GB/s"
                bw += "" if k.peak_pct is None else f" ({k.peak_pct:.0f}% of peak)"
                bw += "" if not k.launched_by else f"; launched by {launched_by_text(k)}"
                lines.append(f"    {k.name}: {format_time(k.time_s)} ({k.share_pct:.0f}%){bw}")
            if flops_line(t):
                lines.append(f"    {flops_line(t)}")
            if t.kernels_note:
                lines.append(f"    kernels: {t.kernels_note}")
            lines.extend(f"    ! {w}" for w in t.warnings)
            lines.extend(f"    note: {n}" for n in t.notes)
        lines.extend(f"  note: {n}" for n in timing.notes)
    if comparisons:
        lines.append("modes compared: " + "; ".join(mode_line(r) for r in comparisons))
    return lines


# ---- the whole report ----

def summary(report: Any, *, max_rows: int = 12, model: Optional[dict] = None) -> str:
    """One screen: counts, compilations, what to fix, recompiles, findings, problems, timing."""
    from ..distributed.text import capture_lines

    report = vm.as_report(report)
    model = model or vm.build(report, panes=False)
    head = ranks_lines(report, model)
    data = report.capture
    chips = {k: v for k, v in model["header"]["chips"]}
    out = head + [f"compile-explorer: {chips['compilations']} compilations, {chips['graphs']} graphs, "
           f"{chips['graph breaks']} graph breaks, {chips['recompiles']} recompiles, {chips['kernels']} kernels, "
           f"compile {chips['compile time'].replace(' s', 's')}  [torch {chips['torch']}, {chips['device']}]"]
    out += usage_text.mode_lines(data)
    comps = model["compilations"]
    by_id = {c.compile_id: c for c in data.compilations}
    for c in comps[:max_rows]:
        out.append("  " + flat(c["summary"]))
        out += ["         " + line for line in usage_text.compilation_lines(by_id[c["cid"]])]
    if len(comps) > max_rows:
        out.append(f"  ... {len(comps) - max_rows} more")
    for ep in data.exports:
        out += usage_text.export_lines(ep, by_id)
    out += [f"failed: {c['cid']} {c['frame']}: {c['failed']}" for c in comps if c["failed"]]
    out += [line.split("\n")[0] for line in lines(model["header"]["body"])]
    for c in data.compilations:
        out += guard_filter_text(c)
    out += usage_text.provenance_lines(data)
    out += capture_lines(data)
    out += timing_text(report.timing, report.comparisons)
    return "\n".join(out)


def ranks_lines(report: Any, model: dict) -> list[str]:
    """A merged report's "ranks compared" (the view model's), then whose summary follows; a rank's part: which."""
    dist = report.distributed
    if dist is None:
        return []
    if model.get("ranks") is None:
        return [f"compile-explorer: rank {dist.rank} of {dist.world_size}, this rank alone "
                f"(`python -m explorer merge` makes the report of every rank from the parts)"]
    return lines(model["ranks"]["blocks"]) + [
        f"--- rank {dist.rank} (shown below and in the views; report.rank(k) for another) ---"]


# ---- one stage ----

def stage_text(report: Any, stage: Any, comp: Any) -> str:
    """A stage of one compilation as plain text: title, explanation, then its content or why there is none."""
    view = vm.compilation(comp, vm.as_report(report), panes=(stage.id,))
    head = f"{stage.title} [{comp.compile_id}] {comp.frame.name}\n{stage.explanation}\n"
    if stage.id == "timing" and "timing" in view["panes"]:
        mine = [g for g in report.timing.graphs if g.compile_id == comp.compile_id]
        return head + "\n".join(graph_line(g) for g in mine)
    if stage.id not in view["panes"]:
        return head + f"(not captured: {vm.why_not(view, stage.id)})"
    return head + "\n".join(lines(view["panes"][stage.id], comp))
