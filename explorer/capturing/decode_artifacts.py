"""Decoders for torch's other artifacts (``artifacts``): the partitioner's min-cut, kernels' compile times, the
collective schedule, the order graphs ran, and Dynamo's ``trace_call`` lines.

Registered in ``decoders.DECODERS`` like every other decoder: one function per event kind, reading one
record only, raising ``DecodeError`` on content torch does not write; an odd element of a list (a candidate, a
kernel, a collective, a graph run) costs only itself (``elements``). Formats, as torch 2.11-2.14 write them:
``min_cut_information`` is ``ac_logging_utils.create_structured_trace_for_min_cut_info``'s JSON object;
``triton_kernel_info`` a JSON object of kernel name -> ``{compile_time_us, autotune_cache_state, ...}``
(``async_compile._compile_end``); ``inductor_collective_schedule`` a JSON list of op names
(``debug.log_collective_schedule``); ``graph_execution`` ``{"graph_execution_order": [{"compile_id": ...}]}``
(``debug.log_graph_execution``); a ``trace_call`` line ``TRACE FX call <node> from <file>:<line> in <fn> ...``
or ``TRACE inlined call <fn> from ...`` (``output_graph`` / ``symbolic_convert``).
"""

from __future__ import annotations

import re
from typing import Any, Optional, Union

from .artifacts import KernelCompileInfo, MinCut, MinCutCandidate
from .compile_id import CompileId
from .decode_usage import json_payload
from .elements import Elements, Partly, partly
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

def decode_min_cut(ev: RawEvent, ctx: Any) -> Union[MinCutRecord, Partly]:
    d = _object(ev, "min_cut_information")
    if "Memory Budget" not in d:
        raise DecodeError(f"no 'Memory Budget' in min_cut_information (keys: {', '.join(list(d)[:6])})")
    info = d.get("Joint Graph Node Information") or {}
    if not isinstance(info, dict):
        raise DecodeError(f"'Joint Graph Node Information' is {type(info).__name__}, expected a JSON object")
    order = [str(n) for n in d.get("Recomputable Banned Nodes Order") or ()]
    read = Elements(("candidate", "candidates"), len(order))
    candidates = tuple(c for c in (_candidate(name, info.get(name), read) for name in order) if c is not None)
    return partly(MinCutRecord(MinCut(
        memory_budget=float(d["Memory Budget"]), candidates=candidates,
        saved_values=tuple(str(n) for n in d.get("Min Cut Solution Saved Values") or ()),
        min_activation_gb=_number(d.get("Min Activation Size (GB)")),
        max_activation_gb=_number(d.get("Max Activation Size (GB)")),
        saved_activation_gb=_number(d.get("Saved Values Activation Size (GB)")),
        more_aggressive_ratio=_number(d.get("More Aggressive Saved Values Mem Ratio")),
        aggressive_ratio=_number(d.get("Aggressive Recomputation Saved Values Mem Ratio")),
        expected_runtime=_number(d.get("Expected Runtime")), joint_nodes=int(d.get("Joint Graph Size") or 0))), read)


def _candidate(name: str, node: Any, read: Elements) -> Optional[MinCutCandidate]:
    """One candidate of the knapsack; one without its memory and runtime (``recomputable_candidate_info``) is left
    out: its row would show a decision with nothing it was made on."""
    info = node.get("recomputable_candidate_info") if isinstance(node, dict) else None
    if not isinstance(info, dict):
        read.left_out("had no recomputable_candidate_info")
        return None
    memory = _number(info.get("memory"))
    if memory is None:
        read.left_out("had no number for its memory")
        return None
    return MinCutCandidate(name=name, target=str(node.get("target") or "?"), shape=str(node.get("shape") or ""),
                           memory_bytes=int(memory), runtime=_number(info.get("runtime")) or 0.0,
                           saved=bool(info.get("is_saved")), recomputed=bool(info.get("is_recomputed")),
                           stack_trace=str(node.get("stack_trace") or ""))


# ---- Inductor ----

def decode_kernel_info(ev: RawEvent, ctx: Any) -> Union[KernelCompileTimes, Partly]:
    d = _object(ev, "triton_kernel_info")
    read = Elements(("kernel", "kernels"), len(d))
    out = []
    for name, info in d.items():
        if not isinstance(info, dict):
            read.left_out("held no fields (not a JSON object)")
            continue
        micros = _number(info.get("compile_time_us"))
        configs = info.get("num_configs")
        out.append(KernelCompileInfo(
            name=str(name), compile_time_s=micros * 1e-6 if micros is not None else None,
            autotune_cache=str(info["autotune_cache_state"]) if info.get("autotune_cache_state") else None,
            num_configs=configs if isinstance(configs, int) and not isinstance(configs, bool) else None,
            only_config=_config(info.get("only_config"))))
    return partly(KernelCompileTimes(tuple(out)), read)


def _config(pairs: Any) -> dict[str, int]:
    """``[["XBLOCK", 1], ["num_warps", 8]]`` -> ``{"XBLOCK": 1, "num_warps": 8}`` (its int entries)."""
    if not isinstance(pairs, list):
        return {}
    return {str(p[0]): p[1] for p in pairs if isinstance(p, list) and len(p) == 2 and isinstance(p[1], int)}


def decode_collective_schedule(ev: RawEvent, ctx: Any) -> Union[CollectiveScheduleRecord, Partly]:
    """The collectives in Inductor's order; one with no name is kept as ``?`` (its place in the order stands)."""
    ops = json_payload(ev)
    if not isinstance(ops, list):
        raise DecodeError(f"the collective schedule is {type(ops).__name__}, expected a JSON list")
    read = Elements(("collective", "collectives"), len(ops))
    return partly(CollectiveScheduleRecord(tuple(op if isinstance(op, str) and op else read.kept("had no name")
                                                 for op in ops)), read)


def decode_graph_execution(ev: RawEvent, ctx: Any) -> Union[GraphExecution, Partly]:
    order = _object(ev, "graph_execution").get("graph_execution_order")
    if not isinstance(order, list):
        raise DecodeError("no 'graph_execution_order' list in graph_execution")
    read = Elements(("graph run", "graph runs"), len(order))
    ids = []
    for item in order:  # {"compile_id": "0/0"} per call; tlparse also reads plain strings
        cid = item.get("compile_id") if isinstance(item, dict) else item
        # the compilations' keys; a run torch named no compilation for keeps its place in the order
        ids.append(CompileId.key_of(cid) if isinstance(cid, str) and cid else read.kept("named no compilation"))
    return partly(GraphExecution(tuple(ids)), read)


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
