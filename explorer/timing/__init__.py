"""Run and time: eager vs compiled per graph, compile cost, per-kernel profile, mode comparison.

Sits on top of capture (imports it, never the reverse). Typical use::

    from explorer.timing import GraphRecorder, time_capture
    rec = GraphRecorder("inductor", kernel_profile=True)
    with explorer.capture() as report:
        out = torch.compile(fn, backend=rec)(x)
    timing = time_capture(rec, report)        # TimingReport; timing.to_dict() for JSON

Timing runs each recorded graph on private copies of its inputs, so the user's
tensors, modules and optimizer state are never touched.

Where the backend cannot be wrapped (a whole script's own torch.compile calls,
``python -m explorer run --time``), ``collect_repros`` keeps torch's repro of
each lowered graph and ``time_script_capture`` times those (see ``repro``).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ..capturing import torch_door
from . import bench
from .bench import break_even_calls, measure
from .cell import time_calls
from .compare import DEFAULT_MODES, compare_modes
from .end_to_end import Call, call_of, time_end_to_end
from .graphs import GraphRecorder, RecordedGraph, time_graphs
from .model import (
    EndToEnd,
    GraphTiming,
    KernelTiming,
    Measurement,
    ModeResult,
    PeakBandwidth,
    PeakCompute,
    SpeedupVerdict,
    TimingReport,
)
from .peak import peak_bandwidth
from .repro import Repro, collect_repros, time_repros, time_script_capture
from .roofline import peak_compute
from .verdict import judge, warnings_for

__all__ = ["Call", "DEFAULT_MODES", "EndToEnd", "GraphRecorder", "GraphTiming", "KernelTiming", "Measurement",
           "ModeResult", "PeakBandwidth", "PeakCompute", "RecordedGraph", "Repro", "SpeedupVerdict", "TimingReport",
           "call_of", "judge",
           "peak_compute", "time_end_to_end",
           "break_even_calls", "collect_repros", "compare_modes", "measure", "peak_bandwidth", "time_calls",
           "time_capture", "time_graphs", "time_repros", "time_script_capture", "warnings_for"]


def time_capture(recorder: GraphRecorder, capture: Any = None, *, budget_s: float = bench.DEFAULT_BUDGET_S,
                 repeats: int = bench.DEFAULT_REPEATS, kernel_profile: bool = True,
                 peak: Union[bool, PeakBandwidth, None] = None) -> TimingReport:
    """Everything for one captured call: per-graph timings, peak bandwidth, optional mode table.

    ``peak``: True (default when kernels are profiled) measures the device's
    copy bandwidth once per process; a PeakBandwidth is used as given.
    """
    graphs = list(recorder.graphs)
    device = graphs[0].device if graphs else "cpu"
    notes = list(recorder.notes)
    if not graphs:
        notes.append("no graph was recorded: nothing compiled through the recorder in this call")
    if isinstance(peak, PeakBandwidth):
        pk: Optional[PeakBandwidth] = peak
    else:
        want = kernel_profile if peak is None else peak
        pk = _peak(device, notes) if want and graphs else None
    peaks: dict[str, PeakCompute] = {}

    def compute_peak(dtype: str) -> Optional[PeakCompute]:
        if dtype not in peaks:
            try:
                peaks[dtype] = peak_compute(device, dtype)
            except Exception as e:  # noqa: BLE001 - no compute roof for this dtype: say so
                notes.append(f"matmul peak for {dtype} not measured ({type(e).__name__}: {e})")
                return None
        return peaks[dtype]

    with torch_door.devices.preserved_rng():
        timings = time_graphs(recorder, capture=capture, budget_s=budget_s, repeats=repeats,
                              kernel_profile=kernel_profile, peak=pk, compute_peak=compute_peak)
    warnings = tuple(f"{t.label}: {w}" for t in timings for w in t.warnings)
    return TimingReport(device=device, graphs=tuple(timings), peak=pk, warnings=warnings,
                        notes=tuple(notes), peak_compute=tuple(peaks.values()))


def _peak(device: str, notes: list[str]) -> Optional[PeakBandwidth]:
    try:
        return peak_bandwidth(device)
    except Exception as e:  # noqa: BLE001 - e.g. no room for the copy buffers: report, go on
        notes.append(f"device bandwidth not measured ({type(e).__name__}: {e}); no % of peak")
        return None
