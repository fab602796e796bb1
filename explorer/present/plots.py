"""Small inline SVG bar charts: eager vs compiled per graph, and where a graph's time goes.

Plain SVG strings (no plotting library), so they work in the widget, in the
static HTML and offline. Every label is escaped: graph and kernel names come
from user code.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..timing.model import GraphTiming
from .escape import esc as _esc
from .fmt import format_time  # noqa: F401 (its old home: benchmarks import it from here)
from .viewmodel import graphs_chart as graphs_chart_rows
from .viewmodel import kernels_chart as kernels_chart_rows

_ROW = 18  # px per bar
_LABEL_W = 190
_BAR_W = 300
_VALUE_W = 90


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
    chart = graphs_chart_rows(timings)
    return bar_chart([tuple(r) for r in chart["rows"]], title=chart["title"])


def kernels_chart(timing: GraphTiming) -> str:
    """The compiled graph's time split over its kernels and extern calls, largest first."""
    chart = kernels_chart_rows(timing)
    return bar_chart([tuple(r) for r in chart["rows"]], title=chart["title"])


def _clip(label: str, n: int = 32) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


