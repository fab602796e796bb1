"""Whether compiled beat eager, decided from the very figures shown beside the answer, or why it cannot be.

The speedup shown is the median of the per-repeat ratios (eager and compiled interleaved, ``bench.measure_pair``).
A verdict needs three things of those figures:

- an interval for that median, drawn from the ratios themselves (the distribution-free one of order statistics:
  with 5 repeats, the smallest to the largest ratio, which holds the true median 94 % of the time), that lies
  clear of 1x; an interval across 1x with a tight spread is a verdict too: no faster;
- a spread that is not huge (a speedup whose repeats spread ``HUGE_PCT`` or more is no figure to judge by);
- the medians shown beside it on the same side of 1x (eager 14.4 ms against compiled 8.0 ms is faster, whatever
  the ratios' median says).

Otherwise the machine was too noisy to tell, and the answer says why and how to measure again (``REMEASURE``);
fewer than 5 repeats bound no speedup at all (``TOO_FEW``).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

from . import bench
from .model import Measurement, Ratio, SpeedupVerdict

FASTER, SLOWER, SAME, TOO_NOISY, TOO_FEW = "faster", "slower", "same", "too noisy", "too few repeats"
NO_VERDICT = (TOO_NOISY, TOO_FEW)
HUGE_PCT = 50.0  # the speedup's repeats spreading this much (IQR, % of its median): too noisy to judge
MIN_COVERAGE_PCT = 90.0  # the interval must hold the true median at least this often: 5 repeats or more
CONFIDENCE = 0.95  # with enough repeats, the narrowest interval still holding the median this often
# how to measure again: the options of every entry point (explorer/options.py: ``repeats``, ``time_budget_s``)
REMEASURE = ("to tell, measure again on a quieter machine (nothing else running), with more repeats "
             "(--repeat 15, or repeats=15 in explore()) or longer ones (--time-budget 0.5, or time_budget_s=0.5)")


def median_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(low, high, coverage %) of the distribution-free interval for the median of ``values``.

    The k-th smallest to the k-th largest value, k as large as keeps the coverage (the chance that such an
    interval holds the true median, from the binomial law of how many values fall below it) at ``CONFIDENCE``;
    k is at least 1: then the interval is the range, and its coverage may be less (75 % with 3 values).
    """
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0.0

    def coverage(k: int) -> float:  # P(x_(k) <= median <= x_(n+1-k)) = 1 - 2 P(Bin(n, 1/2) <= k - 1)
        return 1.0 - 2.0 * sum(math.comb(n, i) for i in range(k)) / 2 ** n

    k = 1
    while k + 1 <= (n + 1) // 2 and coverage(k + 1) >= CONFIDENCE:
        k += 1
    return xs[k - 1], xs[n - k], 100.0 * max(coverage(k), 0.0)


def judge(eager: Optional[Measurement], compiled: Optional[Measurement],
          ratio: Optional[Ratio] = None) -> Optional[SpeedupVerdict]:
    """The verdict on compiled against eager from the figures shown: the speedup (``ratio``'s median, else the
    medians' ratio), its spread and the two medians. None when a side was not measured."""
    if eager is None or compiled is None or eager.median_s <= 0 or compiled.median_s <= 0:
        return None
    by_medians = eager.median_s / compiled.median_s
    if ratio is not None and ratio.ratios:
        speedup, spread, repeats = ratio.value, ratio.iqr_pct, len(ratio.ratios)
        low, high, cover = median_interval(ratio.ratios)
    else:  # the sides measured apart: the interval of each side's median, divided
        speedup, spread = by_medians, max(eager.iqr_pct, compiled.iqr_pct)
        repeats = min(eager.repeats, compiled.repeats)
        e_low, e_high, e_cover = median_interval(eager.times_s)
        c_low, c_high, c_cover = median_interval(compiled.times_s)
        low, high, cover = e_low / c_high, e_high / c_low, min(e_cover, c_cover)
    why = _why_not(speedup, spread, repeats, low, high, cover, by_medians)
    if cover < MIN_COVERAGE_PCT:
        kind = TOO_FEW
    elif why is not None:
        kind = TOO_NOISY
    elif low > 1.0:
        kind = FASTER
    elif high < 1.0:
        kind = SLOWER
    else:
        kind = SAME
    return SpeedupVerdict(kind=kind, low=low, high=high, coverage_pct=cover, reason=why or "")


def _why_not(speedup: float, spread: float, repeats: int, low: float, high: float, cover: float,
             by_medians: float) -> Optional[str]:
    """Why these figures allow no verdict, or None when they do."""
    if cover < MIN_COVERAGE_PCT:
        return (f"{repeats} repeat{'s' if repeats != 1 else ''} cannot bound the speedup "
                f"(5 or more give an interval that holds it {MIN_COVERAGE_PCT:.0f}% of the time or more)")
    if spread >= HUGE_PCT:
        return f"the speedup's repeats spread {spread:.0f}% (IQR) around its median {speedup:.2f}x"
    across = low <= 1.0 <= high
    if across and spread > bench.NOISY_PCT:
        return f"the speedup's repeats run from {low:.2f}x to {high:.2f}x, either side of 1x"
    # the medians shown beside the speedup must tell the same: no clear difference, or the same side of 1x
    agree = abs(by_medians - 1.0) <= bench.NOISY_PCT / 100 if across else (by_medians > 1.0) == (low > 1.0)
    if not agree:
        return (f"the medians' ratio ({by_medians:.2f}x) and the repeats' ratios ({speedup:.2f}x, {low:.2f}x to "
                f"{high:.2f}x) disagree")
    return None


def verdict_warnings(v: Optional[SpeedupVerdict], speedup: Optional[float], spread: float,
                     reason: str = "") -> list[str]:
    """The warning lines a verdict gives (none for a clear win): too noisy to tell and how to measure again; no
    faster, or slower, with ``reason`` (``bench.likely_reason``); a noisy spread a verdict still stands through."""
    if v is None or speedup is None:
        return []
    if v.kind == TOO_NOISY:
        return [f"too noisy to tell whether compiled is faster: {v.reason}; {REMEASURE}"]
    if v.kind == TOO_FEW:
        return [f"too few repeats to tell whether compiled is faster: {v.reason}; measure with --repeat 5 or more "
                "(repeats=5 in explore())"]
    out = []
    if spread > bench.NOISY_PCT:
        out.append(f"noisy machine: the speedup's repeats spread {spread:.0f}% (IQR), so {speedup:.2f}x is rough; "
                   f"it holds that compiled is {_word(v.kind)} ({v.low:.2f}x to {v.high:.2f}x)")
    if v.kind == SLOWER:
        out.append(f"compiled is slower than eager: speedup {speedup:.2f}x ({1 / speedup:.2f}x the time), "
                   f"{v.low:.2f}x to {v.high:.2f}x across the repeats{reason}")
    elif v.kind == SAME:
        out.append(f"compiled is no faster than eager: speedup {speedup:.2f}x, {v.low:.2f}x to {v.high:.2f}x across "
                   f"the repeats{reason}")
    return out


def _word(kind: str) -> str:
    return {FASTER: "faster", SLOWER: "slower", SAME: "no faster"}.get(kind, kind)



def assess(eager: Optional[Measurement], compiled: Optional[Measurement], *, device: str,
           backend: str = "inductor", num_kernels: Optional[int] = None,
           ratio: Optional[Ratio] = None) -> tuple[Optional[SpeedupVerdict], list[str]]:
    """The verdict on compiled against eager, and the warnings it gives (``verdict_warnings``)."""
    v = judge(eager, compiled, ratio)
    if v is None or eager is None or compiled is None:
        return v, []
    speedup = ratio.value if ratio is not None and ratio.ratios else eager.median_s / compiled.median_s
    spread = ratio.iqr_pct if ratio is not None and ratio.ratios else max(eager.iqr_pct, compiled.iqr_pct)
    reason = likely_reason(eager, device, backend, num_kernels, v.kind) if v.kind in (SLOWER, SAME) else ""
    return v, verdict_warnings(v, speedup, spread, reason)


def warnings_for(eager: Optional[Measurement], compiled: Optional[Measurement], *, device: str,
                 backend: str = "inductor", num_kernels: Optional[int] = None,
                 ratio: Optional[Ratio] = None) -> list[str]:
    """Plain-words warnings: too noisy to tell (and how to measure again), or compiling made it no faster or
    slower (and why), each drawn from the figures shown beside it (``judge``)."""
    return assess(eager, compiled, device=device, backend=backend, num_kernels=num_kernels, ratio=ratio)[1]


def break_even(compile_time_s: Optional[float], eager: Optional[Measurement], compiled: Optional[Measurement],
               speedup: Optional[float], v: Optional[SpeedupVerdict]) -> Optional[float]:
    """Calls until compiling paid for itself, only where compiled is faster by the verdict (``None`` otherwise:
    it never pays, or the figures cannot tell: ``v`` says which)."""
    if v is None or v.kind != FASTER or eager is None or compiled is None:
        return None
    return bench.break_even_calls(compile_time_s, eager.median_s, compiled.median_s, speedup)


def likely_reason(eager: Measurement, device: str, backend: str = "inductor",
                  num_kernels: Optional[int] = None, kind: str = SLOWER) -> str:
    """Why a compiled graph may lose to eager (or gain nothing), judged from how much work eager does per call."""
    cuda = device.startswith("cuda")
    if cuda and (eager.median_s < bench.LAUNCH_BOUND_S["cuda"] or (num_kernels or 0) > 20):
        return ("; likely launch-bound: the graph is small, so kernel launches and the compiled "
                "wrapper's Python dominate. mode=\"reduce-overhead\" (CUDA graphs) may help")
    if not cuda and eager.median_s < bench.LAUNCH_BOUND_S["cpu"]:
        return ("; likely call overhead: the tensors are tiny, so the compiled wrapper's fixed cost "
                "per call outweighs the work saved. Larger inputs, or not compiling this part, may pay")
    if backend != "inductor":
        return f"; the {backend!r} backend adds tracing wrappers without generating faster code"
    lose = "lose to" if kind == SLOWER else "gain nothing over"
    return f"; Inductor's kernels {lose} the eager (ATen) ones here: look at the kernel profile for the slow one"
