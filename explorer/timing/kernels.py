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

import contextlib
import math
import os
import re
import sys
import tempfile
from collections import defaultdict
from typing import Any, Callable, Iterator, Optional

from ..capturing.triton_asm import jit_params
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
                  autograd_mode: Callable[[], Any], *, kernels: Any = None, wrapper_code: Optional[str] = None,
                  compute_peak: Optional[Callable[[str], Any]] = None,
                  count_on: Optional[Callable[..., Any]] = None) -> tuple[tuple[KernelTiming, ...], Optional[str]]:
    """Profiles ``compiled_fn(*g.inputs)``; returns the kernel rows, or () and why there are none.

    ``kernels`` / ``wrapper_code``: the generated code of the build being profiled
    (a separate profiling build on CPU); the capture's (``comp``) otherwise.
    ``compute_peak(dtype)`` gives the measured matmul peak for compute-bound rows.
    FLOPs are counted on one run of ``count_on`` (default ``compiled_fn``).
    """
    try:
        rows, total = _profile(compiled_fn, g.inputs, g.device, autograd_mode)
    except Exception as e:  # noqa: BLE001 - a profile is extra; its failure is a note
        return (), f"profiling failed: {type(e).__name__}: {e}"
    count_notes: list[str] = []
    try:
        from .roofline import record_ops

        records = record_ops(count_on or compiled_fn, g.inputs, autograd_mode, count_notes)
    except Exception as e:  # noqa: BLE001 - no FLOP counts: the rows keep their times, the note says why
        records = []
        count_notes.append(f"FLOPs not counted: {type(e).__name__}: {e}")
    _attach_flops(rows, records)
    known = {k.name: k for k in (kernels if kernels is not None else getattr(comp, "kernels", ()))}
    code = wrapper_code if wrapper_code is not None else _wrapper_code(comp)
    out = [_kernel_timing(name, row, total, known.get(name), code, g.device, peak, compute_peak)
           for name, row in rows.items()]
    out.sort(key=lambda k: -k.time_s)
    if not any(k.kind == "generated" for k in out):
        langs = {getattr(k, "language", "") for k in known.values()}
        if langs and langs <= {"halide"}:
            return tuple(out), ("no per-kernel profile for Halide kernels: Inductor's kernel profiling covers its "
                                "C++ kernels and the profiler names Triton kernels, while Halide's code runs "
                                "inside one call; the graph's time is the Halide code's")
        note = ("no generated kernel in the profile: on CPU, compile with "
                "GraphRecorder(kernel_profile=True) so C++ kernels appear as profiler rows"
                if g.device == "cpu" else "no generated kernel in the profile")
        return tuple(out), "; ".join([note, *count_notes])
    return tuple(out), "; ".join(count_notes + _above_ceiling(out)) or None


def _above_ceiling(rows: list[KernelTiming]) -> list[str]:
    """Why a kernel can beat the copy ceiling: its data came from cache, not DRAM; said, not clipped.

    The ceiling is a copy of buffers larger than the last-level cache, while each kernel is timed
    inside whole-graph calls, right after the kernel that wrote its inputs (on the H200, a 16 MB
    ReLU read and written in place measured 116%).
    """
    over = [k for k in rows if k.peak_pct is not None and k.peak_pct > 100.0]
    if not over:
        return []
    names = ", ".join(f"{k.name} ({k.peak_pct:.0f}%)" for k in over[:3]) + (" ..." if len(over) > 3 else "")
    return [f"{len(over)} kernel(s) above the measured copy ceiling: {names}; their data was served partly from "
            "cache (written just before by the kernel that produced it), while the ceiling copies buffers larger "
            "than the cache"]


class _Row:
    """One profiler row, per graph call: time, calls; the FLOP-counted op calls behind it."""

    def __init__(self) -> None:
        self.time_s = 0.0
        self.calls = 0.0
        self.flops = 0
        self.op_bytes = 0
        self.dtype: Optional[str] = None
        self.counted = 0  # launches of this row whose op was FLOP-counted
        self.grid: Optional[tuple[int, ...]] = None
        self.block: Optional[tuple[int, ...]] = None
        self.ops: list[str] = []  # names of the launching op, one per launch (GPU) or call (CPU)
        self.launches: list[tuple[str, int, float]] = []  # (op name, op call id, microseconds)


@contextlib.contextmanager
def _native_profiler_lines_dropped() -> Iterator[None]:
    """Kineto writes ``USDT: ... profiler_start`` / ``profiler_stop`` straight to file descriptor 2 at each
    profile: in a notebook they appeared under the cell. Descriptor 2 goes to a temporary file for the
    profile; anything else written there meanwhile is passed on to stderr afterwards."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no descriptor 2 to redirect: nothing to drop
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            rest = [line for line in tmp.read().decode(errors="replace").splitlines(True)
                    if not line.startswith("USDT:")]
            if rest:
                sys.stderr.write("".join(rest))


def _profile(fn: Callable[..., Any], inputs: list[Any], device: str,
             autograd_mode: Callable[[], Any]) -> tuple[dict[str, _Row], float]:
    """{row name: _Row (per graph call)}, and the graph's total time per call."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.startswith("cuda")
    with autograd_mode():
        fn(*inputs)  # warm
        if cuda:
            torch.cuda.synchronize()
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with _native_profiler_lines_dropped(), profile(activities=acts) as prof:
            for _ in range(PROFILE_CALLS):
                fn(*inputs)
            if cuda:
                torch.cuda.synchronize()
    rows: dict[str, _Row] = defaultdict(_Row)
    total = 0.0
    events = list(prof.events())
    if cuda:
        try:
            launcher = _launching_ops(events)
        except Exception:  # noqa: BLE001 - without it, extern rows get no FLOPs
            launcher = {}
        for e in events:
            if not _is_device_row(e):
                continue
            us = _event_device_us(e)
            if not us:
                continue
            total += us
            row = rows[e.name]
            row.time_s += us / 1e6 / PROFILE_CALLS
            row.calls += 1 / PROFILE_CALLS
            op, call = launcher.get(_kernel_key(e), ("", 0))
            row.ops.append(op)
            row.launches.append((op, call, us))
        _launch_shapes(prof, rows)
    else:
        for e in events:
            if _is_device_row(e) or getattr(e, "is_async", False):
                continue
            if getattr(e, "cpu_parent", None) is None:
                total += e.cpu_time_total  # the outermost rows span the graph's calls
            name = _GRAPH_PREFIX.sub("", e.name)
            if name != e.name:  # a generated kernel: graph_<n>_cpp_fused_...
                us = e.self_cpu_time_total
            elif "::" in e.name and not e.name.startswith(_WRAPPER_ROWS) and not _inside_op(e):
                us = e.cpu_time_total  # an extern call, with the ops it calls inside (aten::convolution -> mkldnn)
            else:
                continue
            row = rows[name]
            row.time_s += us / 1e6 / PROFILE_CALLS
            row.calls += 1 / PROFILE_CALLS
            row.ops.append(e.name)
            row.launches.append((e.name, float(e.time_range.start), us))
    return dict(rows), total / 1e6 / PROFILE_CALLS


def _inside_op(e: Any) -> bool:
    parent = getattr(e, "cpu_parent", None)
    while parent is not None:
        if "::" in parent.name and not parent.name.startswith(_WRAPPER_ROWS):
            return True
        parent = getattr(parent, "cpu_parent", None)
    return False


def _kernel_key(e: Any) -> tuple[str, float]:
    return (e.name, round(float(e.time_range.start), 1))


def _launching_ops(events: list[Any]) -> dict[tuple[str, float], tuple[str, int]]:
    """GPU: each device kernel launch -> (the outermost ATen op that launched it, that op call's id)."""
    by_launch: dict[tuple[str, float], tuple[str, int]] = {}
    for e in events:
        if _is_device_row(e) or "::" not in e.name or _inside_op(e):
            continue
        for sub in _subtree(e):
            for k in getattr(sub, "kernels", ()) or ():
                by_launch.setdefault((k.name, round(float(k.duration), 1)), (e.name, float(e.time_range.start)))  # type: ignore[index]
    out: dict[tuple[str, float], tuple[str, int]] = {}
    for e in events:
        if _is_device_row(e):
            dur = round(float(e.time_range.end - e.time_range.start), 1)
            op = by_launch.get((e.name, dur))
            if op:
                out[_kernel_key(e)] = op
    return out


def _subtree(e: Any) -> list[Any]:
    out, todo = [], [e]
    while todo:
        cur = todo.pop()
        out.append(cur)
        todo.extend(getattr(cur, "cpu_children", ()) or ())
    return out


def _attach_flops(rows: dict[str, _Row], records: list[Any]) -> None:
    """The i-th call of each counted op in the profile gets the i-th recorded call of that op; its
    FLOPs go to the longest kernel that call launched (not to a memset beside it)."""
    if not records:
        return
    by_op: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        by_op[r.name].append(r)
    calls: dict[tuple[str, int], list[tuple[float, _Row]]] = defaultdict(list)
    for row in rows.values():
        for op, call, us in row.launches:
            if op in by_op:
                calls[(op, call)].append((us, row))
    seen: dict[str, int] = defaultdict(int)
    for (op, _), launched in sorted(calls.items(), key=lambda kv: kv[0][1]):
        recs = by_op[op]
        r = recs[seen[op] % len(recs)]
        seen[op] += 1
        _, row = max(launched, key=lambda t: t[0])
        row.flops += r.flops
        row.op_bytes += r.bytes
        row.dtype = row.dtype or r.dtype
        row.counted += 1
    for row in rows.values():  # per graph call
        row.flops = round(row.flops / PROFILE_CALLS)
        row.op_bytes = round(row.op_bytes / PROFILE_CALLS)


def _launch_shapes(prof: Any, rows: dict[str, _Row]) -> None:
    """GPU: each kernel's grid and block, as the profiler's trace records the launch."""
    import json
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as fh:
            trace = json.load(fh)
    except Exception:  # noqa: BLE001 - launch shapes are extra
        return
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
    for ev in trace.get("traceEvents", ()):
        if ev.get("cat") != "kernel":
            continue
        row = rows.get(ev.get("name", ""))
        args = ev.get("args") or {}
        if row is not None and row.grid is None and "grid" in args:
            row.grid = tuple(int(v) for v in args["grid"])
            row.block = tuple(int(v) for v in args.get("block", ())) or None


def _event_device_us(e: Any) -> float:
    for attr in ("self_device_time_total", "self_cuda_time_total", "device_time_total", "cuda_time_total"):
        if hasattr(e, attr):
            v = float(getattr(e, attr))
            if v:
                return v
    return float(e.time_range.end - e.time_range.start)


def _device_self_us(e: Any) -> float:
    for attr in ("self_device_time_total", "self_cuda_time_total"):
        if hasattr(e, attr):
            return float(getattr(e, attr))
    return 0.0


def _is_device_row(e: Any) -> bool:
    dev = getattr(e, "device_type", None)
    return dev is not None and "CPU" not in str(dev)


def _kernel_timing(name: str, row: _Row, total: float, kernel: Any, code: Optional[str],
                   device: str, peak: Any, compute_peak: Optional[Callable[[str], Any]]) -> KernelTiming:
    from .roofline import tflops

    t = row.time_s
    generated = kernel is not None or name.startswith(("cpp_", "triton_", "halide_"))
    if generated:
        nbytes, source = kernel_bytes(name, kernel, code)
    elif row.counted:
        nbytes, source = row.op_bytes or None, "the op's tensors (inputs read, outputs written once)"
    else:
        nbytes, source = None, "extern call: not counted"
    bw = nbytes / t / 1e9 if nbytes and t > 0 else None
    pct = 100.0 * bw / peak.gbs if bw is not None and peak is not None and peak.gbs > 0 else None
    flops = row.flops or None
    if flops:
        ops = ", ".join(sorted({o for o in row.ops if o}))
        flops_source = (f"{row.counted // PROFILE_CALLS or 1} call(s) of {ops} per graph call, FLOPs from the "
                        "op's shapes (torch.utils.flop_counter formulas)")
    elif generated:
        flops_source = "generated pointwise/reduction code: not counted (memory-bound by nature)" \
            if not name.startswith("triton_tem") else "template kernel: FLOPs not counted"
    else:
        flops_source = "no FLOP formula for this op"
    achieved = tflops(flops, t)
    pk = None
    if flops and row.dtype and compute_peak is not None:
        with contextlib.suppress(Exception):
            pk = compute_peak(row.dtype)
    peak_tf = pk.tflops if pk is not None else None
    kind = "generated" if generated else "extern"
    return KernelTiming(name=name, kind=kind, time_s=t,
                        share_pct=min(100.0, 100.0 * t / total) if total > 0 else 0.0, calls=max(1, round(row.calls)),
                        bytes=nbytes, bytes_source=source, bandwidth_gbs=bw, peak_pct=pct,
                        flops=flops, flops_source=flops_source, dtype=row.dtype if flops else None,
                        tflops=achieved, peak_tflops=peak_tf,
                        peak_flops_pct=100.0 * achieved / peak_tf if achieved and peak_tf else None,
                        bound=_bound(name, generated, flops, nbytes, peak_tf, peak),
                        grid=row.grid, block=row.block)


def _bound(name: str, generated: bool, flops: Optional[int], nbytes: Optional[int], peak_tf: Optional[float],
           peak: Any) -> Optional[str]:
    from .roofline import bound

    if flops:
        return bound(flops, nbytes, peak_tf, peak.gbs if peak is not None else None)
    if generated:  # pointwise and reduction code: a few operations per byte; templates (matmuls) excepted
        return None if "_tem_" in name or name.startswith("triton_tem") else "memory"
    return None


# ---- bytes ----

def kernel_bytes(name: str, kernel: Any, wrapper_code: Optional[str]) -> tuple[Optional[int], str]:
    """(bytes read + written per call, how it was found); bytes is None with the reason when unknown."""
    if kernel is None:
        return None, "kernel source not captured (time the graph inside explorer.capture())"
    m = _NUM_GB.search(kernel.source)
    if m:
        return round(float(m.group(1)) * 1e9), "inductor estimate (kernel_num_gb)"
    if kernel.language == "triton":
        est = triton_bytes_estimate(name, kernel.source, wrapper_code) if wrapper_code else None
        if est is None:
            return None, "no kernel_num_gb in the source and buffer sizes not readable from the wrapper"
        return est, "estimate: each buffer argument read or written once in full"
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


_TRITON_ITEMSIZE = {"fp32": 4, "fp64": 8, "bf16": 2, "fp16": 2, "i64": 8, "u64": 8, "i32": 4, "u32": 4,
                    "i16": 2, "u16": 2, "i8": 1, "u8": 1, "i1": 1, "fp8e4nv": 1, "fp8e5": 1}


def triton_bytes_estimate(name: str, kernel_source: str, wrapper_code: str) -> Optional[int]:
    """Bytes a Triton kernel moves per launch, from its pointer arguments (``triton_meta``'s signature and
    the wrapper's ``<name>.run(...)`` call).

    Each pointer counts its buffer once per direction (read, written; an ``in_out`` pointer both), but never
    more than the kernel touches: a pointer loaded once per element of an ``xnumel`` (x ``r0_numel``) loop
    reads at most that many elements, so a kernel reading a third of a buffer (q of a packed qkv) is not
    charged for all of it.
    """
    sig = triton_signature(kernel_source)
    params = triton_params(kernel_source)
    call = re.search(rf"^\s*{re.escape(name)}\.run\((.*)\)\s*$", wrapper_code, re.M)
    if not sig or not params or call is None:
        return None
    args = [a for a in _split_args(call.group(1)) if "=" not in a.split("(")[0]]
    sizes = _buffer_sizes(wrapper_code)
    elements = _elements_per_launch(kernel_source, dict(zip(params, args)))
    total = 0
    for pname, arg in zip(params, args):
        ty = sig.get(pname, "")
        if not ty.startswith("*"):
            continue
        numel = _arg_numel(arg, sizes)
        itemsize = _TRITON_ITEMSIZE.get(ty[1:])
        if numel is None or itemsize is None:
            return None
        accesses = [len(re.findall(rf"\btl\.{op}\(\s*{re.escape(pname)}\b", kernel_source))
                    for op in ("load", "store")]
        if elements is None or not any(accesses):  # unknown extent or access form: the buffer, once per direction
            total += numel * itemsize * (2 if pname.startswith("in_out") else 1)
        else:
            total += sum(min(numel, n * elements) for n in accesses) * itemsize
    return total or None


def _elements_per_launch(source: str, call_args: dict[str, str]) -> Optional[int]:
    """The elements one launch iterates over (xnumel x r0_numel ...), from the kernel body or its call."""
    numels = {}
    for pname in re.findall(r"\b([xyz]numel|r\d?_?numel)\b", source):
        if pname in numels:
            continue
        m = re.search(rf"^\s*{pname}\s*=\s*(\d+)\s*$", source, re.M)
        value = m.group(1) if m else call_args.get(pname, "")
        if not value.isdigit():
            return None
        numels[pname] = int(value)
    return math.prod(numels.values()) if numels else None


def triton_signature(source: str) -> dict[str, str]:
    """{param: Triton type} from the kernel's ``triton_meta={'signature': {...}}``."""
    import ast

    m = re.search(r"'signature':\s*(\{[^}]*\})", source)
    if not m:
        return {}
    try:
        value = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def triton_params(source: str) -> list[str]:
    """The parameter names of the ``@triton.jit`` function, constexprs included, in order."""
    return [name for name, _constexpr in jit_params(source)]


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
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(?:empty_strided\w*|torch\.empty_strided)\((\([^)]*\))", code, re.M):
        sizes[m.group(1)] = _numel(m.group(2))
    # a view of another buffer, given its own size: buf2 = reinterpret_tensor(buf0, (16, 8, 256, 64), ...)
    for m in re.finditer(r"^\s*(\w+)\s*=\s*reinterpret_tensor\(\w+,\s*(\([^)]*\))", code, re.M):
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
