"""The run's compile-time timeline as an SVG picture: compilations as rows on one time axis, each of torch's timed
phases a bar where it began, the phases inside it stacked under it.

Drawn in Python, so the page, the widget and the static copy show the same picture (the front end inserts it
through its SVG sanitiser, ``pictures.parseSvg``). Every text is escaped: compilation names come from user code.
"""

from __future__ import annotations

from typing import Sequence

from .escape import esc as _esc
from .fmt import format_time

_TL_LABEL_W = 170
_TL_W = 520
_TL_BAR = 6  # px per depth of nesting
_TL_GAP = 8  # px between compilations


def timeline(rows: Sequence[dict], *, title: str, span_s: float, legend: str = "") -> str:
    """Compilations as rows on one time axis, each phase a bar at its start, nested phases stacked below their
    parent. ``rows``: ``{"label", "tip", "link", "bars": [(start_s, seconds, depth, colour, tip)]}``; ``link``: the
    index a view leads through (``data-link``); ``legend``: a second line under the title. Returns an <svg> element,
    every text escaped."""
    scale = _TL_W / span_s if span_s > 0 else 0.0
    heights = [(1 + max((b[2] for b in r["bars"]), default=0)) * _TL_BAR + _TL_GAP for r in rows]
    top = 48  # the title, the legend, the axis labels
    height = top + sum(heights) + 4
    width = _TL_LABEL_W + _TL_W + 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="cx-chart cx-timeline" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}" '
             f'font-family="sans-serif" font-size="11">', f'<title>{_esc(title)}</title>',
             f'<text x="0" y="13" font-weight="bold">{_esc(_clip(title, 110))}</text>',
             f'<text x="0" y="27" fill="#6a737d">{_esc(_clip(legend, 120))}</text>']
    for i in range(5):  # the axis: seconds after the run's first span
        t = span_s * i / 4
        x = _TL_LABEL_W + t * scale
        said = f"+{format_time(t)}" if t > 0 else "0 s"
        parts.append(f'<line x1="{x:.1f}" y1="{top - 8}" x2="{x:.1f}" y2="{height - 4}" stroke="#d0d5db"/>'
                     f'<text x="{x:.1f}" y="{top - 10}" text-anchor="middle" fill="#6a737d">{_esc(said)}</text>')
    y = top
    for r, h in zip(rows, heights):
        parts.append(f'<g data-link="{int(r["link"])}"><title>{_esc(r["tip"])}</title>'
                     f'<rect x="0" y="{y}" width="{width}" height="{h - 2}" fill="transparent"/>'
                     f'<text x="{_TL_LABEL_W - 6}" y="{y + 9}" text-anchor="end">{_esc(_clip(r["label"], 28))}</text>')
        for start, seconds, depth, colour, tip in r["bars"]:
            x = _TL_LABEL_W + start * scale
            w = max(seconds * scale, 0.5)
            parts.append(f'<rect x="{x:.1f}" y="{y + depth * _TL_BAR}" width="{w:.1f}" height="{_TL_BAR - 1}" '
                         f'fill="{_esc(colour)}"><title>{_esc(tip)}</title></rect>')
        parts.append("</g>")
        y += h
    parts.append("</svg>")
    return "".join(parts)


def _clip(label: str, n: int) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"
