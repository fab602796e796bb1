"""Timing results as plain data: frozen dataclasses of strings and numbers.

Like the capture model, nothing here holds a live torch object, so results can
be written into the report JSON (``to_dict()``) and rendered without torch.
All times are seconds per call; percentages are 0-100.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..capturing.compile_id import CompileKey
from ..serial import to_jsonable


class _Dict:
    _json_derived: tuple[str, ...] = ()  # read-only figures written into the JSON too

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; tuples become lists; derived figures included."""
        return to_jsonable(self)


@dataclass(frozen=True)
class Measurement(_Dict):
    """One thing timed: several repeats of a calibrated loop.

    ``times_s`` holds one per-call figure per repeat; the median is what views
    show, the spread says how far to trust it.
    """

    median_s: float
    times_s: tuple[float, ...]  # per-call time of each repeat
    loops: int  # calls per repeat (calibrated)
    method: str  # e.g. "torch.utils.benchmark.Timer", "cuda events, L2 flushed"
    iqr_pct: float  # inter-quartile range of the repeats, % of the median
    range_pct: float  # (max - min) of the repeats, % of the median

    @property
    def repeats(self) -> int:
        return len(self.times_s)

    @property
    def min_s(self) -> float:
        return min(self.times_s)

    @property
    def max_s(self) -> float:
        return max(self.times_s)

    _json_derived = ("repeats", "min_s", "max_s")


@dataclass(frozen=True)
class Ratio(_Dict):
    """A speedup taken repeat by repeat from interleaved measurements (eager and compiled alternating).

    Each repeat times both sides back to back, so a clock that drifts during the measurement moves both
    figures of a repeat alike and cancels in that repeat's ratio; ``value`` is the median of the ratios,
    their spread is the speedup's own.
    """

    value: float  # median of the per-repeat ratios (eager / compiled)
    ratios: tuple[float, ...]  # one per repeat
    iqr_pct: float  # inter-quartile range of the ratios, % of their median
    range_pct: float
    drift_pct: float = 0.0  # how far the sides' own times moved from the first to the second half of the repeats
    drift_note: Optional[str] = None  # said when the clock moved during the measurement


@dataclass(frozen=True)
class SpeedupVerdict(_Dict):
    """Whether compiled beat eager, judged from the figures shown beside it (``timing.verdict.judge``).

    ``kind``: ``faster`` or ``slower`` (the speedup's interval clear of 1x, its spread not huge, the medians on
    the same side), ``same`` (a tight interval across 1x: no faster), ``too noisy`` (no verdict: ``reason``),
    ``too few repeats`` (under 5: no interval holds the speedup often enough to judge by).
    """

    kind: str  # faster | slower | same | too noisy | too few repeats
    low: float  # the speedup's interval: the median of the per-repeat ratios lies between low and high
    high: float
    coverage_pct: float  # how often an interval drawn so holds the true median (94% with 5 repeats)
    reason: str = ""  # too noisy: why no verdict


@dataclass(frozen=True)
class OpLaunch(_Dict):
    """The op calls that launched a kernel, per graph call: which op, how often, the FLOPs they did there."""

    op: str  # aten::convolution, or the record a generated kernel runs under (its own name)
    launches: float  # launches of this kernel by calls of this op, per graph call
    flops: Optional[int] = None  # the op calls' FLOPs given to this kernel, per graph call (None: no formula)


@dataclass(frozen=True)
class CeilingCheck(_Dict):
    """Why a kernel shows above the measured copy ceiling, and the evidence checked for it."""

    explained: bool  # True: its data came from cache, as the evidence shows; False: its byte count may be wrong
    cache_bytes: Optional[int]  # the device's last-level cache (a GPU's L2)
    fits_cache: Optional[bool]  # the kernel's bytes fit in it
    producer: Optional[str] = None  # the call just before it in the wrapper that wrote one of its inputs
    buffers: tuple[str, ...] = ()  # those inputs, as the wrapper names them
    text: str = ""


@dataclass(frozen=True)
class IndirectAccess(_Dict):
    """A buffer a kernel reads through indices it loads (a gather) or writes through them (a scatter).

    Each index value counts as its own element, so where indices repeat the kernel touches fewer.
    """

    param: str  # the kernel's pointer parameter: in_ptr1
    buffer: str  # what the wrapper passes for it: primals_1, buf3
    gathered: int  # elements read through loaded indices, per call
    scattered: int  # elements written (or atomically added to) through them, per call
    elements: int  # the buffer's own


@dataclass(frozen=True)
class KernelTiming(_Dict):
    """One generated kernel (or extern call) inside a compiled graph, from the profiler."""

    name: str  # as the capture names it (cpp_fused_..., triton_poi_fused_...) or aten::mm
    kind: str  # "generated" | "extern"
    time_s: float  # self time per graph call
    share_pct: float  # of the compiled graph's profiled time
    calls: int  # per graph call
    bytes: Optional[int] = None  # bytes read + written per call
    bytes_source: Optional[str] = None  # how `bytes` was found, or why it is missing
    bandwidth_gbs: Optional[float] = None  # bytes / time_s, GB/s (1e9)
    peak_pct: Optional[float] = None  # of the device's measured copy bandwidth
    # roofline: FLOPs from the op and its shapes (matmuls, convolutions, attention)
    flops: Optional[int] = None  # floating-point operations per call
    flops_source: Optional[str] = None  # how `flops` was found, or why it is missing
    dtype: Optional[str] = None  # of the op's inputs, for compute-bound kernels
    tflops: Optional[float] = None  # achieved: flops / time_s / 1e12
    peak_tflops: Optional[float] = None  # the measured matmul peak for `dtype` on this device
    peak_flops_pct: Optional[float] = None  # tflops as % of peak_tflops
    bound: Optional[str] = None  # "memory" | "compute": which roof limits it (arithmetic intensity vs ridge)
    grid: Optional[tuple[int, ...]] = None  # GPU: blocks launched, from the profiler's trace
    block: Optional[tuple[int, ...]] = None  # GPU: threads per block, from the profiler's trace
    launched_by: tuple[OpLaunch, ...] = ()  # the op calls that launched it (GPU: by correlation id)
    ceiling: Optional[CeilingCheck] = None  # above the copy ceiling: the evidence for why
    indirect: tuple[IndirectAccess, ...] = ()  # the buffers its bytes reach through loaded indices
    estimate_s: Optional[float] = None  # Inductor's estimated runtime per call (summed over the ops it runs)


@dataclass(frozen=True)
class PeakBandwidth(_Dict):
    device: str
    gbs: float  # GB/s (1e9) of a large device-to-device copy (read + write counted)
    bytes_per_copy: int
    measurement: Measurement
    cache_bytes: Optional[int] = None  # the device's last-level cache: a GPU's L2, a CPU's L3
    cache_name: Optional[str] = None  # "L2", "L3"


@dataclass(frozen=True)
class PeakCompute(_Dict):
    """The device's achievable matmul rate for one dtype, measured once per process."""

    device: str
    dtype: str
    tflops: float  # TFLOP/s (1e12) of a large square matmul
    size: int  # n of the n x n x n matmul timed
    measurement: Measurement


@dataclass(frozen=True)
class EndToEnd(_Dict):
    """The whole call as the user makes it, compiled and eager: what the user-visible speedup is.

    ``method`` says how: "re-called" (the compiled function itself called again,
    guards, frame, resume functions and graph-break glue included) or
    "guards + graphs" (re-calling would repeat side effects: guard evaluation and
    the graphs were timed, the Python around them was not). ``timed`` and
    ``not_timed`` say exactly what the figures hold.
    """

    label: str
    method: str  # "re-called" | "guards + graphs"
    device: str
    eager: Optional[Measurement]
    compiled: Optional[Measurement]
    speedup: Optional[float]  # eager / compiled: what the user sees
    ratio: Optional[Ratio] = None  # the speedup from interleaved repeats, with its own spread
    graphs_compiled_s: Optional[float] = None  # sum of the graphs' compiled medians, for comparison
    overhead_s: Optional[float] = None  # compiled end to end minus its graphs: guards, frame, glue
    guards: Optional[Measurement] = None  # evaluating the cached entries' guards once
    first_call_s: Optional[float] = None  # the user's first call (compile included), wall clock
    warmup_s: tuple[float, ...] = ()  # the first calls after it, one by one (lazy init, CUDA graph recording)
    compile_time_s: Optional[float] = None
    break_even_calls: Optional[float] = None
    timed: tuple[str, ...] = ()
    not_timed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    verdict: Optional[SpeedupVerdict] = None  # compiled against eager, from the figures above


@dataclass(frozen=True)
class HostTime(_Dict):
    """The host's time per call beside the device's work: whether the figures follow the host.

    On a GPU, ``host_s`` is the host's time to issue one call (calls issued back to back without waiting for
    the device, too few to fill its launch queue) and ``device_s`` the device's busy time per call (its
    kernels); when the host issues a call in about the time the device runs it, the device waits on the host
    and every figure of the graph follows the host's speed. On CPU, ``host_s`` is the Python around the
    kernels per call (the compiled graph's time less its kernels' own) and ``device_s`` the kernels' own time.
    """

    host_s: float
    device_s: float
    bound: bool  # host_s >= HOST_BOUND_RATIO x device_s
    method: str  # how each side was measured
    host: Optional[Measurement] = None  # GPU: the issue-time measurement itself


@dataclass(frozen=True)
class GraphTiming(_Dict):
    """One Dynamo graph timed eager (its FX graph run as is) vs compiled."""

    index: int  # order the graphs were compiled in
    compile_id: Optional[CompileKey]  # its compilation's key, as Compilation.compile_id
    label: str
    device: str
    grad_enabled: bool  # timed with autograd recording, as the user's call ran
    eager: Optional[Measurement]
    compiled: Optional[Measurement]
    speedup: Optional[float]  # eager / compiled
    compile_time_s: Optional[float]
    compile_time_source: str  # "capture" (Dynamo + backend) or "backend" (backend call only)
    break_even_calls: Optional[float]  # calls until compiling paid for itself; None if never
    kernels: tuple[KernelTiming, ...] = ()
    kernels_note: Optional[str] = None  # why there are no kernel rows, or what they lack
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # training graphs only: one forward and its backward, eager vs compiled (gradients taken
    # with autograd.grad, so nothing accumulates into any .grad)
    train_eager: Optional[Measurement] = None
    train_compiled: Optional[Measurement] = None
    train_speedup: Optional[float] = None
    kernels_build: Optional[str] = None  # which build the kernel profile came from (a separate, labelled one)
    flops: Optional[int] = None  # FLOPs of the graph's counted op calls per call (the kernels' FLOPs add up to it)
    ratio: Optional[Ratio] = None  # the speedup from interleaved repeats, with its own spread
    train_ratio: Optional[Ratio] = None
    host: Optional[HostTime] = None  # the host's time per call beside the device's (needs the kernel profile)
    estimate_s: Optional[float] = None  # Inductor's estimated runtime of all its ops, per call (0: none estimated)
    verdict: Optional[SpeedupVerdict] = None  # compiled against eager, from the figures above (None: a side missing)


@dataclass(frozen=True)
class ModeResult(_Dict):
    """One torch.compile mode in a --compare table (all of the cell's graphs together); ``Report.comparisons``."""

    mode: str
    compile_time_s: Optional[float]  # cold compile, caches off
    eager_s: Optional[float]  # sum over graphs of the eager medians
    compiled_s: Optional[float]  # sum over graphs of the compiled medians
    speedup: Optional[float]
    spread_pct: Optional[float]  # the IQR % of the cell's per-repeat ratios (its speedup's spread)
    error: Optional[str] = None
    notes: tuple[str, ...] = ()
    verdict: Optional[SpeedupVerdict] = None  # this mode against eager, from the figures above


@dataclass(frozen=True)
class TimingReport(_Dict):
    """Everything timing found for one capture; what the report JSON holds as ``timing``."""

    device: str
    graphs: tuple[GraphTiming, ...] = ()
    peak: Optional[PeakBandwidth] = None
    timeit: Optional[GraphTiming] = None  # --timeit: the whole call re-run (index -1)
    end_to_end: Optional[EndToEnd] = None  # the whole call as the user makes it
    peak_compute: tuple[PeakCompute, ...] = ()  # measured matmul peaks, per dtype
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def eager_s(self) -> Optional[float]:
        return _sum(g.eager.median_s if g.eager else None for g in self.graphs)

    @property
    def compiled_s(self) -> Optional[float]:
        return _sum(g.compiled.median_s if g.compiled else None for g in self.graphs)

    _json_derived = ("eager_s", "compiled_s")


def _sum(values: Any) -> Optional[float]:
    vals = list(values)
    if not vals or any(v is None for v in vals):
        return None
    return float(sum(vals))
