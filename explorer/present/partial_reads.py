"""Records read in part (``CaptureData.partial_reads``), said beside the data they hold.

An odd element of a record (torch wrote ``None`` for an op's name) is kept with a placeholder or left out, and
the record says so in one line (``capturing.elements``). That is not a problem of the user's or of the explorer's,
so it is no red box in the header: it is a muted line at the top of the pane that shows the record's data (the
kernels pane for Inductor's estimates), where a reader wonders about the ``?``. A record whose data no pane of
its compilation shows (the order the graphs ran, a record outside any compilation) is said in the header.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.decode_usage import KERNEL_TRACE_NAMES
from ..capturing.model import CaptureData, Compilation, PartialRead
from ..stages import BY_ID
from . import words
from .blocks import Block, P

# the record -> (the stage whose pane shows what it holds, what it holds in words)
EVENTS = {
    "dynamo_start": ("source", "the stack Dynamo started on"),
    "traced_code": ("source", "the functions Dynamo traced"),
    "artifact:inductor_runtime_and_tensor_meta": ("kernels", "Inductor's runtime estimates"),
    "artifact:triton_kernel_info": ("kernels", "the kernels' compile times"),
    "artifact:inductor_provenance_tracking_node_mappings": ("kernels", "the kernels' nodes"),
    "artifact:inductor_provenance_tracking_kernel_stack_traces": ("kernels", "the kernels' user lines"),
    "artifact:min_cut_information": ("saved_tensors", "the partitioner's knapsack"),
    "artifact:inductor_collective_schedule": ("output_code", "the collectives in Inductor's order"),
    "artifact:graph_execution": ("", "the order the graphs ran"),
    **{f"artifact:{name}": ("kernels", "the kernels' op traces") for name in KERNEL_TRACE_NAMES},
}


def _note(r: PartialRead, cid: bool) -> P:
    at = f"[{r.compile_id}] " if cid and r.compile_id else ""
    what = EVENTS.get(r.event, ("", ""))[1]
    about = f"{at}{what} ({r.event}): " if what else f"{at}{r.event}: "
    return {"t": "p", "cls": "cx-muted cx-partial", "r": [{"b": words.READ_IN_PART}, about, r.message]}


def pane_notes(stage_id: str, comp: Compilation, data: CaptureData) -> list[Block]:
    """At the top of a compilation's pane: its records read in part whose data that pane shows."""
    return [_note(r, False) for r in data.partial_reads
            if r.compile_id == comp.compile_id and EVENTS.get(r.event, ("",))[0] == stage_id]


def header_notes(data: CaptureData) -> list[Block]:
    """The records read in part that no pane shows: no stage's, or its compilation does not show that stage."""
    if not data.partial_reads:
        return []
    comps = {c.compile_id: c for c in data.compilations}
    return [_note(r, True) for r in data.partial_reads
            if not _shown(r, comps.get(r.compile_id) if r.compile_id is not None else None)]


def _shown(r: PartialRead, comp: Optional[Compilation]) -> bool:
    stage = BY_ID.get(EVENTS.get(r.event, ("",))[0])
    return comp is not None and stage is not None and stage.present(comp)
