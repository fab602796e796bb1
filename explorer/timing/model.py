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
    """The median."""
    times_s: tuple[float, ...]  # per-call time of each repeat
    """One time per repeat."""
    loops: int  # calls per repeat (calibrated)
    """Calls per repeat (calibrated like `%timeit`)."""
    method: str
    """E.g. `torch.utils.benchmark.Timer`, `cuda events, L2 flushed`."""
    iqr_pct: float  # inter-quartile range of the repeats, % of the median
    """The inter-quartile spread, %."""
    range_pct: float  # (max - min) of the repeats, % of the median
    """The range, %."""

    @property
    def repeats(self) -> int:
        """How many repeats."""
        return len(self.times_s)

    @property
    def min_s(self) -> float:
        """The fastest repeat."""
        return min(self.times_s)

    @property
    def max_s(self) -> float:
        """The slowest."""
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
    """The median ratio."""
    ratios: tuple[float, ...]  # one per repeat
    """One ratio per repeat."""
    iqr_pct: float  # inter-quartile range of the ratios, % of their median
    """Their inter-quartile spread, %."""
    range_pct: float
    """Their range, %."""
    drift_pct: float = 0.0  # how far the sides' own times moved from the first to the second half of the repeats
    """How far both sides moved between the first and second half of the repeats."""
    drift_note: Optional[str] = None  # said when the clock moved during the measurement
    """Said when the clock moved."""


@dataclass(frozen=True)
class SpeedupVerdict(_Dict):
    """Whether compiled beat eager, judged from the figures shown beside it (``timing.verdict.judge``).

    ``kind``: ``faster`` or ``slower`` (the speedup's interval clear of 1x, its spread not huge, the medians on
    the same side), ``same`` (a tight interval across 1x: no faster), ``too noisy`` (no verdict: ``reason``),
    ``too few repeats`` (under 5: no interval holds the speedup often enough to judge by).
    """

    kind: str  # faster | slower | same | too noisy | too few repeats
    """`faster`, `slower`, `same` (a tight interval across 1x: no faster), `too noisy` or `too few repeats` (no
    verdict: `reason`)."""
    low: float  # the speedup's interval: the median of the per-repeat ratios lies between low and high
    """The speedup's interval: the median of the per-repeat ratios lies between `low` and `high` (with 5 repeats, the
    smallest and the largest ratio)."""
    high: float
    """Its upper end."""
    coverage_pct: float  # how often an interval drawn so holds the true median (94% with 5 repeats)
    """How often an interval drawn so holds the true median (94 with 5 repeats)."""
    reason: str = ""  # too noisy: why no verdict
    """Why the figures allow no verdict (empty where they allow one)."""


@dataclass(frozen=True)
class OpLaunch(_Dict):
    """The op calls that launched a kernel, per graph call: which op, how often, the FLOPs they did there."""

    op: str
    """`aten::convolution`, or the record a generated kernel runs under (its own name)."""
    launches: float
    """Launches of this kernel by calls of this op, per graph call."""
    flops: Optional[int] = None  # the op calls' FLOPs given to this kernel, per graph call (None: no formula)
    """The op calls' FLOPs given to this kernel, per graph call (`null`: no formula)."""


@dataclass(frozen=True)
class CeilingCheck(_Dict):
    """Why a kernel shows above the measured copy ceiling, and the evidence checked for it."""

    explained: bool
    """`true`: its data came from cache, as the evidence shows; `false`: its byte count may be wrong."""
    cache_bytes: Optional[int]  # the device's last-level cache (a GPU's L2)
    """The cache's size."""
    fits_cache: Optional[bool]  # the kernel's bytes fit in it
    """Whether its bytes fit."""
    producer: Optional[str] = None  # the call just before it in the wrapper that wrote one of its inputs
    """The call just before it that wrote its input."""
    buffers: tuple[str, ...] = ()  # those inputs, as the wrapper names them
    """The buffers concerned."""
    text: str = ""
    """What the view says."""


@dataclass(frozen=True)
class IndirectAccess(_Dict):
    """A buffer a kernel reads through indices it loads (a gather) or writes through them (a scatter).

    Each index value counts as its own element, so where indices repeat the kernel touches fewer.
    """

    param: str
    """The kernel's pointer parameter: `in_ptr1`."""
    buffer: str
    """What the wrapper passes for it: `primals_1`, `buf3`."""
    gathered: int
    """Elements read through loaded indices, per call."""
    scattered: int
    """Elements written (or atomically added to) through them, per call."""
    elements: int  # the buffer's own
    """The buffer's own number of elements."""


@dataclass(frozen=True)
class KernelTiming(_Dict):
    """One generated kernel (or extern call) inside a compiled graph, from the profiler."""

    name: str  # as the capture names it (cpp_fused_..., triton_poi_fused_...) or aten::mm
    """The kernel."""
    kind: str  # "generated" | "extern"
    """`generated` or `extern`."""
    time_s: float
    """Self time per graph call."""
    share_pct: float  # of the compiled graph's profiled time
    """Its share of the graph."""
    calls: int  # per graph call
    """Calls per graph call."""
    bytes: Optional[int] = None  # bytes read + written per call
    """Bytes read and written per call."""
    bytes_source: Optional[str] = None  # how `bytes` was found, or why it is missing
    """How they were counted."""
    bandwidth_gbs: Optional[float] = None  # bytes / time_s, GB/s (1e9)
    """Bandwidth, GB/s."""
    peak_pct: Optional[float] = None  # of the device's measured copy bandwidth
    """% of the measured copy bandwidth."""
    # roofline: FLOPs from the op and its shapes (matmuls, convolutions, attention)
    flops: Optional[int] = None  # floating-point operations per call
    """Its FLOPs."""
    flops_source: Optional[str] = None  # how `flops` was found, or why it is missing
    """Where they come from."""
    dtype: Optional[str] = None
    """Of the op's inputs, for compute-bound kernels."""
    tflops: Optional[float] = None
    """Achieved: `flops / time_s / 1e12`."""
    peak_tflops: Optional[float] = None  # the measured matmul peak for `dtype` on this device
    """The measured peak for the dtype."""
    peak_flops_pct: Optional[float] = None  # tflops as % of peak_tflops
    """% of that peak."""
    bound: Optional[str] = None  # "memory" | "compute": which roof limits it (arithmetic intensity vs ridge)
    """`memory` or `compute`."""
    grid: Optional[tuple[int, ...]] = None
    """GPU: blocks launched, from the profiler's trace."""
    block: Optional[tuple[int, ...]] = None
    """GPU: threads per block, from the profiler's trace."""
    launched_by: tuple[OpLaunch, ...] = ()  # the op calls that launched it (GPU: by correlation id)
    """The op calls that launched it, per graph call (GPU: by correlation id)."""
    ceiling: Optional[CeilingCheck] = None  # above the copy ceiling: the evidence for why
    """For a kernel above the copy ceiling, the evidence."""
    indirect: tuple[IndirectAccess, ...] = ()  # the buffers its bytes reach through loaded indices
    """The buffers its bytes reach through indices it loads, counted as if no index repeated."""
    estimate_s: Optional[float] = None  # Inductor's estimated runtime per call (summed over the ops it runs)
    """Inductor's estimated runtime per call of the ops that became it."""


@dataclass(frozen=True)
class PeakBandwidth(_Dict):
    """The device's measured copy bandwidth and its last-level cache (a GPU's L2)."""

    device: str
    """The device."""
    gbs: float  # GB/s (1e9) of a large device-to-device copy (read + write counted)
    """GB/s (1e9) of a large device-to-device copy (read and write counted)."""
    bytes_per_copy: int
    """Bytes each copy moved."""
    measurement: Measurement
    """The measurement."""
    cache_bytes: Optional[int] = None  # the device's last-level cache: a GPU's L2, a CPU's L3
    """Its last-level cache's size."""
    cache_name: Optional[str] = None  # "L2", "L3"
    """`L2` (a GPU), `L3` (a CPU)."""


@dataclass(frozen=True)
class PeakCompute(_Dict):
    """The device's achievable matmul rate for one dtype, measured once per process."""

    device: str
    """The device."""
    dtype: str
    """The dtype."""
    tflops: float
    """TFLOP/s (1e12) of a large square matmul."""
    size: int
    """n of the n x n x n matmul timed."""
    measurement: Measurement
    """The measurement."""


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
    """What was called."""
    method: str  # "re-called" | "guards + graphs"
    """`re-called` or `guards + graphs`."""
    device: str
    """The device."""
    eager: Optional[Measurement]
    """The call eager."""
    compiled: Optional[Measurement]
    """The call compiled."""
    speedup: Optional[float]  # eager / compiled: what the user sees
    """The speedup a user sees."""
    ratio: Optional[Ratio] = None  # the speedup from interleaved repeats, with its own spread
    """Its per-repeat ratios, eager and compiled interleaved."""
    graphs_compiled_s: Optional[float] = None  # sum of the graphs' compiled medians, for comparison
    """The graphs alone."""
    overhead_s: Optional[float] = None  # compiled end to end minus its graphs: guards, frame, glue
    """The difference."""
    guards: Optional[Measurement] = None
    """Evaluating the cached entries' guards once."""
    first_call_s: Optional[float] = None
    """The user's first call (compile included), wall clock."""
    warmup_s: tuple[float, ...] = ()
    """The first calls after it, one by one (lazy init, CUDA graph recording)."""
    compile_time_s: Optional[float] = None
    """The compile time."""
    break_even_calls: Optional[float] = None
    """Calls until compiling paid for itself; `null` if it never does or the figures cannot tell."""
    timed: tuple[str, ...] = ()
    """The graphs the call covers."""
    not_timed: tuple[str, ...] = ()
    """Those it does not, and why."""
    warnings: tuple[str, ...] = ()
    """When the figures are too noisy to tell (and how to measure again), or the call compiled is slower or no
    faster, and why."""
    notes: tuple[str, ...] = ()
    """What the view says (why a call could not be repeated)."""
    verdict: Optional[SpeedupVerdict] = None  # compiled against eager, from the figures above
    """The call compiled against eager, judged from the figures shown beside it."""


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
    """On a GPU, the host's time to issue one call; on CPU, the Python around the kernels per call."""
    device_s: float
    """The device's busy time per call (its kernels); on CPU the kernels' own time."""
    bound: bool  # host_s >= HOST_BOUND_RATIO x device_s
    """The host issues a call in about the time the device runs it (host_s >= 0.8 x device_s): the figures follow the
    host's speed."""
    method: str
    """How each side was measured."""
    host: Optional[Measurement] = None  # GPU: the issue-time measurement itself
    """On a GPU, the issue-time measurement itself."""


@dataclass(frozen=True)
class GraphTiming(_Dict):
    """One Dynamo graph timed eager (its FX graph run as is) vs compiled."""

    index: int  # order the graphs were compiled in
    """The graph's index."""
    compile_id: Optional[CompileKey]  # its compilation's key, as Compilation.compile_id
    """Its compilation."""
    label: str
    """Its label."""
    device: str
    """Its device."""
    grad_enabled: bool  # timed with autograd recording, as the user's call ran
    """Whether gradients were on."""
    eager: Optional[Measurement]
    """Its FX graph run eagerly."""
    compiled: Optional[Measurement]
    """The compiled graph."""
    speedup: Optional[float]  # eager / compiled
    """The median of `ratio`'s per-repeat ratios."""
    compile_time_s: Optional[float]
    """Its compile time."""
    compile_time_source: str  # "capture" (Dynamo + backend) or "backend" (backend call only)
    """`capture` (Dynamo + backend) or `backend` (the backend call only)."""
    break_even_calls: Optional[float]  # calls until compiling paid for itself; None if never
    """Calls until compiling paid for itself; `null` if it never does or the figures cannot tell (`verdict` says
    which)."""
    kernels: tuple[KernelTiming, ...] = ()
    """Each kernel's time."""
    kernels_note: Optional[str] = None  # why there are no kernel rows, or what they lack
    """What the kernel table says."""
    warnings: tuple[str, ...] = ()
    """When the figures are too noisy to tell (and how to measure again), or compiled is slower or no faster, and
    why."""
    notes: tuple[str, ...] = ()
    """What the view says."""
    # training graphs only: one forward and its backward, eager vs compiled (gradients taken
    # with autograd.grad, so nothing accumulates into any .grad)
    train_eager: Optional[Measurement] = None
    """Training graphs: one forward and its backward, eager (gradients taken with `autograd.grad`, so no `.grad`
    accumulates)."""
    train_compiled: Optional[Measurement] = None
    """The same, compiled."""
    train_speedup: Optional[float] = None
    """Their speedup."""
    kernels_build: Optional[str] = None  # which build the kernel profile came from (a separate, labelled one)
    """Which build the per-kernel times come from (a separate profiling build, labelled as such; the kernels shown
    elsewhere are the user's)."""
    flops: Optional[int] = None  # FLOPs of the graph's counted op calls per call (the kernels' FLOPs add up to it)
    """The FLOPs of the graph's counted op calls per call: the kernels' FLOPs add up to it."""
    ratio: Optional[Ratio] = None  # the speedup from interleaved repeats, with its own spread
    """The per-repeat ratios."""
    train_ratio: Optional[Ratio] = None
    """Its per-repeat ratios."""
    host: Optional[HostTime] = None  # the host's time per call beside the device's (needs the kernel profile)
    """The host's time per call beside the device's: on a GPU the time to issue a call, on CPU the Python around the
    kernels; `bound` when the figures follow the host."""
    estimate_s: Optional[float] = None  # Inductor's estimated runtime of all its ops, per call (0: none estimated)
    """Inductor's estimate of all the graph's ops per call (0 off the GPU)."""
    verdict: Optional[SpeedupVerdict] = None  # compiled against eager, from the figures above (None: a side missing)
    """Compiled against eager, judged from the figures shown beside it; `null` when a side was not measured."""


@dataclass(frozen=True)
class ModeResult(_Dict):
    """One torch.compile mode in a --compare table (all of the cell's graphs together); ``Report.comparisons``."""

    mode: str
    """The mode."""
    compile_time_s: Optional[float]
    """Cold compile, caches off."""
    eager_s: Optional[float]
    """Sum over graphs of the eager medians."""
    compiled_s: Optional[float]
    """Sum over graphs of the compiled medians."""
    speedup: Optional[float]
    """The speedup."""
    spread_pct: Optional[float]  # the IQR % of the cell's per-repeat ratios (its speedup's spread)
    """The inter-quartile spread, %, of the cell's per-repeat ratios (the speedup's)."""
    error: Optional[str] = None
    """Why the mode failed, if it did."""
    notes: tuple[str, ...] = ()
    """What the view says."""
    verdict: Optional[SpeedupVerdict] = None  # this mode against eager, from the figures above
    """This mode against eager, judged from the figures above."""


@dataclass(frozen=True)
class TimingReport(_Dict):
    """Everything timing found for one capture; what the report JSON holds as ``timing``."""

    device: str
    """The device timed."""
    graphs: tuple[GraphTiming, ...] = ()
    """One per captured graph."""
    peak: Optional[PeakBandwidth] = None
    """The device's measured copy bandwidth and its last-level cache."""
    timeit: Optional[GraphTiming] = None  # --timeit: the whole call re-run (index -1)
    """The whole-call timing of `--timeit`, shaped like a graph entry (index -1)."""
    end_to_end: Optional[EndToEnd] = None  # the whole call as the user makes it
    """The whole compiled call as the user makes it (guards, frames, resume functions, break glue) against eager."""
    peak_compute: tuple[PeakCompute, ...] = ()  # measured matmul peaks, per dtype
    """The measured matmul peak per dtype."""
    warnings: tuple[str, ...] = ()
    """When the figures are too noisy to tell (and how to measure again), or compiled is slower or no faster, and
    why."""
    notes: tuple[str, ...] = ()
    """What the view says."""

    @property
    def eager_s(self) -> Optional[float]:
        """Eager time, summed over graphs."""
        return _sum(g.eager.median_s if g.eager else None for g in self.graphs)

    @property
    def compiled_s(self) -> Optional[float]:
        """Compiled time, summed over graphs."""
        return _sum(g.compiled.median_s if g.compiled else None for g in self.graphs)

    _json_derived = ("eager_s", "compiled_s")


def _sum(values: Any) -> Optional[float]:
    vals = list(values)
    if not vals or any(v is None for v in vals):
        return None
    return float(sum(vals))
