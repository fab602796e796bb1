"""Timing results as an HTML fragment (widget, static page): the timing table written once.

Every string that may come from user code (labels, kernel names, notes) is escaped.
"""

from __future__ import annotations

from typing import Any

from ..timing.model import GraphTiming, KernelTiming, ModeResult, TimingReport
from .escape import esc
from .panes import kernel_anchor
from .plots import format_time, graphs_chart, kernels_chart
from .text import calls_text as _calls
from .text import flops_line, launched_by_text
from .text import measurement_text as _m
from .text import ratio_text as _r
from .text import speedup_text as _x


def _train_row(t: GraphTiming, e: Any) -> str:
    if t.train_eager is None and t.train_compiled is None:
        return ""
    return (f"<tr><td>{e(t.label)} forward+backward</td><td>{e(_m(t.train_eager))}</td>"
            f"<td>{e(_m(t.train_compiled))}</td><td>{e(_r(t.train_speedup, t.train_ratio))}</td>"
            "<td></td><td></td></tr>")


def html_fragment(report: TimingReport, comparisons: tuple[ModeResult, ...] = ()) -> str:
    """Tables and charts for the explorer view; no scripts, no external assets."""
    e = esc
    rows = "".join(
        f"<tr><td>{e(t.label)}</td><td>{e(_m(t.eager))}</td><td>{e(_m(t.compiled))}</td>"
        f"<td>{e(_r(t.speedup, t.ratio))}</td>"
        f"<td>{e('n/a' if t.compile_time_s is None else f'{t.compile_time_s:.2f} s')}</td>"
        f"<td>{e(_calls(t.break_even_calls))}</td></tr>" + _train_row(t, e)
        for t in report.graphs + ((report.timeit,) if report.timeit else ()))
    parts = [f'<div class="cx-timing"><p>Timing on {e(report.device)}: median per call, ± inter-quartile '
             f'range of the repeats.</p>',
             '<table class="cx-table"><tr><th>graph</th><th>eager</th><th>compiled</th><th>speedup</th>'
             f'<th>compile</th><th>break-even</th></tr>{rows}</table>']
    timed = report.graphs + ((report.timeit,) if report.timeit else ())
    warnings = list(report.warnings) + [f"{t.label}: {n}" for t in timed for n in t.notes]
    if report.timeit is not None:
        warnings += [f"{report.timeit.label}: {w}" for w in report.timeit.warnings]
    if warnings:
        parts.append('<ul class="cx-warnings">' + "".join(f"<li>{e(w)}</li>" for w in warnings) + "</ul>")
    if report.graphs:
        parts.append(graphs_chart(report.graphs))
    for t in report.graphs:
        if t.kernels:
            parts.append(kernels_chart(t))
            parts.append(_kernel_table(t))
        if flops_line(t):
            parts.append(f"<p>{e(t.label)}: {e(flops_line(t))}</p>")
        if t.kernels_note:  # why there are no rows, or what the rows lack (FLOPs, the copy ceiling)
            parts.append(f"<p>{e(t.label)}: {e(t.kernels_note)}</p>")
    if comparisons:
        parts.append(modes_table(comparisons))
    if report.peak is not None:
        parts.append(f"<p>Device copy bandwidth: {report.peak.gbs:,.0f} GB/s (measured once, "
                     f"±{report.peak.measurement.iqr_pct:.0f}%).</p>")
    parts.append("</div>")
    return "".join(parts)


def _kernel_name(k: KernelTiming) -> str:
    """A generated kernel's name links to its source in the report; library calls have none."""
    code = f'<code class="cx-kernel" data-kernel="{esc(k.name)}">{esc(k.name)}</code>'
    if k.kind != "generated":
        return code
    return f'<a href="#{esc(kernel_anchor(k.name))}" title="show the kernel\'s source">{code}</a>'


def _kernel_table(t: GraphTiming) -> str:
    e = esc
    rows = "".join(
        f'<tr><td>{_kernel_name(k)}</td><td>{e(k.kind)}</td>'
        f"<td>{e(format_time(k.time_s))}</td><td>{k.share_pct:.1f}%</td>"
        f"<td>{'' if k.bytes is None else f'{k.bytes:,}'}</td>"
        f"<td>{'' if k.bandwidth_gbs is None else f'{k.bandwidth_gbs:,.1f}'}</td>"
        f"<td>{'' if k.peak_pct is None else f'{k.peak_pct:.0f}%'}</td>"
        f"<td>{e(launched_by_text(k))}</td></tr>"
        for k in t.kernels)
    return (f'<table class="cx-table"><caption>{e(t.label)}: kernels</caption><tr><th>kernel</th><th>kind</th>'
            "<th>time</th><th>share</th><th>bytes</th><th>GB/s</th><th>% of peak</th><th>launched by</th></tr>"
            + rows + "</table>")


def modes_table(modes: tuple[ModeResult, ...]) -> str:
    e = esc
    rows = "".join(
        f"<tr><td>{e(r.mode)}</td>"
        + (f'<td colspan="4">{e(r.error)}</td>' if r.error else
           f"<td>{r.compile_time_s:.2f} s</td><td>{e(format_time(r.eager_s))}</td>"
           f"<td>{e(format_time(r.compiled_s))}</td><td>{e(_x(r.speedup))}</td>")
        + f"<td>{e('; '.join(r.notes))}</td></tr>" for r in modes)
    return ('<table class="cx-table"><caption>modes compared</caption><tr><th>mode</th><th>compile (cold)</th>'
            "<th>eager</th><th>compiled</th><th>speedup</th><th>notes</th></tr>" + rows + "</table>")
