"""One compilation of one rank against the same compilation of another: guards, FX graph, output code.

"The same compilation" is the matched one (frame, and how many times it was compiled before), not the
same compile id, which shifts on a rank that broke or recompiled where the others did not. Each rank's
own device index (``cuda:0`` / ``cuda:1``) and object ids are normalised away first, so what remains is
what the ranks really compiled differently. The text form of the views' rank-to-rank diff.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..capturing.model import Compilation
from ..clinic.diff import CompilationDiff, diff_compilations
from .compare import norm_rank


def diff_ranks(report: Any, a: int, b: int, compilation: str) -> CompilationDiff:
    """Rank ``a``'s and rank ``b``'s compilation ``compilation`` (a matched key such as ``step@t.py:10#0``,
    or a compile id of rank ``a``), section by section; ``.to_text()`` for a unified diff."""
    dist = report.distributed
    if dist is None or not dist.merged:
        raise LookupError("not a merged multi-rank report")
    match = next((m for m in dist.compilations if m.key == compilation), None)
    if match is None:  # a compile id of rank a, in any printed form
        capture = dist.rank_run(a).capture
        key = capture.compilation_key(compilation) if capture is not None else None
        match = next((m for m in dist.compilations if key is not None and m.compile_ids.get(str(a)) == key), None)
    if match is None:
        raise LookupError(f"no compilation {compilation!r} on rank {a}; keys: "
                          f"{', '.join(m.key for m in dist.compilations)}")
    sides = []
    for rank in (a, b):
        cid = match.compile_ids.get(str(rank))
        if cid is None:
            raise LookupError(f"rank {rank} did not compile {match.key}")
        comp = report.rank(rank).compilation(cid)
        sides.append(dataclasses.replace(_normalised(comp), frame=dataclasses.replace(
            comp.frame, name=f"rank {rank}: {comp.frame.name}")))
    diff = diff_compilations(*sides)
    return dataclasses.replace(diff, a_id=f"rank {a} [{diff.a_id}]", b_id=f"rank {b} [{diff.b_id}]")


def _normalised(c: Compilation) -> Compilation:
    graph = dataclasses.replace(c.graph, code=norm_rank(c.graph.code)) if c.graph else None
    guards = tuple(dataclasses.replace(g, code=norm_rank(g.code)) for g in c.guards)
    outputs = tuple(dataclasses.replace(o, code=norm_rank(o.code)) for o in c.output_code) if c.output_code else None
    return dataclasses.replace(c, graph=graph, guards=guards, output_code=outputs,
                               guard_tree=norm_rank(c.guard_tree) if c.guard_tree else None)
