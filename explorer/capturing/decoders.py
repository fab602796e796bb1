"""One decoder per event kind, in one table: raw record -> typed record (``records``).

``DECODERS`` is keyed by the event's name as the recorder names it: the trace
event (``dynamo_output_graph``), ``artifact:<name>`` for torch's named
artifacts (``*`` stands for a frame's name), or the kind of a non-trace source
(``ir_pre_fusion``, ``ir_post_fusion``, ``bytecode_log``, ``bytecode_hook``, ``traced_code``).
A decoder reads one record only; it raises (``DecodeError`` when the content
is not what torch writes) rather than guess, and ``decode`` turns that into a
``Problem`` naming the record. A decoder that reads a list of elements reads
each on its own (``elements``): an odd element is kept with a placeholder or
left out, and the record is returned ``Partly`` read, with one line saying
what was kept, rather than lost for one element. Supporting a new trace event is one function and
one entry here (and, if it is a new stage, one field in ``model``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

from . import bytecode as bc
from . import torch_door
from .decode_artifacts import ARTIFACT_DECODERS
from .decode_usage import USAGE_DECODERS
from .elements import PLACEHOLDER, Elements, Partly, partly
from .inductor_code.wrapper import graph_kind
from .inlined import decode_traced_code, first_argument
from .model import Frame, OpEstimate, Problem, SourceLoc
from .parse_breaks import parse_graph_break
from .parse_ddp import parse_log_line
from .parse_fx import parse_graph
from .parse_guards import has_guard
from .parse_side_effects import parse_side_effects
from .raw import WHERE, DecodeError, RawEvent, describe_error
from .records import (
    AotGraph,
    BytecodeListing,
    BytecodePair,
    DdpLog,
    DdpSplitChild,
    DdpSplitGraph,
    DynamoGraph,
    FrameStart,
    GraphBreakReason,
    GuardTree,
    IrText,
    Metrics,
    OutputCodeText,
    PostGradGraph,
    Provenance,
    RecompileReasons,
    Record,
    RuntimeEstimates,
    ShapeRecord,
    SideEffects,
)
from .shapes import RealValue, ShapeGuard, ShapeSymbol, Specialization

METRIC_KEYS = ("entire_frame_compile_time_s", "backend_compile_time_s", "inductor_compile_time_s",
               "code_gen_time_s", "dynamo_time_before_restart_s", "guard_count", "shape_env_guard_count",
               "graph_op_count", "graph_node_count", "graph_input_count", "cache_size",
               "accumulated_cache_size", "fail_type", "fail_reason", "is_forward", "num_triton_bundles",
               "remote_cache_time_saved_s")
_EXCERPT = 120  # characters of a bad payload quoted in its Problem


@dataclass(frozen=True)
class DecodeContext:
    """What decoders may need beyond the record: the trace's interned file names, and the version of the
    torch that wrote it (None: not known) where a record's meaning changed between versions."""

    strings: Mapping[int, str] = field(default_factory=dict)
    torch_version: Optional[str] = None


Decoder = Callable[[RawEvent, DecodeContext], Union[Record, Partly, None]]


# ---- helpers ----

def _text(ev: RawEvent) -> str:
    if not isinstance(ev.payload, str) or not ev.payload.strip():
        raise DecodeError(f"the record has no payload (got {type(ev.payload).__name__})")
    return ev.payload


def _fields(ev: RawEvent, key: str) -> dict:
    """The event's own metadata dict (``metadata[event name]``)."""
    value = ev.metadata.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DecodeError(f"metadata[{key!r}] is {type(value).__name__}, expected a dict")
    return value


def _graph(ev: RawEvent) -> Any:
    text = _text(ev)
    if "def forward(" not in text:
        raise DecodeError(f"no 'def forward(' in the graph text: not an FX graph print ({_excerpt(text)})")
    return parse_graph(text)


def _excerpt(text: str) -> str:
    head = text.strip().replace("\n", "\\n")
    return f"starts {head[:_EXCERPT]!r}" + ("..." if len(head) > _EXCERPT else "")


def _json(ev: RawEvent) -> Any:
    try:
        return json.loads(_text(ev))
    except ValueError as e:
        raise DecodeError(f"the payload is not JSON ({e}; {_excerpt(ev.payload)})") from None


# ---- Dynamo ----

def decode_dynamo_graph(ev: RawEvent, ctx: DecodeContext) -> DynamoGraph:
    return DynamoGraph(_graph(ev))


def decode_guards(ev: RawEvent, ctx: DecodeContext) -> GuardTree:
    text = _text(ev).strip("\n")
    if "GuardManager" not in text or not has_guard(text):
        raise DecodeError(f"no guard manager or guard line in the guard tree ({_excerpt(text)})")
    return GuardTree(text)


def decode_graph_break(ev: RawEvent, ctx: DecodeContext) -> GraphBreakReason:
    return GraphBreakReason(parse_graph_break(_text(ev)))


def decode_recompile_reasons(ev: RawEvent, ctx: DecodeContext) -> RecompileReasons:
    """A JSON list of reasons (2.11-2.14) or plain text (what older torch wrote)."""
    text = _text(ev)
    try:
        value = json.loads(text)
    except ValueError:
        return RecompileReasons(text.strip())
    if isinstance(value, list):
        return RecompileReasons("\n".join(str(v) for v in value))
    return RecompileReasons(str(value).strip())


def decode_side_effects(ev: RawEvent, ctx: DecodeContext) -> SideEffects:
    text = _text(ev)
    mutations = parse_side_effects(text)
    if not mutations:
        raise DecodeError(f"no 'Mutating object of type' block in the side effects ({_excerpt(text)})")
    return SideEffects(mutations)


def decode_start(ev: RawEvent, ctx: DecodeContext) -> Union[FrameStart, Partly, None]:
    stack = _fields(ev, "dynamo_start").get("stack")
    if stack is None or stack == []:
        return None
    if not isinstance(stack, list):
        raise DecodeError(f"'stack' is {type(stack).__name__}, expected a list of frames")
    frames = Elements(("frame", "frames"), len(stack))
    locs = tuple(_stack_loc(f, ctx, frames) for f in stack)
    return partly(FrameStart(Frame(locs[-1].function or "?", locs[-1].filename, locs[-1].lineno or 0), locs), frames)


_NO_FRAME = SourceLoc(PLACEHOLDER, 0, PLACEHOLDER)


def _stack_loc(frame: Any, ctx: DecodeContext, frames: Elements) -> SourceLoc:
    """One frame of dynamo_start's stack (``{"filename": <interned id>, "line", "name", "loc"}``); what is odd
    in it is kept as ``?`` (a frame that is no dict at all: a frame of ``?``, so the stack keeps its depth)."""
    if not isinstance(frame, dict):
        return frames.kept("held no fields (not a JSON object)", _NO_FRAME)
    filename = frame.get("filename")
    if isinstance(filename, int):
        name = ctx.strings.get(filename) or frames.kept("named a file the trace never interned")
    elif isinstance(filename, str) and filename:
        name = filename
    else:
        name = frames.kept("had no file name")
    line = frame.get("line")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        line = frames.kept("had no line number", 0, "kept without a line")
    function = frame.get("name")
    if not isinstance(function, str) or not function:
        function = frames.kept("had no function name")
    code = frame.get("loc")
    return SourceLoc(name, line or 0, function, code if isinstance(code, str) and code else None)


def decode_metrics(ev: RawEvent, ctx: DecodeContext) -> Metrics:
    m = _fields(ev, "compilation_metrics")
    frame = None
    if m.get("co_name"):
        frame = Frame(str(m["co_name"]), str(m.get("co_filename") or "?"), int(m.get("co_firstlineno") or 0))
    seconds = m.get("entire_frame_compile_time_s")
    if seconds is None:  # an Inductor compile outside Dynamo (AOTInductor) has no frame of its own
        seconds = m.get("inductor_compile_time_s")
    failure = f"{m['fail_type']}: {m.get('fail_reason') or ''}".strip() if m.get("fail_type") else None
    failed_at = None
    if m.get("fail_user_frame_filename") and m.get("fail_user_frame_lineno"):
        failed_at = SourceLoc(str(m["fail_user_frame_filename"]), int(m["fail_user_frame_lineno"]))
    return Metrics(values={k: m[k] for k in METRIC_KEYS if m.get(k) is not None}, frame=frame,
                   restart_reasons=tuple(str(r) for r in m.get("restart_reasons") or ()),
                   compile_time_s=float(seconds) if seconds is not None else None, failure=failure,
                   failed_at=failed_at)


def decode_bytecode_log(ev: RawEvent, ctx: DecodeContext) -> BytecodeListing:
    """``ORIGINAL BYTECODE f /path.py line 2 \\n<listing>`` (and MODIFIED)."""
    head, _, listing = _text(ev).partition("\n")
    for which in ("ORIGINAL", "MODIFIED"):
        if head.startswith(which):
            return BytecodeListing(which, listing)
    raise DecodeError(f"a bytecode log line that is neither ORIGINAL nor MODIFIED ({_excerpt(head)})")


def _resume_listing(which: str) -> Decoder:
    return lambda ev, ctx: BytecodeListing(which, _text(ev))


def decode_bytecode_hook(ev: RawEvent, ctx: DecodeContext) -> BytecodePair:
    code, new_code = ev.payload
    return BytecodePair(bc.from_code(code), bc.from_code(new_code, decompile=True), first_argument(code),
                        getattr(code, "co_qualname", None))


# ---- AOTAutograd and Inductor ----

_AOT_FIELDS = {"aot_joint_graph": "aot_joint", "aot_forward_graph": "aot_forward",
               "aot_backward_graph": "aot_backward", "aot_inference_graph": "aot_inference"}


def decode_aot_graph(ev: RawEvent, ctx: DecodeContext) -> AotGraph:
    return AotGraph(_AOT_FIELDS[ev.name], _graph(ev))


def decode_post_grad(ev: RawEvent, ctx: DecodeContext) -> PostGradGraph:
    return PostGradGraph(_graph(ev))


def _ir(fusion: str) -> Decoder:
    return lambda ev, ctx: IrText(fusion, _text(ev))


def decode_output_code(ev: RawEvent, ctx: DecodeContext) -> OutputCodeText:
    code = _text(ev)
    filename = _fields(ev, "inductor_output_code").get("filename")
    return OutputCodeText(code, str(filename) if filename is not None else None, graph_kind(code))


def decode_runtime_estimates(ev: RawEvent, ctx: DecodeContext) -> Union[RuntimeEstimates, Partly]:
    """``{"ops": [{"name", "type", "estimated_runtime_ns", "outputs": [{"shape", "stride", "dtype"}]}]}``: one
    lowering's ops in the scheduler's order, each with Inductor's estimate; the number's unit depends on the torch
    that wrote it (``torch_door.inductor.runtime_estimate_unit``). An op with no name (torch writes ``None`` for
    one that has no scheduler node, such as the outputs of a fallback kernel) is kept as ``?``; one with no number for
    its estimate is left out (a made-up number would be summed with the others)."""
    value = _json(ev)
    ops = value.get("ops") if isinstance(value, dict) else None
    if not isinstance(ops, list):
        raise DecodeError(f"no 'ops' list in the runtime estimates ({_excerpt(ev.payload)})")
    scale, unit = torch_door.inductor.runtime_estimate_unit(ctx.torch_version)
    read = Elements(("op", "ops"), len(ops))
    out = []
    for op in ops:
        if not isinstance(op, dict):
            read.left_out("held no fields (not a JSON object)")
            continue
        written = op.get("estimated_runtime_ns")
        if not isinstance(written, (int, float)) or isinstance(written, bool):
            read.left_out("had no number for its estimate")
            continue
        name = op.get("name")
        if not isinstance(name, str) or not name:
            name = read.kept("had no name")
        out.append(OpEstimate(name, str(op.get("type") or "compute"), float(written) * scale, float(written),
                              unit, _outputs(op.get("outputs"), read)))
    return partly(RuntimeEstimates(tuple(out)), read)


def _outputs(outputs: Any, read: Elements) -> tuple[str, ...]:
    if not outputs:
        return ()
    if not isinstance(outputs, list):
        read.part_left_out("had outputs that are not a list", "its outputs left out")
        return ()
    kept = tuple(_tensor_text(o) for o in outputs if isinstance(o, dict))
    if len(kept) < len(outputs):
        read.part_left_out("had an output with no tensor metadata", "that output left out")
    return kept


def _tensor_text(meta: dict) -> str:
    """``float32[8, 64]`` (a shape with no dtype: ``?[8, 64]``)."""
    shape = meta.get("shape")
    dims = ", ".join(str(d) for d in shape) if isinstance(shape, list) else "?"
    return f"{meta.get('dtype') or '?'}[{dims}]"


def _provenance(kind: str) -> Decoder:
    """``node_mappings``: tables (``preToPost``, ``cppCodeToPost``, ...) of a name -> the names it maps to;
    ``stack_traces``: a kernel -> the stack traces of the nodes it computes. An entry that maps to no list of
    strings is left out, the rest of its table kept."""

    def decode(ev: RawEvent, ctx: DecodeContext) -> Union[Provenance, Partly]:
        value = _json(ev)
        if not isinstance(value, dict):
            raise DecodeError(f"provenance is {type(value).__name__}, expected a JSON object")
        if kind == "stack_traces":
            read = Elements(("kernel", "kernels"), len(value))
            return partly(Provenance(kind, _names_table(value, read, "had no list of stack traces")), read)
        tables = {k: v for k, v in value.items() if isinstance(v, dict)}
        read = Elements(("mapping", "mappings"), sum(len(t) for t in tables.values()))
        kept = {k: _names_table(t, read, "mapped to no list of names") for k, t in tables.items()}
        return partly(Provenance(kind, {**value, **kept}), read)

    return decode


def _names_table(table: dict, read: Elements, why: str) -> dict[str, list[str]]:
    """``table``'s entries that map a name to a list of strings; the others counted in ``read``, left out."""
    out = {}
    for key, names in table.items():
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            out[str(key)] = names
        else:
            read.left_out(why)
    return out


# ---- DDPOptimizer ----

def decode_ddp_log(ev: RawEvent, ctx: DecodeContext) -> Optional[DdpLog]:
    """Its INFO line (cap, bucket count) and its warnings; other lines of that logger hold nothing to keep."""
    cap, count, note = parse_log_line(_text(ev))
    if cap is None and note is None:
        return None
    return DdpLog(cap, count, note)


def decode_ddp_split_graph(ev: RawEvent, ctx: DecodeContext) -> DdpSplitGraph:
    return DdpSplitGraph(_graph(ev))


def decode_ddp_split_child(ev: RawEvent, ctx: DecodeContext) -> DdpSplitChild:
    name = _fields(ev, "optimize_ddp_split_child").get("name")
    if not isinstance(name, str):
        raise DecodeError(f"the subgraph's name is {type(name).__name__}, expected a string")
    return DdpSplitChild(name, _graph(ev))


# ---- symbolic shapes (torch/fx/experimental/symbolic_shapes.py) ----

# the files torch's own ``uninteresting_files()`` skips to name the framework frame of a symbol or guard (the
# symbolic-shape machinery, fake tensors, logging, torch/__init__.py, ...): the innermost frame outside them is it
_SHAPE_MACHINERY = ("fx/experimental/symbolic_shapes.py", "fx/experimental/recording.py", "fx/experimental/sym_node.py",
                    "fx/interpreter.py", "fx/_symbolic_trace.py", "torch/__init__.py", "torch/_compile.py",
                    "_dynamo/eval_frame.py", "_inductor/sizevars.py", "_library/custom_ops.py",
                    "_library/fake_impl.py", "_subclasses/meta_utils.py", "_subclasses/fake_tensor.py",
                    "_logging/_internal.py", "_logging/structured.py", "export/_trace.py",
                    "_dynamo/external_utils.py", "/_higher_order_ops/", "/_dynamo/polyfills/", "<string>")


def _shape_fields(ev: RawEvent) -> Optional[dict]:
    """The record's fields; None for a record kept by name only (how captures before this view kept these as
    noise, e.g. the recorded tapes under tests/fixtures): torch itself always writes them."""
    return _fields(ev, ev.name) or None


def _shape_str(m: dict, key: str) -> str:
    value = m.get(key)
    if not isinstance(value, str) or not value:
        raise DecodeError(f"{key!r} is {type(value).__name__}, expected a non-empty string")
    return value


def _shape_locs(m: dict, ctx: DecodeContext) -> tuple[Optional[SourceLoc], Optional[SourceLoc], Elements]:
    """The user's line (the innermost frame of ``user_stack``) and the framework frame (the innermost frame of
    ``stack`` outside the symbolic-shape machinery, as torch picks it), and what was odd in either stack."""
    user, stack = m.get("user_stack") or [], m.get("stack") or []
    if not isinstance(user, list) or not isinstance(stack, list):
        raise DecodeError("'user_stack' or 'stack' is not a list of frames")
    frames = Elements(("frame", "frames"), len(user) + len(stack))
    user_loc = _stack_loc(user[-1], ctx, frames) if user else None
    framework = None
    for frame in reversed(stack):
        loc = _stack_loc(frame, ctx, frames)
        if not any(part in loc.filename.replace("\\", "/") for part in _SHAPE_MACHINERY):
            framework = loc
            break
    return user_loc, framework, frames


ShapeRow = Union[ShapeSymbol, Specialization, ShapeGuard, RealValue]


def _shape_decoder(row: Callable[[dict, Optional[SourceLoc], Optional[SourceLoc]], ShapeRow]) -> Decoder:
    """The decoder of one symbolic-shape record kind: ``row`` reads its fields, given its user line and framework
    frame; the row keeps the compile id's attempt (a restarted trace starts over)."""
    def decode_shape(ev: RawEvent, ctx: DecodeContext) -> Union[ShapeRecord, Partly, None]:
        m = _shape_fields(ev)
        if m is None:
            return None
        user_loc, framework, frames = _shape_locs(m, ctx)
        attempt = ev.compile_id.attempt if ev.compile_id is not None else 0
        return partly(ShapeRecord(row(m, user_loc, framework), attempt), frames)
    decode_shape.__doc__ = row.__doc__
    return decode_shape


def _created(m: dict, user: Optional[SourceLoc], framework: Optional[SourceLoc]) -> ShapeRow:
    """``create_symbol``: a backed symbol, with the input it stands for and its example value."""
    value = None if m.get("val") is None else str(m["val"])
    return ShapeSymbol(_shape_str(m, "symbol"), True, str(m.get("vr") or "?"), _shape_str(m, "source"), value,
                       user, framework)


def _created_unbacked(m: dict, user: Optional[SourceLoc], framework: Optional[SourceLoc]) -> ShapeRow:
    """``create_unbacked_symbol``: a data-dependent value (``.item()``, ``nonzero()``'s length): no source, no value."""
    return ShapeSymbol(_shape_str(m, "symbol"), False, str(m.get("vr") or "?"), None, None, user, framework)


def _specialized(m: dict, user: Optional[SourceLoc], framework: Optional[SourceLoc]) -> ShapeRow:
    """``symbolic_shape_specialization``: a symbol replaced by a constant (``_set_replacement``)."""
    sources = m.get("sources") or []
    if not isinstance(sources, list):
        raise DecodeError(f"'sources' is {type(sources).__name__}, expected a list")
    return Specialization(_shape_str(m, "symbol"), _shape_str(m, "value"), str(m.get("reason") or "?"),
                          tuple(str(s) for s in sources), user, framework)


def _guard_added(m: dict, user: Optional[SourceLoc], framework: Optional[SourceLoc]) -> ShapeRow:
    """``guard_added_fast``: a guard (or, on an unbacked symbol, a runtime assertion) the ShapeEnv recorded."""
    return ShapeGuard(_shape_str(m, "expr"), user, framework)


def _propagated(m: dict, user: Optional[SourceLoc], framework: Optional[SourceLoc]) -> ShapeRow:
    """``propagate_real_tensors``: a question on unbacked symbols torch answered from the real tensors
    (``_log_real_tensor_propagation``, ``size_hint``): ``expr``, ``result``, a framework ``stack`` and no user one."""
    return RealValue(_shape_str(m, "expr"), _shape_str(m, "result"), framework)


DECODERS: dict[str, Decoder] = {
    "dynamo_start": decode_start,
    "dynamo_output_graph": decode_dynamo_graph,
    "dynamo_cpp_guards_str": decode_guards,
    "artifact:dynamo_graph_break_reason": decode_graph_break,
    "artifact:recompile_reasons": decode_recompile_reasons,
    "artifact:dynamo_side_effects": decode_side_effects,
    "compilation_metrics": decode_metrics,
    "bytecode_hook": decode_bytecode_hook,
    "traced_code": decode_traced_code,
    "bytecode_log": decode_bytecode_log,
    "artifact:*_ORIGINAL_BYTECODE": _resume_listing("ORIGINAL"),
    "artifact:*_MODIFIED_BYTECODE": _resume_listing("MODIFIED"),
    **dict.fromkeys(_AOT_FIELDS, decode_aot_graph),
    "artifact:inductor_post_grad_graph": decode_post_grad,
    "inductor_post_grad_graph": decode_post_grad,  # a cache hit re-emits the cached graph under this name
    "ir_pre_fusion": _ir("pre"),
    "ir_post_fusion": _ir("post"),
    "inductor_output_code": decode_output_code,
    "artifact:inductor_provenance_tracking_node_mappings": _provenance("node_mappings"),
    "artifact:inductor_provenance_tracking_kernel_stack_traces": _provenance("stack_traces"),
    "artifact:inductor_runtime_and_tensor_meta": decode_runtime_estimates,
    "ddp_optimizer_log": decode_ddp_log,
    "optimize_ddp_split_graph": decode_ddp_split_graph,
    "optimize_ddp_split_child": decode_ddp_split_child,
    "create_symbol": _shape_decoder(_created),
    "create_unbacked_symbol": _shape_decoder(_created_unbacked),
    "symbolic_shape_specialization": _shape_decoder(_specialized),
    "guard_added_fast": _shape_decoder(_guard_added),
    "propagate_real_tensors": _shape_decoder(_propagated),
}


# caches, AOTInductor's C++, export and newer provenance (``decode_usage``), in the same table
DECODERS.update(USAGE_DECODERS)
# torch's other artifacts: the partitioner's min-cut, kernels' compile times, the collective schedule, ...
DECODERS.update(ARTIFACT_DECODERS)
_WILDCARDS = tuple(key for key in DECODERS if "*" in key)


def decoder_for(name: str) -> Optional[Decoder]:
    """The table's decoder for an event name; ``artifact:*_X`` entries match any frame's ``artifact:<f>_X``."""
    found = DECODERS.get(name)
    if found is None and name.startswith("artifact:"):
        for key in _WILDCARDS:
            if name.endswith(key[len("artifact:*"):]):
                return DECODERS[key]
    return found


class Unknown:
    """``decode``'s answer for an event no decoder knows (it becomes an OtherArtifact row)."""


UNKNOWN = Unknown()


def decode(ev: RawEvent, ctx: DecodeContext) -> Union[Record, Partly, Problem, None, Unknown]:
    """The typed record (``Partly`` read when some of its elements were odd: ``elements.record_of`` gives the
    record); None when the record holds nothing to keep; a Problem when its decoder raised."""
    decoder = decoder_for(ev.name)
    if decoder is None:
        return UNKNOWN
    try:
        return decoder(ev, ctx)
    except Exception as e:  # noqa: BLE001 - one odd record must cost only itself: it is named in the report
        message = describe_error(e, where=not isinstance(e, DecodeError))
        if WHERE in ev.metadata:  # read from a log file: the record's file and line
            message = f"{ev.metadata[WHERE]}: {message}"
        return Problem.of_record("decoder", message, ev.name, ev.compile_id)

