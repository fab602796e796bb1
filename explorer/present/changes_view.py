"""What the explorer changed in torch to show a stage, said at the top of that stage's pane, under its explanation.

A capture changes what torch does in a few places, so that every stage can be shown (``capturing.torch_door.config``'s
``CAPTURE_CONFIG``): a cold or fresh capture lowers a training graph's backward when the forward compiles
(``force_non_lazy_backward_lowering``), where a plain ``torch.compile`` lowers it at the first ``.backward()``.
The stage explanations say what torch does; the note here says what this report's capture did instead. (The graph
caches and their key tag are said where a cache served a stage: ``usage_view.cache_note``.)
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import Compilation
from ..report import Report
from .blocks import Block

BACKWARD_STAGES = ("aot_backward", "post_grad_graph_backward", "output_code", "kernels", "ir_pre_fusion",
                   "ir_post_fusion")
EARLY = ("Lowered early by the explorer: a plain torch.compile lowers a backward with Inductor at its first "
         ".backward() (AOTAutograd only traces and partitions it when the forward compiles). This capture set "
         "torch._functorch.config.force_non_lazy_backward_lowering, so the backward was lowered with the forward "
         "and its code shows without a .backward() call; that compile time moved into the forward's. A warm "
         "capture (--warm) leaves torch's lazy lowering as it is.")
LAZY = ("Lowered as torch does (a warm capture changes no lowering): Inductor lowers a backward at its first "
        ".backward(), so its post-grad graph and kernels are here only when a .backward() ran during the capture.")
AS_THE_JOB = ("As the job ran it: torch lowers a backward at its first .backward(), unless the job set "
              "torch._functorch.config.force_non_lazy_backward_lowering or the backward saves symbolic sizes.")


def note(stage_id: str, comp: Compilation, report: Report) -> list[Block]:
    """The note at the top of a pane whose content the explorer changed torch to show (none for the others)."""
    said = backward_lowering(stage_id, comp, report)
    return [{"t": "note", "cls": "cx-missing cx-changed", "r": said}] if said else []


def backward_lowering(stage_id: str, comp: Compilation, report: Report) -> Optional[str]:
    """What the capture did about the backward's lazy lowering, on the panes that show a backward."""
    if stage_id not in BACKWARD_STAGES or comp.aot_backward is None:
        return None
    if stage_id not in ("aot_backward", "post_grad_graph_backward") and not _lowered_backward(stage_id, comp):
        return None
    if report.entry == "open":
        return AS_THE_JOB
    return LAZY if report.capture.cache_mode == "warm" else EARLY


def _lowered_backward(stage_id: str, comp: Compilation) -> bool:
    """Whether the pane holds a backward part (a wrapper, a kernel or an IR dump of the backward graph)."""
    parts = {"output_code": comp.output_code, "kernels": comp.kernels, "ir_pre_fusion": comp.ir_pre_fusion,
             "ir_post_fusion": comp.ir_post_fusion}[stage_id] or ()
    return any(getattr(p, "graph_kind", "") == "backward" for p in parts)
