"""--timeit: the whole call (a cell, a function) re-run eager and compiled, like %%timeit.

Unlike per-graph timing this runs the user's own code many times, so its side
effects (prints, optimizer steps, appends) repeat; the result says so.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import bench
from . import verdict as judging
from .model import GraphTiming


def time_calls(eager: Callable[[], Any], compiled: Callable[[], Any], *, device: Optional[str] = None,
               label: str = "whole call", compile_time_s: Optional[float] = None,
               budget_s: float = bench.DEFAULT_BUDGET_S, repeats: int = bench.DEFAULT_REPEATS) -> GraphTiming:
    """Times two no-argument callables (the call without and with torch.compile).

    ``device`` defaults to the current CUDA device when CUDA is in use (so the
    timer synchronises with it), else CPU. ``compile_time_s`` (e.g. the
    capture's total) gives break-even.
    """
    dev = device or _default_device()
    e, c, ratio = bench.measure_pair(eager, compiled, device=dev, budget_s=budget_s, repeats=repeats)
    runs = (e.loops + c.loops) * repeats
    notes = [f"the whole call ran again about {runs:,} times (eager and compiled, plus warm-up and calibration): "
             "its side effects repeated each time"]
    if ratio.drift_note:
        notes.append(ratio.drift_note)
    verdict, warnings = judging.assess(e, c, device=dev, ratio=ratio)
    return GraphTiming(index=-1, compile_id=None, label=label, device=dev, grad_enabled=_grad(), eager=e,
                       compiled=c, speedup=ratio.value,
                       compile_time_s=compile_time_s, compile_time_source="capture" if compile_time_s else "none",
                       break_even_calls=judging.break_even(compile_time_s, e, c, ratio.value, verdict),
                       warnings=tuple(warnings), notes=tuple(notes), ratio=ratio, verdict=verdict)


def _default_device() -> str:
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return f"cuda:{torch.cuda.current_device()}"
    return "cpu"


def _grad() -> bool:
    import torch

    return torch.is_grad_enabled()
