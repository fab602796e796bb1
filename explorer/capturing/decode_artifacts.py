"""Decoders for torch's other artifacts (``artifacts``): the partitioner's min-cut, kernels' compile times, the
collective schedule, the order graphs ran, and Dynamo's ``trace_call`` lines.

Registered in ``decoders.DECODERS`` like every other decoder: one function per event kind, reading one
record only, raising ``DecodeError`` on content torch does not write. Formats, as torch 2.11-2.14 write them:
``min_cut_information`` is ``ac_logging_utils.create_structured_trace_for_min_cut_info``'s JSON object;
``triton_kernel_info`` a JSON object of kernel name -> ``{compile_time_us, autotune_cache_state, ...}``
(``async_compile._compile_end``); ``inductor_collective_schedule`` a JSON list of op names
(``debug.log_collective_schedule``); ``graph_execution`` ``{"graph_execution_order": [{"compile_id": ...}]}``
(``debug.log_graph_execution``); a ``trace_call`` line ``TRACE FX call <node> from <file>:<line> in <fn> ...``
or ``TRACE inlined call <fn> from ...`` (``output_graph`` / ``symbolic_convert``).
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .artifacts import KernelCompileInfo, MinCut, MinCutCandidate
from .compile_id import CompileId
from .decode_usage import json_payload
from .graph_model import SourceLoc
from .raw import DecodeError, RawEvent
from .records import CollectiveScheduleRecord, GraphExecution, KernelCompileTimes, MinCutRecord, TraceCall

_TRACE_CALL_RE = re.compile(r"^TRACE (?P<kind>inlined|FX) call (?P<name>\S+) from (?P<file>.+?):(?P<line>\d+) in "
                            r"(?P<fn>\S+)(?: \([^()]*\))?(?: \(inline depth: (?P<depth>\d+)\))?\s*$")
_COLLECTIVE_RE = re.compile(r"\b_?c10d_functional(?:_autograd)?\.(?P<op>\w+)")


def _number(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _object(ev: RawEvent, what: str) -> dict:
    value = json_payload(ev)
    if not isinstance(value, dict):
        raise DecodeError(f"{what} is {type(value).__name__}, expected a JSON object")
    return value


# ---- the partitioner ----

def decode_min_cut(ev: RawEvent, ctx: Any) -> MinCutRecord:
    d = _object(ev, "min_cut_information")
    if "Memory Budget" not in d:
        raise DecodeError(f"no 'Memory Budget' in min_cut_information (keys: {', '.join(list(d)[:6])})")
    info = d.get("Joint Graph Node Information") or {}
    if not isinstance(info, dict):
        raise DecodeError(f"'Joint Graph Node Information' is {type(info).__name__}, expected a JSON object")
    order = [str(n) for n in d.get("Recomputable Banned Nodes Order") or ()]
    candidates = tuple(_candidate(name, info.get(name) or {}) for name in order)
    return MinCutRecord(MinCut(
        memory_budget=float(d["Memory Budget"]), candidates=candidates,
        saved_values=tuple(str(n) for n in d.get("Min Cut Solution Saved Values") or ()),
        min_activation_gb=_number(d.get("Min Activation Size (GB)")),
        max_activation_gb=_number(d.get("Max Activation Size (GB)")),
        saved_activation_gb=_number(d.get("Saved Values Activation Size (GB)")),
        more_aggressive_ratio=_number(d.get("More Aggressive Saved Values Mem Ratio")),
        aggressive_ratio=_number(d.get("Aggressive Recomputation Saved Values Mem Ratio")),
        expected_runtime=_number(d.get("Expected Runtime")), joint_nodes=int(d.get("Joint Graph Size") or 0)))


def _candidate(name: str, node: dict) -> MinCutCandidate:
    info = node.get("recomputable_candidate_info")
    if not isinstance(info, dict):
        raise DecodeError(f"the candidate {name!r} has no recomputable_candidate_info")
    return MinCutCandidate(name=name, target=str(node.get("target") or "?"), shape=str(node.get("shape") or ""),
                           memory_bytes=int(info.get("memory") or 0), runtime=_number(info.get("runtime")) or 0.0,
                           saved=bool(info.get("is_saved")), recomputed=bool(info.get("is_recomputed")),
                           stack_trace=str(node.get("stack_trace") or ""))


# ---- Inductor ----

def decode_kernel_info(ev: RawEvent, ctx: Any) -> KernelCompileTimes:
    d = _object(ev, "triton_kernel_info")
    out = []
    for name, info in d.items():
        if not isinstance(info, dict):
            raise DecodeError(f"the kernel {name!r} has {type(info).__name__}, expected a JSON object")
        micros = _number(info.get("compile_time_us"))
        configs = info.get("num_configs")
        out.append(KernelCompileInfo(
            name=str(name), compile_time_s=micros * 1e-6 if micros is not None else None,
            autotune_cache=str(info["autotune_cache_state"]) if info.get("autotune_cache_state") else None,
            num_configs=configs if isinstance(configs, int) and not isinstance(configs, bool) else None,
            only_config=_config(info.get("only_config"))))
    return KernelCompileTimes(tuple(out))


def _config(pairs: Any) -> dict[str, int]:
    """``[["XBLOCK", 1], ["num_warps", 8]]`` -> ``{"XBLOCK": 1, "num_warps": 8}`` (its int entries)."""
    if not isinstance(pairs, list):
        return {}
    return {str(p[0]): p[1] for p in pairs if isinstance(p, list) and len(p) == 2 and isinstance(p[1], int)}


def decode_collective_schedule(ev: RawEvent, ctx: Any) -> CollectiveScheduleRecord:
    ops = json_payload(ev)
    if not isinstance(ops, list):
        raise DecodeError(f"the collective schedule is {type(ops).__name__}, expected a JSON list")
    return CollectiveScheduleRecord(tuple(str(op) for op in ops if op is not None))


def decode_graph_execution(ev: RawEvent, ctx: Any) -> GraphExecution:
    order = _object(ev, "graph_execution").get("graph_execution_order")
    if not isinstance(order, list):
        raise DecodeError("no 'graph_execution_order' list in graph_execution")
    ids = []
    for item in order:  # {"compile_id": "0/0"} per call; tlparse also reads plain strings
        cid = item.get("compile_id") if isinstance(item, dict) else item
        ids.append(CompileId.key_of(str(cid)) if cid is not None else "?")  # the compilations' keys
    return GraphExecution(tuple(ids))


# ---- Dynamo's trace_call log ----

def decode_trace_call(ev: RawEvent, ctx: Any) -> Optional[TraceCall]:
    """An inlined call (the stack it opens), or an FX call of a collective; other FX calls hold nothing to keep."""
    if not isinstance(ev.payload, str):
        raise DecodeError(f"the record has no text (got {type(ev.payload).__name__})")
    head, _, rest = ev.payload.partition("\n")
    m = _TRACE_CALL_RE.match(head)
    if m is None:
        raise DecodeError(f"not a TRACE ... call line: {head[:120]!r}")
    code = rest.splitlines()[0].strip() if rest.strip() else None
    op = None
    if m["kind"] == "FX":
        found = _COLLECTIVE_RE.search(rest)
        if found is None or found["op"].rstrip("_") == "wait_tensor":
            return None
        op = found["op"].rstrip("_")
    attempt = ev.compile_id.attempt if ev.compile_id is not None else 0
    return TraceCall("inlined" if m["kind"] == "inlined" else "fx", m["name"],
                     SourceLoc(m["file"], int(m["line"]), m["fn"], code), int(m["depth"] or 0), attempt, op)


ARTIFACT_DECODERS = {
    "artifact:min_cut_information": decode_min_cut,
    "artifact:triton_kernel_info": decode_kernel_info,
    "artifact:inductor_collective_schedule": decode_collective_schedule,
    "artifact:graph_execution": decode_graph_execution,
    "trace_call": decode_trace_call,
}
