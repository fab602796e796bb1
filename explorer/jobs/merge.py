"""Rank parts -> one merged report (one rank's own report back out of it is ``Report.rank``).

The merged report's top-level fields are the lowest rank that wrote a part (every single-report
view shows it as before); ``distributed.ranks`` holds every rank 0 .. world_size-1, each with the
report its part held, whole (``Report.rank`` gives it back, so a rank shows in every view as its part
alone does), a rank that wrote no part included and named as missing, with how it ended when the
launcher knows (a signal).
Plain data in, plain data out: merging needs no torch, so ``python -m explorer merge`` runs anywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping, Optional, Sequence

from ..capturing.model import Problem
from ..distributed import compare, ddp
from ..distributed.model import RankFailure
from ..options import Options
from ..report import Distributed, RankRun, Report

MISSING = ("wrote no part: the process was killed (SIGKILL, out of memory) or ended before the explorer could "
           "write it")


def merge(parts: Mapping[int, Report], *, world_size: Optional[int] = None,
          launcher: Optional[Mapping[int, str]] = None, sources: Optional[Mapping[int, str]] = None,
          options: Optional[Options] = None, problems: Sequence[Problem] = ()) -> Report:
    """One report of every rank. ``launcher``: rank -> how the launcher saw it end (for ranks with no part)."""
    if not parts:
        raise ValueError("no rank wrote a part: nothing to merge")
    world = world_size or max((_world(r) for r in parts.values()), default=0) or max(parts) + 1
    launcher = launcher or {}
    ranks = []
    for k in range(max(world, max(parts) + 1)):
        part = parts.get(k)
        if part is None:
            why = f"{MISSING}; the launcher saw: {launcher[k]}" if k in launcher else MISSING
            ranks.append(RankRun(k, missing=RankFailure("missing", why)))
        else:  # the part whole: a rank of the job shows as its part alone (Report.rank)
            ranks.append(RankRun(k, report=part, part=(sources or {}).get(k)))
    counts, groups, diffs, matched, colls = compare.compare(ranks)
    primary_rank = min(parts)
    primary = parts[primary_rank]
    dist = Distributed(world_size=world, rank=primary_rank, info=_info(primary), ranks=tuple(ranks),
                       counts=tuple(counts), groups=tuple(groups), differences=tuple(diffs),
                       compilations=tuple(matched), collectives=tuple(colls), notes=tuple(_notes(ranks)))
    return dataclasses.replace(primary, distributed=dist, problems=primary.problems + tuple(problems),
                               options=options if options is not None else primary.options)


def merge_parts_of(json_path: str, world_size: Optional[int] = None) -> Report:
    """The merged report of the parts beside ``json_path`` (``r.rank0.json``, ``r.rank1.json``, ...)."""
    from .env import part_path, parts_of

    parts = parts_of(json_path)
    if not parts:
        pattern = part_path(json_path, 0).replace(".rank0.", ".rank<N>.")
        raise ValueError(f"no parts beside {json_path!r} (looked for {pattern})")
    reports = {k: Report.load(p) for k, p in parts.items()}
    return merge(reports, world_size=world_size, sources=parts)


def _info(part: Report):
    return part.distributed.info if part.distributed is not None else None


def _world(part: Report) -> int:
    return part.distributed.world_size if part.distributed is not None else 0


def _notes(ranks: Sequence[RankRun]) -> list[str]:
    """DDP and FSDP notes of every rank, each once; and what could not be compared."""
    out: list[str] = []
    for r in ranks:
        if r.capture is not None:
            for n in ddp.notes(r.capture):
                if n not in out:
                    out.append(n)
    jobs = {r.info.run_id for r in ranks if r.info is not None and r.info.run_id}
    if len(jobs) > 1:
        out.append(f"the parts come from {len(jobs)} different launches (torchrun run ids): a stale part was merged")
    return out
