"""Which records a Compilation's fields are made of, so a field whose record could not be read says so.

Only what the capture alone knows goes here: that torch emitted a record and
its decoder failed. Why a stage is empty otherwise (another backend, inference
only, a skipped frame) is judged over the stage registry, in ``explorer.stages``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from .model import Compilation

# Compilation field -> the trace records it is decoded from
FIELD_RECORDS = {
    "original_bytecode": ("bytecode_hook", "bytecode_log"),
    "rewritten_bytecode": ("bytecode_hook", "bytecode_log"),
    "graph": ("dynamo_output_graph",),
    "aot_joint": ("aot_joint_graph",),
    "aot_forward": ("aot_forward_graph",),
    "aot_backward": ("aot_backward_graph",),
    "aot_inference": ("aot_inference_graph",),
    "post_grad_graph": ("artifact:inductor_post_grad_graph",),
    "ir_pre_fusion": ("ir_pre_fusion",),
    "ir_post_fusion": ("ir_post_fusion",),
    "output_code": ("inductor_output_code",),
}
UNREADABLE = "torch emitted this stage, but the explorer could not read its {} record (see the problems)"


def note_unreadable(c: Compilation, unreadable: Collection[str]) -> Compilation:
    """``c`` with ``missing[field]`` saying so for each empty field whose record's decoder failed."""
    why = dict(c.missing)
    for name, records in FIELD_RECORDS.items():
        failed = [e for e in records if e in unreadable]
        if failed and getattr(c, name) is None:
            why[name] = UNREADABLE.format(failed[0])
    return dataclasses.replace(c, missing=why) if why != c.missing else c
