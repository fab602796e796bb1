"""Typed records of one compile id -> one ``Compilation``.

Attempts of one compile id (Dynamo restarts) fold into one Compilation, its
restarts listed. Inductor may lower several graphs per compile id (forward and
backward): each post-grad graph opens a new lowering, and the IR, output code
and provenance records that follow belong to it. Every step that can fail on
odd data runs guarded: a failing step is a Problem naming the compilation, and
whatever the other steps found stays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from . import bytecode as bc
from .compile_id import CompileId
from .inductor_code import match_estimates
from .inductor_code.wrapper import provenance_handles
from .inlined import entry_of, inlined_from_graph, inlined_of, wrapper_entry
from .missing import note_unreadable
from .model import (
    CacheLookup,
    CallSite,
    CollectiveSchedule,
    Compilation,
    DdpOptimizer,
    DdpSubgraph,
    Entry,
    Frame,
    FxGraph,
    InlinedFunction,
    IrDump,
    Kernel,
    OpEstimate,
    OutputCode,
    Problem,
    Restart,
    SourceLoc,
)
from .parse_ddp import buckets_of
from .parse_guards import parse_guards
from .parse_output_code import parse_aoti_kernels, parse_kernels, with_kernel_trace
from .raw import describe_error
from .records import (
    AotGraph,
    AotiCode,
    BytecodeListing,
    BytecodePair,
    CacheRecord,
    CollectiveScheduleRecord,
    DdpLog,
    DdpSplitChild,
    DdpSplitGraph,
    DynamoGraph,
    FrameStart,
    GraphBreakReason,
    GuardTree,
    IrText,
    KernelCompileTimes,
    KernelTrace,
    Metrics,
    MinCutRecord,
    OutputCodeText,
    PostGradGraph,
    Provenance,
    RecompileReasons,
    Record,
    RuntimeEstimates,
    ShapeRecord,
    SideEffects,
    StoreRecord,
    TraceCall,
    TracedCode,
)
from .regions import regions_of
from .shapes import DynamicShapes, RealValue, ShapeGuard, ShapeSymbol, Specialization

UNKNOWN_FRAME = Frame("?", "?", 0)
_FIELDS = frozenset(f.name for f in dataclasses.fields(Compilation))


@dataclass
class Lowering:
    """One graph Inductor lowered: its post-grad graph and what followed it."""

    post_grad: Optional[FxGraph] = None
    ir: list[IrText] = field(default_factory=list)
    outputs: list[OutputCodeText] = field(default_factory=list)
    provenance: dict[str, dict] = field(default_factory=dict)  # kind -> the first table of that kind
    aoti_kernels: Optional[str] = None  # AOTInductor: its kernels' C++ (kept apart from the wrapper)
    kernel_trace: dict[str, dict] = field(default_factory=dict)  # "kernel:handle" -> torch's per-kernel record
    kernel_compile: list[Any] = field(default_factory=list)  # triton_kernel_info's rows
    collective_schedule: Optional[tuple[str, ...]] = None
    estimates: Optional[RuntimeEstimates] = None  # Inductor's estimated runtime of each op it scheduled


class Fold:
    """Accumulates one compile id's records (``add``), then builds its Compilation (``build``)."""

    def __init__(self, compile_id: CompileId) -> None:
        self.compile_id = compile_id
        self.fields: dict[str, Any] = {}  # Compilation fields set straight from one record
        self.metrics: Optional[Metrics] = None
        self.start: Optional[Frame] = None
        self.listings: dict[str, str] = {}
        self.pair: Optional[BytecodePair] = None
        self.guard_tree: Optional[str] = None
        self.lowerings: list[Lowering] = []
        self.problems: list[Problem] = []
        self.unreadable: set[str] = set()  # events of this compile id whose decoder failed
        self.caches: list[tuple[int, CacheLookup]] = []  # (the lowering it served, or -1), in arrival order
        self.stored: list[tuple[int, Any]] = []  # (the lowering, StoredStages): what the stage store did for a hit
        self.key: Optional[str] = None  # the compilation's key when it is not a Dynamo compile id (aoti/0)
        self.ddp: list[Any] = []  # DDPOptimizer's records, in order
        self.calls = _CallStacks()  # Dynamo's trace_call lines -> each collective's call stack
        self.stack: tuple[SourceLoc, ...] = ()  # dynamo_start's stack: where the user's code called into it
        self.traced: tuple[InlinedFunction, ...] = ()  # the code objects Dynamo traced into its graph
        self.first_argument: Optional[str] = None  # a decorator-shaped frame's first argument (TracedCode)
        self.shapes: list[Any] = []  # the dynamic-shapes rows of the latest attempt, in arrival order
        self.shapes_attempt = -1

    # ---- one record ----
    def add(self, record: Record) -> None:
        _ADD[type(record)](self, record)

    def _graph(self, r: DynamoGraph) -> None:
        self.fields["graph"] = r.graph

    def _aot(self, r: AotGraph) -> None:
        self.fields[r.kind] = r.graph

    def _guards(self, r: GuardTree) -> None:
        self.guard_tree = r.text

    def _break(self, r: GraphBreakReason) -> None:
        if "graph_break" not in self.fields:
            self.fields["graph_break"] = r.graph_break  # the first break is the one the user hit
        elif r.graph_break != self.fields["graph_break"] and r.graph_break not in self.fields.get("more_breaks", ()):
            # a second record for the same compilation: often the reason Dynamo then gave up on the frame
            self.fields["more_breaks"] = self.fields.get("more_breaks", ()) + (r.graph_break,)

    def _recompile(self, r: RecompileReasons) -> None:
        self.fields["recompile_reason"] = r.text or None

    def _side_effects(self, r: SideEffects) -> None:
        self.fields["side_effects"] = self.fields.get("side_effects", ()) + r.mutations

    def _metrics(self, r: Metrics) -> None:
        self.metrics = r

    def _start(self, r: FrameStart) -> None:
        self.start, self.stack = r.frame, r.stack

    def _traced(self, r: TracedCode) -> None:
        self.traced = r.functions  # the last graph's (a restart's earlier ones were thrown away)
        self.first_argument = r.first_argument

    def _listing(self, r: BytecodeListing) -> None:
        self.listings[r.which] = r.listing

    def _pair(self, r: BytecodePair) -> None:
        self.pair = r  # the last attempt's code is the one Dynamo installed

    def _post_grad(self, r: PostGradGraph) -> None:
        self.lowerings.append(Lowering(post_grad=r.graph))

    def _lowering(self) -> Lowering:
        if not self.lowerings:
            self.lowerings.append(Lowering())
        return self.lowerings[-1]

    def _ir(self, r: IrText) -> None:
        self._lowering().ir.append(r)

    def _output(self, r: OutputCodeText) -> None:
        self._lowering().outputs.append(r)

    def _provenance(self, r: Provenance) -> None:
        self._lowering().provenance.setdefault(r.kind, r.value)

    def _cache(self, r: CacheRecord) -> None:
        """An FX graph cache hit or miss is written when its lowering is done; a bypass before it starts."""
        lookup = r.lookup
        if lookup.cache != "fx_graph":
            self.caches.append((-1, lookup))
        else:
            self.caches.append((len(self.lowerings) - (0 if lookup.outcome == "bypass" else 1), lookup))

    def _stored(self, r: StoreRecord) -> None:
        """Put just before the hit's own record, so after its lowering's post-grad graph and output code."""
        self.stored.append((len(self.lowerings) - 1, r.stored))

    def _aoti(self, r: AotiCode) -> None:
        low = self._lowering()
        if r.which == "wrapper":
            low.outputs.append(OutputCodeText(r.code, r.filename, "inference", language="cpp"))
        else:
            low.aoti_kernels = r.code

    def _kernel_trace(self, r: KernelTrace) -> None:
        self._lowering().kernel_trace.update(r.kernels)

    def _estimates(self, r: RuntimeEstimates) -> None:
        self._lowering().estimates = r

    def _ddp(self, r: Any) -> None:
        self.ddp.append(r)

    def _min_cut(self, r: MinCutRecord) -> None:
        self.fields["min_cut"] = r.min_cut  # the last knapsack is the one whose choice stands

    def _kernel_compile(self, r: KernelCompileTimes) -> None:
        self._lowering().kernel_compile.extend(r.kernels)

    def _collective_schedule(self, r: CollectiveScheduleRecord) -> None:
        self._lowering().collective_schedule = r.ops

    def _trace_call(self, r: TraceCall) -> None:
        self.calls.add(r)

    def _shape(self, r: ShapeRecord) -> None:
        """A restarted trace (a higher attempt) makes its ShapeEnv anew: its rows replace the last attempt's."""
        if r.attempt != self.shapes_attempt:
            self.shapes_attempt, self.shapes = r.attempt, []
        if r.row not in self.shapes:  # torch writes the same guard again when a line is traced again
            self.shapes.append(r.row)

    # ---- the compilation ----
    def build(self) -> Compilation:
        """Each step guarded; if building the Compilation itself fails, a smaller one keeps what was found."""
        frame = self._step("frame", self._frame) or UNKNOWN_FRAME
        self._step("metrics", self._apply_metrics)
        self._step("bytecode", lambda: self._bytecodes(frame))
        self._step("guards", lambda: self._apply_guards(frame))
        self._step("lowerings", self._apply_lowerings)
        self._step("regions", self._apply_regions)
        self._step("ddp_optimizer", self._apply_ddp)
        self._step("call_sites", self._apply_call_sites)
        self._step("inlined", lambda: self._apply_inlined(frame))
        self._step("dynamic_shapes", self._apply_shapes)
        restarts = self._step("restarts", self._restarts) or ()
        try:
            comp = Compilation(compile_id=self.key or self.compile_id.key, frame=frame, status=self._status(),
                               restarts=restarts, **self.fields)
            return note_unreadable(comp, self.unreadable)
        except Exception as e:  # noqa: BLE001 - a field torch filled oddly: keep the others
            self._problem("build", e)
            kept = {k: v for k, v in self.fields.items() if k in _FIELDS and k not in ("compile_id", "frame")}
            return Compilation(compile_id=self.key or self.compile_id.key, frame=frame, status=self._status(),
                               **kept)

    def _step(self, name: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - one step's failure costs that step only
            self._problem(name, e)
            return None

    def _problem(self, step: str, error: BaseException, event: Optional[str] = None) -> None:
        self.problems.append(Problem(f"fold: {step}", describe_error(error), event, self.key or self.compile_id.key))

    def _frame(self) -> Frame:
        if self.metrics is not None and self.metrics.frame is not None:
            return self.metrics.frame
        if self.pair is not None:
            b = self.pair.original
            return Frame(b.name, b.filename, b.firstlineno)
        return self.start or UNKNOWN_FRAME

    def _apply_shapes(self) -> None:
        if self.shapes:
            self.fields["dynamic_shapes"] = DynamicShapes(
                symbols=tuple(r for r in self.shapes if isinstance(r, ShapeSymbol)),
                specializations=tuple(r for r in self.shapes if isinstance(r, Specialization)),
                guards=tuple(r for r in self.shapes if isinstance(r, ShapeGuard)),
                real_values=tuple(r for r in self.shapes if isinstance(r, RealValue)))

    def _restarts(self) -> tuple[Restart, ...]:
        reasons = self.metrics.restart_reasons if self.metrics else ()
        return tuple(Restart(i, r) for i, r in enumerate(reasons))

    def _apply_metrics(self) -> None:
        m = self.metrics
        if m is None:
            return
        self.fields["metrics"] = dict(m.values)
        if m.compile_time_s is not None:
            self.fields["compile_time_s"] = m.compile_time_s
        if m.failure:
            self.fields["failure"] = m.failure

    def _bytecodes(self, frame: Frame) -> None:
        if self.pair is not None:
            self.fields["original_bytecode"] = self.pair.original
            self.fields["rewritten_bytecode"] = self.pair.rewritten
            return
        for which, name in (("ORIGINAL", "original_bytecode"), ("MODIFIED", "rewritten_bytecode")):
            if which in self.listings:
                self.fields[name] = bc.from_listing(frame.name, frame.filename, frame.lineno, self.listings[which])

    def _apply_guards(self, frame: Frame) -> None:
        if self.guard_tree:
            self.fields["guard_tree"] = self.guard_tree
            self.fields["guards"] = parse_guards(self.guard_tree, frame.filename)

    def _apply_lowerings(self) -> None:
        if not self.lowerings:
            self.fields["caches"] = tuple(lookup for _, lookup in self.caches)
            return
        pre: list[IrDump] = []
        post: list[IrDump] = []
        outputs: list[OutputCode] = []
        kernels: dict[tuple[str, str], Kernel] = {}
        kinds = self._fallback_kinds(len(self.lowerings))
        node_map: dict[str, tuple[str, ...]] = {}
        compiled: list[Any] = []
        schedules: list[CollectiveSchedule] = []
        estimates: list[OpEstimate] = []
        for low, fallback in zip(self.lowerings, kinds, strict=True):
            kind = next((o.graph_kind for o in low.outputs[:1] if o.graph_kind), None) or fallback
            if low.post_grad is not None:
                self.fields["post_grad_graph_backward" if kind == "backward" else "post_grad_graph"] = low.post_grad
            pre += [IrDump(kind, r.text) for r in low.ir if r.fusion == "pre"]
            post += [IrDump(kind, r.text) for r in low.ir if r.fusion == "post"]
            for out in low.outputs:
                outputs.append(OutputCode(kind, out.code, out.filename,
                                          _handles(low.provenance.get("node_mappings"), out.code), out.language))
                for k in (self._kernels(out, kind, low.provenance) if out.language == "python" else ()):
                    kernels.setdefault((k.graph_kind, k.name), k)
            if low.aoti_kernels:
                for k in self._aoti_kernels(low, kind):
                    kernels.setdefault((k.graph_kind, k.name), k)
            if low.kernel_trace:
                for key, k in list(kernels.items()):
                    if k.graph_kind == kind:
                        kernels[key] = with_kernel_trace(k, low.kernel_trace)
            node_map.update(_pre_to_post(low.provenance.get("node_mappings")))
            compiled += [dataclasses.replace(k, graph_kind=kind) for k in low.kernel_compile]
            if low.collective_schedule is not None:
                schedules.append(CollectiveSchedule(kind, low.collective_schedule))
            if low.estimates is not None:
                estimates += _estimated(low, kind, {k.name for k in kernels.values() if k.graph_kind == kind})
        self.fields["ir_pre_fusion"] = tuple(pre) or None
        self.fields["ir_post_fusion"] = tuple(post) or None
        self.fields["output_code"] = tuple(outputs) or None
        self.fields["kernels"] = tuple(kernels.values())
        if node_map:
            self.fields["node_map"] = node_map
        self.fields["kernel_compile"] = tuple(compiled)
        self.fields["collective_schedule"] = tuple(schedules)
        if estimates:
            self.fields["op_estimates"] = tuple(estimates)
        self.fields["caches"] = tuple(self._cache_lookups(kinds))
        if self.stored:
            self.fields["stored"] = tuple(dataclasses.replace(s, graph_kind=self._kind_of(i, kinds))
                                          for i, s in self.stored)

    def _apply_regions(self) -> None:
        f = self.fields
        found = regions_of(f.get("graph"), tuple(f.get(k) for k in ("aot_inference", "aot_forward", "aot_joint")),
                           f.get("output_code") or (), f.get("graph_break"))
        if found:
            f["regions"] = found

    def _cache_lookups(self, kinds: list[str]) -> list[CacheLookup]:
        """Each lookup with the lowering it served named (forward, backward, inference)."""
        return [dataclasses.replace(lookup, graph_kind=self._kind_of(index, kinds))
                if 0 <= index < len(self.lowerings) else lookup for index, lookup in self.caches]

    def _kind_of(self, index: int, kinds: list[str]) -> str:
        """The graph kind of lowering ``index`` (its output code's, else the fallback); "" for none."""
        if not 0 <= index < len(self.lowerings):
            return ""
        low = self.lowerings[index]
        return next((o.graph_kind for o in low.outputs[:1] if o.graph_kind), None) or kinds[index]

    def _aoti_kernels(self, low: Lowering, kind: str) -> tuple[Kernel, ...]:
        try:
            return parse_aoti_kernels(low.aoti_kernels or "", kind, low.provenance)
        except Exception as e:  # noqa: BLE001 - the wrapper stays; only the kernel table is lost
            self._problem("kernels", e, "graph_dump")
            return ()

    def _apply_inlined(self, frame: Frame) -> None:
        guards = self.fields.get("guards") or ()
        if self.traced:
            self.fields.update(inlined=inlined_of(self.traced),
                               entry=entry_of(self.traced, self.stack, self.first_argument, guards))
            return
        if self.fields.get("graph") is not None:  # no tracing context was read (a trace from a file)
            code = self.fields.get("original_bytecode")
            self.fields["inlined"] = inlined_from_graph(self.fields["graph"], frame, code.source if code else None)
        # no graph written (a break before any tensor op): a decorator's wrapper is still named by its forward,
        # a method by its class (``LongformerForMaskedLM.forward``, not ``forward``)
        pair = self.pair
        entry = wrapper_entry(frame, pair.first_argument if pair else None, guards)
        qualname = pair.qualname if pair is not None else None
        if entry is None and qualname and qualname != frame.name and "<locals>" not in qualname:
            entry = Entry(qualname, frame.filename, frame.lineno)
        if entry is not None:
            self.fields["entry"] = entry

    def _apply_ddp(self) -> None:
        """DDPOptimizer's log line, split graph and subgraphs -> one DdpOptimizer with its buckets."""
        if not self.ddp:
            return
        logs = [r for r in self.ddp if isinstance(r, DdpLog)]
        counted = next((r for r in logs if r.bucket_count is not None), None)
        parent = next((r.graph for r in self.ddp if isinstance(r, DdpSplitGraph)), None)
        subs = tuple(DdpSubgraph(r.name, r.graph) for r in self.ddp if isinstance(r, DdpSplitChild))
        self.fields["ddp_optimizer"] = DdpOptimizer(
            bucket_cap_bytes=counted.bucket_cap_bytes if counted else None,
            bucket_count=counted.bucket_count if counted else None, split_graph=parent, subgraphs=subs,
            buckets=buckets_of(subs), notes=tuple(r.note for r in logs if r.note))

    def _apply_call_sites(self) -> None:
        if self.calls.sites:
            self.fields["call_sites"] = tuple(self.calls.sites)

    def _kernels(self, out: OutputCodeText, kind: str, provenance: dict[str, dict]) -> tuple[Kernel, ...]:
        try:
            return parse_kernels(out.code, kind, provenance)
        except Exception as e:  # noqa: BLE001 - the output code stays; only its kernel table is lost
            self._problem("kernels", e, "inductor_output_code")
            return ()

    def _fallback_kinds(self, n: int) -> list[str]:
        """Lowerings whose output code names no AOT kind: inference, or forward then backward."""
        if self.fields.get("aot_inference") is not None:
            return ["inference"] * n
        return (["forward", "backward"] + ["graph"] * n)[:n]

    def _status(self) -> str:
        if self.fields.get("failure"):
            return "failed"
        if self.fields.get("graph") is not None or (self.key is not None and self.fields.get("output_code")):
            return "compiled"
        if self.fields.get("rewritten_bytecode") is not None:
            return "no_graph"
        return "skipped"


class _CallStacks:
    """Dynamo's ``trace_call`` lines of one compilation -> the call stack of each collective node it made.

    An inlined call made from a frame at inline depth d opens depth d + 1; an FX call at depth D was made
    inside the calls last made from depths 0 .. D - 1 (a later call from a shallower depth has replaced the
    deeper ones). A restarted trace (a higher attempt) starts over.
    """

    def __init__(self) -> None:
        self.attempt = -1
        self.frames: list[Any] = []  # frames[d]: where the frame at depth d made its current call
        self.sites: list[CallSite] = []

    def add(self, r: TraceCall) -> None:
        if r.attempt != self.attempt:
            self.attempt, self.frames, self.sites = r.attempt, [], []
        if r.kind == "inlined":
            del self.frames[r.depth:]
            self.frames += [None] * (r.depth - len(self.frames))
            self.frames.append(r.loc)
        elif r.op is not None:
            outer = tuple(f for f in self.frames[:r.depth] if f is not None)
            self.sites.append(CallSite(r.op, r.name, outer + (r.loc,)))


def _estimated(low: Lowering, kind: str, kernels: set[str]) -> list[OpEstimate]:
    """The lowering's estimated ops, each with its graph kind and the wrapper call it became."""
    ops = low.estimates.ops if low.estimates is not None else ()
    code = next((o.code for o in low.outputs if o.language == "python"), None)
    calls = match_estimates([op.name for op in ops], code, kernels) if code else [None] * len(ops)
    return [dataclasses.replace(op, graph_kind=kind, kernel=call) for op, call in zip(ops, calls)]


def _pre_to_post(mappings: Any) -> dict[str, tuple[str, ...]]:
    """torch's pre-grad node -> post-grad nodes map (``preToPost``): what each node was lowered to."""
    table = mappings.get("preToPost") if isinstance(mappings, dict) else None
    if not isinstance(table, dict):
        return {}
    return {str(k): tuple(str(n) for n in v) for k, v in table.items() if isinstance(v, list)}


def _handles(mappings: Any, code: str) -> dict[str, tuple[str, ...]]:
    """torch's kernel -> post-grad nodes map, for the debug handles this output module names."""
    table = mappings.get("cppCodeToPost") if isinstance(mappings, dict) else None
    if not isinstance(table, dict):
        return {}
    return {key: tuple(str(n) for n in table[key]) for key in provenance_handles(code)
            if isinstance(table.get(key), list)}


_ADD: dict[type, Callable[[Fold, Any], None]] = {
    DynamoGraph: Fold._graph, AotGraph: Fold._aot, GuardTree: Fold._guards, GraphBreakReason: Fold._break,
    RecompileReasons: Fold._recompile, Metrics: Fold._metrics, FrameStart: Fold._start,
    BytecodeListing: Fold._listing, BytecodePair: Fold._pair, PostGradGraph: Fold._post_grad,
    IrText: Fold._ir, OutputCodeText: Fold._output, Provenance: Fold._provenance,
    SideEffects: Fold._side_effects,
    DdpLog: Fold._ddp, DdpSplitGraph: Fold._ddp, DdpSplitChild: Fold._ddp,
    CacheRecord: Fold._cache, AotiCode: Fold._aoti, KernelTrace: Fold._kernel_trace,
    MinCutRecord: Fold._min_cut, KernelCompileTimes: Fold._kernel_compile,
    CollectiveScheduleRecord: Fold._collective_schedule, TraceCall: Fold._trace_call,
    RuntimeEstimates: Fold._estimates, StoreRecord: Fold._stored,
    TracedCode: Fold._traced, ShapeRecord: Fold._shape,
}
