"""A kernel above the measured copy ceiling: explained by cache only with the evidence, else its count is doubted.

The copy ceiling (``peak.peak_bandwidth``) copies buffers far larger than the device's last-level cache,
so it is DRAM's rate. A kernel can beat it when its data comes from cache, which needs two things:
its bytes fit in the cache (a GPU's L2, ``torch.cuda.get_device_properties(d).L2_cache_size``), and its
input was written just before, by the call preceding it in the wrapper (so it is still there; kernels
are timed inside whole-graph calls, in the wrapper's order). Both are checked here, from the wrapper's
calls and buffers. Without them, a figure above the ceiling says the byte count may be wrong (it is an
upper bound of what the loads touch), and why.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import Any, Optional

from ..capturing.inductor_code import buffer_roots, call_buffers, kernel_params, wrapper_calls
from ..capturing.inductor_code.wrapper import call_function_rows
from .model import CeilingCheck, KernelTiming


def check_ceiling(rows: list[KernelTiming], code: Optional[str], kernels: dict[str, Any],
                  peak: Any) -> tuple[list[KernelTiming], list[str]]:
    """The rows, those above 100 % of the copy ceiling with their ``CeilingCheck``; and one note summing them up."""
    over = [k for k in rows if k.peak_pct is not None and k.peak_pct > 100.0]
    if not over:
        return rows, []
    cache = getattr(peak, "cache_bytes", None)
    cache_name = getattr(peak, "cache_name", None) or "cache"
    producers = _producers(code, kernels) if code else {}
    checked = {}
    for k in over:
        checked[k.name] = _check(k, cache, cache_name, producers.get(k.name))
    out = [dataclasses.replace(k, ceiling=checked[k.name]) if k.name in checked else k for k in rows]
    texts = [checked[k.name].text for k in over]
    note = (f"{len(over)} kernel(s) above the measured copy ceiling: " + "; ".join(texts[:3])
            + (f"; and {len(over) - 3} more" if len(over) > 3 else ""))
    return out, [note]


def _check(k: KernelTiming, cache: Optional[int], cache_name: str,
           producer: Optional[tuple[str, tuple[str, ...]]]) -> CeilingCheck:
    fits = k.bytes <= cache if cache and k.bytes else None
    head = f"{k.name} ({k.peak_pct:.0f}%)"
    if fits and producer:
        who, bufs = producer
        text = (f"{head}: its {_mb(k.bytes)} fit in the {_mb(cache)} {cache_name} and its input "
                f"{', '.join(bufs)} was written by {who} just before it: served from cache, while the ceiling "
                "copies buffers larger than the cache")
        return CeilingCheck(True, cache, True, who, bufs, text)
    why = []
    if fits is False:
        why.append(f"its {_mb(k.bytes)} exceed the {_mb(cache)} {cache_name}")
    elif fits is None:
        why.append("the device's cache size is unknown" if not cache else "its bytes are unknown")
    if k.kind != "generated":
        why.append("an extern kernel: its inputs' producer is not checked")
    elif producer is None:
        why.append("no call just before it in the wrapper wrote its inputs")
    text = (f"{head}: not explained by cache ({'; '.join(why)}); its byte count may be wrong "
            f"({k.bytes_source or 'unknown source'})")
    return CeilingCheck(False, cache, fits, producer[0] if producer else None,
                        producer[1] if producer else (), text)


def _producers(code: str, kernels: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """{kernel: (the call just before one of its calls, the inputs that call wrote)}, per wrapper ``call()``."""
    lines = code.splitlines()
    starts = call_function_rows(code)
    segments: dict[int, list[Any]] = {}
    for r, call in wrapper_calls(code, set(kernels)):
        segments.setdefault(bisect.bisect_right(starts, r), []).append(call)
    params = {name: kernel_params(k.source, getattr(k, "language", "triton")) for name, k in kernels.items()}
    bounds = [0, *starts, len(lines)]
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for seg, calls in segments.items():
        roots_of = buffer_roots("\n".join(lines[bounds[seg]:bounds[seg + 1]]))
        for prev, call in zip(calls, calls[1:]):
            if not call.kernel or call.callee in out:
                continue
            reads, _ = call_buffers(call, params.get(call.callee, []))
            _, written = call_buffers(prev, params.get(prev.callee, []))
            made = {roots_of.get(w, w) for w in written}
            shared = tuple(sorted(b for b in reads if roots_of.get(b, b) in made))
            if shared:
                out[call.callee] = (prev.callee, shared)
    return out


def _mb(n: Optional[int]) -> str:
    return f"{n / 1e6:.1f} MB" if n else "?"
