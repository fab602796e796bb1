"""Per-kernel profile of one compiled graph: time, share, bytes, bandwidth.

Time comes from ``torch.profiler``: on CPU, Inductor's
``cpp.enable_kernel_profile`` makes each C++ kernel a row
(``graph_0_cpp_fused_..._1``); on GPU each Triton kernel is a CUDA kernel row
under its own name. Bytes come from the generated code the capture kept:
Triton kernels carry Inductor's own ``kernel_num_gb`` when ``benchmark_kernel``
was on; for C++ kernels the explorer estimates them from the kernel's buffer
arguments in the wrapper (each read or written once in full).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Callable, Optional

from .model import KernelTiming

PROFILE_CALLS = 10
_GRAPH_PREFIX = re.compile(r"^graph_\d+_")
_WRAPPER_ROWS = ("##", "AOTDispatcher", "Torch-Compiled Region", "CompiledFunction", "ProfilerStep",
                 "cudaDeviceSynchronize", "TorchDynamo")
_NUM_GB = re.compile(r"['\"]kernel_num_gb['\"]\s*:\s*([0-9.eE+-]+)")
_ITEMSIZE = {"float": 4, "double": 8, "bfloat16": 2, "half": 2, "float16": 2, "int64_t": 8, "uint64_t": 8,
             "int32_t": 4, "uint32_t": 4, "int16_t": 2, "uint16_t": 2, "int8_t": 1, "uint8_t": 1,
             "bool": 1, "long": 8, "int": 4, "float8_e4m3fn": 1, "float8_e5m2": 1}


def profile_graph(g: Any, compiled_fn: Callable[..., Any], comp: Any, peak: Any,
                  autograd_mode: Callable[[], Any]) -> tuple[tuple[KernelTiming, ...], Optional[str]]:
    """Profiles ``compiled_fn(*g.inputs)``; returns the kernel rows, or () and why there are none."""
    try:
        rows, total = _profile(compiled_fn, g.inputs, g.device, autograd_mode)
    except Exception as e:  # noqa: BLE001 - a profile is extra; its failure is a note
        return (), f"profiling failed: {type(e).__name__}: {e}"
    known = {k.name: k for k in getattr(comp, "kernels", ())}
    code = _wrapper_code(comp)
    out = [_kernel_timing(name, t, calls, total, known.get(name), code, g.device, peak)
           for name, (t, calls) in rows.items()]
    out.sort(key=lambda k: -k.time_s)
    if not any(k.kind == "generated" for k in out):
        note = ("no generated kernel in the profile: on CPU, compile with "
                "GraphRecorder(kernel_profile=True) so C++ kernels appear as profiler rows"
                if g.device == "cpu" else "no generated kernel in the profile")
        return tuple(out), note
    return tuple(out), None


def _profile(fn: Callable[..., Any], inputs: list[Any], device: str,
             autograd_mode: Callable[[], Any]) -> tuple[dict[str, tuple[float, float]], float]:
    """{row name: (self seconds per graph call, calls per graph call)}, and the graph's total."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.startswith("cuda")
    with autograd_mode():
        fn(*inputs)  # warm
        if cuda:
            torch.cuda.synchronize()
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with profile(activities=acts) as prof:
            for _ in range(PROFILE_CALLS):
                fn(*inputs)
            if cuda:
                torch.cuda.synchronize()
    rows: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    total = 0.0
    for e in prof.key_averages():
        name = _GRAPH_PREFIX.sub("", e.key)
        if cuda:
            self_us = _device_self_us(e)
            if not self_us or not _is_device_row(e):
                continue
            total += self_us
        else:
            total = max(total, e.cpu_time_total)  # the outermost wrapper row spans the graph
            self_us = e.self_cpu_time_total
            # generated kernels carry the graph_<n>_ prefix; extern calls are ops (aten::mm, mkldnn::...)
            if e.key.startswith(_WRAPPER_ROWS) or not (name != e.key or "::" in e.key):
                continue
        rows[name][0] += self_us / 1e6 / PROFILE_CALLS
        rows[name][1] += e.count / PROFILE_CALLS
    return {k: (v[0], v[1]) for k, v in rows.items()}, total / 1e6 / PROFILE_CALLS


def _device_self_us(e: Any) -> float:
    for attr in ("self_device_time_total", "self_cuda_time_total"):
        if hasattr(e, attr):
            return float(getattr(e, attr))
    return 0.0


def _is_device_row(e: Any) -> bool:
    dev = getattr(e, "device_type", None)
    return dev is not None and "CPU" not in str(dev)


def _kernel_timing(name: str, t: float, calls: float, total: float, kernel: Any, code: Optional[str],
                   device: str, peak: Any) -> KernelTiming:
    generated = kernel is not None or name.startswith(("cpp_", "triton_", "halide_"))
    nbytes, source = kernel_bytes(name, kernel, code) if generated else (None, "extern call: not counted")
    bw = nbytes / t / 1e9 if nbytes and t > 0 else None
    pct = 100.0 * bw / peak.gbs if bw is not None and peak is not None and peak.gbs > 0 else None
    return KernelTiming(name=name, kind="generated" if generated else "extern", time_s=t,
                        share_pct=100.0 * t / total if total > 0 else 0.0, calls=max(1, round(calls)),
                        bytes=nbytes, bytes_source=source, bandwidth_gbs=bw, peak_pct=pct)


# ---- bytes ----

def kernel_bytes(name: str, kernel: Any, wrapper_code: Optional[str]) -> tuple[Optional[int], str]:
    """(bytes read + written per call, how it was found); bytes is None with the reason when unknown."""
    if kernel is None:
        return None, "kernel source not captured (time the graph inside explorer.capture())"
    m = _NUM_GB.search(kernel.source)
    if m:
        return round(float(m.group(1)) * 1e9), "inductor estimate (kernel_num_gb)"
    if kernel.language == "triton":
        return None, "no kernel_num_gb in the source: compile with GraphRecorder(kernel_profile=True)"
    if kernel.language != "cpp":
        return None, f"no byte count for {kernel.language} kernels"
    if not wrapper_code:
        return None, "the wrapper code was not captured"
    est = cpp_bytes_estimate(name, kernel.source, wrapper_code)
    if est is None:
        return None, "buffer sizes not readable from the wrapper (dynamic shapes or an unknown form)"
    return est, "estimate: each buffer argument read or written once in full"


def cpp_bytes_estimate(name: str, kernel_source: str, wrapper_code: str) -> Optional[int]:
    """Sum of numel x itemsize over a C++ kernel's pointer arguments; in_out buffers count twice."""
    params = _cpp_params(kernel_source)
    call = re.search(rf"^\s*{re.escape(name)}\((.*)\)\s*$", wrapper_code, re.M)
    if not params or call is None:
        return None
    args = _split_args(call.group(1))
    if len(args) != len(params):
        return None
    sizes = _buffer_sizes(wrapper_code)
    total = 0
    for arg, (ctype, pname) in zip(args, params):
        numel = _arg_numel(arg, sizes)
        itemsize = _ITEMSIZE.get(ctype.split("::")[-1].lower())
        if numel is None or itemsize is None:
            return None
        total += numel * itemsize * (2 if pname.startswith("in_out") else 1)
    return total


def _cpp_params(source: str) -> list[tuple[str, str]]:
    m = re.search(r"void\s+kernel\s*\(([^)]*)\)", source)
    if not m:
        return []
    out = []
    for p in m.group(1).split(","):
        pm = re.match(r"\s*(?:const\s+)?([\w:]+)\s*\*\s*(\w+)", p)
        if pm:
            out.append((pm.group(1), pm.group(2)))
        elif p.strip():
            return []  # a scalar argument (e.g. a size): the estimate would be wrong
    return out


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _buffer_sizes(code: str) -> dict[str, Optional[int]]:
    sizes: dict[str, Optional[int]] = {}
    for m in re.finditer(r"assert_size_stride\((\w+),\s*(\([^)]*\))", code):
        sizes[m.group(1)] = _numel(m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s*=\s*empty_strided\w*\((\([^)]*\))", code, re.M):
        sizes[m.group(1)] = _numel(m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(\w+);\s*del\s+\2", code, re.M):  # buf3 = buf1; del buf1  # reuse
        sizes.setdefault(m.group(1), sizes.get(m.group(2)))
    return sizes


def _arg_numel(arg: str, sizes: dict[str, Optional[int]]) -> Optional[int]:
    m = re.match(r"reinterpret_tensor\(\w+,\s*(\([^)]*\))", arg)
    if m:
        return _numel(m.group(1))
    return sizes.get(arg)


def _numel(size_tuple: str) -> Optional[int]:
    dims = [d.strip() for d in size_tuple.strip("()").split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        return None
    return math.prod(int(d) for d in dims)


def _wrapper_code(comp: Any) -> Optional[str]:
    codes = getattr(comp, "output_code", None) or ()
    return "\n".join(c.code for c in codes) or None
