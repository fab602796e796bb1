"""One-screen plain-text summary: the CLI prints it, and it is the text/plain of a report."""

from __future__ import annotations

import os

from ..capture.model import CaptureData


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


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
    if breaks:
        lines.append("graph breaks:")
        for c, b in breaks:
            lines.append(f"  {_rel(b.filename or '?')}:{b.lineno or '?'}: {b.reason}"
                         + (f"  [{b.gb_code}]" if b.gb_code else ""))
    recompiles = data.recompiles
    if recompiles:
        lines.append("recompiles:")
        for c in recompiles:
            first = (c.recompile_reason or "").splitlines()[0] if c.recompile_reason else ""
            lines.append(f"  {c.compile_id} {c.frame.name}: {first}")
    failed = [c for c in data.compilations if c.failure]
    for c in failed:
        lines.append(f"failed: {c.compile_id} {c.frame.name}: {c.failure.splitlines()[0]}")
    if data.error:
        lines.append(f"the code raised {data.error.splitlines()[0]}")
    for note in data.notes:
        lines.append(f"note: {note.splitlines()[0]}")
    return "\n".join(lines)
