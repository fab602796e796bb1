"""Per-kernel profile of one compiled graph: time, share, bytes, bandwidth, FLOPs and the ops behind them.

Time comes from ``torch.profiler``: on CPU, Inductor's ``cpp.enable_kernel_profile`` makes each C++
kernel a row (``graph_0_cpp_fused_..._1``) and each extern call is its ATen op; on GPU each device
kernel is a row under its own name, read from the profiler's chrome trace. Bytes come from the
generated code the capture kept (``traffic``).

FLOPs come from the op calls the graph makes (``roofline.record_ops``: one run under a dispatch mode,
torch's formulas on exact shapes) and are tied to kernels exactly: on GPU every kernel launch carries
the correlation id of the CPU op that was running when it was launched (the trace's ``External id``),
so each launch is traced up to the op call that made it, the outermost one with a FLOP count
(``aten::_scaled_dot_product_cudnn_attention`` above ``aten::_cudnn_attention_forward``). The i-th
call of an op in the profile is the i-th recorded call of it (the wrapper calls its ops in the same
order every time); its FLOPs go to the longest kernel it launched (the GEMM, not a memset or padding
kernel beside it), and every kernel it launched is tied to it (``KernelTiming.launched_by``). So the
kernels' FLOPs add up to the ops' (``GraphTiming.flops``), and what does not add up is said.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional

from ..capturing.inductor_code.kernels import is_generated, is_template
from ..capturing.inductor_code.wrapper import profiler_name
from .model import IndirectAccess, KernelTiming, OpLaunch
from .traffic import kernel_traffic

PROFILE_CALLS = 10
_GRAPH_PREFIX = "graph_"
_WRAPPER_ROWS = ("##", "AOTDispatcher", "Torch-Compiled Region", "CompiledFunction", "ProfilerStep",
                 "cudaDeviceSynchronize", "TorchDynamo", "Pregraph bytecode")
_DEVICE_CATEGORIES = ("kernel", "gpu_memset", "gpu_memcpy")


@dataclass
class KernelProfile:
    """What ``profile_graph`` found: the rows, what they lack, and the FLOPs of the graph's op calls."""

    rows: tuple[KernelTiming, ...]
    note: Optional[str]
    flops: Optional[int] = None  # per graph call, of every counted op call (None: nothing counted)
    estimate_s: Optional[float] = None  # Inductor's estimate of all the graph's ops (None: none captured)
    wall_s: Optional[float] = None  # per graph call, host clock, while profiled (the rows' own run)


def profile_graph(g: Any, compiled_fn: Callable[..., Any], comp: Any, peak: Any,
                  autograd_mode: Callable[[], Any], *, kernels: Any = None, wrapper_code: Optional[str] = None,
                  compute_peak: Optional[Callable[[str], Any]] = None,
                  count_on: Optional[Callable[..., Any]] = None) -> KernelProfile:
    """Profiles ``compiled_fn(*g.inputs)``: the kernel rows, or none and why.

    ``kernels`` / ``wrapper_code``: the generated code of the build being profiled
    (a separate profiling build on CPU); the capture's (``comp``) otherwise.
    ``compute_peak(dtype)`` gives the measured matmul peak for compute-bound rows.
    FLOPs are counted on one run of ``count_on`` (default ``compiled_fn``).
    """
    try:
        prof, wall = _run_profiler(compiled_fn, g.inputs, g.device, autograd_mode)
        rows, calls, total = _device_rows(prof) if g.device.startswith("cuda") else _cpu_rows(prof)
    except Exception as e:  # noqa: BLE001 - a profile is extra; its failure is a note
        return KernelProfile((), f"profiling failed: {type(e).__name__}: {e}")
    count_notes: list[str] = []
    try:
        from .roofline import record_ops

        records = record_ops(count_on or compiled_fn, g.inputs, autograd_mode, count_notes)
    except Exception as e:  # noqa: BLE001 - no FLOP counts: the rows keep their times, the note says why
        records = []
        count_notes.append(f"FLOPs not counted: {type(e).__name__}: {e}")
    count_notes += attach_flops(rows, calls, records, PROFILE_CALLS)
    known = {k.name: k for k in (kernels if kernels is not None else getattr(comp, "kernels", ()))}
    code = wrapper_code if wrapper_code is not None else _wrapper_code(comp)
    estimated = Estimates(comp, rows)
    out = [_kernel_timing(name, row, total, known.get(name), code, peak, compute_peak, estimated.of(name, row))
           for name, row in rows.items()]
    out.sort(key=lambda k: -k.time_s)
    flops = sum(r.flops for r in records) or None
    if not any(k.kind == "generated" for k in out):
        langs = {getattr(k, "language", "") for k in known.values()}
        if langs and langs <= {"halide"}:
            return KernelProfile(tuple(out), "no per-kernel profile for Halide kernels: Inductor's kernel profiling "
                                 "covers its C++ kernels and the profiler names Triton kernels, while Halide's "
                                 "code runs inside one call; the graph's time is the Halide code's", flops,
                                 estimated.total, wall)
        note = ("no generated kernel in the profile: on CPU, compile with "
                "GraphRecorder(kernel_profile=True) so C++ kernels appear as profiler rows"
                if g.device == "cpu" else "no generated kernel in the profile")
        return KernelProfile(tuple(out), "; ".join([note, *count_notes]), flops, estimated.total, wall)
    from .ceiling import check_ceiling

    out, ceiling_notes = check_ceiling(out, code, known, peak)
    return KernelProfile(tuple(out), "; ".join(count_notes + ceiling_notes) or None, flops, estimated.total, wall)


# ---- the profile ----

class Row:
    """One profiler row, per graph call: time, calls; the FLOP-counted op calls behind it."""

    def __init__(self) -> None:
        self.time_s = 0.0
        self.calls = 0.0
        self.flops = 0
        self.op_bytes = 0
        self.dtype: Optional[str] = None
        self.counted = 0.0  # op calls whose FLOPs this row got (per graph call, once attached)
        self.formulas: list[str] = []  # what was counted, when not torch's formula as is (attention)
        self.grid: Optional[tuple[int, ...]] = None
        self.block: Optional[tuple[int, ...]] = None
        self.by_op: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # op -> [launches, flops, 0|1]


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


@dataclass
class OpCall:
    """One call of an op the dispatch mode may have counted, and the kernel launches it made (or its row, on CPU)."""

    name: str
    start: float
    launches: list[tuple[float, Row]] = field(default_factory=list)  # (device or CPU microseconds, row)


def _run_profiler(fn: Callable[..., Any], inputs: list[Any], device: str, autograd_mode: Callable[[], Any]
                  ) -> tuple[Any, float]:
    """The profile of ``PROFILE_CALLS`` calls, and their host-clock time per call (profiler's own cost included)."""
    import time

    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.startswith("cuda")
    with autograd_mode():
        fn(*inputs)  # warm
        if cuda:
            torch.cuda.synchronize()
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with _native_profiler_lines_dropped(), profile(activities=acts) as prof:
            t0 = time.perf_counter()
            for _ in range(PROFILE_CALLS):
                fn(*inputs)
            if cuda:
                torch.cuda.synchronize()
            wall = (time.perf_counter() - t0) / PROFILE_CALLS
    return prof, wall


def _device_rows(prof: Any) -> tuple[dict[str, Row], list[OpCall], float]:
    """GPU: rows from the profiler's chrome trace (kernels, their launch shapes and launching ops)."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as fh:
            trace = json.load(fh)
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
    return rows_from_trace(trace, PROFILE_CALLS)


@dataclass
class TraceOp:
    """A CPU op (or record_function span) of the trace, with the op it ran inside."""

    id: int
    name: str
    start: float
    end: float
    parent: Optional[int] = None


def trace_ops(events: Iterable[dict]) -> dict[int, TraceOp]:
    """{correlation id: op} for the trace's CPU ops, each with its parent: the innermost op around it, same thread."""
    by_thread: dict[tuple, list[TraceOp]] = defaultdict(list)
    for ev in events:
        args = ev.get("args") or {}
        if ev.get("cat") not in ("cpu_op", "user_annotation") or "External id" not in args:
            continue
        start = float(ev.get("ts", 0.0))
        op = TraceOp(int(args["External id"]), str(ev.get("name", "")), start, start + float(ev.get("dur", 0.0)))
        by_thread[(ev.get("pid"), ev.get("tid"))].append(op)
    out: dict[int, TraceOp] = {}
    for ops in by_thread.values():
        ops.sort(key=lambda o: (o.start, -o.end))
        stack: list[TraceOp] = []
        for op in ops:
            while stack and stack[-1].end < op.end - 1e-3:  # ended before this one ends: not around it
                stack.pop()
            op.parent = stack[-1].id if stack else None
            stack.append(op)
            out.setdefault(op.id, op)
    return out


def rows_from_trace(trace: dict, profile_calls: int) -> tuple[dict[str, Row], list[OpCall], float]:
    """{kernel name: Row}, the op calls that launched them, and the device time per graph call (us)."""
    events = trace.get("traceEvents", ())
    ops = trace_ops(events)
    rows: dict[str, Row] = defaultdict(Row)
    calls: dict[int, OpCall] = {}
    total = 0.0
    for ev in events:
        if ev.get("cat") not in _DEVICE_CATEGORIES:
            continue
        us = float(ev.get("dur", 0.0))
        if us <= 0:
            continue
        total += us
        args = ev.get("args") or {}
        row = rows[str(ev.get("name", ""))]
        row.time_s += us / 1e6 / profile_calls
        row.calls += 1 / profile_calls
        if row.grid is None and "grid" in args:
            row.grid = tuple(int(v) for v in args["grid"])
            row.block = tuple(int(v) for v in args.get("block", ())) or None
        launcher = ops.get(int(args.get("External id", -1)))
        row.by_op[_display_op(launcher, ops)][0] += 1 / profile_calls
        top = _counted_call(launcher, ops)
        if top is not None:
            calls.setdefault(top.id, OpCall(top.name, top.start)).launches.append((us, row))
    # every op call that could be counted, launching or not, keeps the call order the records follow
    for op in ops.values():
        if op.id not in calls and _is_aten(op.name) and _counted_call(op, ops) is op:
            calls[op.id] = OpCall(op.name, op.start)
    return dict(rows), list(calls.values()), total / 1e6 / profile_calls


def _is_aten(name: str) -> bool:
    return "::" in name and not name.startswith(_WRAPPER_ROWS)


def _counted_call(op: Optional[TraceOp], ops: dict[int, TraceOp]) -> Optional[TraceOp]:
    """The outermost ATen op at or above ``op``: the call the compiled wrapper made (what the dispatch mode saw)."""
    found = None
    seen = 0
    while op is not None and seen < 256:
        if _is_aten(op.name):
            found = op
        op = ops.get(op.parent) if op.parent is not None else None
        seen += 1
    return found


def _display_op(op: Optional[TraceOp], ops: dict[int, TraceOp]) -> str:
    top = _counted_call(op, ops)
    if top is not None:
        return top.name
    return op.name if op is not None else "(no launching op in the trace)"


def _cpu_rows(prof: Any) -> tuple[dict[str, Row], list[OpCall], float]:
    """CPU: each generated kernel (Inductor's kernel profiling) and each outermost extern ATen op is a row."""
    rows: dict[str, Row] = defaultdict(Row)
    calls: list[OpCall] = []
    total = 0.0
    for e in prof.events():
        if _is_device_row(e) or getattr(e, "is_async", False):
            continue
        if getattr(e, "cpu_parent", None) is None:
            total += e.cpu_time_total  # the outermost rows span the graph's calls
        name = _strip_graph_prefix(e.name)
        if name != e.name:  # a generated kernel: graph_<n>_cpp_fused_...
            us = e.self_cpu_time_total
        elif "::" in e.name and not e.name.startswith(_WRAPPER_ROWS) and not _inside_op(e):
            us = e.cpu_time_total  # an extern call, with the ops it calls inside (aten::convolution -> mkldnn)
        else:
            continue
        row = rows[name]
        row.time_s += us / 1e6 / PROFILE_CALLS
        row.calls += 1 / PROFILE_CALLS
        if name == e.name:  # an op call (a generated kernel is no op: nothing launched it)
            row.by_op[e.name][0] += 1 / PROFILE_CALLS
            calls.append(OpCall(e.name, float(e.time_range.start), [(us, row)]))
    return dict(rows), calls, total / 1e6 / PROFILE_CALLS


def _strip_graph_prefix(name: str) -> str:
    if name.startswith(_GRAPH_PREFIX):
        head, _, rest = name[len(_GRAPH_PREFIX):].partition("_")
        if head.isdigit() and rest:
            return rest
    return name


def _inside_op(e: Any) -> bool:
    parent = getattr(e, "cpu_parent", None)
    while parent is not None:
        if "::" in parent.name and not parent.name.startswith(_WRAPPER_ROWS):
            return True
        parent = getattr(parent, "cpu_parent", None)
    return False


def _is_device_row(e: Any) -> bool:
    dev = getattr(e, "device_type", None)
    return dev is not None and "CPU" not in str(dev)


# ---- FLOPs: op calls -> kernels ----

def attach_flops(rows: dict[str, Row], calls: list[OpCall], records: list[Any], profile_calls: int) -> list[str]:
    """Gives each recorded op call's FLOPs to the longest kernel the matching profiled call launched.

    The i-th profiled call of an op (in time order) is the ``i mod n``-th of its n recorded calls. Returns
    notes on what did not add up (calls that launched nothing, counts that differ); FLOPs end per graph call.
    """
    notes: list[str] = []
    if not records:
        return notes
    # a custom op the profiler shows no row of (torch 2.14 runs a compiled graph's call of it unrecorded): the
    # op calls it made inside are the profile's rows, and take its FLOPs
    profiled_ops = {c.name for c in calls}
    records = [x for r in records for x in ((r,) if r.name in profiled_ops else getattr(r, "inner", ()) or (r,))]
    by_name: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        by_name[r.name].append(r)
    profiled: dict[str, list[OpCall]] = defaultdict(list)
    for c in calls:
        if c.name in by_name:
            profiled[c.name].append(c)
    if not any(c.launches for cs in profiled.values() for c in cs):
        return [f"the graph's counted op calls ({sum(r.flops for r in records) / 1e9:.3g} GFLOP per call) launched "
                "no kernel the profiler tied to them (kernels replayed from a CUDA graph carry no launching op): "
                "no kernel row is given FLOPs"]
    lost = 0
    for name, recs in by_name.items():
        mine = sorted(profiled.get(name, ()), key=lambda c: c.start)
        if len(mine) != len(recs) * profile_calls:
            notes.append(f"{len(mine)} calls of {name} in the profile for {len(recs)} counted per graph call "
                         f"x {profile_calls} calls: FLOPs given by order")
        for i, call in enumerate(mine):
            r = recs[i % len(recs)]
            if not call.launches:
                lost += r.flops
                continue
            _, row = max(call.launches, key=lambda t: t[0])
            row.flops += r.flops
            row.op_bytes += r.bytes
            row.dtype = row.dtype or r.dtype
            row.counted += 1
            if r.formula and r.formula not in row.formulas:
                row.formulas.append(r.formula)
            row.by_op[name][1] += r.flops
            row.by_op[name][2] = 1
        if not mine:
            lost += sum(r.flops for r in recs) * profile_calls
    for row in rows.values():  # per graph call
        row.flops = round(row.flops / profile_calls)
        row.op_bytes = round(row.op_bytes / profile_calls)
        row.counted /= profile_calls
        for v in row.by_op.values():
            v[1] /= profile_calls
    total = sum(r.flops for r in records)
    if lost and total:
        share = 100.0 * lost / profile_calls / total
        notes.append(f"{lost / profile_calls / 1e9:.3g} GFLOP per call ({share:.1f}% of the graph's counted FLOPs) "
                     "belong to op calls that launched no kernel the profiler saw")
    return notes


# ---- Inductor's estimates -> rows ----

class Estimates:
    """Inductor's estimated runtime of the graph's ops (``Compilation.op_estimates``), given to profile rows.

    A generated kernel's row gets the estimates of the ops that became it (a fused node is one op); an extern
    call's, the estimates of its op where the row is that op's (CPU: ``aten::mm``) or the only row it launched
    (GPU: the cuBLAS kernel ``aten::mm`` launched). Only the forward (or inference) lowering is profiled.
    """

    def __init__(self, comp: Any, rows: dict[str, Row]) -> None:
        ops = [e for e in getattr(comp, "op_estimates", ()) or () if e.graph_kind in ("forward", "inference", "")]
        self.total: Optional[float] = sum(e.estimate_s for e in ops) if ops else None
        self.by_call: dict[str, float] = defaultdict(float)
        for e in ops:
            if e.kernel is not None:
                self.by_call[profiler_name(e.kernel)] += e.estimate_s
        self.launchers: dict[str, int] = defaultdict(int)
        for row in rows.values():
            for op in row.by_op:
                self.launchers[op] += 1

    def of(self, name: str, row: Row) -> Optional[float]:
        found = self.by_call.get(name)
        if found is None:
            ops = [op for op in row.by_op if op in self.by_call and self.launchers[op] == 1]
            found = self.by_call[ops[0]] if len(ops) == 1 else None
        return found or None  # 0: Inductor estimated nothing (its cost model is for GPUs)


# ---- one row ----

def _kernel_timing(name: str, row: Row, total: float, kernel: Any, code: Optional[str],
                   peak: Any, compute_peak: Optional[Callable[[str], Any]],
                   estimate_s: Optional[float] = None) -> KernelTiming:
    from .roofline import tflops

    t = row.time_s
    generated = kernel is not None or is_generated(name)
    pointers: tuple = ()
    if generated:
        nbytes, source, pointers = kernel_traffic(name, kernel, code)
    elif row.counted:
        nbytes, source = row.op_bytes or None, "the op's tensors (inputs read, outputs written once)"
    else:
        nbytes, source = None, "extern call: not counted"
    bw = nbytes / t / 1e9 if nbytes and t > 0 else None
    pct = 100.0 * bw / peak.gbs if bw is not None and peak is not None and peak.gbs > 0 else None
    flops = row.flops or None
    achieved = tflops(flops, t)
    pk = None
    if flops and row.dtype and compute_peak is not None:
        with contextlib.suppress(Exception):
            pk = compute_peak(row.dtype)
    peak_tf = pk.tflops if pk is not None else None
    kind = "generated" if generated else "extern"
    launched_by = tuple(OpLaunch(op, round(v[0], 3), round(v[1]) if v[2] else None)
                        for op, v in sorted(row.by_op.items(), key=lambda kv: -kv[1][0]) if op != name)
    return KernelTiming(name=name, kind=kind, time_s=t,
                        share_pct=min(100.0, 100.0 * t / total) if total > 0 else 0.0, calls=max(1, round(row.calls)),
                        bytes=nbytes, bytes_source=source, bandwidth_gbs=bw, peak_pct=pct,
                        flops=flops, flops_source=_flops_source(name, row, generated),
                        dtype=row.dtype if flops else None,
                        tflops=achieved, peak_tflops=peak_tf,
                        peak_flops_pct=100.0 * achieved / peak_tf if achieved and peak_tf else None,
                        bound=_bound(name, generated, flops, nbytes, peak_tf, peak),
                        grid=row.grid, block=row.block, launched_by=launched_by,
                        indirect=tuple(IndirectAccess(p.param, p.arg, p.gathered_elements, p.scattered_elements,
                                                      p.buffer_elements) for p in pointers if p.indirect),
                        estimate_s=estimate_s)


def _flops_source(name: str, row: Row, generated: bool) -> str:
    if row.flops:
        counted = [f"{v[0]:g} launch(es) by {op}" for op, v in row.by_op.items() if v[2]]
        text = (f"{row.counted:g} op call(s) per graph call ({', '.join(counted)}), FLOPs from "
                "the op's shapes (torch.utils.flop_counter formulas; attention and grouped matmuls: the explorer's)")
        return text + ("; " + "; ".join(row.formulas) if row.formulas else "")
    if generated:
        return "generated pointwise/reduction code: not counted (memory-bound by nature)" \
            if not is_template(name) else "template kernel: FLOPs not counted"
    ops = [op for op in row.by_op if "::" in op]
    if ops:
        return f"launched by {', '.join(ops)}: no FLOP formula for it, or none of its FLOPs fell to this kernel"
    return "no FLOP formula for this op"


def _bound(name: str, generated: bool, flops: Optional[int], nbytes: Optional[int], peak_tf: Optional[float],
           peak: Any) -> Optional[str]:
    from .roofline import bound

    if flops:
        return bound(flops, nbytes, peak_tf, peak.gbs if peak is not None else None)
    if generated:  # pointwise and reduction code: a few operations per byte; templates (matmuls) excepted
        return None if is_template(name) else "memory"
    return None


def _wrapper_code(comp: Any) -> Optional[str]:
    codes = getattr(comp, "output_code", None) or ()
    return "\n".join(c.code for c in codes) or None
