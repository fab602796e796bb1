"""Rooflines: FLOPs of matmuls, convolutions and attention from the op and its shapes; the device's peaks.

A kernel is judged against the roof that limits it. Memory-bound kernels
(pointwise, reductions: a handful of operations per byte) against the
measured copy bandwidth (``peak.peak_bandwidth``); compute-bound ones
(matmuls, convolutions, attention: cuBLAS / cuDNN / nvjet on GPU, oneDNN /
MKL behind ``aten::mm`` and friends on CPU) against the measured matmul rate
for their dtype (``peak_compute``). Which roof applies is the kernel's
arithmetic intensity (FLOPs per byte moved) against the device's ridge point
(peak FLOP/s over peak bytes/s).

FLOPs come from ``torch.utils.flop_counter``'s formulas (the ones
``FlopCounterMode`` uses), applied to each op call of one run of the graph,
recorded by a dispatch mode: exact shapes, no parsing of generated code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import bench
from .model import PeakCompute

# ops whose FLOPs are counted (overload packet names), beyond what flop_counter registers
_EXTRA_SDPA = ("_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_fused_attention_overrideable")
_CACHE: dict[tuple[str, str], PeakCompute] = {}
PEAK_N = {"cpu": 1024, "cuda": 8192}


@dataclass(frozen=True)
class OpRecord:
    """One call of a FLOP-counted op in one run of a graph."""

    name: str  # "aten::mm", as the profiler names the op
    flops: int
    bytes: int  # its tensors' sizes: inputs read, outputs written
    dtype: str  # of the first floating-point input, e.g. "torch.bfloat16"
    shapes: tuple[tuple[int, ...], ...] = ()


def record_ops(fn: Callable[..., Any], inputs: list[Any], autograd_mode: Callable[[], Any],
               notes: list[str]) -> list[OpRecord]:
    """Runs ``fn(*inputs)`` once under a dispatch mode; one record per FLOP-counted op call, in order.

    An op whose FLOPs cannot be counted is left out and named in ``notes`` (once per op).

    Generated kernels (Triton, C++) do not dispatch and are not seen; the
    library calls a compiled graph makes (``extern_kernels.mm``, fallbacks) are.
    """
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    records: list[OpRecord] = []

    class _Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            try:
                packet = func._overloadpacket
                formula = flop_registry.get(packet)
                name = packet.__name__
                if formula is None and name in _EXTRA_SDPA:
                    formula = _sdpa_formula
                if formula is not None:
                    flops = int(formula(*args, **kwargs, out_val=out))
                    records.append(_record(f"aten::{name}", flops, args, kwargs, out))
            except Exception as e:  # noqa: BLE001 - a count we cannot make is left out (noted), never the run
                text = f"FLOPs of {func} not counted: {type(e).__name__}: {e}"
                if text not in notes:
                    notes.append(text)
            return out

    with autograd_mode(), _Recorder():
        fn(*inputs)
    return records


def _sdpa_formula(q: Any, k: Any, v: Any, *args: Any, out_val: Any = None, **kwargs: Any) -> int:
    from torch.utils.flop_counter import sdpa_flop_count

    return sdpa_flop_count(q.shape, k.shape, v.shape)


def _record(name: str, flops: int, args: Any, kwargs: Any, out: Any) -> OpRecord:
    import torch
    from torch.utils._pytree import tree_leaves

    seen: set[int] = set()
    nbytes = 0
    dtype = None
    shapes = []
    for t in tree_leaves((args, kwargs, out)):
        if isinstance(t, torch.Tensor) and id(t) not in seen:
            seen.add(id(t))
            nbytes += t.numel() * t.element_size()
            shapes.append(tuple(t.shape))
            if dtype is None and t.is_floating_point():
                dtype = str(t.dtype)
    return OpRecord(name, flops, nbytes, dtype or "unknown", tuple(shapes))


# ---- the device's compute roof ----

def peak_compute(device: str, dtype: str, *, n: Optional[int] = None, budget_s: float = 0.05,
                 repeats: int = 3, refresh: bool = False) -> PeakCompute:
    """TFLOP/s of an n x n x n matmul of ``dtype`` on ``device`` (the user's matmul settings, e.g. TF32, apply)."""
    import torch

    dev = torch.device(device)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    key = (str(dev), dtype)
    if key in _CACHE and not refresh:
        return _CACHE[key]
    size = n or PEAK_N["cuda" if dev.type == "cuda" else "cpu"]
    torch_dtype = getattr(torch, dtype.replace("torch.", ""))
    a = torch.randn(size, size, device=dev).to(torch_dtype)
    b = torch.randn(size, size, device=dev).to(torch_dtype)
    m = bench.measure(lambda: torch.mm(a, b), device=str(dev), budget_s=budget_s, repeats=repeats, flush_l2=False)
    a = b = None  # the two matrices go now, not when the cache entry dies
    result = PeakCompute(device=str(dev), dtype=dtype, tflops=2 * size ** 3 / m.median_s / 1e12, size=size,
                         measurement=m)
    _CACHE[key] = result
    return result


def bound(flops: Optional[int], nbytes: Optional[int], peak_tflops: Optional[float],
          peak_gbs: Optional[float]) -> Optional[str]:
    """"compute" when the kernel's FLOPs per byte reach the ridge point (peak FLOP/s / peak B/s), else "memory"."""
    if not flops:
        return "memory" if nbytes else None
    if not nbytes or not peak_tflops or not peak_gbs:
        return "compute"
    intensity = flops / nbytes
    ridge = peak_tflops * 1e12 / (peak_gbs * 1e9)
    return "compute" if intensity >= ridge else "memory"


def tflops(flops: Optional[int], time_s: float) -> Optional[float]:
    if not flops or time_s <= 0 or not math.isfinite(time_s):
        return None
    return flops / time_s / 1e12
