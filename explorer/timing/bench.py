"""How one callable is timed, and what the figures mean for the user.

The method follows IPython's ``%timeit``: warm up, grow the number of calls per
repeat until one repeat fills the budget, take several repeats, report the
median and the spread between repeats. On CPU each repeat runs through
``torch.utils.benchmark.Timer`` (which owns the clock and thread settings); on
GPU each call is bracketed by CUDA events after an L2 flush, the way
``triton.testing.do_bench`` measures, so the two agree and both count device
time, not launch time alone.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any, Callable, Optional, Sequence

from .model import Measurement, Ratio

NOISY_PCT = 10.0  # spread above this: the figure is not trustworthy
DEFAULT_BUDGET_S = 0.2  # one repeat runs at least this long (IPython's %timeit figure)
DEFAULT_REPEATS = 5
_MAX_GROWTH = 10  # calibration grows the loop count at most this much per step
LAUNCH_BOUND_S = {"cpu": 200e-6, "cuda": 1e-3}  # eager work per call below this: overhead-dominated
_L2_FLUSH_BYTES = 256 * 1024 * 1024  # what triton.testing.do_bench zeroes between calls


def measure(fn: Callable[[], Any], *, device: str = "cpu", budget_s: float = DEFAULT_BUDGET_S,
            repeats: int = DEFAULT_REPEATS, warmup_s: Optional[float] = None,
            flush_l2: bool = True) -> Measurement:
    """Times ``fn()`` (no arguments; bind them with a lambda) and returns per-call figures.

    ``fn`` runs a few times first (warm-up: lazy initialisation, cudagraph
    recording and autotuning must not land in the figures).
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if device.startswith("cuda"):
        return _measure_cuda(fn, device, budget_s, repeats, warmup_s, flush_l2)
    return _measure_cpu(fn, budget_s, repeats, warmup_s)


def summarize(per_call: Sequence[float], loops: int, method: str) -> Measurement:
    """Median and spread of per-call times, one per repeat."""
    times = tuple(float(t) for t in per_call)
    med = statistics.median(times)
    if len(times) >= 2:
        q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
        iqr = q3 - q1
    else:
        iqr = 0.0
    scale = 100.0 / med if med > 0 else 0.0
    return Measurement(median_s=med, times_s=times, loops=loops, method=method,
                       iqr_pct=iqr * scale, range_pct=(max(times) - min(times)) * scale)


def calibrate(run: Callable[[int], float], budget_s: float, max_loops: int = 10**7) -> tuple[int, float]:
    """Grows the loop count until ``run(loops)`` (seconds for that many calls) fills the budget.

    Returns (loops, seconds the last run took). Like %timeit, but scaled towards
    the budget instead of stepping by 10x, with growth capped at 10x a step.
    """
    loops = 1
    while True:
        took = run(loops)
        if took >= budget_s or loops >= max_loops:
            return loops, took
        want = math.ceil(loops * budget_s * 1.05 / max(took, 1e-9))
        loops = min(max_loops, max(loops + 1, min(want, loops * _MAX_GROWTH)))


def _warm_up(fn: Callable[[], Any], warmup_s: Optional[float], sync: Callable[[], None]) -> None:
    deadline = time.perf_counter() + (warmup_s if warmup_s is not None else 0.0)
    calls = 0
    while calls < 3 or (time.perf_counter() < deadline and calls < 1000):
        fn()
        calls += 1
    sync()


# ---- two sides, interleaved ----

DRIFT_PCT = 5.0  # a side's time moving this much between the halves of a measurement: the clock moved


def measure_pair(eager: Callable[[], Any], compiled: Callable[[], Any], *, device: str = "cpu",
                 budget_s: float = DEFAULT_BUDGET_S, repeats: int = DEFAULT_REPEATS,
                 warmup_s: Optional[float] = None, flush_l2: bool = True,
                 names: tuple[str, str] = ("eager", "compiled")) -> tuple[Measurement, Measurement, Ratio]:
    """Times two callables in alternating repeats (A B, B A, A B, ...) and the ratio A / B repeat by repeat.

    A GPU's clock, a shared CPU's load, thermal throttling: what drifts during a measurement moves the two
    sides of one repeat alike, so each repeat's ratio holds where two back-to-back measurements would not.
    Each side is warmed and calibrated on its own (its own loop count), as ``measure`` does.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if device.startswith("cuda"):
        a_times, b_times, loops, method = _pair_cuda(eager, compiled, device, budget_s, repeats, warmup_s, flush_l2)
    else:
        a_times, b_times, loops, method = _pair_cpu(eager, compiled, budget_s, repeats, warmup_s)
    method += ", interleaved repeat by repeat with the other side"
    a = summarize(a_times, loops[0], method)
    b = summarize(b_times, loops[1], method)
    return a, b, ratio_of(a_times, b_times, names)


def ratio_of(a_times: Sequence[float], b_times: Sequence[float],
             names: tuple[str, str] = ("eager", "compiled")) -> Ratio:
    """The per-repeat ratios of two interleaved measurements, their spread, and whether the clock moved."""
    ratios = [x / y for x, y in zip(a_times, b_times) if y > 0]
    spread = summarize(ratios or [0.0], 1, "")
    drift, note = _drift(a_times, b_times, names, spread)
    return Ratio(value=spread.median_s, ratios=tuple(ratios), iqr_pct=spread.iqr_pct,
                 range_pct=spread.range_pct, drift_pct=drift, drift_note=note)


def _drift(a: Sequence[float], b: Sequence[float], names: tuple[str, str], spread: Measurement
           ) -> tuple[float, Optional[str]]:
    """How far both sides moved from the first half of the repeats to the second, when they moved together."""
    n = min(len(a), len(b))
    if n < 2:
        return 0.0, None
    half = n // 2
    moves = []
    for times in (a, b):
        first, second = statistics.median(times[:half]), statistics.median(times[n - half:n])
        moves.append(100.0 * (second - first) / first if first > 0 else 0.0)
    together = moves[0] * moves[1] > 0
    drift = min(abs(moves[0]), abs(moves[1])) if together else 0.0
    if drift < DRIFT_PCT:
        return drift, None
    word = "slower" if moves[0] > 0 else "faster"
    return drift, (f"the clock moved during the measurement: both sides ran {word} in the second half of the "
                   f"repeats ({names[0]} {moves[0]:+.0f}%, {names[1]} {moves[1]:+.0f}%); the speedup is taken "
                   f"repeat by repeat, where the drift cancels: its ratios spread {spread.iqr_pct:.0f}% (IQR)")


def _pair_cpu(a: Callable[[], Any], b: Callable[[], Any], budget_s: float, repeats: int,
              warmup_s: Optional[float]) -> tuple[list[float], list[float], tuple[int, int], str]:
    import torch
    from torch.utils.benchmark import Timer

    timers = []
    for fn in (a, b):
        _warm_up(fn, warmup_s, lambda: None)
        timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
        loops, _ = calibrate(lambda n, t=timer: t.timeit(n).times[0] * n, budget_s)
        timers.append((timer, loops))
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(repeats):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            timer, loops = timers[side]
            times[side].append(timer.timeit(loops).times[0])
    return times[0], times[1], (timers[0][1], timers[1][1]), "torch.utils.benchmark.Timer"


def _pair_cuda(a: Callable[[], Any], b: Callable[[], Any], device: str, budget_s: float, repeats: int,
               warmup_s: Optional[float], flush_l2: bool) -> tuple[list[float], list[float], tuple[int, int], str]:
    import torch

    dev = torch.device(device)
    sync = lambda: torch.cuda.synchronize(dev)  # noqa: E731
    cache = torch.empty(_L2_FLUSH_BYTES // 4, dtype=torch.int32, device=dev) if flush_l2 else None
    plans = []
    with torch.cuda.device(dev):
        for fn in (a, b):
            _warm_up(fn, 0.025 if warmup_s is None else warmup_s, sync)

            def wall(n: int, fn: Callable[[], Any] = fn) -> float:
                sync()
                t0 = time.perf_counter()
                _event_times(fn, n, cache)
                return time.perf_counter() - t0

            loops, took = calibrate(wall, budget_s, max_loops=100_000)
            plans.append((fn, loops, min(1000, max(1, int(0.025 / max(took / max(loops, 1), 1e-7))))))
        times: tuple[list[float], list[float]] = ([], [])
        for i in range(repeats):
            for side in ((0, 1) if i % 2 == 0 else (1, 0)):
                fn, loops, backlog = plans[side]
                times[side].append(statistics.median(_event_times(fn, loops, cache, backlog)))
    method = "cuda events" + (", L2 flushed before each call (as triton's do_bench)" if flush_l2 else "")
    return times[0], times[1], (plans[0][1], plans[1][1]), method


# ---- CPU ----

def _measure_cpu(fn: Callable[[], Any], budget_s: float, repeats: int,
                 warmup_s: Optional[float]) -> Measurement:
    import torch
    from torch.utils.benchmark import Timer

    _warm_up(fn, warmup_s, lambda: None)
    # Timer defaults to one thread; the user's code runs with all of them.
    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    loops, _ = calibrate(lambda n: timer.timeit(n).times[0] * n, budget_s)
    per_call = [timer.timeit(loops).times[0] for _ in range(repeats)]
    return summarize(per_call, loops, "torch.utils.benchmark.Timer")


# ---- CUDA ----

def _measure_cuda(fn: Callable[[], Any], device: str, budget_s: float, repeats: int,
                  warmup_s: Optional[float], flush_l2: bool) -> Measurement:
    import torch

    dev = torch.device(device)
    sync = lambda: torch.cuda.synchronize(dev)  # noqa: E731
    cache = torch.empty(_L2_FLUSH_BYTES // 4, dtype=torch.int32, device=dev) if flush_l2 else None
    with torch.cuda.device(dev):
        _warm_up(fn, 0.025 if warmup_s is None else warmup_s, sync)

        def wall(n: int) -> float:  # includes the flushes, so a repeat's length is known
            sync()
            t0 = time.perf_counter()
            _event_times(fn, n, cache)
            return time.perf_counter() - t0

        loops, took = calibrate(wall, budget_s, max_loops=100_000)
        # Like do_bench, queue ~25 ms of calls before the timed ones, so the host is ahead of
        # the device and the events time the kernels, not the host's launch gaps.
        backlog = min(1000, max(1, int(0.025 / max(took / max(loops, 1), 1e-7))))
        per_call = [statistics.median(_event_times(fn, loops, cache, backlog)) for _ in range(repeats)]
    method = "cuda events" + (", L2 flushed before each call (as triton's do_bench)" if flush_l2 else "")
    return summarize(per_call, loops, method)


def _event_times(fn: Callable[[], Any], n: int, cache: Any, backlog: int = 0) -> list[float]:
    """Device seconds of each of n calls, each bracketed by its own pair of CUDA events."""
    import torch

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for _ in range(backlog):  # untimed, not synchronised: fills the device's queue
        if cache is not None:
            cache.zero_()
        fn()
    for s, e in zip(starts, ends):
        if cache is not None:
            cache.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends)]


# ---- the host's side of a GPU call ----

def issue_times(fn: Callable[[], Any], device: str, calls: int, repeats: int = DEFAULT_REPEATS) -> Measurement:
    """The host's seconds per call to issue ``fn()``: ``calls`` calls back to back on the host clock, after the
    device has caught up and without waiting for it. ``calls`` must be few enough that the device's launch queue
    never fills (a full queue blocks the host, which would then time the device)."""
    import torch

    dev = torch.device(device)
    sync = lambda: torch.cuda.synchronize(dev)  # noqa: E731
    with torch.cuda.device(dev):
        _warm_up(fn, 0.0, sync)
        per_call = []
        for _ in range(repeats):
            sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            per_call.append((time.perf_counter() - t0) / calls)
        sync()
    return summarize(per_call, calls, f"host clock, {calls} calls issued without waiting for the device")


# ---- what the figures mean ----

def break_even_calls(compile_time_s: Optional[float], eager_s: Optional[float],
                     compiled_s: Optional[float], speedup: Optional[float] = None) -> Optional[float]:
    """Calls until the time saved per call has paid back the compile; None if it never does.

    ``speedup`` (from interleaved repeats) sets the saving, ``compiled_s x (speedup - 1)``, so the two agree.
    """
    if compile_time_s is None or eager_s is None or compiled_s is None:
        return None
    saved = compiled_s * (speedup - 1) if speedup is not None else eager_s - compiled_s
    if saved <= 0:
        return None
    return compile_time_s / saved
