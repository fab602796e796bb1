"""The view model's blocks for DDP and FSDP2: DDPOptimizer's split of a graph, and what DDP or FSDP2 did.

A split is not a graph break: Dynamo captured one graph for the frame (one set of guards) and DDPOptimizer
cut it at DDP's gradient-bucket boundaries (``distributed.ddp`` reads why, and says what DDP and FSDP2 did
that the graphs alone do not show). The split is drawn in the Dynamo graph's pane and the text summary; the
stages made from the pieces say which piece they show; the notes go in the header. Nothing here draws.
"""

from __future__ import annotations

from typing import Any, Optional

from ..capturing.model import CaptureData, Compilation, DdpOptimizer
from ..clinic.locate import basename
from ..distributed import ddp
from ..plural import counted
from .blocks import Block, Item

HOW_TO_CHANGE = ("DDP's bucket_cap_mb sets where the graph is cut (a larger cap, fewer pieces); "
                 "torch._dynamo.config.optimize_ddp = False keeps the graph whole (no overlap of the all-reduces "
                 "with backward)")
PIECE_PARTS = ("aot", "inductor")  # the parts whose stages are made from each piece in turn


def mib(n: Optional[int]) -> str:
    if n is None:
        return "?"
    return f"{n / 2**20:.2f} MiB" if n >= 2**16 else f"{n / 1024:.1f} KiB"


def split_blocks(comp: Compilation) -> list[Block]:
    """A split graph: parent, pieces, bucket sizes and parameters, how to change it; or why it was kept whole."""
    d = comp.ddp_optimizer
    if d is None:
        return []
    where = f"[{comp.compile_id}] {comp.frame.name} ({basename(comp.frame.filename)}:{comp.frame.lineno})"
    if not d.split:
        cap = f" (bucket cap {mib(d.bucket_cap_bytes)})" if d.bucket_cap_bytes is not None else ""
        return [{"t": "p", "cls": "cx-muted cx-ddp", "r": f"DDPOptimizer kept {where} whole: its parameters fit in "
                 f"{d.bucket_count or 1} bucket{cap}; a smaller bucket_cap_mb would split it"}]
    cap = f"bucket cap {mib(d.bucket_cap_bytes)}" if d.bucket_cap_bytes is not None else "DDP's bucket cap"
    items: list[Item] = []
    for b in d.buckets:
        names = ", ".join(b.params[:6]) + (f", ... ({len(b.params)} in all)" if len(b.params) > 6 else "")
        items.append({"r": [{"code": b.subgraph}, f": bucket of {mib(b.size_bytes)}: {names or 'no parameters'}"]})
    body: list[Block] = [{"t": "list", "cls": "cx-ddp-buckets", "items": items}] if items else []
    body.append({"t": "p", "cls": "cx-muted",
                 "r": f"backward all-reduces the last piece's bucket first; to change it: {HOW_TO_CHANGE}"})
    body += [{"t": "p", "cls": "cx-muted", "r": f"note: {n}"} for n in (*d.notes, subgraph_note(d))]
    return [{"t": "section", "open": True, "body": body,
             "title": f"DDPOptimizer split {where} into {counted(len(d.subgraphs), 'graph')} at gradient-bucket "
                      f"boundaries ({cap}; a split, not a graph break: one frame, one set of guards)"}]


def subgraph_note(d: DdpOptimizer) -> str:
    """The compilation's AOT and Inductor stages come from each piece in turn; the capture keeps the last."""
    return (f"each of the {len(d.subgraphs)} pieces was compiled on its own; the compilation's AOT and Inductor "
            f"stages show the last one ({d.subgraphs[-1].name}), its kernels are those of all pieces")


def piece_note(stage: Any, comp: Compilation) -> list[Block]:
    """At the top of a stage made from a split graph's pieces: which piece it shows."""
    d = comp.ddp_optimizer
    if d is None or not d.split or stage.part not in PIECE_PARTS:
        return []
    return [{"t": "note", "cls": "cx-missing cx-ddp", "r": [{"b": "DDPOptimizer: "}, subgraph_note(d)]}]


def header_notes(data: CaptureData) -> list[Block]:
    """What DDP and FSDP2 did that the graphs alone do not show, or why nothing was split or compiled."""
    return [{"t": "note", "cls": "cx-missing cx-ddp", "r": [{"b": "Note: "}, n], "text": f"note: {n}"}
            for n in ddp.notes(data)]

def collective_schedule(comp: Compilation) -> list[Block]:
    """Inductor's collective schedule of each lowered graph: the order the collectives run in."""
    out: list[Block] = []
    for s in comp.collective_schedule:
        ops = " → ".join(op.replace("torch.ops.", "") for op in s.ops)
        out.append({"t": "p", "r": [{"b": f"Collectives as Inductor scheduled them ({s.graph_kind}): "},
                                    {"code": ops or "none"}],
                    "text": f"collective schedule ({s.graph_kind}): {ops or 'none'}"})
    return out
