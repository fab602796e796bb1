"""Whether a graph's figures follow the host: its time per call beside the device's work (``HostTime``).

A GPU runs what the host has queued. When the host takes about as long to issue a call (Python, the
compiled wrapper, one launch per kernel) as the device takes to run it, the device waits between kernels and
every figure of the graph, eager or compiled, events or wall clock, moves with the host's speed: on the H200 a
transformer block's calls moved between 258 and 348 us from round to round of one process
(``tests/gpu/launch_bound.py``). The host's issue time is measured on its own clock, calls issued without
waiting, and set beside the device's busy time from the kernel profile.

On CPU the host is the device: the equivalent is the Python the compiled graph runs around its kernels per
call, beside the kernels' own time, both from the one profiled run (the calls' host-clock time less their
kernels' own): two measurements taken apart would differ by whatever else the machine did meanwhile.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from . import bench
from .model import HostTime, KernelTiming, Measurement

HOST_BOUND_RATIO = 0.8  # the host takes at least this share of the device's time per call: the device waits on it
_QUEUED_LAUNCHES = 512  # launches issued per repeat at most: well inside a GPU's launch queue (about 1,024)


def host_time(call: Callable[[], Any], device: str, profiled_s: Optional[float],
              kernels: Sequence[KernelTiming], repeats: int = bench.DEFAULT_REPEATS) -> Optional[HostTime]:
    """The host's time per call beside the device's; None without a kernel profile. ``profiled_s``: the
    profiled calls' host-clock time per call (the run the kernels' times come from)."""
    if profiled_s is None or not kernels:
        return None
    own = sum(k.time_s for k in kernels)
    if device.startswith("cuda"):
        launches = sum(k.calls for k in kernels)
        calls = max(2, min(50, _QUEUED_LAUNCHES // max(1, launches)))
        issued = bench.issue_times(call, device, calls, repeats)
        return _judged(issued.median_s, own, issued,
                       f"host: {issued.method}; device: its kernels' time per call in the profile")
    return _judged(max(0.0, profiled_s - own), own, None,
                   "host: the profiled calls' time less their kernels' own (the profiler's own cost included); "
                   "kernels: the profile's")


def _judged(host_s: float, device_s: float, issued: Optional[Measurement], method: str) -> HostTime:
    return HostTime(host_s=host_s, device_s=device_s, bound=host_s >= HOST_BOUND_RATIO * device_s, method=method,
                    host=issued)
