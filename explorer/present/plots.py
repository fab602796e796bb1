"""Small inline SVG bar charts: eager vs compiled per graph, and where a graph's time goes.

Plain SVG strings (no plotting library), so they work in the widget, in the
static HTML and offline. Every label is escaped: graph and kernel names come
from user code.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..timing.model import GraphTiming, KernelTiming
from .escape import esc as _esc

EAGER_COLOUR = "#9aa5b1"
COMPILED_COLOUR = "#3b7dd8"
_ROW = 18  # px per bar
_LABEL_W = 190
_BAR_W = 300
_VALUE_W = 90


def format_time(seconds: Optional[float]) -> str:
    """1.23 ms, 45.6 µs, 2.00 s: what the charts and tables print."""
    if seconds is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def bar_chart(rows: Sequence[tuple[str, float, str, str]], *, title: str, max_value: Optional[float] = None) -> str:
    """Horizontal bars; each row is (label, value, value text, colour). Returns an <svg> element."""
    top = max_value if max_value is not None else max((v for _, v, _, _ in rows), default=0.0)
    height = 22 + _ROW * len(rows) + 4
    width = _LABEL_W + _BAR_W + _VALUE_W
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="cx-chart" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}" '
             f'font-family="sans-serif" font-size="11">',
             f'<title>{_esc(title)}</title>',
             f'<text x="0" y="13" font-weight="bold">{_esc(title)}</text>']
    for i, (label, value, text, colour) in enumerate(rows):
        y = 22 + i * _ROW
        w = 0.0 if top <= 0 else max(1.0, _BAR_W * value / top)
        parts.append(f'<text x="{_LABEL_W - 6}" y="{y + 12}" text-anchor="end">{_esc(_clip(label))}'
                     f'<title>{_esc(label)}</title></text>')
        parts.append(f'<rect x="{_LABEL_W}" y="{y + 2}" width="{w:.1f}" height="{_ROW - 5}" fill="{_esc(colour)}"/>')
        parts.append(f'<text x="{_LABEL_W + w + 4:.1f}" y="{y + 12}">{_esc(text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def graphs_chart(timings: Sequence[GraphTiming]) -> str:
    """Eager vs compiled time per call, two bars per graph on one scale."""
    rows = []
    for t in timings:
        for what, m, colour in (("eager", t.eager, EAGER_COLOUR), ("compiled", t.compiled, COMPILED_COLOUR)):
            if m is None:
                continue
            text = format_time(m.median_s) + (f" ±{m.iqr_pct:.0f}%" if m.iqr_pct >= 0.5 else "")
            rows.append((f"{t.label} {what}", m.median_s, text, colour))
    return bar_chart(rows, title="time per call: eager vs compiled (median, ±IQR)")


def kernels_chart(timing: GraphTiming, top: int = 12) -> str:
    """The compiled graph's time split over its kernels and extern calls, largest first."""
    ks: list[KernelTiming] = sorted(timing.kernels, key=lambda k: -k.time_s)
    shown, rest = ks[:top], ks[top:]
    rows = [(k.name, k.time_s, f"{format_time(k.time_s)} ({k.share_pct:.0f}%)",
             COMPILED_COLOUR if k.kind == "generated" else EAGER_COLOUR) for k in shown]
    if rest:
        t = sum(k.time_s for k in rest)
        rows.append((f"{len(rest)} more", t, format_time(t), EAGER_COLOUR))
    return bar_chart(rows, title=f"{timing.label}: kernel time (generated in blue, extern in grey)")


def _clip(label: str, n: int = 32) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


