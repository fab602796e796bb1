"""Why a stage is empty, in words a person can act on (``Compilation.missing``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from .model import Compilation

STAGES = ("original_bytecode", "rewritten_bytecode", "graph", "aot_forward", "aot_backward",
          "post_grad_graph", "ir_pre_fusion", "ir_post_fusion", "output_code")
# the records each stage is made of: a stage whose record could not be decoded says so
STAGE_EVENTS = {
    "original_bytecode": ("bytecode_hook", "bytecode_log"),
    "rewritten_bytecode": ("bytecode_hook", "bytecode_log"),
    "graph": ("dynamo_output_graph",),
    "aot_forward": ("aot_forward_graph",),
    "aot_backward": ("aot_backward_graph",),
    "post_grad_graph": ("artifact:inductor_post_grad_graph",),
    "ir_pre_fusion": ("ir_pre_fusion",),
    "ir_post_fusion": ("ir_post_fusion",),
    "output_code": ("inductor_output_code",),
}
UNREADABLE = "torch emitted this stage, but the explorer could not read its {} record (see the problems)"


def explain_missing(c: Compilation, unreadable: Collection[str] = ()) -> Compilation:
    """Every null stage gets a reason; ``unreadable`` names the events whose decoder failed."""
    why: dict[str, str] = {}
    aot_ran = any(x is not None for x in (c.aot_forward, c.aot_inference, c.aot_joint))
    for stage in STAGES:
        if getattr(c, stage) is not None:
            continue
        failed = [e for e in STAGE_EVENTS[stage] if e in unreadable]
        why[stage] = UNREADABLE.format(failed[0]) if failed else _why(c, stage, aot_ran)
    if c.kernels == () and c.output_code is not None:
        why["kernels"] = "Inductor generated no kernels of its own here (only library calls or views)"
    return dataclasses.replace(c, missing=why)


def _why(c: Compilation, stage: str, aot_ran: bool) -> str:
    if c.status == "failed":
        return f"the compilation failed before this stage: {c.failure}"
    if c.status == "skipped":
        return "Dynamo looked at this frame and left it as it was (no PyTorch operations to put in a graph)"
    if stage in ("original_bytecode", "rewritten_bytecode"):
        return "Dynamo did not rewrite this frame, so its bytecode hook never fired"
    if c.graph is None:
        return "Dynamo captured no FX graph in this frame: its operations all ran as ordinary Python"
    if stage == "aot_backward":
        if c.aot_inference is not None:
            return "no input requires grad (or grad mode was off): AOTAutograd built an inference graph only"
        if not aot_ran:
            return "the backend did not run AOTAutograd (for example backend='eager')"
        return "AOTAutograd produced no backward graph"
    if stage == "aot_forward":
        if c.aot_inference is not None:
            return "inference only: see the AOT inference graph"
        return "the backend did not run AOTAutograd (for example backend='eager')"
    if not aot_ran:
        return "the backend did not run AOTAutograd or Inductor (for example backend='eager')"
    return "the backend is not Inductor (for example backend='aot_eager'), or Inductor's result came from a cache"
