"""The view model of a merged multi-rank report: the rank picker's data and the "ranks compared" section.

A merged report (``run --nproc-per-node``, ``merge``) holds every rank of a job; its top-level
fields are the lowest rank's, which every single-report view draws unchanged. This adds what the
views need to show the others: each rank for the picker (its status, in words), each matched
compilation's compile id per rank (picking another rank keeps "the same compilation", whose
compile id may shift), and the "ranks compared" blocks drawn above the rank's own view: the
ranks in numbers (one row per group of ranks that compiled the same), how ranks failed, every
difference with possible hangs first, and the collectives each graph issues. A difference or a
row that concerns a compilation carries ``go``: where it leads in the interactive views (a rank,
its compile id, the stage of that kind of difference, a rank to diff against, user lines to
light). Static views draw the same blocks and ignore ``go``; the text summary draws their
``text``. A single-rank report has none of this (``build`` gives None).
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..capturing.model import CaptureData
from ..distributed.model import Difference, GraphCollectives, MatchedCompilation
from ..lineage import Origin
from ..plural import counted
from ..report import Distributed, RankRun, Report
from . import diff_view
from .blocks import Block, Go, Item, Row, Section, Side
from .blocks import Origin as OriginObject
from .fmt import origin_of

MAX_DIFFERENCES = 20  # shown at once; the rest fold ("N more"), and the text names where they are
MAX_COLLECTIVE_GRAPHS = 8
# the stage a difference of each kind is seen in (failures lead to their rank and line: failure_items)
STAGE_OF = {"graph_break": "graph_break", "recompile": "graph_break", "graph": "graph", "guards": "guards",
            "compilation": "graph", "collectives": "graph"}


def build(report: Report) -> Optional[dict]:
    """``{rank, world_size, ranks, compilations, blocks, follows}`` of a merged report; None for any other.
    ``follows``: whose view the static copy and the text show below "ranks compared" (the interactive views pick
    a rank instead). ``viewmodel.build`` adds ``diffs``: the rank-to-rank diffs the differences lead to
    (``diff_pairs``)."""
    dist: Optional[Distributed] = report.distributed
    if dist is None or not dist.merged:
        return None
    return {"rank": dist.rank, "world_size": dist.world_size,
            "ranks": [{"rank": r.rank, "status": r.status, "label": rank_label(r)} for r in dist.ranks],
            "compilations": [{"key": m.key, "ids": dict(m.compile_ids)} for m in dist.compilations],
            "blocks": [{"t": "div", "cls": "cx-ranks", "body": section_blocks(report)}],
            "follows": {"t": "h", "cls": "cx-h3 cx-rank-follows",
                        "r": [f"Rank {dist.rank} ", {"muted": "(the interactive view and the standalone page show "
                                                              "every rank)"}],
                        "text": f"--- rank {dist.rank} (shown below and in the views; report.rank(k) for another) ---"}}


def alone(dist: Distributed) -> Block:
    """One rank's part of a job, before the merge: whose it is, and how to get the rest."""
    return {"t": "p", "r": f"compile-explorer: rank {dist.rank} of {dist.world_size}, this rank alone "
                           "(`python -m explorer merge` makes the report of every rank from the parts)"}


def rank_label(r: RankRun) -> str:
    """What the rank picker says of a rank: its number, and how it ended when not normally."""
    if r.capture is None:
        return f"rank {r.rank} (no report: {_cut(r.failure.message.split(';')[0]) if r.failure else 'missing'})"
    n = len(r.capture.compilations)
    end = f", failed: {_cut(r.failure.one_line())}" if r.failure else ""
    return f"rank {r.rank} ({n} compilation{'s' if n != 1 else ''}{end})"


def _cut(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def section_blocks(report: Report) -> list[Block]:
    dist = report.distributed
    if dist is None:
        return []
    present = [r for r in dist.ranks if r.capture is not None]
    backend = next((r.info.backend for r in dist.ranks if r.info and r.info.backend), None)
    n_diff = len(_shown(dist.differences))
    hangs = sum(1 for d in dist.differences if d.hang)
    head = (counted(dist.world_size, "rank") + (f" ({backend})" if backend else "") + f", {len(present)} captured")
    said = (f"{n_diff} difference{'s' if n_diff != 1 else ''}" if n_diff else "no differences") + (
        f", {hangs} possible hang{'s' if hangs != 1 else ''}" if hangs else "")
    out: list[Block] = [{"t": "p", "text": f"compile-explorer: {head}", "r": [{"b": "Distributed job: "},
                                                                            f"{head}; {said}."]},
                       {"t": "p", "cls": "cx-hint", "interactive": True,
                        "r": "Pick a rank in the toolbar, or click a row below: it leads to its rank, compilation "
                             "and stage."}]
    out.append(counts_section(dist))
    out += differences_section(dist)
    out += collectives_section(dist)
    primary_notes = set(_capture_notes(report.capture)) if report.capture is not None else set()
    out += [{"t": "p", "cls": "cx-muted", "r": n, "text": f"note: {n}"} for n in dist.notes if n not in primary_notes]
    return out


# ---- the ranks in numbers ----

COUNT_HEAD = ["ranks", "compilations", "graphs", "graph breaks", "recompiles", "guards", "kernels", "collectives",
              "compile time"]


def counts_section(dist: Distributed) -> Section:
    """One row per group of ranks that compiled the same (compile times per rank), then how ranks failed."""
    by_rank = {c.rank: c for c in dist.counts}
    rows: list[Row] = []
    for g in dist.groups:
        c = by_rank[g.ranks[0]]
        times = ", ".join(f"{by_rank[k].compile_time_s:.2f}s" for k in g.ranks)
        who = ranks_phrase(g.ranks) + (" (compiled the same)" if len(g.ranks) > 1 else "")
        rows.append({"c": [who, *(str(v) for v in (c.compilations, c.graphs, c.graph_breaks, c.recompiles, c.guards,
                                                    c.kernels, c.collectives)), times],
                     "text": f"{who}: {g.text}; compile {times}", "go": {"rank": g.ranks[0]}})
    items = failure_items(dist)
    body: list[Block] = [{"t": "table", "cls": "cx-rank-counts", "head": COUNT_HEAD, "rows": rows}]
    if items:
        body.append({"t": "list", "cls": "cx-rank-failures", "items": items})
    return {"t": "section", "title": "Ranks compared", "open": True, "text": "ranks compared:", "body": body}


def failure_items(dist: Distributed) -> list[Item]:
    """Failed ranks in the order they ended, the first that failed of its own accord marked; missing ones last."""
    failed = [r for r in dist.ranks if r.failure is not None and r.info is not None]
    failed.sort(key=lambda r: (r.info.ended_at or 0.0, r.rank))
    own = [r for r in failed if r.failure.kind in ("raised", "exit", "interrupted")]
    first = own[0].rank if own and len(failed) > 1 else None
    items: list[Item] = []
    for r in failed:
        text = f"rank {r.rank} failed{' first' if r.rank == first else ''}: {r.failure.one_line()}"
        origin = origin_of(r.failure.filename, r.failure.lineno)
        go: Go = {"rank": r.rank, "origins": [origin]} if origin else {"rank": r.rank}
        items.append({"r": text, "text": text, "origin": origin, "go": go, "cls": "cx-bad"})
    missing = [f"rank {r.rank} missing: {r.failure.message}" for r in dist.ranks if r.info is None]
    return items + [{"r": text, "text": text} for text in missing]


# ---- differences ----

def _shown(diffs: Sequence[Difference]) -> list[Difference]:
    """The differences the section lists (failures have their own lines): possible hangs first, then the other
    collectives' (mixed values), then the rest."""
    shown = [d for d in diffs if d.kind not in ("failure", "missing")]
    return sorted(shown, key=lambda d: 0 if d.hang else 1 if _serious(d) else 2)


def _serious(d: Difference) -> bool:
    """A difference that breaks the job, not only its speed: a possible hang, or collectives combining the wrong
    values."""
    return d.hang or d.kind == "collectives"


def differences_section(dist: Distributed) -> list[Block]:
    shown = _shown(dist.differences)
    if not shown:
        return [{"t": "p", "r": "No differences: every captured rank compiled the same.",
                 "text": "differences: none (every captured rank compiled the same)"}]
    items: list[Item] = [difference_item(dist, d) for d in shown]
    body: list[Block] = [{"t": "list", "cls": "cx-rank-diffs", "items": items[:MAX_DIFFERENCES]}]
    if len(items) > MAX_DIFFERENCES:
        more = len(items) - MAX_DIFFERENCES
        body.append({"t": "details", "s": f"{more} more", "body": [{"t": "list", "cls": "cx-rank-diffs",
                                                                   "items": items[MAX_DIFFERENCES:]}],
                     "text": f"... {more} more (the JSON's distributed.differences)"})
    hangs = sum(1 for d in shown if d.hang)
    title = f"Differences ({len(shown)}" + (f", {hangs} possible hang{'s' if hangs != 1 else ''} first)" if hangs
                                            else ")")
    return [{"t": "section", "title": title, "open": True, "text": f"differences: {len(shown)}", "body": body}]


def difference_item(dist: Distributed, d: Difference) -> Item:
    item: Item = {"r": [{"chip": d.kind.replace("_", " ")}, " ", d.text],
                  "text": ("! " if _serious(d) else "") + d.text, "origin": origin_of(d.filename, d.lineno),
                  "cls": "cx-bad cx-hang" if d.hang else "cx-bad" if _serious(d) else ""}
    go = difference_target(dist, d)
    if go is not None:
        item["go"] = go
    return item


def difference_target(dist: Distributed, d: Difference) -> Optional[Go]:
    """Where a difference leads: its (first) rank, the compilation on that rank, the stage its kind is seen in;
    a differing graph or guards diffed against a rank that has the usual one; a hang's collectives lit."""
    if not d.ranks:
        return None
    rank = d.ranks[0]
    run = dist.rank_run(rank)
    if run.capture is None:
        return None
    go: Go = {"rank": rank, "stage": STAGE_OF.get(d.kind, "graph")}
    origin = origin_of(d.filename, d.lineno)
    if d.key is not None:
        match = next((m for m in dist.compilations if m.key == d.key), None)
        cid = match.compile_ids.get(str(rank)) if match else None
        if match is not None and cid is not None:
            go["cid"] = cid
            other = _diff_side(d, match, go["stage"])
            if other is not None:
                go["diff"] = other  # {"cid", "stage", "rank"}: the same compilation on a rank that has the usual one
        if d.kind == "collectives":
            gcs = [gc for gc in dist.collectives if gc.key == d.key and gc.rank == rank]
            if gcs:
                go["stage"] = gcs[0].stage
                go["origins"] = _collective_origins(dist, gcs[0])
    elif d.kind == "graph_break":
        comp = next((c for c in run.capture.compilations if c.graph_break is not None
                     and (c.graph_break.filename, c.graph_break.lineno) == (d.filename, d.lineno)), None)
        if comp is not None:
            go["cid"] = comp.compile_id
    elif d.kind == "recompile":  # a report written before recompiles named their compilation: the one at its line
        at = [e for e in run.recompiles
              if e.primary is not None and (e.primary.filename, e.primary.lineno) == (d.filename, d.lineno)]
        if at:
            go["cid"] = at[0].compile_id
    if "origins" not in go and origin and d.kind in ("graph_break", "recompile", "compilation"):
        go["origins"] = [origin]
    return go


def _diff_side(d: Difference, match: MatchedCompilation, stage: str) -> Optional[Side]:
    """What a differing graph or guards is diffed against: the same compilation on a rank that has the usual one."""
    other = next((k for k in sorted(match.compile_ids, key=int) if int(k) not in d.ranks), None)
    if d.kind not in ("graph", "guards") or other is None:
        return None
    return diff_view.side(match.compile_ids[other], stage, int(other))


def diff_pairs(dist: Distributed) -> list[tuple[Side, Side]]:
    """The rank-to-rank diffs the differences lead to, (the other rank's pane, the differing rank's), once each."""
    out: list[tuple[Side, Side]] = []
    for d in _shown(dist.differences):
        go = difference_target(dist, d)
        if go is None or "diff" not in go:
            continue
        match = next((m for m in dist.compilations if m.key == d.key), None)
        other = _diff_side(d, match, go["stage"]) if match is not None else None
        pair = (other, diff_view.side(go["cid"], go["stage"], go["rank"])) if other is not None else None
        if pair is not None and pair not in out:
            out.append(pair)
    return out


# ---- collectives ----

def collectives_section(dist: Distributed) -> list[Block]:
    """Per graph, the collectives in order: one row when every rank issues the same, one per rank group otherwise."""
    if not dist.collectives:
        return []
    by_key: dict[tuple[str, str], list[GraphCollectives]] = {}
    for gc in dist.collectives:
        by_key.setdefault((gc.key, gc.stage), []).append(gc)
    firsts: dict[str, tuple[str, list[GraphCollectives]]] = {}
    for (key, stage), gcs in by_key.items():
        firsts.setdefault(key, (stage, gcs))  # the first stage that has any: what the user's code issued
    sites = {m.key: m.match.site for m in dist.compilations}
    captured = len([r for r in dist.ranks if r.capture is not None])
    rows: list[Row] = []
    for key, (stage, gcs) in list(firsts.items())[:MAX_COLLECTIVE_GRAPHS]:
        groups: dict[str, list[GraphCollectives]] = {}
        for gc in gcs:  # ranks agree when their collectives agree in kind, size and what each one combines
            groups.setdefault(" -> ".join(c.described() for c in gc.collectives), []).append(gc)
        frame = sites.get(key, key)
        for seq, members in groups.items():
            ranks = [gc.rank for gc in members]
            cids = ", ".join(sorted({gc.compile_id for gc in members}))
            who = "every rank" if len(ranks) == captured else ranks_phrase(ranks)
            rows.append({"c": [{"code": cids}, frame, stage, who, {"code": seq or "none"}],
                         "text": f"[{cids}] {frame} ({stage}), {who}: {seq}",
                         "go": {"rank": members[0].rank, "cid": members[0].compile_id, "stage": stage,
                                "origins": _collective_origins(dist, members[0])}})
    body: list[Block] = [{"t": "table", "cls": "cx-rank-colls", "rows": rows,
                         "head": ["compile ids", "frame", "graph", "ranks", "collectives, in order"]}]
    if len(firsts) > MAX_COLLECTIVE_GRAPHS:
        more = len(firsts) - MAX_COLLECTIVE_GRAPHS
        body.append({"t": "p", "cls": "cx-muted", "r": f"… {more} more graphs (the JSON's distributed.collectives)",
                     "text": f"... {more} more graphs"})
    return [{"t": "section", "title": "Collectives (per graph, in order; waits left out)", "open": True,
             "text": "collectives (per graph, in order; waits left out):", "body": body}]


def _collective_origins(dist: Distributed, gc: GraphCollectives) -> list[OriginObject]:
    """What to light for a graph's collectives: the user lines that issued them and the collective nodes
    themselves (the chain gives each node the line of torch's functional collective it was traced from)."""
    found = [Origin(c.filename, c.lineno) for c in gc.collectives if c.filename and c.lineno]
    lin = next((x for x in dist.rank_run(gc.rank).lineage if x.compile_id == gc.compile_id), None)
    text = lin.text(gc.stage) if lin is not None and hasattr(lin, "text") else None
    if text is not None:
        nodes = {c.node for c in gc.collectives}
        found += [o for line, el in text.elements.items() if el in nodes
                  for o in lin.origins_at(gc.stage, int(line))]
    return [o for o in (origin_of(*x) for x in dict.fromkeys(found)) if o is not None]


# ---- words ----

def ranks_phrase(ranks: Sequence[int]) -> str:
    ranks = sorted(ranks)
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(str(r) for r in ranks)


def _capture_notes(data: CaptureData) -> list[str]:
    from ..distributed import ddp

    return ddp.notes(data)

