"""--compare: the cell's graphs compiled in several torch.compile modes, side by side.

Each mode compiles the recorded graphs afresh (caches off, so compile times are
cold-start figures) straight through Inductor, without Dynamo: the user's
function is not re-run per mode and nothing of theirs recompiles.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Optional, Sequence

from ..capturing import torch_door
from . import bench
from . import verdict as judging
from .graphs import GraphRecorder, RecordedGraph, backend_uses_cudagraphs, fresh_graph_module, graph_call
from .model import Measurement, ModeResult

DEFAULT_MODES = ("default", "reduce-overhead", "max-autotune-no-cudagraphs")


def compare_modes(target: Any, args: Sequence[Any] = (), kwargs: Optional[dict] = None, *,
                  modes: Sequence[str] = DEFAULT_MODES, budget_s: float = bench.DEFAULT_BUDGET_S,
                  repeats: int = bench.DEFAULT_REPEATS) -> list[ModeResult]:
    """One row per mode: cold compile time, eager and compiled time per call, speedup.

    ``target`` is a GraphRecorder (or its ``.graphs``) from an earlier call, or a
    function: then it is called once with ``args``/``kwargs`` under Dynamo to
    record its graphs (its side effects happen that once).
    """
    graphs, notes = _graphs(target, args, kwargs or {})
    if not graphs:
        return [ModeResult(mode=m, compile_time_s=None, eager_s=None, compiled_s=None, speedup=None,
                           spread_pct=None, error="no graph was recorded", notes=tuple(notes)) for m in modes]
    return [_one_mode(mode, graphs, budget_s, repeats, notes) for mode in modes]


def _graphs(target: Any, args: Sequence[Any], kwargs: dict) -> tuple[list[RecordedGraph], list[str]]:
    if isinstance(target, GraphRecorder):
        return list(target.graphs), list(target.notes)
    if isinstance(target, (list, tuple)):
        return list(target), []
    import torch

    rec = GraphRecorder("eager")
    torch.compile(target, backend=rec)(*args, **kwargs)
    return list(rec.graphs), rec.notes + ["the function ran once under Dynamo to record its graphs"]


def _one_mode(mode: str, graphs: list[RecordedGraph], budget_s: float, repeats: int, notes: list[str]) -> ModeResult:
    """One mode: each graph compiled cold, then timed against its eager run in interleaved repeats."""
    notes = list(notes)
    if mode == "reduce-overhead" and all(g.device == "cpu" for g in graphs):
        notes.append("on CPU, reduce-overhead (CUDA graphs) behaves like default")
    try:
        inner = torch_door.inductor.inductor_backend(None if mode == "default" else mode, None, None)
        t0 = time.perf_counter()
        with torch_door.config.cold_compile():
            compiled = [inner(fresh_graph_module(g.gm), list(g.inputs)) for g in graphs]
        compile_s = time.perf_counter() - t0
        steps = backend_uses_cudagraphs(inner)
        pairs = [bench.measure_pair(graph_call(g, g.gm), graph_call(g, fn, steps=steps and g.device.startswith("cuda")),
                                    device=g.device, budget_s=budget_s, repeats=repeats)
                 for g, fn in zip(graphs, compiled)]
    except Exception as e:  # noqa: BLE001 - one failing mode must not hide the others
        return ModeResult(mode=mode, compile_time_s=None, eager_s=None, compiled_s=None, speedup=None,
                          spread_pct=None, error=f"{type(e).__name__}: {e}", notes=tuple(notes))
    eager: list[Measurement] = [p[0] for p in pairs]
    timed: list[Measurement] = [p[1] for p in pairs]
    eager_s = sum(m.median_s for m in eager)
    compiled_s = sum(m.median_s for m in timed)
    # the cell per repeat: within each graph both sides of repeat i ran back to back, so drift cancels in the sums
    ratio = bench.ratio_of([sum(m.times_s[i] for m in eager) for i in range(repeats)],
                           [sum(m.times_s[i] for m in timed) for i in range(repeats)])
    # the cell's sums as two measurements, their medians the row's figures: the verdict reads what the row shows
    cell = [dataclasses.replace(bench.summarize([sum(m.times_s[i] for m in side) for i in range(repeats)], 1,
                                                "sum of the graphs"), median_s=shown)
            for side, shown in ((eager, eager_s), (timed, compiled_s))]
    verdict, said = judging.assess(cell[0], cell[1], device=graphs[0].device, ratio=ratio)
    notes += said
    if ratio.drift_note:
        notes.append(ratio.drift_note)
    return ModeResult(mode=mode, compile_time_s=compile_s, eager_s=eager_s, compiled_s=compiled_s,
                      speedup=ratio.value, spread_pct=ratio.iqr_pct, notes=tuple(notes), verdict=verdict)
