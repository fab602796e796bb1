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
Attention has its own formula (``attention_flops``): torch's (before 2.13)
rejects grouped-query attention (fewer key/value heads than query heads),
and none of them knows causal attention. What it counts:

* grouped-query attention: every query head attends, so FLOPs follow the
  query heads (a key/value head serves ``Hq / Hkv`` of them);
* ``is_causal=True``: the (query, key) pairs the causal mask keeps, top-left
  aligned as torch's ``is_causal`` is: ``L (L + 1) / 2`` of ``L**2`` for square
  attention, about half (kernels skip the masked blocks, computing a little
  more than this along the diagonal);
* an explicit mask (``attn_mask``, ``attn_bias``): every pair, since the
  kernel computes them all before masking.

Forward: ``2 B Hq P (D + Dv)`` for ``P`` pairs (``q k^T`` and ``p v``);
backward as torch counts it: ``2 B Hq P (3 D + 2 Dv)`` (the scores
recomputed, then the gradients of ``p``, ``v``, ``q`` and ``k``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..capturing import torch_door
from . import bench
from .model import PeakCompute

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
    formula: str = ""  # what was counted, when it is not torch's formula as is (attention)
    inner: tuple[OpRecord, ...] = ()  # a custom op's: the counted op calls it made inside (its FLOPs are theirs)


def record_ops(fn: Callable[..., Any], inputs: list[Any], autograd_mode: Callable[[], Any],
               notes: list[str]) -> list[OpRecord]:
    """Runs ``fn(*inputs)`` once under a dispatch mode; one record per FLOP-counted op call, in order.

    An op whose FLOPs cannot be counted is left out and named in ``notes`` (once per op).

    Generated kernels (Triton, C++) do not dispatch and are not seen; the
    library calls a compiled graph makes (``extern_kernels.mm``, fallbacks) are. A custom op (a library's own,
    outside ``aten``: transformers' ``grouped_mm_fallback``, a mixture of experts' matmuls in a loop) is opaque
    to the compiler and to torch's formulas: it runs with the mode on, and the FLOPs of the ops it calls inside
    are its own record's (the profiler's row is the outermost op's; where the profiler shows no row of it, as
    torch 2.14's for a compiled graph's call, ``kernels.attach_flops`` gives them to the inner calls' rows).
    """
    from torch.utils.flop_counter import flop_registry

    records: list[OpRecord] = []

    class _Recorder(torch_door.dispatch.dispatch_mode()):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if _is_custom(func) and func.overloadpacket not in flop_registry:
                return self._custom(func, args, kwargs)
            out = func(*args, **kwargs)
            try:
                packet = func.overloadpacket
                name = packet.__name__
                if name in ATTENTION_OPS:
                    flops, how = attention_op_flops(name, *_shapes(args), **_shapes(kwargs),
                                                    torch_formula=packet in flop_registry)
                    records.append(_record(f"aten::{name}", flops, args, kwargs, out, how))
                elif (formula := flop_registry.get(packet)) is not None:
                    flops = int(formula(*args, **kwargs, out_val=out))
                    records.append(_record(f"aten::{name}", flops, args, kwargs, out))
                elif name in GROUPED_MM_OPS:
                    flops, how = grouped_mm_op_flops(name, *_shapes(args))
                    records.append(_record(f"aten::{name}", flops, args, kwargs, out, how))
            except Exception as e:  # noqa: BLE001 - a count we cannot make is left out (noted), never the run
                text = f"FLOPs of {func} not counted: {type(e).__name__}: {e}"
                if text not in notes:
                    notes.append(text)
            return out

        def _custom(self, func, args, kwargs):
            start = len(records)
            with self:  # its implementation's own op calls dispatch through this mode again
                out = torch_door.dispatch.call_below_python_modes(func, args, kwargs)
            inside = records[start:]
            del records[start:]
            if inside:
                ops = ", ".join(dict.fromkeys(r.name for r in inside))
                records.append(dataclasses.replace(
                    _record(f"{func.namespace}::{func.overloadpacket.__name__}", sum(r.flops for r in inside),
                            args, kwargs, out, f"a custom op: the {len(inside)} op calls it makes inside ({ops})"),
                    dtype=next((r.dtype for r in inside if r.dtype != "unknown"), "unknown"), inner=tuple(inside)))
            return out

    with autograd_mode(), _Recorder():
        fn(*inputs)
    return records


def _is_custom(func: Any) -> bool:
    """An op of a library's own namespace (``torch.library.custom_op``), not one of torch's."""
    return getattr(func, "namespace", "aten") not in ("aten", "prim", "prims", "_c10d_functional", "c10d",
                                                       "c10d_functional", "_c10d_functional_autograd", "profiler",
                                                       "inductor", "quantized", "higher_order", "_quantized")


# ---- attention ----

# op -> (position of the query, position of is_causal, backward?): the scaled-dot-product family's schemas
ATTENTION_OPS: dict[str, tuple[int, int, bool]] = {
    "scaled_dot_product_attention": (0, 5, False),
    "_scaled_dot_product_flash_attention": (0, 4, False),
    "_scaled_dot_product_efficient_attention": (0, 6, False),
    "_scaled_dot_product_cudnn_attention": (0, 6, False),
    "_scaled_dot_product_flash_attention_for_cpu": (0, 4, False),
    "_scaled_dot_product_fused_attention_overrideable": (0, 5, False),
    "_scaled_dot_product_flash_attention_backward": (1, 11, True),
    "_scaled_dot_product_efficient_attention_backward": (1, 11, True),
    "_scaled_dot_product_cudnn_attention_backward": (1, 14, True),
    "_scaled_dot_product_flash_attention_for_cpu_backward": (1, 7, True),
    "_scaled_dot_product_fused_attention_overrideable_backward": (1, 13, True),
}


def causal_pairs(lq: int, lk: int) -> int:
    """(query, key) pairs a top-left aligned causal mask keeps (torch's ``is_causal``): query i sees keys 0..i."""
    full = min(lq, lk)
    return full * (full + 1) // 2 + max(0, lq - lk) * lk


def attention_flops(q: Any, k: Any, v: Any, *, is_causal: bool = False, backward: bool = False) -> int:
    """FLOPs of ``softmax(q k^T) v`` for shapes (..., Hq, Lq, D), (..., Hkv, Lk, D), (..., Hkv, Lk, Dv).

    Grouped-query attention (Hkv dividing Hq) counts every query head; see the module's docstring for
    causal attention and the backward.
    """
    q, k, v = tuple(q), tuple(k), tuple(v)
    if len(q) < 3 or len(k) < 3 or len(v) < 3:
        raise ValueError(f"attention shapes need (..., heads?, length, dim): q={q}, k={k}, v={v}")
    lq, d = q[-2], q[-1]
    lk, dk = k[-2], k[-1]
    dv = v[-1]
    if dk != d or v[-2] != lk:
        raise ValueError(f"attention shapes do not fit: q={q}, k={k}, v={v}")
    heads = math.prod(q[:-2])  # batch x query heads
    if len(q) >= 3 and len(k) == len(q) and k[-3] and q[-3] % k[-3]:
        raise ValueError(f"query heads ({q[-3]}) are not a multiple of key/value heads ({k[-3]})")
    pairs = causal_pairs(lq, lk) if is_causal else lq * lk
    per_pair = (3 * d + 2 * dv) if backward else (d + dv)
    return 2 * heads * pairs * per_pair


def attention_op_flops(name: str, *args: Any, torch_formula: bool = True, **kwargs: Any) -> tuple[int, str]:
    """FLOPs of one call of an op of ``ATTENTION_OPS`` (tensor arguments given as shapes), and what was counted.

    ``torch_formula``: whether ``torch.utils.flop_counter`` has a formula for the op. It has none for the CPU
    kernels (``_scaled_dot_product_flash_attention_for_cpu`` and its backward, torch 2.11-2.14), so
    ``FlopCounterMode`` counts them as 0 and a model's FLOPs read that much lower there: the text says so."""
    qi, ci, backward = ATTENTION_OPS[name]
    q, k, v = args[qi:qi + 3]
    causal = kwargs.get("is_causal", args[ci] if len(args) > ci else False)
    causal = bool(causal) if isinstance(causal, (bool, int)) else False
    flops = attention_flops(q, k, v, is_causal=causal, backward=backward)
    parts = []
    if len(q) >= 3 and len(k) >= 3 and k[-3] != q[-3]:
        parts.append(f"grouped-query: {q[-3]} query heads over {k[-3]} key/value heads")
    if causal:
        lq, lk = q[-2], k[-2]
        parts.append(f"causal: the {causal_pairs(lq, lk):,} of {lq * lk:,} query-key pairs the mask keeps")
    if not torch_formula:
        parts.append(f"torch's FlopCounterMode has no formula for aten.{name} and counts it as 0 FLOPs")
    return flops, "; ".join(parts)


def attention_flop_mapping() -> dict[Any, Callable[..., int]]:
    """``FlopCounterMode(custom_mapping=...)`` for the attention ops, with the explorer's formula (same convention)."""
    import torch

    out: dict[Any, Callable[..., int]] = {}
    for name in ATTENTION_OPS:
        packet = getattr(torch.ops.aten, name, None)
        if packet is not None:
            out[packet] = (lambda n: lambda *a, out_shape=None, **kw: attention_op_flops(n, *a, **kw)[0])(name)
    return out


def flop_mapping() -> dict[Any, Callable[..., int]]:
    """``FlopCounterMode(custom_mapping=...)`` that counts as the explorer does: its attention formula, and the
    grouped matmuls torch has no formula for (a torch that has one keeps its own)."""
    import torch
    from torch.utils.flop_counter import flop_registry

    out = attention_flop_mapping()
    for name in GROUPED_MM_OPS:
        packet = getattr(torch.ops.aten, name, None)
        if packet is not None and packet not in flop_registry:
            out[packet] = (lambda n: lambda *a, out_shape=None, **kw: grouped_mm_op_flops(n, *a)[0])(name)
    return out


# ---- grouped matmuls ----

# a mixture of experts' expert layers in one call (transformers' "grouped_mm" experts): each group's rows times its
# own matrix. torch.utils.flop_counter has no formula for them (2.11-2.14), so FlopCounterMode counts them as 0.
GROUPED_MM_OPS = ("_grouped_mm", "_scaled_grouped_mm")


def grouped_mm_flops(a: Any, b: Any) -> int:
    """FLOPs of a grouped matmul of shapes ``a`` and ``b`` (``torch._grouped_mm``'s four layouts, groups split by
    ``offs``): 2D x 3D (tokens T x K, G experts' K x N: each row times its group's matrix) ``2 T K N``; 3D x 3D
    (a batched matmul) ``2 G M K N``; 3D x 2D (groups along N) ``2 M K N``; 2D x 2D (groups along K, one M x N
    output per group) ``2 M K N``. Rows past the last offset (padding) are counted: shapes only."""
    a, b = tuple(a), tuple(b)
    if len(a) == 2 and len(b) == 2:
        return 2 * a[0] * a[1] * b[1]
    if len(a) == 2 and len(b) == 3:
        return 2 * a[0] * a[1] * b[2]
    if len(a) == 3 and len(b) == 2:
        return 2 * a[1] * a[2] * b[1]
    if len(a) == 3 and len(b) == 3:
        return 2 * a[0] * a[1] * a[2] * b[2]
    raise ValueError(f"grouped matmul shapes need 2 or 3 dimensions: a={a}, b={b}")


def grouped_mm_op_flops(name: str, a: Any, b: Any, *_: Any) -> tuple[int, str]:
    """FLOPs of one call of an op of ``GROUPED_MM_OPS`` (its two matrices given as shapes), and what was counted."""
    return grouped_mm_flops(a, b), (f"grouped matmul {tuple(a)} x {tuple(b)}: each group's rows times its own "
                                    f"matrix; torch's FlopCounterMode has no formula for aten.{name} and counts it "
                                    "as 0 FLOPs")


def _shapes(value: Any) -> Any:
    import torch

    return torch_door.fx.tree_map(lambda t: tuple(t.shape) if isinstance(t, torch.Tensor) else t, value)


def _record(name: str, flops: int, args: Any, kwargs: Any, out: Any, formula: str = "") -> OpRecord:
    import torch

    seen: set[int] = set()
    nbytes = 0
    dtype = None
    shapes = []
    for t in torch_door.fx.tree_leaves((args, kwargs, out)):
        if isinstance(t, torch.Tensor) and id(t) not in seen:
            seen.add(id(t))
            nbytes += t.numel() * t.element_size()
            shapes.append(tuple(t.shape))
            if dtype is None and t.is_floating_point():
                dtype = str(t.dtype)
    return OpRecord(name, flops, nbytes, dtype or "unknown", tuple(shapes), formula)


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
