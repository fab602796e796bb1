"""Every plain-text view of a report: the CLI's summary, ``repr(report)``, a notebook's text/plain.

The fix list, the recompile explanations and the timing table are each
written here once; the summary places them.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from ..clinic.fixlist import BreakSite
from ..clinic.guard_filter import guard_filter_text
from ..clinic.recompiles import RecompileExplanation
from ..timing.model import GraphTiming, Measurement, ModeResult, TimingReport
from . import usage_text
from .plots import format_time


def rel(path: str) -> str:
    """A path relative to the working directory when that is shorter."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return relative if not relative.startswith("..") else path


def headline(text: str) -> str:
    """First line, plus the next one when the first only introduces it ("backend='x' raised:")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return f"{lines[0]} {lines[1]}"
    return lines[0] if lines else ""


# ---- the clinic ----

def fix_list_text(sites: Sequence[BreakSite], total_breaks: Optional[int] = None) -> list[str]:
    """``file:line: reason  [GBxxxx] (N compilations)`` per break site, most costly first."""
    if not sites:
        return ["graph breaks: none"]
    of = f" ({total_breaks} breaks)" if total_breaks is not None else ""
    head = f"graph breaks: {len(sites)} site{'s' if len(sites) != 1 else ''} to fix{of}, most costly first"
    return [head] + ["  " + site.line() for site in sites]


def recompiles_text(explained: Sequence[RecompileExplanation]) -> list[str]:
    if not explained:
        return ["recompiles: none"]
    return [f"recompiles: {len(explained)}"] + ["  " + e.one_line() for e in explained]


def clinic_text(report: Any) -> str:
    """The clinic alone (what CI logs want): break sites, then recompiles."""
    from ..report import Report

    report = Report.of(report)
    data = report.capture
    return "\n".join(fix_list_text(report.clinic.fix_list, len(data.graph_breaks))
                     + recompiles_text(report.clinic.recompiles))


# ---- timing ----

def measurement_text(m: Optional[Measurement]) -> str:
    return "n/a" if m is None else f"{format_time(m.median_s)} ±{m.iqr_pct:.0f}%"


def speedup_text(v: Optional[float]) -> str:
    return "n/a" if v is None else f"{v:.2f}x"


def ratio_text(v: Optional[float], ratio: Any = None) -> str:
    """The speedup, with the spread of its per-repeat ratios when eager and compiled were interleaved."""
    return speedup_text(v) + ("" if ratio is None else f" ±{ratio.iqr_pct:.0f}%")


def launched_by_text(k: Any) -> str:
    """``aten::convolution x18`` for each op whose calls launched the kernel (per graph call)."""
    return ", ".join(f"{o.op} x{o.launches:g}" for o in getattr(k, "launched_by", ()) or ())


def flops_line(t: GraphTiming) -> Optional[str]:
    """The graph's counted FLOPs per call against what its kernel rows were given: they add up, or say so."""
    if not t.flops:
        return None
    given = sum(k.flops or 0 for k in t.kernels)
    return (f"FLOPs per call: {t.flops / 1e9:,.3g} GFLOP in its op calls, {given / 1e9:,.3g} GFLOP given to "
            f"kernel rows ({100.0 * given / t.flops:.1f}%)")


def calls_text(v: Optional[float]) -> str:
    return "never" if v is None else f"{v:,.0f} calls"


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

def summary(report: Any, *, max_rows: int = 12) -> str:
    """One screen: counts, compilations, what to fix, recompiles, findings, problems, timing."""
    from ..distributed.text import capture_lines, distributed_lines
    from ..report import Report

    report = Report.of(report)
    data = report.capture
    head = distributed_lines(report) if report.distributed is not None else []
    lines = head + [
        f"compile-explorer: {len(data.compilations)} compilations, {data.num_graphs} graphs, "
        f"{len(data.graph_breaks)} graph breaks, {len(data.recompiles)} recompiles, {len(data.kernels)} kernels, "
        f"compile {data.compile_time_s:.2f}s  [torch {data.torch_version}, {data.device}]",
    ]
    lines += usage_text.mode_lines(data)
    for c in data.compilations[:max_rows]:
        what = f"{c.graph.num_nodes} nodes" if c.graph else c.status.replace("_", " ")
        extra = f", {len(c.kernels)} kernels" if c.kernels else ""
        t = f", {c.compile_time_s:.2f}s" if c.compile_time_s else ""
        lines.append(f"  {c.compile_id:<6} {c.frame.name} ({rel(c.frame.filename)}:{c.frame.lineno}): {what}{extra}{t}")
        lines += ["         " + line for line in usage_text.compilation_lines(c)]
    if len(data.compilations) > max_rows:
        lines.append(f"  ... {len(data.compilations) - max_rows} more")
    comps = {c.compile_id: c for c in data.compilations}
    for ep in data.exports:
        lines += usage_text.export_lines(ep, comps)
    if report.clinic.fix_list:
        lines += fix_list_text(report.clinic.fix_list, len(data.graph_breaks))
    if report.clinic.recompiles:
        lines += recompiles_text(report.clinic.recompiles)
    for c in data.compilations:
        lines += guard_filter_text(c)
    lines += usage_text.provenance_lines(data)
    for c in data.compilations:
        if c.failure:
            lines.append(f"failed: {c.compile_id} {c.frame.name}: {headline(c.failure)}")
    if data.error:
        lines.append(f"the code raised {data.error.splitlines()[0]}")
    for f in report.findings:
        where = f" [{f.compile_id}]" if f.compile_id else ""
        lines.append(f"finding{where}: {f.message}" + (f" ({f.hint})" if f.hint else ""))
    lines += capture_lines(data)
    for note in data.notes:
        lines.append(f"note: {note.splitlines()[0]}")
    for p in report.all_problems:
        lines.append(f"problem: {p.one_line()}")
    unknown = [a for a in data.other_artifacts if not a.why.startswith("dropped")]
    if unknown:
        names = ", ".join(sorted({a.name for a in unknown}))
        lines.append(f"other artifacts (no decoder): {names}")
    lines += timing_text(report.timing, report.comparisons)
    return "\n".join(lines)


# ---- one stage ----

def stage_text(report: Any, stage: Any, comp: Any) -> str:
    """A stage of one compilation as plain text: title, explanation, then its content or why there is none."""
    from ..stages import why_missing

    head = f"{stage.title} [{comp.compile_id}] {comp.frame.name}\n{stage.explanation}\n"
    if stage.scope == "report":
        mine = [g for g in (report.timing.graphs if report.timing else ()) if g.compile_id == comp.compile_id]
        return head + ("\n".join(graph_line(g) for g in mine) or f"(not captured: {why_missing(stage.id, comp)})")
    if not stage.present(comp):
        return head + f"(not captured: {why_missing(stage.id, comp)})"
    return head + _content_text(stage.content(comp))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    for attr in ("listing", "code", "text", "source"):  # bytecode, graphs, IR dumps, kernels
        if hasattr(content, attr) and not isinstance(content, tuple):
            return getattr(content, attr)
    if isinstance(content, tuple):
        parts = []
        for item in content:
            if hasattr(item, "kind") and hasattr(item, "code") and hasattr(item, "subject"):  # a guard
                parts.append(f"{item.kind}: {item.code}" + (f"  # {item.source}" if item.source else ""))
            elif hasattr(item, "name") and hasattr(item, "source"):  # a kernel
                parts.append(f"# {item.name} ({item.language})\n{item.source}")
            else:
                label = getattr(item, "graph_kind", "")
                parts.append((f"# {label}\n" if label else "") + _content_text(item))
        one_per_line = all(hasattr(item, "subject") for item in content)  # guards
        return ("\n" if one_per_line else "\n\n").join(parts)
    if hasattr(content, "reason"):  # a graph break
        return f"{content.reason}\n{content.explanation or ''}".strip()
    return str(content)
