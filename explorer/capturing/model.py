"""The captured report as plain data.

Everything torch.compile showed us is turned into these frozen dataclasses of
strings and numbers at capture time, so a report can outlive the process, be
written to JSON and read back, and be rendered without torch being imported.
No live torch object is ever stored here. The report's JSON (``explorer.report``)
is public: README.md documents it and ``explorer/schema/report.schema.json`` pins it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..serial import from_jsonable, to_jsonable
from .artifacts import CallSite, CollectiveSchedule, KernelCompileInfo, MinCut, MinCutCandidate
from .compile_id import CompileId, CompileKey
from .graph_model import FxGraph, FxNode, SourceLoc
from .usage import (
    CacheLookup,
    Decomposition,
    ExportedProgram,
    ExportSpec,
    FilteredGuard,
    PackageFile,
    RangeConstraint,
    Region,
    StoredStages,
)

__all__ = ["CacheLookup", "CallSite", "CollectiveSchedule", "Decomposition", "ExportSpec", "ExportedProgram",
           "FilteredGuard", "FxGraph", "FxNode", "KernelCompileInfo", "MinCut", "MinCutCandidate", "PackageFile",
           "RangeConstraint", "Region", "SourceLoc", "StoredStages"]  # re-exported: the report model is one import


@dataclass(frozen=True)
class Frame:
    name: str
    filename: str
    lineno: int  # first line of the code object


@dataclass(frozen=True)
class Instruction:
    """One bytecode instruction; ``line`` links it to the user's source line."""

    offset: int
    opname: str
    argrepr: str
    line: Optional[int]
    is_jump_target: bool = False


@dataclass(frozen=True)
class Bytecode:
    name: str
    filename: str
    firstlineno: int
    listing: str  # `dis` output with source line numbers
    instructions: tuple[Instruction, ...] = ()
    source: Optional[str] = None  # the function's source text, when it is known
    decompiled: Optional[str] = None  # readable Python for rewritten code
    decompile_error: Optional[str] = None  # why `decompiled` is missing
    # where `source` came from: "code" (the code object's file, as it ran), or for a trace read from a file (no
    # code objects): "file" (the recorded path, as it is on this machine now), "quoted" (only the lines it quotes)
    source_origin: str = "code"


@dataclass(frozen=True)
class InlinedFunction:
    """A function Dynamo traced into a compiled frame's graph instead of calling it: a module's ``forward``, a helper.

    Once per code object however many times it was inlined (``calls``: once per layer of a stack of blocks). Its
    lines are what the graph's stack traces name, so the views show them with the frame's own and link them
    through the chain."""

    name: str  # qualified where Python says (Block.forward; 3.10: the code object's name)
    filename: str
    firstlineno: int
    source: Optional[str] = None  # its source text, read when captured
    calls: int = 1  # how many times Dynamo inlined it into this graph


@dataclass(frozen=True)
class Entry:
    """What a compilation compiled, named as the user knows it (``Compilation.label``).

    ``name`` is the frame's qualified name (``Decoder.forward``). When torch.compile was given a torch.nn module
    (``Sequential``, ``Linear``) Dynamo compiles torch's own wrapper frame (``inner`` in
    ``torch/_dynamo/external_utils.py``) that calls it: then ``wrapper`` is True, ``name`` and its place are the
    module's ``forward`` the wrapper called, and ``called_at`` is the user's line that ran the compiled module;
    the frame stays ``Compilation.frame``. When the frame is a decorator's wrapper around a module's ``forward``
    (``@deprecate_kwarg(...)`` on ``LlamaForCausalLM.forward``: Dynamo compiles the wrapper and inlines the
    forward), ``decorated`` is True, ``name`` and its place are that ``forward``'s and ``module_source`` is the
    wrapper's argument that holds the module (``L['args'][0]``): module paths start there, as at ``self``."""

    name: str
    filename: str
    lineno: int
    wrapper: bool = False
    called_at: Optional[SourceLoc] = None
    decorated: bool = False
    module_source: Optional[str] = None


@dataclass(frozen=True)
class Guard:
    kind: str  # TENSOR_MATCH, ID_MATCH, ...
    code: str  # the check itself
    subject: Optional[str] = None  # the guarded value, e.g. L['x']
    source: Optional[str] = None  # the user source line that created the guard
    filename: Optional[str] = None
    lineno: Optional[int] = None
    function: Optional[str] = None


@dataclass(frozen=True)
class GraphBreak:
    reason: str  # one line, plain words
    filename: Optional[str] = None
    lineno: Optional[int] = None
    source_line: Optional[str] = None
    explanation: Optional[str] = None
    hints: tuple[str, ...] = ()
    gb_code: Optional[str] = None  # e.g. GB0059
    doc_url: Optional[str] = None
    user_traceback: tuple[SourceLoc, ...] = ()
    detail: str = ""  # torch's full text, minus its internal traceback


@dataclass(frozen=True)
class Restart:
    """Dynamo threw away a trace and started the frame again (attempt N+1)."""

    attempt: int
    reason: str


@dataclass(frozen=True)
class Kernel:
    name: str
    language: str  # cpp | triton | halide | cuda | ...
    source: str
    graph_kind: str = ""  # forward | backward | inference
    source_nodes: tuple[str, ...] = ()  # FX nodes it computes
    aten_ops: tuple[str, ...] = ()
    user_lines: tuple[SourceLoc, ...] = ()
    wrapper_lineno: Optional[int] = None  # where it is defined in the output code
    # "built" (compiled during this capture) or "loaded" (its binary came from torch's code cache, or in a warm
    # capture from a graph cache's bundle); None: not known
    build: Optional[str] = None
    # torch's own ordered ops of the kernel, where it writes them (the per-kernel trace, kernel_information.json)
    op_trace: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutputCode:
    graph_kind: str
    code: str
    filename: Optional[str] = None
    # torch's provenance for the calls in this module: "kernel:handle" (the wrapper's
    # "[Provenance debug handles]" comment) -> the post-grad nodes it computes; extern calls too
    provenance: dict[str, tuple[str, ...]] = field(default_factory=dict)
    language: str = "python"  # the wrapper's language: python (torch.compile), cpp (AOTInductor's C++ wrapper)

    def calls(self) -> list[tuple[str, tuple[str, ...]]]:
        """(kernel name, the post-grad nodes it computes) per provenance entry, in the order of torch's debug
        handles: the ``kernel:handle`` keys are torch's strings, read here so nothing above the capture splits them."""
        def order(key: str) -> tuple[int, str]:
            tail = key.rpartition(":")[2]
            return (int(tail), key) if tail.isdigit() else (1 << 30, key)

        return [(key.rpartition(":")[0] or key, self.provenance[key]) for key in sorted(self.provenance, key=order)]


@dataclass(frozen=True)
class IrDump:
    graph_kind: str
    text: str


@dataclass(frozen=True)
class OtherArtifact:
    """Structured-trace records no decoder turned into a stage: listed, never dropped without a word.

    One row per (event name, compile id): how many records came and their payload size.
    """

    name: str  # the event name, or "artifact:<name>" for torch's named artifacts
    compile_id: Optional[CompileKey] = None
    count: int = 1
    size: int = 0  # characters of payload, summed
    why: str = "no decoder for this event in this explorer version"


@dataclass(frozen=True)
class Finding:
    """Where torch.compile behaved differently from a plain run of the same code.

    Not an explorer failure: what the user came to learn (a frame Dynamo could
    not trace and ran as plain Python, Inductor's random numbers differing from
    eager's). Shown next to the stage it concerns.
    """

    message: str
    stage: Optional[str] = None  # a stage id of ``explorer.stages``; None: the run as a whole (the header)
    compile_id: Optional[CompileKey] = None  # the compilation's key (``CaptureData.compilation_key``)
    lineno: Optional[int] = None  # the user line (the cell's line) it concerns, if one
    hint: Optional[str] = None  # what the user can do about it


@dataclass(frozen=True)
class Problem:
    """Something the explorer could not do, shown in every output (never a silent except).

    ``where`` names the step (a decoder, the recorder, timing, an output file);
    ``event`` and ``compile_id`` name the record it concerns, when there is one, and ``attempt`` which of
    Dynamo's restarts of that compilation it came from (0: the first).
    """

    where: str
    message: str
    event: Optional[str] = None
    compile_id: Optional[CompileKey] = None
    attempt: int = 0

    @classmethod
    def of(cls, where: str, error: BaseException | str) -> Problem:
        """A step's failure: its exception as ``Type: message``, or words already written."""
        return cls(where, error if isinstance(error, str) else f"{type(error).__name__}: {error}")

    @classmethod
    def of_record(cls, where: str, message: str, event: Optional[str], compile_id: Optional[CompileId]) -> Problem:
        """A record that could not be read: its compilation's key, and the attempt it came from."""
        if compile_id is None:
            return cls(where, message, event)
        return cls(where, message, event, CompileKey(compile_id.key), compile_id.attempt)

    def one_line(self) -> str:
        """``decoder [0/0_1] dynamo_output_graph: DecodeError: ...``: the step, then ``detail``."""
        return f"{self.where} {self.detail()}"

    def detail(self) -> str:
        """``[0/0_1] dynamo_output_graph: DecodeError: ...``: the record (as torch prints a restart) and the
        message's first line; what follows the views' sentence for the step (``present.words.could_not``)."""
        cid = f"{self.compile_id}_{self.attempt}" if self.attempt else self.compile_id
        about = " ".join(x for x in (f"[{cid}]" if cid else "", self.event or "") if x)
        message = self.message.splitlines()[0] if self.message else ""
        return f"{about}: {message}" if about else message


@dataclass(frozen=True)
class PartialRead:
    """A record read in part: some of its elements were not in a form the explorer reads (torch wrote ``None`` for
    the name of an op that has no node), and each was kept with a placeholder or left out (``capturing.elements``).

    Not a ``Problem``: nothing failed, and the rest of the record is there. ``message`` says in one line what was
    odd and what was kept (``1 of 212 ops had no name: kept as `?```); the views show it beside the data.
    """

    event: str  # the record, as ``Problem.event`` names it: artifact:inductor_runtime_and_tensor_meta
    message: str
    compile_id: Optional[CompileKey] = None
    attempt: int = 0

    @classmethod
    def of_record(cls, event: str, message: str, compile_id: Optional[CompileId]) -> PartialRead:
        if compile_id is None:
            return cls(event, message)
        return cls(event, message, CompileKey(compile_id.key), compile_id.attempt)


@dataclass(frozen=True)
class Mutation:
    """One object the compiled code mutates, as Dynamo's ``dynamo_side_effects`` artifact names it.

    ``origin`` says whether the object existed before the call: ``created`` (Dynamo made it during the
    traced call: "created in torch.compile region", or no source at all), ``existing`` (reached through
    a source: a global, an argument, an attribute of one), ``cell`` (a closure cell of the frame).
    """

    type_name: str  # dict, DynamicCache, CompileableContextVar, ...
    origin: str  # created | existing | cell | other
    source: Optional[str] = None  # Dynamo's name for it: L['kwargs'], G['mod']._active_collector
    locations: tuple[SourceLoc, ...] = ()  # the innermost frame of each mutation (file, line, code)


@dataclass(frozen=True)
class DdpBucket:
    """One of DDPOptimizer's buckets: the parameters one subgraph uses, whose gradients DDP all-reduces together.

    ``params`` are named as in the model DDP wraps (``layers.0.weight``), read back from Dynamo's
    placeholder names; ``size_bytes`` is what DDPOptimizer counts against the cap (their storage).
    """

    subgraph: str  # submod_0, submod_1, ... (the split graph calls them in this order)
    size_bytes: int
    params: tuple[str, ...] = ()
    param_bytes: tuple[int, ...] = ()


@dataclass(frozen=True)
class DdpSubgraph:
    """One graph DDPOptimizer cut the Dynamo graph into; each is compiled by the backend on its own."""

    name: str
    graph: FxGraph


@dataclass(frozen=True)
class DdpOptimizer:
    """DDPOptimizer on one Dynamo graph (``torch._dynamo.config.optimize_ddp``, a DDP-wrapped module).

    It cuts the graph where DDP's gradient buckets end, so each bucket's all-reduce can start while
    backward still runs: a split, not a graph break (one frame, one set of guards). ``bucket_count``
    and ``bucket_cap_bytes`` come from its log line; ``split_graph`` and ``subgraphs`` from the
    structured trace (written only when it did split).
    """

    bucket_cap_bytes: Optional[int] = None
    bucket_count: Optional[int] = None
    split_graph: Optional[FxGraph] = None  # the parent: calls submod_0, submod_1, ... in order
    subgraphs: tuple[DdpSubgraph, ...] = ()
    buckets: tuple[DdpBucket, ...] = ()
    notes: tuple[str, ...] = ()  # DDPOptimizer's own warnings (buckets grown past the cap)

    @property
    def split(self) -> bool:
        return len(self.subgraphs) > 1


@dataclass(frozen=True)
class OpEstimate:
    """One op Inductor scheduled, with the runtime its cost model estimated for it.

    From ``inductor_runtime_and_tensor_meta`` (written when ``torch._inductor.config.log_tlparse`` is on; the
    capture turns it on). Inductor's cost model covers GPUs: it estimates 0 for every op off the GPU.
    """

    name: str  # the scheduler node: op3, op2_op3_op4 (fused), extern_kernels.mm, a collective
    kind: str  # "compute" | "collective"
    estimate_s: float  # seconds
    written: float  # the number torch wrote (under "estimated_runtime_ns")
    unit: str  # what that number was read as: "ms" (torch 2.10 on) or "ns" (before), and why
    outputs: tuple[str, ...] = ()  # its outputs: "float32[8, 64]"
    graph_kind: str = ""  # forward | backward | inference: the lowering it belongs to
    kernel: Optional[str] = None  # the wrapper call it became (a kernel, an extern), matched in call order


@dataclass(frozen=True)
class Phase:
    """One phase of a compilation's compile time, from torch's chromium events (``capturing.phases``)."""

    name: str  # torch's span: entire_frame_compile, backend_compile, inductor_compile, GraphLowering.codegen, ...
    depth: int  # 0: outermost; a phase's children follow it, one deeper
    seconds: float  # summed over the times it ran (``count``)
    count: int = 1


@dataclass(frozen=True)
class CacheEntry:
    """One entry of a frame's cache: what Dynamo's frame evaluator runs for a call whose guards it passes."""

    compile_id: Optional[CompileKey]  # the compilation that made it; None where this torch names none
    code: str  # the name of the code object it runs in the frame's place
    backend: str  # the backend it was compiled for: only a call under an equal backend tries it


@dataclass(frozen=True)
class FrameCache:
    """The cache entries Dynamo keeps on a frame's code object (``co_extra``), read live during the capture: the
    order is the frame evaluator's, which tries them most recently used first (a new entry goes in front, and so
    does an entry whose guards passed)."""

    entries: tuple[CacheEntry, ...]
    read_at: str  # when it was read: "when the capture ended", "before the cell's entries were dropped"
    recompile_limit: Optional[int] = None  # torch._dynamo.config.recompile_limit then


@dataclass(frozen=True)
class Compilation:
    compile_id: CompileKey
    frame: Frame
    status: str  # compiled | no_graph | failed | skipped
    original_bytecode: Optional[Bytecode] = None
    rewritten_bytecode: Optional[Bytecode] = None
    graph: Optional[FxGraph] = None
    guards: tuple[Guard, ...] = ()
    guard_tree: Optional[str] = None
    recompile_reason: Optional[str] = None
    graph_break: Optional[GraphBreak] = None
    # further graph-break records torch logged for this compilation (e.g. why Dynamo then gave up on the frame)
    more_breaks: tuple[GraphBreak, ...] = ()
    restarts: tuple[Restart, ...] = ()
    aot_joint: Optional[FxGraph] = None
    aot_forward: Optional[FxGraph] = None
    aot_backward: Optional[FxGraph] = None
    aot_inference: Optional[FxGraph] = None
    post_grad_graph: Optional[FxGraph] = None
    post_grad_graph_backward: Optional[FxGraph] = None
    ir_pre_fusion: Optional[tuple[IrDump, ...]] = None
    ir_post_fusion: Optional[tuple[IrDump, ...]] = None
    output_code: Optional[tuple[OutputCode, ...]] = None
    kernels: tuple[Kernel, ...] = ()
    compile_time_s: Optional[float] = None
    metrics: dict[str, Any] = field(default_factory=dict)
    failure: Optional[str] = None  # why Dynamo or the backend failed, if it did
    missing: dict[str, str] = field(default_factory=dict)  # stage -> why it is null
    side_effects: tuple[Mutation, ...] = ()  # objects the compiled code mutates (Dynamo's dynamo_side_effects)
    ddp_optimizer: Optional[DdpOptimizer] = None  # DDPOptimizer's buckets and split of this graph (DDP only)
    # ---- how real programs use torch.compile (capturing/usage.py) ----
    origin: str = "dynamo"  # dynamo | aoti (an AOTInductor compile of an exported program: no Dynamo frame)
    export_graph: Optional[FxGraph] = None  # aoti: the exported program's graph it was compiled from
    caches: tuple[CacheLookup, ...] = ()  # the caches torch consulted for it, and what came of each
    stored: tuple[StoredStages, ...] = ()  # what the explorer's stage store gave back (or lacked) for its hits
    regions: tuple[Region, ...] = ()  # nested_compile_region, torch.compiler.disable, nonstrict_trace parts
    guard_filter: Optional[str] = None  # the guard_filter_fn it was compiled with, by name
    filtered_guards: tuple[FilteredGuard, ...] = ()  # every guard that filter saw, kept or dropped
    stance: Optional[str] = None  # torch.compiler.set_stance in force when Dynamo started it
    node_map: dict[str, tuple[str, ...]] = field(default_factory=dict)  # torch's pre-grad node -> post-grad nodes
    # ---- torch's other artifacts, where it wrote them (capturing/artifacts.py) ----
    min_cut: Optional[MinCut] = None  # the partitioner's knapsack (AOT_PARTITIONER_DEBUG=1, a memory budget < 1)
    kernel_compile: tuple[KernelCompileInfo, ...] = ()  # each Triton kernel's compile time (triton_kernel_info)
    collective_schedule: tuple[CollectiveSchedule, ...] = ()  # per lowering: its collectives in Inductor's order
    call_sites: tuple[CallSite, ...] = ()  # where user code called what made each collective (Dynamo's trace_call)
    # ---- Inductor's cost model ----
    op_estimates: tuple[OpEstimate, ...] = ()  # Inductor's estimated runtime of each op it scheduled
    # ---- the code Dynamo traced (capturing/inlined.py) ----
    inlined: tuple[InlinedFunction, ...] = ()  # every function inlined into the graph, once each, in tracing order
    entry: Optional[Entry] = None  # what it compiled, named as the user knows it (torch's wrapper frame seen through)
    # ---- a TORCH_TRACE's chromium events (explorer open) ----
    phases: tuple[Phase, ...] = ()  # compile time per phase (a TORCH_TRACE's chromium events: explorer open)
    # ---- the runtime: its frame's cache entries, read live (capturing/frame_cache.py; None from a trace) ----
    frame_cache: Optional[FrameCache] = None

    @property
    def cid(self) -> Optional[CompileId]:
        """Its compile id as a value (ordered, its frame and generation); None for a lowering outside Dynamo."""
        return CompileId.parse(self.compile_id)

    @property
    def is_resume(self) -> bool:
        return self.frame.name.startswith("torch_dynamo_resume_in_")

    @property
    def name(self) -> str:
        """What it compiled, by name: the module's forward for torch's wrapper frame or a decorator's wrapper around
        it, else the frame's (qualified)."""
        return self.entry.name if self.entry is not None else self.frame.name

    @property
    def label(self) -> str:
        return self.label_at(_place)

    def label_at(self, place: Callable[[str, int], str]) -> str:
        """``0/0 Model.forward (model.py:12)``, each place written by ``place(file, line)`` (a view names a
        notebook cell's file by its cell: ``cell [5], line 2``)."""
        e = self.entry
        if e is not None and e.decorated:  # its own forward's line: the decorator's wrapper is a detail
            return f"{self.compile_id} {e.name} ({_basename(e.filename)}:{e.lineno})"
        if e is not None and e.wrapper:
            where = (f"called at {place(e.called_at.filename, e.called_at.lineno or 0)}" if e.called_at
                     else place(e.filename, e.lineno))
            return f"{self.compile_id} {e.name} ({where})"
        return f"{self.compile_id} {self.name} ({place(self.frame.filename, self.frame.lineno)})"

    @property
    def frame_text(self) -> str:
        """torch's frame as a detail: ``inner (external_utils.py:67)``."""
        return f"{self.frame.name} ({_basename(self.frame.filename)}:{self.frame.lineno})"


@dataclass(frozen=True)
class CaptureData:
    torch_version: str
    device: str
    python_version: str
    compilations: tuple[Compilation, ...] = ()
    wall_time_s: Optional[float] = None
    notes: tuple[str, ...] = ()  # what the capture could not do, in words
    error: Optional[str] = None  # the user code's exception, "Type: message"
    other_artifacts: tuple[OtherArtifact, ...] = ()  # records no decoder made a stage of
    problems: tuple[Problem, ...] = ()  # records that could not be read, steps that failed
    partial_reads: tuple[PartialRead, ...] = ()  # records read in part: what was kept of their odd elements
    triton_kernels: tuple[TritonKernel, ...] = ()  # each Triton kernel on its own (GPU, preview)
    extern_calls: tuple[ExternCall, ...] = ()  # library calls in the generated wrappers
    autotuning: tuple[Autotuning, ...] = ()  # max-autotune: per op, the choices and their times
    cudagraphs: Optional[CudaGraphs] = None  # reduce-overhead: used or not, and why
    # the mode the capture ran in: "cold" (the default, a name from before the graph caches stayed on: torch's
    # caches as a plain run has them, what a graph cache hit skips from the explorer's stage store), "fresh" (the
    # graph caches off: every graph lowered again) or "warm" (the user's caches as they are). What the caches did
    # is in each compilation's ``caches``, ``stored`` and kernels' ``build``
    cache_mode: str = "cold"
    stance: str = "default"  # torch.compiler.set_stance in force when the capture began
    stance_at_end: Optional[str] = None  # the stance when it ended, when the code changed it
    exports: tuple[ExportedProgram, ...] = ()  # torch.export programs (and their AOTInductor compiles)
    cache_events: tuple[CacheLookup, ...] = ()  # cache records outside any compilation (Dynamo's precompile cache)
    # the compilations' keys of the graphs that ran, in order (graph_execution; "?" where torch named none)
    graph_execution: tuple[str, ...] = ()

    # ---- derived counts used by every view ----
    @property
    def num_graphs(self) -> int:
        return sum(1 for c in self.compilations if c.graph is not None)

    @property
    def graph_breaks(self) -> list[tuple[Compilation, GraphBreak]]:
        """Every graph-break record, the further ones of a compilation (``more_breaks``) included."""
        return [(c, b) for c in self.compilations if c.graph_break is not None
                for b in (c.graph_break, *c.more_breaks)]

    @property
    def break_count(self) -> int:
        """How many graph breaks the program hit, as ``torch._dynamo.explain`` counts them: one unsupported line
        reached through a chain of frames (a decorator's wrapper, the model's forward, the helper that logs) is
        logged once per frame Dynamo tried, with the same stack: one break. The same frame compiled again (a
        recompile) and breaking there again is another."""
        frames: dict[tuple, dict[tuple, set]] = {}  # the break's stack -> frame -> its compilations that hit it
        for c, b in self.graph_breaks:
            stack = b.user_traceback or ((c.compile_id, b.reason),)
            frames.setdefault(stack, {}).setdefault((c.frame.filename, c.frame.lineno, c.frame.name),
                                                    set()).add(c.compile_id)
        return sum(max(len(ids) for ids in by_frame.values()) for by_frame in frames.values())

    @property
    def recompiles(self) -> list[Compilation]:
        return [c for c in self.compilations if c.recompile_reason]

    def compilation_key(self, compile_id: Optional[str]) -> Optional[str]:
        """The key of the compilation ``compile_id`` names, in any printed form (``[0/1_2]``: the attempt
        folds into its compilation); None when this capture has no such compilation."""
        if compile_id is None:
            return None
        key = CompileId.key_of(compile_id)
        return key if any(c.compile_id == key for c in self.compilations) else None

    @property
    def kernels(self) -> list[Kernel]:
        return [k for c in self.compilations for k in c.kernels]

    @property
    def compile_time_s(self) -> float:
        return sum(c.compile_time_s or 0.0 for c in self.compilations)


def _place(filename: str, lineno: int) -> str:
    return f"{_basename(filename)}:{lineno}"


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


# ---- JSON ----

def to_dict(obj: Any) -> Any:
    """Dataclasses to JSON-ready dicts; tuples become lists."""
    return to_jsonable(obj)


def from_dict(doc: dict) -> CaptureData:
    return from_jsonable(CaptureData, doc)


def to_json(data: CaptureData, indent: Optional[int] = 1) -> str:
    import json

    return json.dumps(to_dict(data), indent=indent, default=str)


def from_json(text: str) -> CaptureData:
    import json

    return from_dict(json.loads(text))


# ---- GPU: each Triton kernel on its own, autotuning, CUDA graphs, the CUDA preview ----
# (filled after the capture by explorer.capturing.triton_asm / gpu_watch and explorer.preview)

@dataclass(frozen=True)
class KernelArg:
    """One parameter of a generated kernel, and what the wrapper passes for it."""

    name: str  # in_ptr0, out_ptr0, in_out_ptr0, xnumel, XBLOCK
    type: str  # Triton's signature type: *fp32, i32, constexpr
    role: str  # input | output | in/out | size | constexpr
    value: Optional[str] = None  # what the wrapper's call passes: buf0, arg0_1, 1024


@dataclass(frozen=True)
class KernelConfig:
    """One launch configuration Inductor compiled for a Triton kernel."""

    params: dict[str, int]  # block sizes and other meta-parameters: XBLOCK, R0_BLOCK, ...
    num_warps: int
    num_stages: int
    chosen: bool = False  # the one launched (after autotuning, when there was a choice)


@dataclass(frozen=True)
class KernelIR:
    """One compiler stage of a Triton kernel: ttir, ttgir, llir or ptx."""

    stage: str
    text: str
    size: int = 0  # characters before any cut
    truncated: bool = False  # cut to the explorer's per-stage limit (the head is kept)


@dataclass(frozen=True)
class TritonKernel:
    """A Triton kernel as Inductor built it: launch shape, arguments, IR down to PTX.

    The time and bandwidth of a kernel are in ``Report.timing`` (joined by ``name``).
    """

    name: str
    compile_id: Optional[CompileKey] = None
    graph_kind: str = ""
    heuristic: str = ""  # pointwise | reduction | persistent_reduction | template | ...
    size_hints: dict[str, int] = field(default_factory=dict)
    args: tuple[KernelArg, ...] = ()
    configs: tuple[KernelConfig, ...] = ()
    grid: Optional[tuple[int, ...]] = None  # blocks launched (x, y, z) for the chosen config
    grid_source: str = ""  # how `grid` was found
    threads_per_block: Optional[int] = None  # num_warps x warp size
    target: str = ""  # e.g. cuda sm_90
    ir: tuple[KernelIR, ...] = ()
    ir_config: Optional[int] = None  # index into `configs` of the build whose IR is shown
    ir_source: str = ""  # where the IR came from
    source_nodes: tuple[str, ...] = ()
    aten_ops: tuple[str, ...] = ()
    user_lines: tuple[SourceLoc, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExternCall:
    """A call Inductor leaves to a library (cuBLAS, cuDNN, oneDNN, ATen): not generated code."""

    name: str  # as the wrapper calls it: extern_kernels.mm, torch.ops.aten.convolution.default
    compile_id: Optional[CompileKey] = None
    graph_kind: str = ""
    count: int = 1  # calls per graph call


@dataclass(frozen=True)
class AutotuneChoice:
    name: str  # e.g. triton_mm_3, mm (ATen), cpp_CppMicroGemmFP32Vec_2
    kind: str  # template | extern | other
    time_s: Optional[float]  # measured; None when it failed or was not run
    description: str = ""  # block sizes, warps, stages, as Inductor describes the choice
    winner: bool = False


@dataclass(frozen=True)
class Autotuning:
    """One op Inductor autotuned (max-autotune): the choices tried, their times, the winner."""

    op: str  # mm, addmm, bmm, convolution, ...
    inputs: tuple[str, ...] = ()  # the inputs' shapes and dtypes, as text
    choices: tuple[AutotuneChoice, ...] = ()
    winner: Optional[str] = None
    compile_id: Optional[CompileKey] = None


@dataclass(frozen=True)
class CudaGraphs:
    """mode="reduce-overhead": whether CUDA graphs were used, and why not if they were not."""

    asked: bool  # the compile asked for CUDA graphs (reduce-overhead, triton.cudagraphs)
    used: bool  # at least one graph was recorded (and so replayed thereafter)
    recordings: int = 0
    rerecordings: int = 0
    rerecord_reasons: tuple[str, ...] = ()
    skips: tuple[str, ...] = ()  # torch's reason for each graph that was not made a CUDA graph
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PreviewGraph:
    """One graph of the CUDA preview: lowered for the GPU (what of it, with which symbolic sizes), or why not."""

    label: str  # "graph 0 (0/0)": the graph's place among the compiled graphs, and its compilation's key
    compile_id: Optional[str] = None  # the compilation of the main report it came from
    previewed: bool = False
    lowered: str = "inference"  # inference | forward and backward (a training graph) | forward | backward
    symbols: tuple[str, ...] = ()  # the sizes it was lowered with as symbols (dynamic shapes): s77, ...
    reason: Optional[str] = None  # why it was not previewed, in words


@dataclass(frozen=True)
class Preview:
    """What a CUDA GPU would get for the compiled graphs, lowered on this machine without one.

    A preview that was not run: nothing executed on a GPU, no kernel was timed
    or autotuned (where Inductor would autotune among configs, all are listed).
    """

    target: str  # e.g. "cuda sm_90 (NVIDIA H200, mocked)"
    label: str
    capture: Optional[CaptureData] = None  # the child's capture: output code, kernels, IR, PTX
    graphs: tuple[str, ...] = ()  # per graph, one line: previewed, or why it was not (``outcomes`` in words)
    error: Optional[str] = None  # why the preview failed as a whole, in words
    notes: tuple[str, ...] = ()
    outcomes: tuple[PreviewGraph, ...] = ()  # per graph: what was lowered, or why it was not

    @property
    def not_previewed(self) -> tuple[PreviewGraph, ...]:
        return tuple(o for o in self.outcomes if not o.previewed)
