"""The text summary's distributed parts: "ranks compared" for a merged report, DDP splits for any capture.

A merged report's summary leads with the ranks: each group of ranks that compiled the same (one
line for the group, compile times per rank), every difference with its user line and ranks, the
possible hangs, the collectives per graph, what DDP and FSDP did; then the lowest rank's own
summary, which the views below it show.
"""

from __future__ import annotations

from typing import Any

from ..capturing.model import CaptureData
from ..clinic.locate import basename
from . import ddp
from .model import Distributed, GraphCollectives, RankCounts

MAX_DIFFERENCES = 20
MAX_COLLECTIVE_GRAPHS = 8


def capture_lines(data: CaptureData) -> list[str]:
    """DDPOptimizer's splits (or why a graph was kept whole) and the DDP/FSDP notes, for one capture."""
    lines = [line for c in data.compilations for line in ddp.split_lines(c)]
    for c in data.compilations:
        note = ddp.subgraph_note(c.ddp_optimizer) if c.ddp_optimizer else None
        if note:
            lines.append(f"  note [{c.compile_id}]: {note}")
    return lines + [f"note: {n}" for n in ddp.notes(data)]


def distributed_lines(report: Any) -> list[str]:
    """The section before the rank's own summary: a part's header, or the merged ranks compared."""
    dist: Distributed = report.distributed
    if not dist.merged:
        return [f"compile-explorer: rank {dist.rank} of {dist.world_size}, this rank alone "
                f"(`python -m explorer merge` makes the report of every rank from the parts)"]
    present = [r for r in dist.ranks if r.capture is not None]
    backend = next((r.info.backend for r in dist.ranks if r.info and r.info.backend), None)
    head = (f"compile-explorer: {dist.world_size} ranks" + (f" ({backend})" if backend else "")
            + f", {len(present)} captured")
    lines = [head, "ranks compared:"]
    by_rank = {c.rank: c for c in dist.counts}
    for g in dist.groups:
        times = ", ".join(f"{by_rank[k].compile_time_s:.2f}s" for k in g.ranks)
        who = _ranks(g.ranks) + (" (compiled the same)" if len(g.ranks) > 1 else "")
        lines.append(f"  {who}: {g.text}; compile {times}")
    lines += failure_lines(dist)
    diffs = dist.differences
    if not [d for d in diffs if d.kind not in ("failure", "missing")]:
        lines.append("differences: none (every captured rank compiled the same)")
    else:
        shown = [d for d in diffs if d.kind not in ("failure", "missing")]
        lines.append(f"differences: {len(shown)}")
        for d in shown[:MAX_DIFFERENCES]:
            lines.append(("  ! " if d.hang else "  ") + d.text)
        if len(shown) > MAX_DIFFERENCES:
            lines.append(f"  ... {len(shown) - MAX_DIFFERENCES} more (the JSON's distributed.differences)")
    lines += collectives_lines(dist)
    primary_notes = set(ddp.notes(report.capture)) if report.capture is not None else set()
    lines += [f"note: {n}" for n in dist.notes if n not in primary_notes]
    lines.append(f"--- rank {dist.rank} (shown below and in the views; report.rank(k) for another) ---")
    return lines


def failure_lines(dist: Distributed) -> list[str]:
    """Failed ranks in the order they ended, the first that failed of its own accord marked; missing ones last."""
    failed = [r for r in dist.ranks if r.failure is not None and r.info is not None]
    failed.sort(key=lambda r: (r.info.ended_at or 0.0, r.rank))
    own = [r for r in failed if r.failure.kind in ("raised", "exit", "interrupted")]
    first = own[0].rank if own and len(failed) > 1 else None
    lines = [f"  rank {r.rank} failed{' first' if r.rank == first else ''}: {r.failure.one_line()}" for r in failed]
    return lines + [f"  rank {r.rank} missing: {r.failure.message}" for r in dist.ranks if r.info is None]


def collectives_lines(dist: Distributed) -> list[str]:
    """Per graph, the collectives in order: once when every rank issues the same, per rank group otherwise."""
    if not dist.collectives:
        return []
    lines = ["collectives (per graph, in order; waits left out):"]
    by_key: dict[tuple[str, str], list[GraphCollectives]] = {}
    for gc in dist.collectives:
        by_key.setdefault((gc.key, gc.stage), []).append(gc)
    firsts = {}
    for (key, stage), gcs in by_key.items():
        firsts.setdefault(key, (stage, gcs))  # the first stage that has any: what the user's code issued
    for key, (stage, gcs) in list(firsts.items())[:MAX_COLLECTIVE_GRAPHS]:
        groups: dict[str, list[int]] = {}
        for gc in gcs:
            groups.setdefault(" -> ".join(c.signature() for c in gc.collectives), []).append(gc.rank)
        frame = key.rsplit("#", 1)[0]
        for seq, ranks in groups.items():
            cids = ", ".join(sorted({gc.compile_id for gc in gcs if gc.rank in ranks}))
            who = "every rank" if len(ranks) == len([r for r in dist.ranks if r.capture]) else _ranks(ranks)
            lines.append(f"  [{cids}] {frame} ({stage}), {who}: {seq}")
    if len(firsts) > MAX_COLLECTIVE_GRAPHS:
        lines.append(f"  ... {len(firsts) - MAX_COLLECTIVE_GRAPHS} more graphs")
    return lines


def counts_line(c: RankCounts) -> str:
    return (f"rank {c.rank}: {c.compilations} compilations, {c.graphs} graphs, {c.graph_breaks} graph breaks, "
            f"{c.recompiles} recompiles, {c.guards} guards, {c.kernels} kernels, {c.collectives} collectives, "
            f"compile {c.compile_time_s:.2f}s")


def _ranks(ranks: Any) -> str:
    ranks = sorted(ranks)
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(str(r) for r in ranks)


def short(path: str) -> str:
    return basename(path)
