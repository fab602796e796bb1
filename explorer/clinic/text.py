"""The clinic as plain text, for the CLI and CI logs: one line per break site and per recompile."""

from __future__ import annotations

from ..capturing.model import CaptureData
from .fixlist import fix_list
from .recompiles import explain_recompiles


def render_text(data: CaptureData) -> str:
    """``file:line: reason  [GBxxxx] (N compilations)`` per break site, then one line per recompile."""
    sites = fix_list(data)
    explained = explain_recompiles(data)
    lines = []
    if sites:
        lines.append(f"graph breaks: {len(sites)} site{'s' if len(sites) != 1 else ''} to fix "
                     f"({len(data.graph_breaks)} breaks), most costly first")
        lines += [site.line() for site in sites]
    else:
        lines.append("graph breaks: none")
    if explained:
        lines.append(f"recompiles: {len(explained)}")
        lines += ["  " + e.one_line() for e in explained]
    else:
        lines.append("recompiles: none")
    return "\n".join(lines)
