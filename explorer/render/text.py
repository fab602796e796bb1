"""One-screen plain-text summary: the CLI prints it, and it is the text/plain of a report."""

from __future__ import annotations

import os

from ..capturing.model import CaptureData
from ..clinic import explain_recompiles, fix_list


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _headline(text: str) -> str:
    """First line, plus the next one when the first only introduces it ("backend='x' raised:")."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return f"{lines[0]} {lines[1]}"
    return lines[0] if lines else ""


def summary(data: CaptureData, *, max_rows: int = 12) -> str:
    breaks = data.graph_breaks
    lines = [
        f"compile-explorer: {len(data.compilations)} compilations, {data.num_graphs} graphs, "
        f"{len(breaks)} graph breaks, {len(data.recompiles)} recompiles, {len(data.kernels)} kernels, "
        f"compile {data.compile_time_s:.2f}s  [torch {data.torch_version}, {data.device}]",
    ]
    for c in data.compilations[:max_rows]:
        what = f"{c.graph.num_nodes} nodes" if c.graph else c.status.replace("_", " ")
        extra = f", {len(c.kernels)} kernels" if c.kernels else ""
        t = f", {c.compile_time_s:.2f}s" if c.compile_time_s else ""
        lines.append(f"  {c.compile_id:<6} {c.frame.name} ({_rel(c.frame.filename)}:{c.frame.lineno}): {what}{extra}{t}")
    if len(data.compilations) > max_rows:
        lines.append(f"  ... {len(data.compilations) - max_rows} more")
    sites = fix_list(data)
    if sites:
        lines.append("graph breaks (what to fix, most costly first):")
        lines += [f"  {site.line()}" for site in sites]
    recompiles = explain_recompiles(data)
    if recompiles:
        lines.append("recompiles:")
        lines += [f"  {e.one_line()}" for e in recompiles]
    failed = [c for c in data.compilations if c.failure]
    for c in failed:
        lines.append(f"failed: {c.compile_id} {c.frame.name}: {_headline(c.failure)}")
    if data.error:
        lines.append(f"the code raised {data.error.splitlines()[0]}")
    for note in data.notes:
        lines.append(f"note: {note.splitlines()[0]}")
    return "\n".join(lines)
