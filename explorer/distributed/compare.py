"""Ranks compared: matched compilations, each difference stated once, ranks that compiled the same grouped.

Ranks of one job run the same program, so they should compile the same frames into the same graphs
behind the same guards. Where one rank takes another path (a data-dependent branch, a short last
batch, a rank-only ``print``) it breaks or recompiles where the others do not, and its compile ids
shift; so compilations are matched by frame and by how many times that frame was compiled before,
never by compile id. Each difference names the user line and the ranks concerned ("rank 1 only:
...", "ranks 1, 3: ..."); a collective issued in another order or kind is flagged as a possible hang, and the
same collectives issued on other values in another order (rank 1 reduces its ``b`` where rank 0 reduces its
``a``) as mixed values, naming the lines.
Like tlparse's multi-rank checks (compile-id, cache and collective-schedule divergence), but on the
explorer's own data and with the user's lines.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from typing import Iterable, Optional, Sequence

from ..capturing.model import Compilation
from ..clinic.locate import basename
from .collectives import STAGES, compilation_collectives, first_mismatch
from .model import (
    ComparedRank,
    Difference,
    GraphCollectives,
    MatchedCompilation,
    MatchKey,
    RankCounts,
    RankGroup,
)

_VERBS = {"terminated": "was stopped", "interrupted": "was interrupted", "exit": "exited"}
# each rank has its own device (cuda:0, cuda:1): not a difference. As graphs, guards and reasons print it:
_DEVICE_INDEX_RE = re.compile(r"\b(cuda|xpu|hpu|mps):\d+|\b(device=)\d+|(device\(type='\w+', index=)\d+")
# object ids in guards (___check_obj_id(x, 1398...)) and addresses in reprs (torch 2.11's guards: "<built-in method
# sin of type object at 0x7f94...>"): per process
_ADDRESS_RE = re.compile(r"\b\d{7,}\b|\b0x[0-9a-f]{6,}\b")


def compare(ranks: Sequence[ComparedRank]) -> tuple[list[RankCounts], list[RankGroup], list[Difference],
                                                list[MatchedCompilation], list[GraphCollectives]]:
    """Everything the "ranks compared" section shows, from the ranks' parts."""
    present = [r for r in ranks if r.capture is not None]
    keys = {r.rank: compilation_keys(r.capture.compilations) for r in present}
    collectives = [gc for r in present for c, key in zip(r.capture.compilations, keys[r.rank], strict=True)
                   for gc in compilation_collectives(r.rank, c, key.text)]
    matched = _matched(present, keys, collectives)
    all_ranks = tuple(r.rank for r in ranks)
    diffs = (_failures(ranks) + _breaks(present, all_ranks) + _recompiles(present, keys)
             + _compilations(present, matched, keys) + _collective_diffs(present, matched, collectives)
             + _graph_orders(present, keys))
    counts = [_counts(r, collectives) for r in ranks]
    groups = _groups(present, keys, collectives, counts)
    return counts, groups, diffs, matched, collectives


# ---- matching compilations across ranks ----

def compilation_keys(comps: Sequence[Compilation]) -> list[MatchKey]:
    """Per compilation, its frame and n: the n-th compilation of that frame in this process."""
    seen: dict[tuple, int] = defaultdict(int)
    out = []
    for c in comps:
        frame = (c.frame.name, basename(c.frame.filename), c.frame.lineno)
        out.append(MatchKey(c.frame.name, c.frame.filename, c.frame.lineno, seen[frame]))
        seen[frame] += 1
    return out


def _matched(present: Sequence[ComparedRank], keys: dict[int, list[MatchKey]],
             collectives: Sequence[GraphCollectives]) -> list[MatchedCompilation]:
    order: dict[str, MatchedCompilation] = {}
    by_key: dict[str, dict[int, Compilation]] = defaultdict(dict)
    for r in present:
        for c, key in zip(r.capture.compilations, keys[r.rank], strict=True):
            by_key[key.text][r.rank] = c
            if key.text not in order:
                order[key.text] = MatchedCompilation(key.text, c.frame.name, c.frame.filename, c.frame.lineno, key.nth)
    colls = defaultdict(dict)
    for gc in collectives:
        colls[gc.key].setdefault(gc.rank, []).append(gc)
    out = []
    for key, m in order.items():
        comps = by_key[key]
        differs = list(_what_differs(comps, colls.get(key, {})))
        missing = [r.rank for r in present if r.rank not in comps]
        if missing:
            differs.append(f"not compiled on {_ranks_phrase(missing)}")
        out.append(MatchedCompilation(m.key, m.frame, m.filename, m.lineno, m.nth,
                                      {str(k): c.compile_id for k, c in sorted(comps.items())}, tuple(differs)))
    return out


def _what_differs(comps: dict[int, Compilation], colls: dict[int, list[GraphCollectives]]) -> Iterable[str]:
    aspects = {"status": lambda c: c.status, "graph": _graph_fingerprint, "guards": _guards_fingerprint,
               "graph break": lambda c: _break_key(c),
               "recompile reason": lambda c: norm_rank(c.recompile_reason or ""),
               "kernels": lambda c: len(c.kernels)}
    for name, fn in aspects.items():
        if len({fn(c) for c in comps.values()}) > 1:
            yield name
    if len({_colls_fingerprint(colls.get(r, [])) for r in comps}) > 1:
        yield "collectives"


# ---- the differences ----

def _failures(ranks: Sequence[ComparedRank]) -> list[Difference]:
    out = []
    for r in ranks:
        f = r.failure
        if f is None:
            continue
        if f.kind == "missing":
            out.append(Difference("missing", f"rank {r.rank}: {f.message}", (r.rank,)))
        else:
            verb = _VERBS.get(f.kind, "failed")
            out.append(Difference("failure", f"rank {r.rank} {verb}: {f.one_line()}", (r.rank,), f.filename,
                                  f.lineno))
    return out


def _breaks(present: Sequence[ComparedRank], all_ranks: tuple[int, ...]) -> list[Difference]:
    sites: dict[tuple, list[int]] = defaultdict(list)
    first: dict[tuple, object] = {}
    for r in present:
        for s in r.fix_list:
            key = (s.filename, s.lineno, s.reason)
            sites[key].append(r.rank)
            first.setdefault(key, s)
    out = []
    for key, ranks in sites.items():
        if len(ranks) == len(present):
            continue
        s = first[key]
        code = f" `{s.source_line.strip()}`" if s.source_line else ""
        where = f"{basename(s.filename)}:{s.lineno}" if s.lineno else basename(s.filename)
        out.append(Difference("graph_break", f"{_who(ranks, present)}: graph break at {where}{code}: {s.reason}",
                              tuple(ranks), s.filename, s.lineno))
    return out


def _recompiles(present: Sequence[ComparedRank], keys: dict[int, list[MatchKey]]) -> list[Difference]:
    """Recompiles grouped by frame and what changed; those every rank had are not differences."""
    found: dict[tuple, dict[int, str]] = defaultdict(dict)
    detail: dict[tuple, tuple] = {}
    made: dict[tuple, dict[int, str]] = defaultdict(dict)  # each rank's compilation the recompile made, as matched
    for r in present:
        by_id = dict(zip((c.compile_id for c in r.capture.compilations), keys[r.rank], strict=True))
        for e in r.recompiles:
            p = e.primary
            what = p.describe() if p else (e.reason_text.splitlines()[0] if e.reason_text else "recompiled")
            match = by_id.get(e.compile_id)
            frame = match.site if match is not None else e.frame_name
            key = (frame, norm_rank(what))
            found[key][r.rank] = what
            detail.setdefault(key, (e.frame_name, what, p))
            if match is not None:
                made[key].setdefault(r.rank, match.text)
    out = []
    for key, ranks in found.items():
        if len(ranks) == len(present) and len(set(ranks.values())) == 1:
            continue
        frame_name, what, p = detail[key]
        line = f" ({basename(p.filename)}:{p.lineno})" if p and p.lineno else ""
        who = _ranks_phrase(sorted(ranks)) + (" only" if len(ranks) < len(present) else "")
        first = made[key].get(min(ranks))  # the compilation it made on the first rank it concerns: where it leads
        out.append(Difference("recompile", f"recompile of {frame_name} on {who}: {what}{line}", tuple(sorted(ranks)),
                              p.filename if p else None, p.lineno if p else None, first))
    return out


def _compilations(present: Sequence[ComparedRank], matched: Sequence[MatchedCompilation],
                  keys: dict[int, list[MatchKey]]) -> list[Difference]:
    """Frames compiled on some ranks only, and graphs or guards that differ for the same frame."""
    out = []
    for m in matched:
        ranks = sorted(int(k) for k in m.compile_ids)
        where = f"{m.frame} ({basename(m.filename)}:{m.lineno})"
        ids = ", ".join(f"rank {k}: {cid}" for k, cid in m.compile_ids.items())
        if len(ranks) < len(present) and m.nth == 0:
            out.append(Difference("compilation", f"{_who(ranks, present)}: compiled {where} [{ids}]", tuple(ranks),
                                  m.filename, m.lineno, m.key))
        for aspect in ("graph", "guards"):
            if aspect in m.differs:
                groups = _split_by(present, m, aspect)
                odd = min(groups, key=len)
                ref = max(groups, key=len)
                comps = {g[0]: _comp(present, g[0], m) for g in groups}
                shown = "; ".join(f"{_ranks_phrase(g)}: {_aspect_text(comps[g[0]], comps[ref[0]], aspect)}"
                                  for g in groups)
                out.append(Difference(aspect, f"{'graph' if aspect == 'graph' else 'guards'} of {where} "
                                      f"{'differs' if aspect == 'graph' else 'differ'}: {shown}",
                                      tuple(odd), m.filename, m.lineno, m.key))
    return out


def _collective_diffs(present: Sequence[ComparedRank], matched: Sequence[MatchedCompilation],
                      collectives: Sequence[GraphCollectives]) -> list[Difference]:
    """Per graph, the ranks' collectives in order: kind, group, reduction, size; one statement per graph."""
    by_key: dict[str, dict[str, dict[int, GraphCollectives]]] = defaultdict(lambda: defaultdict(dict))
    for gc in collectives:
        by_key[gc.key][gc.stage][gc.rank] = gc
    out = []
    for m in matched:
        stages = by_key.get(m.key)
        if not stages:
            continue
        ranks = sorted(int(k) for k in m.compile_ids)
        where = f"{m.frame} ({basename(m.filename)}:{m.lineno})"
        if len(ranks) < len(present):  # the other ranks never join these collectives
            gc = next(iter(next(iter(stages.values())).values()))
            out.append(Difference("collectives", f"possible hang: {_who(ranks, present)} compiled {where}, which "
                                  f"issues {_seq(gc.collectives)}", tuple(ranks), m.filename, m.lineno, m.key,
                                  hang=True))
            continue
        for stage in STAGES:
            per_rank = stages.get(stage)
            diff = (_stage_diff(m, where, stage, ranks, per_rank) or _mixed_values(m, where, stage, ranks, per_rank)
                    if per_rank else None)
            if diff is not None:
                out.append(diff)
                break  # the earliest stage that differs says it; later ones follow from it
        else:
            diff = _schedule_diff(present, m, where, ranks)
            if diff is not None:
                out.append(diff)
    return out


def _schedule_diff(present: Sequence[ComparedRank], m: MatchedCompilation, where: str,
                   ranks: list[int]) -> Optional[Difference]:
    """Inductor's collective schedules (the order its code issues them, after its reordering passes) where the
    graphs agree but the schedules do not: as much a hang as graphs that differ."""
    scheds: dict[tuple, list[int]] = defaultdict(list)
    for rk in ranks:
        comp = _comp(present, rk, m)
        if comp.collective_schedule:
            scheds[tuple((s.graph_kind, s.ops) for s in comp.collective_schedule)].append(rk)
    if len(scheds) < 2:
        return None
    ref = max(scheds.values(), key=len)
    odd = sorted(rk for rs in scheds.values() if rs is not ref for rk in rs)
    shown = "; ".join(f"{_ranks_phrase(rs)}: " + ", ".join(
        f"{kind} " + " -> ".join(op.replace("torch.ops._c10d_functional.", "") for op in ops) for kind, ops in sched)
        for sched, rs in scheds.items())
    return Difference("collectives", f"possible hang: Inductor scheduled the collectives of {where} in another order "
                      f"on {_ranks_phrase(odd)}: {shown}", tuple(odd), m.filename, m.lineno, m.key, hang=True)


def _graph_orders(present: Sequence[ComparedRank], keys: dict[int, list[MatchKey]]) -> list[Difference]:
    """torch's graph_execution order of each rank that recorded one, by matched compilation: ranks running their
    graphs in another order (a rank-only branch, a skipped step) issue their collectives in another order too."""
    orders: dict[tuple, list[int]] = defaultdict(list)
    sites: dict[str, str] = {}  # a matched compilation's key -> its frame, in words
    for r in present:
        if not r.capture.graph_execution:
            continue
        key_of = dict(zip((c.compile_id for c in r.capture.compilations), keys[r.rank], strict=True))
        sites.update((k.text, k.site) for k in keys[r.rank])
        orders[tuple(key_of[cid].text if cid in key_of else cid for cid in r.capture.graph_execution)].append(r.rank)
    if len(orders) < 2:
        return []
    ref = max(orders.values(), key=len)
    ref_order = next(o for o, rs in orders.items() if rs is ref)
    odd = sorted(rk for rs in orders.values() if rs is not ref for rk in rs)
    mine = next(o for o, rs in orders.items() if odd[0] in rs)
    i = next((k for k, (a, b) in enumerate(zip(ref_order, mine)) if a != b), min(len(ref_order), len(mine)))
    said = (f"call {i + 1} runs {_frame_of(ref_order, i, sites)} on {_ranks_phrase(ref)} and "
            f"{_frame_of(mine, i, sites)} on "
            f"{_ranks_phrase(odd)}")
    return [Difference("graph_order", f"graphs ran in another order on {_ranks_phrase(odd)}: {said} "
                       f"({len(ref_order)} against {len(mine)} graph calls)", tuple(odd))]


def _frame_of(order: tuple, i: int, sites: dict[str, str]) -> str:
    """The frame the i-th graph call ran (by its matched key; the id torch logged for a compilation not captured)."""
    return sites.get(order[i], order[i]) if i < len(order) else "nothing (its graph calls ended)"



def _stage_diff(m: MatchedCompilation, where: str, stage: str, ranks: list[int],
                per_rank: dict[int, GraphCollectives]) -> Optional[Difference]:
    """The ranks whose sequence differs from the most common one, and the first collective that does."""
    seqs: dict[tuple, list[int]] = defaultdict(list)
    for rk in ranks:
        gc = per_rank.get(rk)
        seqs[tuple(c.signature() for c in gc.collectives) if gc else ()].append(rk)
    if len(seqs) == 1:
        return None
    ref_ranks = max(seqs.values(), key=len)
    ref = per_rank.get(ref_ranks[0])
    ref_c = ref.collectives if ref else ()
    odd = sorted(rk for rk in ranks if rk not in ref_ranks)
    mine = per_rank.get(odd[0])
    mine_c = mine.collectives if mine else ()
    i = first_mismatch(ref_c, mine_c) or 0
    at = (ref_c[i] if i < len(ref_c) else None) or (mine_c[i] if i < len(mine_c) else None)
    groups = "; ".join(f"{_ranks_phrase(rs)}: {_seq(per_rank[rs[0]].collectives if rs[0] in per_rank else ())}"
                       for rs in seqs.values())
    text = (f"possible hang: the collectives of {where} ({stage}) differ from collective {i + 1} on: {groups}")
    return Difference("collectives", text, tuple(odd), at.filename if at else m.filename,
                      at.lineno if at else m.lineno, m.key, hang=True)


def _mixed_values(m: MatchedCompilation, where: str, stage: str, ranks: list[int],
                  per_rank: dict[int, GraphCollectives]) -> Optional[Difference]:
    """Ranks whose collectives agree in kind, group and size but combine the same values in another order:
    nothing hangs, each collective reduces one rank's ``a`` with another's ``b``. Compared by what each
    collective combines (``Collective.identity``: its input, else its user line's code); only where every
    rank's collectives are known that way and are the same ones, reordered."""
    idents = {rk: tuple(c.identity() for c in per_rank[rk].collectives) for rk in ranks if rk in per_rank}
    if len(idents) < 2 or any(None in ids for ids in idents.values()):
        return None
    groups: dict[tuple, list[int]] = defaultdict(list)
    for rk, ids in idents.items():
        groups[ids].append(rk)
    if len(groups) == 1:
        return None
    ref_ranks = max(groups.values(), key=len)
    if any(sorted(ids) != sorted(idents[ref_ranks[0]]) for ids in groups):
        return None  # other values, not the same ones reordered: a difference of the graphs, said there
    odd = sorted(rk for rk in idents if rk not in ref_ranks)
    theirs, mine = per_rank[ref_ranks[0]].collectives, per_rank[odd[0]].collectives
    i = next(k for k, (a, b) in enumerate(zip(theirs, mine)) if a.identity() != b.identity())
    a, b = theirs[i], mine[i]
    orders = "; ".join(f"{_ranks_phrase(rs)}: {_seq(per_rank[rs[0]].collectives)}" for rs in groups.values())
    text = (f"mixed values: the collectives of {where} ({stage}) agree in kind and size on every rank but are "
            f"issued in another order of lines: collective {i + 1}, {a.signature()}, combines {_what(a)} on "
            f"{_ranks_phrase(ref_ranks)} with {_what(b)} on {_ranks_phrase(odd)} (no hang: the results are "
            f"silently wrong); {orders}")
    return Difference("collectives", text, tuple(odd), b.filename or m.filename, b.lineno or m.lineno, m.key)


def _what(c) -> str:
    """``a`` (``dist.all_reduce(a)`` at mixed.py:14): what one collective combines, and the line issuing it."""
    line = f"{basename(c.filename)}:{c.lineno}" if c.lineno else "an unknown line"
    code = f"`{c.statement()}` at " if c.code else ""
    return (f"`{c.operand}` ({code}{line})" if c.operand else f"{code}{line}")


# ---- per rank, and the groups ----

def _counts(r: ComparedRank, collectives: Sequence[GraphCollectives]) -> RankCounts:
    if r.capture is None:
        return RankCounts(r.rank, r.status)
    d = r.capture
    n_colls = sum(len(gc.collectives) for gc in collectives if gc.rank == r.rank and gc.stage == "graph")
    return RankCounts(r.rank, r.status, len(d.compilations), d.num_graphs, d.break_count, len(d.recompiles),
                      sum(len(c.guards) for c in d.compilations), len(d.kernels), n_colls, d.compile_time_s)


def _groups(present: Sequence[ComparedRank], keys: dict[int, list[MatchKey]], collectives: Sequence[GraphCollectives],
            counts: Sequence[RankCounts]) -> list[RankGroup]:
    """Ranks whose compilations match one for one (frames, graphs, guards, breaks, recompiles, collectives)."""
    sig: dict[str, list[int]] = defaultdict(list)
    by_rank_colls = defaultdict(list)
    for gc in collectives:
        by_rank_colls[gc.rank].append(gc)
    for r in present:
        parts = [f"{k.text}|{c.status}|{_graph_fingerprint(c)}|{_guards_fingerprint(c)}|{_break_key(c)}|"
                 f"{norm_rank(c.recompile_reason or '')}|{len(c.kernels)}"
                 for c, k in zip(r.capture.compilations, keys[r.rank], strict=True)]
        parts.append(_colls_fingerprint(by_rank_colls[r.rank]))
        sig[hashlib.sha1("\n".join(parts).encode()).hexdigest()].append(r.rank)
    by_rank = {c.rank: c for c in counts}
    return [RankGroup(tuple(ranks), _counts_text(by_rank[ranks[0]])) for ranks in sig.values()]


def _counts_text(c: RankCounts) -> str:
    def n(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    return ", ".join([n(c.compilations, "compilation"), n(c.graphs, "graph"), n(c.graph_breaks, "graph break"),
                      n(c.recompiles, "recompile"), n(c.guards, "guard"), n(c.kernels, "kernel"),
                      n(c.collectives, "collective")])


# ---- fingerprints and words ----

def norm_rank(text: str) -> str:
    """Each rank's own device index and object ids written away (cuda:1 -> cuda, device=1 -> device=N, ids and
    addresses -> <id>): what ranks compiled differently is what remains. Every rank comparison reads text
    through this, the views' rank-to-rank diffs too (``present.diff_view``)."""
    return _ADDRESS_RE.sub("<id>", _DEVICE_INDEX_RE.sub(_device_kind, text))


def _device_kind(m: re.Match) -> str:
    return m.group(1) or f"{m.group(2) or m.group(3)}N"


_PRINTS: dict[int, tuple[object, str]] = {}  # id -> (the graph or guards, its fingerprint): ranks share them


def _by_identity(obj: object, make) -> str:
    """A fingerprint made once per object: the ranks of a trace share one object for what they hold alike."""
    hit = _PRINTS.get(id(obj))
    if hit is None or hit[0] is not obj:
        if len(_PRINTS) > 4096:
            _PRINTS.clear()
        hit = _PRINTS[id(obj)] = (obj, make(obj))
    return hit[1]


def _graph_fingerprint(c: Compilation) -> str:
    if c.graph is None:
        return "-"
    return _by_identity(c.graph, lambda g: hashlib.sha1(norm_rank(g.code).encode()).hexdigest()[:12])


def _guards_fingerprint(c: Compilation) -> str:
    def make(guards) -> str:
        codes = sorted(norm_rank(g.code) for g in guards)
        return hashlib.sha1("\n".join(codes).encode()).hexdigest()[:12] if codes else "-"

    return _by_identity(c.guards, make)


def _break_key(c: Compilation) -> str:
    b = c.graph_break
    return f"{b.filename}:{b.lineno}:{b.reason}" if b else "-"


def _colls_fingerprint(entries: Sequence[GraphCollectives]) -> str:
    return "|".join(f"{gc.stage}:" + ",".join(f"{x.signature()}{x.identity() or ''}" for x in gc.collectives)
                    for gc in entries)


def _split_by(present: Sequence[ComparedRank], m: MatchedCompilation, aspect: str) -> list[list[int]]:
    fn = _graph_fingerprint if aspect == "graph" else _guards_fingerprint
    groups: dict[str, list[int]] = defaultdict(list)
    for r in present:
        cid = m.compile_ids.get(str(r.rank))
        comp = next((c for c in r.capture.compilations if c.compile_id == cid), None) if cid else None
        if comp is not None:
            groups[fn(comp)].append(r.rank)
    return list(groups.values())


def _comp(present: Sequence[ComparedRank], rank: int, m: MatchedCompilation) -> Compilation:
    r = next(r for r in present if r.rank == rank)
    return next(c for c in r.capture.compilations if c.compile_id == m.compile_ids[str(rank)])


def _aspect_text(comp: Compilation, ref: Compilation, aspect: str) -> str:
    """A graph's size and its first line unlike the reference's; the guards only it has (a few)."""
    if aspect == "graph":
        if comp.graph is None:
            return "no graph"
        mine, theirs = _graph_lines(comp), _graph_lines(ref)
        first = next((a for a, b in zip(mine, theirs) if a != b), None)
        return f"{comp.graph.num_nodes} nodes" + (f", first unlike the others: `{first}`"
                                                    if first is not None and comp is not ref else "")
    own = sorted({norm_rank(g.code) for g in comp.guards} - {norm_rank(g.code) for g in ref.guards})
    if comp is ref or not own:
        return f"{len(comp.guards)} guards"
    more = f" (+{len(own) - 2} more)" if len(own) > 2 else ""
    return f"{len(comp.guards)} guards, with " + ", ".join(f"`{g}`" for g in own[:2]) + more


def _graph_lines(comp: Compilation) -> list[str]:
    if comp.graph is None:
        return []
    return [line.strip() for line in norm_rank(comp.graph.code).splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _seq(colls: Sequence) -> str:
    """Each collective, what it combines and the user line that issued it: ``all_reduce(sum, group 0, f32[64]) of a
    [t.py:9]``."""
    return " -> ".join(c.described() + (f" [{basename(c.filename)}:{c.lineno}]" if c.lineno else "")
                       for c in colls) or "none"


def _ranks_phrase(ranks: Sequence[int]) -> str:
    ranks = sorted(ranks)
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(str(r) for r in ranks)


def _who(ranks: Sequence[int], present: Sequence[ComparedRank]) -> str:
    """``rank 1 only``; ``ranks 1, 3 only``; ``every rank but 2`` when that is shorter."""
    ranks = sorted(set(ranks))
    others = sorted(r.rank for r in present if r.rank not in ranks)
    if len(others) == 1 and len(ranks) > 2:
        return f"every rank but {others[0]}"
    return f"{_ranks_phrase(ranks)} only"
