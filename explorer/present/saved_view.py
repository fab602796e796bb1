"""The "Saved for backward" pane: what the partitioner saved, what the backward recomputes, and why.

Blocks of the view model (``viewmodel``'s kinds) built from ``lineage.saved``: one table of the values the
forward saves (each linked to the joint graph and its user line, with its size), one of the joint-graph
nodes the backward recomputes, and, where torch logged it, the partitioner's knapsack against the
activation memory budget. Words users read are written here; the renderers only lay the blocks out.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import Compilation, MinCut, MinCutCandidate, SourceLoc
from ..lineage.saved import Recomputed, SavedTensors, SavedValue, Size, saved_tensors
from ..plural import counted
from .blocks import Block, Row, Run, Runs, Table
from .fmt import loc_text, origin_of

MAX_ROWS = 500
HOW_TO_LOG = ("torch says why it chose only in its partitioner's debug mode with an activation memory budget "
              "below 1: AOT_PARTITIONER_DEBUG=1 in the environment and, for example, "
              "torch._functorch.config.activation_memory_budget = 0.5")
_KINDS = {"activation": "activation", "input": "graph input", "view": "view of a graph input", "symint": "SymInt"}


def size_text(size: Optional[Size]) -> str:
    """``512 B``, ``2.0 KiB``, ``128·s0 B``, ``2.0 KiB + 128·s0 B``; symbolic sizes stay symbolic."""
    if size is None:
        return "—"
    parts = []
    for term, n in sorted(size.terms.items(), key=lambda kv: (kv[0] != "", kv[0])):
        if term == "":
            parts.append(bytes_text(n))
        elif n:
            parts.append(f"{n:,}·{term} B")
    return " + ".join(parts) or "0 B"


def bytes_text(n: float) -> str:
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,.0f} B"


def blocks(comp: Compilation) -> list[Block]:
    """The pane of one compilation (present when it has AOT forward and backward graphs)."""
    st = saved_tensors(comp)
    if st is None:
        return []
    out: list[Block] = [{"t": "p", "r": summary_runs(st)}]
    if not st.has_joint:
        out.append({"t": "note", "cls": "cx-missing", "r": "No joint graph was recorded, so the saved values are "
                    "linked to the forward graph's nodes instead, and recomputation is read from the forward and "
                    "backward graphs alone."})
    knapsack = comp.min_cut is not None  # a column of its decisions
    out += [{"t": "h", "r": "Saved for backward: the forward's extra outputs, the backward's inputs"},
            _saved_table(st.saved, knapsack)]
    if st.recomputed:
        out += [{"t": "h", "r": "Recomputed in the backward instead of saved"},
                _recomputed_table(st.recomputed, knapsack)]
    else:
        out.append({"t": "p", "r": "The backward recomputes nothing the forward computed: everything it needs "
                                   "beyond the incoming gradients is saved."})
    out += min_cut_blocks(comp.min_cut)
    return out


def summary_runs(st: SavedTensors) -> list:
    def n(items: list, word: str) -> str:
        return f"{len(items)} {word}{'s' if len(items) != 1 else ''}"

    acts = [s for s in st.saved if s.kind == "activation"]
    ins = [s for s in st.saved if s.kind == "input"]
    views = [s for s in st.saved if s.kind == "view"]
    syms = [s for s in st.saved if s.kind == "symint"]
    bits = [f"{n(acts, 'activation')} it computed ({size_text(st.activations)} held from forward to backward)"]
    if ins:
        bits.append(f"{n(ins, 'graph input')} ({size_text(st.inputs)}, alive anyway: not copied)")
    if views:
        bits.append(f"{n(views, 'view')} of graph inputs (no memory of their own)")
    if syms:
        bits.append(f"{n(syms, 'SymInt')} (sizes the backward needs)")
    k = len(st.recomputed)
    return [{"b": f"The forward saves {n(list(st.saved), 'value')} for the backward: "}, "; ".join(bits) + ". ",
            f"The backward recomputes {n(list(st.recomputed), 'node')} of the joint graph instead of saving "
            f"{'them' if k != 1 else 'it'}." if k else "The backward recomputes nothing."]


def _name(name: str, linked: bool) -> Run:
    """The node's name, leading to the joint graph where it has that node."""
    return {"go": {"stage": "aot_joint"}, "code": name} if linked else {"code": name}


def _line(loc: Optional[SourceLoc]) -> Runs:
    if loc is None:
        return ""
    where = loc_text(loc.filename, loc.lineno)
    return [{"code": where, "origin": origin_of(loc.filename, loc.lineno)}, f" {loc.code or ''}"]


def _what(s: SavedValue) -> str:
    kind = _KINDS.get(s.kind, s.kind)
    return f"{kind} {s.input_name}" if s.input_name and s.kind in ("input", "view") else kind


def _saved_table(saved: tuple[SavedValue, ...], knapsack: bool) -> Table:
    rows: list[Row] = []
    for s in saved[:MAX_ROWS]:
        decided = _decision(s.candidate)
        line = loc_text(s.loc.filename, s.loc.lineno) if s.loc else ""
        rows.append({"c": [_name(s.name, s.in_joint), _what(s), {"code": s.op or ""}, {"code": s.type or ""},
                           size_text(s.size), _line(s.loc), *([decided] if knapsack else [])],
                     "origin": origin_of(s.loc.filename, s.loc.lineno) if s.loc else None,
                     "text": "  ".join(x for x in (s.name, _what(s), s.op or "", s.type or "", size_text(s.size), line,
                                                   decided) if x)})
    return {"t": "table", "cls": "cx-saved", "rows": rows,
            "head": ["saved value", "what it is", "computed by", "type", "size", "user line"]
            + (["knapsack"] if knapsack else [])}


def _recomputed_table(nodes: tuple[Recomputed, ...], knapsack: bool) -> Table:
    rows: list[Row] = []
    for r in nodes[:MAX_ROWS]:
        decided = _decision(r.candidate)
        line = loc_text(r.loc.filename, r.loc.lineno) if r.loc else ""
        rows.append({"c": [_name(r.name, True), {"code": r.op}, {"code": r.type or ""}, size_text(r.size),
                           _line(r.loc), *([decided] if knapsack else [])],
                     "origin": origin_of(r.loc.filename, r.loc.lineno) if r.loc else None,
                     "text": "  ".join(x for x in (r.name, r.op, r.type or "", f"(saving it: {size_text(r.size)})",
                                                   line, decided) if x)})
    return {"t": "table", "cls": "cx-recomputed", "rows": rows,
            "head": ["node", "op", "type", "saving it would cost", "user line"] + (["knapsack"] if knapsack else [])}


def _decision(c: Optional[MinCutCandidate]) -> str:
    if c is None:
        return ""
    return "saved by the knapsack" if c.saved else "recomputed by the knapsack" if c.recomputed else "weighed"


def min_cut_blocks(mc: Optional[MinCut]) -> list[Block]:
    """The partitioner's knapsack against the memory budget, or how to make torch log it."""
    if mc is None:
        return [{"t": "p", "cls": "cx-muted", "r": "Why these and not others: " + HOW_TO_LOG + "."}]
    gb = bytes_text
    sizes = [f"{name} {gb(v * 1e9)}" for name, v in (("saving only the inputs", mc.min_activation_gb),
                                                     ("saving what runs fastest", mc.max_activation_gb),
                                                     ("chosen", mc.saved_activation_gb)) if v is not None]
    head: Runs = [{"b": f"The partitioner's knapsack (activation memory budget {mc.memory_budget:g}): "},
            "under a budget below 1 torch weighs each activation it would save by its memory against what "
            "recomputing it costs, and recomputes the cheapest to meet the budget. Activations: "
            + "; ".join(sizes) + "."]
    rows: list[Row] = [
        {"c": [{"code": c.name}, {"code": c.target}, c.shape, bytes_text(c.memory_bytes), f"{c.runtime:,.0f}",
                   _decision(c)],
             "text": f"{c.name}  {c.target}  {c.shape}  memory {bytes_text(c.memory_bytes)}  recompute cost "
                     f"{c.runtime:,.0f}  {_decision(c)}"} for c in mc.candidates[:MAX_ROWS]]
    body: list[Block] = [{"t": "p", "r": head}]
    if rows:
        body.append({"t": "table", "cls": "cx-knapsack", "rows": rows,
                     "head": ["node", "op", "shape", "memory", "recompute cost (torch's estimate)", "decision"]})
    if mc.saved_values:
        body.append({"t": "p", "cls": "cx-muted", "r": ["The min-cut then saved: ",
                                                        {"code": ", ".join(mc.saved_values)}]})
    return [{"t": "details", "s": f"Why: the partitioner's knapsack ({counted(len(mc.candidates), 'candidate')}, "
                                  f"budget {mc.memory_budget:g})", "open": True, "body": body}]
