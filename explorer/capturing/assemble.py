"""Raw recorder events -> CaptureData: one parser per event kind, as tlparse does.

Events are grouped by compile id (frame id / frame compile id); attempts of one
compile id (Dynamo restarts) fold into one Compilation with its restarts listed.
Inductor may lower several graphs per compile id (forward and backward): their
events are split into lowerings at each post-grad graph.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from . import bytecode as bc
from .model import CaptureData, Compilation, Frame, IrDump, Kernel, OtherArtifact, OutputCode, Restart
from .parse_breaks import parse_graph_break
from .parse_fx import parse_graph
from .parse_guards import parse_guards
from .parse_output_code import graph_kind, load_json, parse_kernels
from .recorder import RawBytecode, RawEvent, Recorder

_AOT_EVENTS = {"aot_joint_graph": "aot_joint", "aot_forward_graph": "aot_forward",
               "aot_backward_graph": "aot_backward", "aot_inference_graph": "aot_inference"}
_METRIC_KEYS = ("entire_frame_compile_time_s", "backend_compile_time_s", "inductor_compile_time_s",
                "code_gen_time_s", "dynamo_time_before_restart_s", "guard_count", "shape_env_guard_count",
                "graph_op_count", "graph_node_count", "graph_input_count", "cache_size",
                "accumulated_cache_size", "fail_type", "fail_reason", "co_name", "co_filename",
                "co_firstlineno", "is_forward", "num_triton_bundles", "remote_cache_time_saved_s")


@dataclass
class _Lowering:
    events: list[RawEvent] = field(default_factory=list)


@dataclass
class _Group:
    frame_id: int
    frame_compile_id: int
    events: list[RawEvent] = field(default_factory=list)
    bytecodes: list[RawBytecode] = field(default_factory=list)

    @property
    def compile_id(self) -> str:
        return f"{self.frame_id}/{self.frame_compile_id}"


def assemble(rec: Recorder, *, torch_version: str, device: Any, python_version: str,
             wall_time_s: Optional[float], notes: list[str], error: Optional[str]) -> CaptureData:
    groups: dict[tuple[int, int], _Group] = {}
    loose: list[RawEvent] = []
    for ev in rec.events:
        if ev.key is None:
            loose.append(ev)
            continue
        groups.setdefault(ev.key[:2], _Group(*ev.key[:2])).events.append(ev)
    for raw in rec.bytecodes:
        if raw.key is not None:
            groups.setdefault(raw.key[:2], _Group(*raw.key[:2])).bytecodes.append(raw)
    ordered = sorted(groups.values(), key=lambda g: (g.frame_id, g.frame_compile_id))
    built = [_compilation(g, rec.strings) for g in ordered]
    compilations = tuple(comp for comp, _ in built)
    per_compilation = tuple(a for _, unknown in built for a in unknown)
    return CaptureData(
        torch_version=torch_version, python_version=python_version,
        device=device(graph_devices(compilations)) if callable(device) else device,  # a namer, or a name
        compilations=compilations, wall_time_s=wall_time_s, notes=tuple(notes), error=error,
        other_artifacts=per_compilation + tuple(_unknown(e) for e in loose
                                                if e.name not in ("ir_pre_fusion", "ir_post_fusion", "bytecode_log")),
    )


_DEVICE_RE = re.compile(r"\]((?:cpu|cuda|xpu|mps|meta|hpu)(?::\d+)?)$")


def graph_devices(compilations: tuple[Compilation, ...]) -> list[str]:
    """Devices named in the graphs' tensor types (``f32[8][1]cuda:0``), in first-seen order."""
    seen: list[str] = []
    for c in compilations:
        for n in (c.graph.nodes if c.graph else ()):
            m = _DEVICE_RE.search(n.type or "")
            if m and m.group(1) not in seen:
                seen.append(m.group(1))
    return seen


def _compilation(g: _Group, strings: dict[int, str]) -> tuple[Compilation, list[OtherArtifact]]:
    f: dict[str, Any] = {"missing": {}, "metrics": {}}
    unknown: list[OtherArtifact] = []
    lowerings: list[_Lowering] = []
    listing_fallback: dict[str, str] = {}
    for ev in g.events:
        handler = _HANDLERS.get(ev.name)
        if handler is not None:
            handler(ev, f)
        elif ev.name in _LOWERING_EVENTS:
            if ev.name == "artifact:inductor_post_grad_graph" or not lowerings:
                lowerings.append(_Lowering())
            lowerings[-1].events.append(ev)
        elif ev.name == "bytecode_log":
            _bytecode_log(ev, listing_fallback)
        elif ev.name.endswith("_BYTECODE") and ev.name.startswith("artifact:"):
            pass  # resume-frame listings; the bytecode hook gives us the same, structured
        else:
            unknown.append(_unknown(ev))
    frame = _frame(g, f, strings)
    restarts = [Restart(i, r) for i, r in enumerate(f["metrics"].pop("restart_reasons", None) or [])]
    _bytecodes(g, f, frame, listing_fallback)
    if f.get("guard_tree"):
        f["guards"] = parse_guards(f["guard_tree"], frame.filename)
    _lowerings(lowerings, f)
    comp = Compilation(compile_id=g.compile_id, frame=frame, status=_status(f), restarts=tuple(restarts),
                       **{k: v for k, v in f.items() if not k.startswith("_")})
    return _explain_missing(comp), unknown


# ---- per-event parsers ----

def _on_graph(ev: RawEvent, f: dict) -> None:
    if ev.payload:
        f["graph"] = parse_graph(ev.payload)


def _on_aot(ev: RawEvent, f: dict) -> None:
    if ev.payload:
        f[_AOT_EVENTS[ev.name]] = parse_graph(ev.payload)


def _on_guards(ev: RawEvent, f: dict) -> None:
    if ev.payload:
        f["guard_tree"] = ev.payload.strip("\n")  # parsed once the frame's file is known


def _on_recompile(ev: RawEvent, f: dict) -> None:
    value = load_json(ev.payload)
    if isinstance(value, list):
        text = "\n".join(str(v) for v in value)
    else:
        text = (ev.payload or "").strip()
    f["recompile_reason"] = text or None


def _on_break(ev: RawEvent, f: dict) -> None:
    if ev.payload and "graph_break" not in f:
        f["graph_break"] = parse_graph_break(ev.payload)


def _on_metrics(ev: RawEvent, f: dict) -> None:
    m = ev.metadata.get("compilation_metrics") or {}
    f["metrics"] = {k: m[k] for k in _METRIC_KEYS if m.get(k) is not None}
    if m.get("restart_reasons"):
        f["metrics"]["restart_reasons"] = list(m["restart_reasons"])
    if m.get("entire_frame_compile_time_s") is not None:
        f["compile_time_s"] = float(m["entire_frame_compile_time_s"])
    if m.get("fail_type"):
        f["failure"] = f"{m['fail_type']}: {m.get('fail_reason') or ''}".strip()


def _on_start(ev: RawEvent, f: dict) -> None:
    stack = (ev.metadata.get("dynamo_start") or {}).get("stack") or []
    if stack:
        f["_start"] = stack[-1]


_HANDLERS: dict[str, Callable[[RawEvent, dict], None]] = {
    "dynamo_output_graph": _on_graph,
    "dynamo_cpp_guards_str": _on_guards,
    "artifact:recompile_reasons": _on_recompile,
    "artifact:dynamo_graph_break_reason": _on_break,
    "compilation_metrics": _on_metrics,
    "dynamo_start": _on_start,
    **{name: _on_aot for name in _AOT_EVENTS},
}
_LOWERING_EVENTS = {"artifact:inductor_post_grad_graph", "ir_pre_fusion", "ir_post_fusion", "inductor_output_code",
                    "artifact:inductor_provenance_tracking_node_mappings",
                    "artifact:inductor_provenance_tracking_kernel_stack_traces"}


# ---- whole-compilation steps ----

def _frame(g: _Group, f: dict, strings: dict[int, str]) -> Frame:
    m = f["metrics"]
    if m.get("co_name"):
        return Frame(m.pop("co_name"), m.pop("co_filename", "?"), int(m.pop("co_firstlineno", 0) or 0))
    for raw in g.bytecodes:
        c = raw.code
        return Frame(c.co_name, c.co_filename, c.co_firstlineno)
    start = f.get("_start")
    if start:
        return Frame(start.get("name", "?"), strings.get(start.get("filename"), str(start.get("filename"))),
                     int(start.get("line", 0)))
    return Frame("?", "?", 0)


def _bytecodes(g: _Group, f: dict, frame: Frame, listings: dict[str, str]) -> None:
    if g.bytecodes:
        raw = g.bytecodes[-1]  # the last attempt is the one that was installed
        f["original_bytecode"] = bc.from_code(raw.code)
        f["rewritten_bytecode"] = bc.from_code(raw.new_code, decompile=True)
        return
    if "ORIGINAL" in listings:
        f["original_bytecode"] = bc.from_listing(frame.name, frame.filename, frame.lineno, listings["ORIGINAL"])
    if "MODIFIED" in listings:
        f["rewritten_bytecode"] = bc.from_listing(frame.name, frame.filename, frame.lineno, listings["MODIFIED"])


def _bytecode_log(ev: RawEvent, out: dict[str, str]) -> None:
    # "ORIGINAL BYTECODE f /path.py line 2 \n <listing>"
    text = ev.payload or ""
    head, _, listing = text.partition("\n")
    for kind in ("ORIGINAL", "MODIFIED"):
        if head.startswith(kind):
            out[kind] = listing


def _lowerings(lowerings: list[_Lowering], f: dict) -> None:
    if not lowerings:
        return
    pre, post, outputs, kernels = [], [], [], []
    fallback_kinds = _fallback_kinds(f, len(lowerings))
    for i, low in enumerate(lowerings):
        by = defaultdict(list)
        for ev in low.events:
            by[ev.name].append(ev)
        code_ev = by.get("inductor_output_code")
        kind = (graph_kind(code_ev[0].payload or "") if code_ev else None) or fallback_kinds[i]
        for ev in by.get("artifact:inductor_post_grad_graph", [])[:1]:
            f["post_grad_graph_backward" if kind == "backward" else "post_grad_graph"] = parse_graph(ev.payload or "")
        pre += [IrDump(kind, ev.payload or "") for ev in by.get("ir_pre_fusion", [])]
        post += [IrDump(kind, ev.payload or "") for ev in by.get("ir_post_fusion", [])]
        provenance = {
            "node_mappings": _first_json(by.get("artifact:inductor_provenance_tracking_node_mappings")),
            "stack_traces": _first_json(by.get("artifact:inductor_provenance_tracking_kernel_stack_traces")),
        }
        for ev in code_ev or []:
            meta = ev.metadata.get("inductor_output_code") or {}
            outputs.append(OutputCode(kind, ev.payload or "", meta.get("filename"),
                                      _handles(provenance["node_mappings"], ev.payload or "")))
            kernels += parse_kernels(ev.payload or "", kind, provenance)
    f["ir_pre_fusion"] = tuple(pre) or None
    f["ir_post_fusion"] = tuple(post) or None
    f["output_code"] = tuple(outputs) or None
    f["kernels"] = tuple(_dedupe(kernels))


_HANDLE_RE = re.compile(r"\[Provenance debug handles\] (\S+)")


def _handles(mappings: Any, code: str) -> dict[str, tuple[str, ...]]:
    """torch's kernel -> post-grad nodes map, for the debug handles this output module names."""
    table = mappings.get("cppCodeToPost") if isinstance(mappings, dict) else None
    if not isinstance(table, dict):
        return {}
    return {key: tuple(str(n) for n in table[key]) for key in _HANDLE_RE.findall(code)
            if isinstance(table.get(key), list)}


def _fallback_kinds(f: dict, n: int) -> list[str]:
    if f.get("aot_inference") is not None:
        return ["inference"] * n
    return (["forward", "backward"] + ["graph"] * n)[:n]


def _first_json(events: Optional[list[RawEvent]]) -> Any:
    for ev in events or []:
        value = load_json(ev.payload)
        if value is not None:
            return value
    return None


def _dedupe(kernels: list[Kernel]) -> list[Kernel]:
    seen, out = set(), []
    for k in kernels:
        if (k.graph_kind, k.name) not in seen:
            seen.add((k.graph_kind, k.name))
            out.append(k)
    return out


def _status(f: dict) -> str:
    if f.get("failure"):
        return "failed"
    if f.get("graph") is not None:
        return "compiled"
    if f.get("rewritten_bytecode") is not None:
        return "no_graph"
    return "skipped"


_STAGES = ("original_bytecode", "rewritten_bytecode", "graph", "aot_forward", "aot_backward",
           "post_grad_graph", "ir_pre_fusion", "ir_post_fusion", "output_code")


def _explain_missing(c: Compilation) -> Compilation:
    """Every null stage gets a reason a person can act on."""
    why: dict[str, str] = {}
    aot_ran = any(x is not None for x in (c.aot_forward, c.aot_inference, c.aot_joint))
    for stage in _STAGES:
        if getattr(c, stage) is not None:
            continue
        why[stage] = _why(c, stage, aot_ran)
    if c.kernels == () and c.output_code is not None:
        why["kernels"] = "Inductor generated no kernels of its own here (only library calls or views)"
    return dataclasses.replace(c, missing=why)


def _why(c: Compilation, stage: str, aot_ran: bool) -> str:
    if c.status == "failed":
        return f"the compilation failed before this stage: {c.failure}"
    if c.status == "skipped":
        return "Dynamo looked at this frame and left it as it was (no PyTorch operations to put in a graph)"
    if stage in ("original_bytecode", "rewritten_bytecode"):
        return "Dynamo did not rewrite this frame, so its bytecode hook never fired"
    if c.graph is None:
        return "Dynamo captured no FX graph in this frame: its operations all ran as ordinary Python"
    if stage == "aot_backward":
        if c.aot_inference is not None:
            return "no input requires grad (or grad mode was off): AOTAutograd built an inference graph only"
        if not aot_ran:
            return "the backend did not run AOTAutograd (for example backend='eager')"
        return "AOTAutograd produced no backward graph"
    if stage == "aot_forward":
        if c.aot_inference is not None:
            return "inference only: see the AOT inference graph"
        return "the backend did not run AOTAutograd (for example backend='eager')"
    if not aot_ran:
        return "the backend did not run AOTAutograd or Inductor (for example backend='eager')"
    return "the backend is not Inductor (for example backend='aot_eager'), or Inductor's result came from a cache"


def _unknown(ev: RawEvent) -> OtherArtifact:
    cid = f"{ev.key[0]}/{ev.key[1]}" if ev.key else None
    return OtherArtifact(ev.name, cid, 1, len(ev.payload or ""))
