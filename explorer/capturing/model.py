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
from .shapes import DynamicShapes
from .usage import (
    CacheLookup,
    Decomposition,
    ExportedProgram,
    ExportSpec,
    FilteredGuard,
    KeyChange,
    KeyComparison,
    PackageFile,
    RangeConstraint,
    Region,
    StoredStages,
)

__all__ = ["CacheLookup", "CallSite", "CollectiveSchedule", "Decomposition", "ExportSpec", "ExportedProgram",
           "FilteredGuard", "FxGraph", "FxNode", "KernelCompileInfo", "KeyChange", "KeyComparison", "MinCut",
           "MinCutCandidate", "PackageFile", "RangeConstraint", "Region", "SourceLoc",
           "StoredStages"]  # re-exported: the report model is one import


@dataclass(frozen=True)
class Frame:
    """The Python frame Dynamo compiled."""

    name: str
    """The function's name."""
    filename: str
    """Its file."""
    lineno: int  # first line of the code object
    """Its first line."""


@dataclass(frozen=True)
class Instruction:
    """One bytecode instruction; ``line`` links it to the user's source line."""

    offset: int
    """The instruction's offset."""
    opname: str
    """Its opcode's name."""
    argrepr: str
    """Its argument, as `dis` prints it."""
    line: Optional[int]
    """The source line from the code object's line table."""
    is_jump_target: bool = False
    """Whether a jump lands here."""


@dataclass(frozen=True)
class Bytecode:
    """A code object as CPython runs it: its `dis` listing with line numbers and its instructions."""

    name: str
    """The code object's name."""
    filename: str
    """Its file."""
    firstlineno: int
    """Its first line."""
    listing: str  # `dis` output with source line numbers
    """The `dis` listing with line numbers."""
    instructions: tuple[Instruction, ...] = ()
    """Each instruction."""
    source: Optional[str] = None  # the function's source text, when it is known
    """The source text, where there is one."""
    decompiled: Optional[str] = None  # readable Python for rewritten code
    """Readable Python via depyf (rewritten code only)."""
    decompile_error: Optional[str] = None  # why `decompiled` is missing
    """Why it could not be decompiled (depyf's error, the Python it failed on)."""
    # where `source` came from: "code" (the code object's file, as it ran), or for a trace read from a file (no
    # code objects): "file" (the recorded path, as it is on this machine now), "quoted" (only the lines it quotes)
    source_origin: str = "code"
    """Where `source` came from: `code` (the code object's file, as it ran), `file` (a trace: the recorded path as it
    is on this machine now) or `quoted` (a trace: only the lines it quotes)."""


@dataclass(frozen=True)
class InlinedFunction:
    """A function Dynamo traced into a compiled frame's graph instead of calling it: a module's ``forward``, a helper.

    Once per code object however many times it was inlined (``calls``: once per layer of a stack of blocks). Its
    lines are what the graph's stack traces name, so the views show them with the frame's own and link them
    through the chain."""

    name: str  # qualified where Python says (Block.forward; 3.10: the code object's name)
    """Its qualified name (`Block.forward`; on Python 3.10 the code object's name)."""
    filename: str
    """Its file."""
    firstlineno: int
    """Its first line."""
    source: Optional[str] = None  # its source text, read when captured
    """Its source text, read when captured; `null` when it could not be read."""
    calls: int = 1  # how many times Dynamo inlined it into this graph
    """How many times Dynamo inlined it into this graph (once per layer of a stack of blocks); in a trace read from a
    file, where it is found from the graph's stack traces, at least this many."""


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
    """The qualified name: `Decoder.forward`, `Sequential.forward` for a torch.nn module, `LlamaForCausalLM.forward`
    for a forward a decorator wraps."""
    filename: str
    """Its file."""
    lineno: int
    """Its first line."""
    wrapper: bool = False
    """Whether the compiled frame is torch's wrapper (`inner` in `torch/_dynamo/external_utils.py`) around it, rather
    than it."""
    called_at: Optional[SourceLoc] = None
    """For a wrapper: the user's line that ran the compiled module; else `null`."""
    decorated: bool = False
    """Whether the compiled frame is a decorator's wrapper around the module's `forward` it names (`@deprecate_kwarg`
    on `LlamaForCausalLM.forward`): Dynamo compiled the wrapper and inlined the forward."""
    module_source: Optional[str] = None
    """For a decorator's wrapper: Dynamo's source of the argument that holds the module (`L['args'][0]`), where the
    module paths start; else `null`."""


@dataclass(frozen=True)
class Guard:
    """One check torch makes before reusing a compilation. `filename`, `lineno` and `function` are torch's own line:
    for a check made inside a library, the library's line (the views show the user line that hands the value there)."""

    kind: str  # TENSOR_MATCH, ID_MATCH, ...
    """The guard's kind, e.g. `TENSOR_MATCH`."""
    code: str  # the check itself
    """The check's code."""
    subject: Optional[str] = None
    """The guarded value, e.g. `L['x']`."""
    source: Optional[str] = None  # the user source line that created the guard
    """The user source line that created it."""
    filename: Optional[str] = None
    """torch's own line's file (see above)."""
    lineno: Optional[int] = None
    """torch's own line."""
    function: Optional[str] = None
    """The function of torch's own line."""


@dataclass(frozen=True)
class GraphBreak:
    """Where and why Dynamo ended a graph, as torch's graph-break record says."""

    reason: str  # one line, plain words
    """torch's reason."""
    filename: Optional[str] = None
    """The user line's file."""
    lineno: Optional[int] = None
    """The user line."""
    source_line: Optional[str] = None
    """Its text."""
    explanation: Optional[str] = None
    """torch's explanation."""
    hints: tuple[str, ...] = ()
    """torch's hints."""
    gb_code: Optional[str] = None  # e.g. GB0059
    """torch's graph-break code, e.g. `GB0059`."""
    doc_url: Optional[str] = None
    """The page of torch's graph-break site about that code."""
    user_traceback: tuple[SourceLoc, ...] = ()
    """The user frames down to the break."""
    detail: str = ""
    """torch's full text, minus its internal traceback."""


@dataclass(frozen=True)
class Restart:
    """Dynamo threw away a trace and started the frame again (attempt N+1)."""

    attempt: int
    """Which attempt this was."""
    reason: str
    """Why Dynamo started again."""


@dataclass(frozen=True)
class Kernel:
    """One generated kernel and what it computes."""

    name: str
    """The kernel's name."""
    language: str  # cpp | triton | halide | cuda | ...
    """`cpp`, `triton`, `halide`, ..."""
    source: str
    """Its code."""
    graph_kind: str = ""  # forward | backward | inference
    """`forward`, `backward` or `inference`."""
    source_nodes: tuple[str, ...] = ()  # FX nodes it computes
    """The FX nodes it computes."""
    aten_ops: tuple[str, ...] = ()
    """The ATen ops it computes."""
    user_lines: tuple[SourceLoc, ...] = ()
    """The user lines they came from."""
    wrapper_lineno: Optional[int] = None
    """Where it is defined in the output code."""
    # "built" (compiled during this capture) or "loaded" (its binary came from torch's code cache, or in a warm
    # capture from a graph cache's bundle); None: not known
    build: Optional[str] = None
    """Warm captures: `built` during this capture or `loaded` from a cache."""
    # torch's own ordered ops of the kernel, where it writes them (the per-kernel trace, kernel_information.json)
    op_trace: tuple[str, ...] = ()
    """torch's own ordered ops of the kernel, where torch writes them."""


@dataclass(frozen=True)
class OutputCode:
    """One generated wrapper module: the code that allocates buffers and calls the kernels."""

    graph_kind: str
    """`forward`, `backward` or `inference`."""
    code: str
    """The module's code."""
    filename: Optional[str] = None
    """Where torch wrote it."""
    # torch's provenance for the calls in this module: "kernel:handle" (the wrapper's
    # "[Provenance debug handles]" comment) -> the post-grad nodes it computes; extern calls too
    provenance: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """torch's own map from each `kernel:handle` the module names in a `# [Provenance debug handles]` comment to the
    post-grad nodes that call computes (extern calls included)."""
    language: str = "python"  # the wrapper's language: python (torch.compile), cpp (AOTInductor's C++ wrapper)
    """`python`, or `cpp` for AOTInductor's C++ wrapper."""

    def calls(self) -> list[tuple[str, tuple[str, ...]]]:
        """(kernel name, the post-grad nodes it computes) per provenance entry, in the order of torch's debug
        handles: the ``kernel:handle`` keys are torch's strings, read here so nothing above the capture splits them."""
        def order(key: str) -> tuple[int, str]:
            tail = key.rpartition(":")[2]
            return (int(tail), key) if tail.isdigit() else (1 << 30, key)

        return [(key.rpartition(":")[0] or key, self.provenance[key]) for key in sorted(self.provenance, key=order)]


@dataclass(frozen=True)
class IrDump:
    """Inductor's loop-level IR of one graph: scheduler nodes and their loop bodies."""

    graph_kind: str
    """`forward`, `backward` or `inference`."""
    text: str
    """The IR as torch printed it."""


@dataclass(frozen=True)
class OtherArtifact:
    """Structured-trace records no decoder turned into a stage: listed, never dropped without a word.

    One row per (event name, compile id): how many records came and their payload size.
    """

    name: str
    """The event name, or `artifact:<name>` for torch's named artifacts."""
    compile_id: Optional[CompileKey] = None
    """Its compilation."""
    count: int = 1
    """How many such records."""
    size: int = 0  # characters of payload, summed
    """Characters of payload."""
    why: str = "no decoder for this event in this explorer version"
    """No decoder for it yet, or dropped as noise such as profiling spans."""


@dataclass(frozen=True)
class Finding:
    """Where torch.compile behaved differently from a plain run of the same code.

    Not an explorer failure: what the user came to learn (a frame Dynamo could
    not trace and ran as plain Python, Inductor's random numbers differing from
    eager's). Shown next to the stage it concerns.
    """

    message: str
    """What happened."""
    stage: Optional[str] = None  # a stage id of ``explorer.stages``; None: the run as a whole (the header)
    """The stage it concerns; `null`: the run as a whole (the header)."""
    compile_id: Optional[CompileKey] = None  # the compilation's key (``CaptureData.compilation_key``)
    """Its compilation."""
    lineno: Optional[int] = None  # the user line (the cell's line) it concerns, if one
    """The user line."""
    hint: Optional[str] = None  # what the user can do about it
    """What to do."""


@dataclass(frozen=True)
class Problem:
    """Something the explorer could not do, shown in every output (never a silent except).

    ``where`` names the step (a decoder, the recorder, timing, an output file);
    ``event`` and ``compile_id`` name the record it concerns, when there is one, and ``attempt`` which of
    Dynamo's restarts of that compilation it came from (0: the first).
    """

    where: str
    """The step: a decoder, the recorder, timing, an output file."""
    message: str
    """What went wrong."""
    event: Optional[str] = None
    """The trace record's event, for a record that could not be read."""
    compile_id: Optional[CompileKey] = None
    """Its compilation's key."""
    attempt: int = 0
    """Which of Dynamo's restarts of that compilation the record came from (0: the first; torch prints `[0/1_2]` for
    attempt 2)."""

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
    """The trace record's event."""
    message: str
    """What was odd and what was kept, in one line: ``1 of 212 ops had no name: kept as `?` ``."""
    compile_id: Optional[CompileKey] = None
    """Its compilation's key, or `null` for a record outside any compilation."""
    attempt: int = 0
    """Which of Dynamo's restarts of that compilation the record came from (0: the first)."""

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
    """The object's type: `dict`, `DynamicCache`, ..."""
    origin: str  # created | existing | cell | other
    """`created` during the call, `existing` before it, `cell`, `other`."""
    source: Optional[str] = None  # Dynamo's name for it: L['kwargs'], G['mod']._active_collector
    """Dynamo's name for it, e.g. `G['mod']._active_collector`."""
    locations: tuple[SourceLoc, ...] = ()  # the innermost frame of each mutation (file, line, code)
    """The user lines that mutate it."""


@dataclass(frozen=True)
class DdpBucket:
    """One of DDPOptimizer's buckets: the parameters one subgraph uses, whose gradients DDP all-reduces together.

    ``params`` are named as in the model DDP wraps (``layers.0.weight``), read back from Dynamo's
    placeholder names; ``size_bytes`` is what DDPOptimizer counts against the cap (their storage).
    """

    subgraph: str  # submod_0, submod_1, ... (the split graph calls them in this order)
    """The piece: `submod_0`, `submod_1`, ... (the split graph calls them in this order)."""
    size_bytes: int
    """The bucket's size."""
    params: tuple[str, ...] = ()
    """Its parameters."""
    param_bytes: tuple[int, ...] = ()
    """Each parameter's size."""


@dataclass(frozen=True)
class DdpSubgraph:
    """One graph DDPOptimizer cut the Dynamo graph into; each is compiled by the backend on its own."""

    name: str
    """The piece's name (`submod_0`)."""
    graph: FxGraph
    """Its graph."""


@dataclass(frozen=True)
class DdpOptimizer:
    """DDPOptimizer on one Dynamo graph (``torch._dynamo.config.optimize_ddp``, a DDP-wrapped module).

    It cuts the graph where DDP's gradient buckets end, so each bucket's all-reduce can start while
    backward still runs: a split, not a graph break (one frame, one set of guards). ``bucket_count``
    and ``bucket_cap_bytes`` come from its log line; ``split_graph`` and ``subgraphs`` from the
    structured trace (written only when it did split).
    """

    bucket_cap_bytes: Optional[int] = None
    """DDP's bucket cap."""
    bucket_count: Optional[int] = None
    """How many buckets (DDPOptimizer's log line)."""
    split_graph: Optional[FxGraph] = None  # the parent: calls submod_0, submod_1, ... in order
    """The parent graph calling each piece."""
    subgraphs: tuple[DdpSubgraph, ...] = ()
    """The pieces."""
    buckets: tuple[DdpBucket, ...] = ()
    """One per piece."""
    notes: tuple[str, ...] = ()
    """DDPOptimizer's own warnings (buckets grown past the cap)."""

    @property
    def split(self) -> bool:
        return len(self.subgraphs) > 1


@dataclass(frozen=True)
class OpEstimate:
    """One op Inductor scheduled, with the runtime its cost model estimated for it.

    From ``inductor_runtime_and_tensor_meta`` (written when ``torch._inductor.config.log_tlparse`` is on; the
    capture turns it on). Inductor's cost model covers GPUs: it estimates 0 for every op off the GPU.
    """

    name: str
    """The scheduler node: `op3`, `op2_op3_op4` (fused), `extern_kernels.mm`, a collective."""
    kind: str  # "compute" | "collective"
    """`compute` or `collective`."""
    estimate_s: float  # seconds
    """The estimated runtime, in seconds."""
    written: float
    """The number torch wrote (under `estimated_runtime_ns`)."""
    unit: str  # what that number was read as: "ms" (torch 2.10 on) or "ns" (before), and why
    """How that number was read: `ms` (torch 2.10 on) or `ns` (before), and why."""
    outputs: tuple[str, ...] = ()
    """Its outputs: `float32[8, 64]`."""
    graph_kind: str = ""  # forward | backward | inference: the lowering it belongs to
    """The lowering it belongs to: forward, backward or inference."""
    kernel: Optional[str] = None  # the wrapper call it became (a kernel, an extern), matched in call order
    """The wrapper call it became (a kernel or an extern call), matched in call order; null when the counts did not
    line up."""


@dataclass(frozen=True)
class Phase:
    """One phase of a compilation's compile time, from torch's chromium events (``capturing.phases``)."""

    name: str
    """torch's span: `entire_frame_compile`, `backend_compile`, `inductor_compile`, `GraphLowering.codegen`, ..."""
    depth: int  # 0: outermost; a phase's children follow it, one deeper
    """0 for the outermost; a phase's children follow it, one deeper."""
    seconds: float  # summed over the times it ran (``count``)
    """Its time, summed over the times it ran."""
    count: int = 1
    """How many times it ran."""
    start_s: float = 0.0
    """When it first began, in seconds after the compilation's first span began."""
    parent: str = ""
    """The phase it ran inside (the one before it, one shallower); empty for the outermost."""


@dataclass(frozen=True)
class OwnTime:
    """The explorer's own work in a live capture, timed by its own clock (``time.perf_counter``), so its cost is
    said beside torch's compile time instead of guessed."""

    listening_s: float
    """Seconds in the explorer's listener while the code ran (taking each of torch's records as it came, the
    compile-time spans summed); inside the capture's wall time. Torch's own work to write the records it was asked
    for is torch's, not counted here."""
    records: int
    """How many records the listener took."""
    reading_s: float
    """Seconds reading the records into compilations once the code had run (after the capture's wall time)."""


@dataclass(frozen=True)
class CacheEntry:
    """One entry of a frame's cache: what Dynamo's frame evaluator runs for a call whose guards it passes."""

    compile_id: Optional[CompileKey]  # the compilation that made it; None where this torch names none
    """The compilation that made the entry (`null` where torch names none)."""
    code: str  # the name of the code object it runs in the frame's place
    """The name of the code object the entry runs in the frame's place."""
    backend: str
    """The backend it was compiled for: only a call under an equal backend tries it."""


@dataclass(frozen=True)
class FrameCache:
    """The cache entries Dynamo keeps on a frame's code object (``co_extra``), read live during the capture: the
    order is the frame evaluator's, which tries them most recently used first (a new entry goes in front, and so
    does an entry whose guards passed)."""

    entries: tuple[CacheEntry, ...]
    """Each entry, in the order a call tries them."""
    read_at: str  # when it was read: "when the capture ended", "before the cell's entries were dropped"
    """When the cache was read: when the capture ended, or when a cell ended (before the explorer dropped the cell's
    entries)."""
    recompile_limit: Optional[int] = None  # torch._dynamo.config.recompile_limit then
    """`torch._dynamo.config.recompile_limit` when it was read."""


@dataclass(frozen=True)
class Compilation:
    """One Dynamo compile id and every stage torch went through for it."""

    compile_id: CompileKey
    """torch's compile id as the report's key (see [compile keys](#compile-keys)): `0/0`, `g1 0/0` after a reset,
    `aoti/0`; never Dynamo's restart attempt."""
    frame: Frame
    """The frame compiled; resume functions are named `torch_dynamo_resume_in_<fn>_at_<line>`."""
    status: str  # compiled | no_graph | failed | skipped
    """`compiled`, `no_graph`, `skipped` or `failed`."""
    original_bytecode: Optional[Bytecode] = None
    """The frame's bytecode as Dynamo received it."""
    rewritten_bytecode: Optional[Bytecode] = None
    """The bytecode Dynamo put in its place (calling the compiled graph), with its decompiled Python."""
    graph: Optional[FxGraph] = None
    """The Dynamo FX graph."""
    guards: tuple[Guard, ...] = ()
    """One object per check."""
    guard_tree: Optional[str] = None
    """torch's guard tree text."""
    recompile_reason: Optional[str] = None
    """Why this compilation replaced an earlier one, or `null`."""
    graph_break: Optional[GraphBreak] = None
    """`null`, or the graph break that ended this graph."""
    # further graph-break records torch logged for this compilation (e.g. why Dynamo then gave up on the frame)
    more_breaks: tuple[GraphBreak, ...] = ()
    """Further graph-break records torch logged for the same compilation (often why Dynamo then gave up on the
    frame), each shaped like `graph_break`."""
    restarts: tuple[Restart, ...] = ()
    """Dynamo's restarts of this frame's analysis."""
    aot_joint: Optional[FxGraph] = None
    """AOTAutograd's joint forward-backward graph."""
    aot_forward: Optional[FxGraph] = None
    """AOTAutograd's forward graph."""
    aot_backward: Optional[FxGraph] = None
    """AOTAutograd's backward graph; unless `--warm` it is lowered at compile time, not at the first `.backward()`."""
    aot_inference: Optional[FxGraph] = None
    """AOTAutograd's inference graph (no gradients needed)."""
    post_grad_graph: Optional[FxGraph] = None
    """Inductor's post-grad graph."""
    post_grad_graph_backward: Optional[FxGraph] = None
    """Inductor's post-grad graph of the backward."""
    ir_pre_fusion: Optional[tuple[IrDump, ...]] = None
    """Inductor's loop-level IR (scheduler nodes, loop bodies) before fusion."""
    ir_post_fusion: Optional[tuple[IrDump, ...]] = None
    """Inductor's loop-level IR after fusion."""
    output_code: Optional[tuple[OutputCode, ...]] = None
    """The generated wrapper modules."""
    kernels: tuple[Kernel, ...] = ()
    """The generated kernels."""
    compile_time_s: Optional[float] = None
    """How long torch took to compile it."""
    metrics: dict[str, Any] = field(default_factory=dict)
    """torch's compilation metrics: stage times, guard and op counts."""
    failure: Optional[str] = None  # why Dynamo or the backend failed, if it did
    """Why, when it failed."""
    missing: dict[str, str] = field(default_factory=dict)  # stage -> why it is null
    """`{stage: why it is null}`, keyed by the stage ids of `explorer.stages`; a stage a cache hit skipped says
    `skipped: FX graph cache hit (key ...)`."""
    side_effects: tuple[Mutation, ...] = ()  # objects the compiled code mutates (Dynamo's dynamo_side_effects)
    """The objects the compiled code mutates, from Dynamo's `dynamo_side_effects` record."""
    ddp_optimizer: Optional[DdpOptimizer] = None  # DDPOptimizer's buckets and split of this graph (DDP only)
    """`null` unless DDPOptimizer ran on this graph."""
    # ---- how real programs use torch.compile (capturing/usage.py) ----
    origin: str = "dynamo"  # dynamo | aoti (an AOTInductor compile of an exported program: no Dynamo frame)
    """`dynamo`, or `aoti` for AOTInductor's compile of an exported program (no Dynamo frame; compile id `aoti/N`;
    `inductor/N` for another Inductor compile outside Dynamo)."""
    export_graph: Optional[FxGraph] = None  # aoti: the exported program's graph it was compiled from
    """The exported program's graph, for an `aoti` compilation."""
    caches: tuple[CacheLookup, ...] = ()  # the caches torch consulted for it, and what came of each
    """Each cache torch consulted while compiling it."""
    stored: tuple[StoredStages, ...] = ()  # what the explorer's stage store gave back (or lacked) for its hits
    """A default capture's FX graph cache hits: what the explorer's stage store gave back (the loop-level IR a hit
    skips) or could not."""
    regions: tuple[Region, ...] = ()  # nested_compile_region, torch.compiler.disable, nonstrict_trace parts
    """The frame's compiled regions and the calls Dynamo did not trace into."""
    guard_filter: Optional[str] = None  # the guard_filter_fn it was compiled with, by name
    """The guard filter's name, when one was used."""
    filtered_guards: tuple[FilteredGuard, ...] = ()  # every guard that filter saw, kept or dropped
    """Every guard the filter was asked about, kept or dropped."""
    stance: Optional[str] = None  # torch.compiler.set_stance in force when Dynamo started it
    """The stance in force when Dynamo started this compilation."""
    node_map: dict[str, tuple[str, ...]] = field(default_factory=dict)  # torch's pre-grad node -> post-grad nodes
    """torch's pre-grad node -> post-grad nodes (`preToPost` of its provenance)."""
    # ---- torch's other artifacts, where it wrote them (capturing/artifacts.py) ----
    min_cut: Optional[MinCut] = None  # the partitioner's knapsack (AOT_PARTITIONER_DEBUG=1, a memory budget < 1)
    """The partitioner's knapsack over the joint graph, or null unless torch logged it (`AOT_PARTITIONER_DEBUG=1` and
    `activation_memory_budget` below 1)."""
    kernel_compile: tuple[KernelCompileInfo, ...] = ()  # each Triton kernel's compile time (triton_kernel_info)
    """Each Triton kernel's compile, from torch's `triton_kernel_info`."""
    collective_schedule: tuple[CollectiveSchedule, ...] = ()  # per lowering: its collectives in Inductor's order
    """Per lowered graph, its collective kernels in Inductor's final order (`inductor_collective_schedule`)."""
    call_sites: tuple[CallSite, ...] = ()  # where user code called what made each collective (Dynamo's trace_call)
    """Each collective Dynamo made, with the frames it was tracing (Dynamo's `trace_call` log): where a `dist.*`
    call's user line comes from."""
    # ---- Inductor's cost model ----
    op_estimates: tuple[OpEstimate, ...] = ()  # Inductor's estimated runtime of each op it scheduled
    """Each op Inductor scheduled with its cost model's runtime (`inductor_runtime_and_tensor_meta`, written when
    `log_tlparse` is on; the capture turns it on). Inductor estimates 0 for every op off the GPU."""
    # ---- the code Dynamo traced (capturing/inlined.py) ----
    inlined: tuple[InlinedFunction, ...] = ()  # every function inlined into the graph, once each, in tracing order
    """Every function Dynamo inlined into the frame's graph (each module's `forward`, helpers), once each, in the
    order it first finished tracing them; the chain links their lines (`source` part K+1 is `inlined[K]`)."""
    entry: Optional[Entry] = None  # what it compiled, named as the user knows it (torch's wrapper frame seen through)
    """What it compiled, named as the user knows it: the frame's qualified name, or, for torch's wrapper frame around
    a torch.nn module, that module's `forward`; `null` when not known."""
    # ---- symbolic shapes (capturing/shapes.py) ----
    dynamic_shapes: Optional[DynamicShapes] = None
    """The symbols Dynamo's ShapeEnv created for this compilation, the ones it fixed to a constant and the guards it
    added on them, each at the user's line (torch's `create_symbol`, `create_unbacked_symbol`,
    `symbolic_shape_specialization`, `guard_added_fast` and `propagate_real_tensors` records); `null` when the
    compilation made none."""
    # ---- torch's chromium events (a live capture and an opened TORCH_TRACE alike) ----
    phases: tuple[Phase, ...] = ()  # compile time per phase (capturing.phases)
    """Compile time per phase, from torch's own timed spans (its chromium events), live or from a TORCH_TRACE."""
    phases_began_s: Optional[float] = None  # its first span's start on the run's clock: its place on the timeline
    """When this compilation's first timed span began, in seconds after the first span of the capture (or trace)
    began; `null` without spans."""
    # ---- the runtime: its frame's cache entries, read live (capturing/frame_cache.py; None from a trace) ----
    frame_cache: Optional[FrameCache] = None
    """The cache entries Dynamo kept on this compilation's frame (its code object), read live during the capture, in
    the order the frame evaluator tries them (most recently used first); `null` from a trace, which does not record
    them."""

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
    """What torch.compile did while the capture was open: every compilation and its stages, and what could not be
    read."""

    torch_version: str
    """torch's version."""
    device: str
    """The device the code ran on."""
    python_version: str
    """Python's version."""
    compilations: tuple[Compilation, ...] = ()
    """One object per Dynamo compile id (`0/0`, `0/1`, `1/0`, ...; after a `torch._dynamo.reset()` the generation
    leads: `g1 0/0`), in order."""
    wall_time_s: Optional[float] = None
    """How long the code ran under capture."""
    notes: tuple[str, ...] = ()
    """What the capture could not do, in words."""
    error: Optional[str] = None  # the user code's exception, "Type: message"
    """The code's exception as `"Type: message"`, or `null`."""
    other_artifacts: tuple[OtherArtifact, ...] = ()  # records no decoder made a stage of
    """Records no decoder made a stage of, one row per (`name`, `compile_id`): listed, never dropped silently."""
    problems: tuple[Problem, ...] = ()  # records that could not be read, steps that failed
    """Structured-trace records that could not be read (with the record's `event` and `compile_id`): every other
    stage is kept."""
    partial_reads: tuple[PartialRead, ...] = ()  # records read in part: what was kept of their odd elements
    """Records read in part: some of their elements were not in a form the explorer reads (torch wrote `null` for a
    name) and were kept with a placeholder (`?`) or left out; the rest of the record is kept. Not problems: the views
    show each beside its data."""
    triton_kernels: tuple[TritonKernel, ...] = ()  # each Triton kernel on its own (GPU, preview)
    """Each Triton kernel as Inductor built it."""
    extern_calls: tuple[ExternCall, ...] = ()  # library calls in the generated wrappers
    """Library kernels the wrappers call (cuBLAS, cuDNN, ...)."""
    autotuning: tuple[Autotuning, ...] = ()  # max-autotune: per op, the choices and their times
    """`--mode max-autotune`'s choices per op."""
    cudagraphs: Optional[CudaGraphs] = None  # reduce-overhead: used or not, and why
    """`--mode reduce-overhead`: whether CUDA graphs were used."""
    # the mode the capture ran in: "cold" (the default, a name from before the graph caches stayed on: torch's
    # caches as a plain run has them, what a graph cache hit skips from the explorer's stage store), "fresh" (the
    # graph caches off: every graph lowered again) or "warm" (the user's caches as they are). What the caches did
    # is in each compilation's ``caches``, ``stored`` and kernels' ``build``
    cache_mode: str = "cold"
    """The mode the capture ran in: `cold` (the default, despite its name with torch's caches on as a plain run has
    them: a graph an earlier capture lowered is served by torch's graph caches, its loop-level IR by the explorer's
    stage store), `fresh` (the graph caches off, every graph lowered again) or `warm` (the program's caches as they
    are). What the caches did is in each compilation's `caches`, `stored` and kernels' `build`."""
    stance: str = "default"  # torch.compiler.set_stance in force when the capture began
    """`torch.compiler.set_stance`'s stance when the capture began."""
    stance_at_end: Optional[str] = None  # the stance when it ended, when the code changed it
    """The stance when the capture ended, when the code changed it."""
    exports: tuple[ExportedProgram, ...] = ()  # torch.export programs (and their AOTInductor compiles)
    """Each `torch.export` program."""
    cache_events: tuple[CacheLookup, ...] = ()  # cache records outside any compilation (Dynamo's precompile cache)
    """Cache records outside any compilation (Dynamo's precompile cache), shaped like a compilation's `caches`."""
    # the compilations' keys of the graphs that ran, in order (graph_execution; "?" where torch named none)
    own_time: Optional[OwnTime] = None  # the explorer's own time in this capture, measured (not in a trace)
    """The explorer's own time in the capture, measured: its listener while the code ran and reading the records
    after; `null` from a trace."""
    graph_execution: tuple[str, ...] = ()
    """The keys of the compilations whose graphs ran, in order (`?` where torch named none; torch's
    `graph_execution`, written when code runs under `torch._inductor.debug.record_and_log_graph_execution_order()`)."""

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
    """The parameter's name: `in_ptr0`, `out_ptr0`, `xnumel`, `XBLOCK`."""
    type: str
    """Triton's signature type: `*fp32`, `i32`, `constexpr`."""
    role: str  # input | output | in/out | size | constexpr
    """`input`, `output`, `in/out`, `size` or `constexpr`."""
    value: Optional[str] = None
    """What the wrapper's call passes: `buf0`, `arg0_1`, `1024`."""


@dataclass(frozen=True)
class KernelConfig:
    """One launch configuration Inductor compiled for a Triton kernel."""

    params: dict[str, int]  # block sizes and other meta-parameters: XBLOCK, R0_BLOCK, ...
    """Block sizes such as `XBLOCK`."""
    num_warps: int
    """Warps."""
    num_stages: int
    """Pipeline stages."""
    chosen: bool = False  # the one launched (after autotuning, when there was a choice)
    """Whether this is the one launched."""


@dataclass(frozen=True)
class KernelIR:
    """One compiler stage of a Triton kernel: ttir, ttgir, llir or ptx."""

    stage: str
    """`ttir`, `ttgir`, `llir` or `ptx`."""
    text: str
    """The IR."""
    size: int = 0  # characters before any cut
    """Its size in characters."""
    truncated: bool = False  # cut to the explorer's per-stage limit (the head is kept)
    """Whether `text` was cut short."""


@dataclass(frozen=True)
class TritonKernel:
    """A Triton kernel as Inductor built it: launch shape, arguments, IR down to PTX.

    The time and bandwidth of a kernel are in ``Report.timing`` (joined by ``name``).
    """

    name: str
    """The kernel's name."""
    compile_id: Optional[CompileKey] = None
    """Its compilation."""
    graph_kind: str = ""
    """`forward`, `backward` or `inference`."""
    heuristic: str = ""  # pointwise | reduction | persistent_reduction | template | ...
    """`pointwise`, `reduction`, `persistent_reduction`, `template`, ..."""
    size_hints: dict[str, int] = field(default_factory=dict)
    """Inductor's size hints."""
    args: tuple[KernelArg, ...] = ()
    """Its parameters and what the wrapper passes."""
    configs: tuple[KernelConfig, ...] = ()
    """The launch configurations compiled, and the one chosen."""
    grid: Optional[tuple[int, ...]] = None
    """Blocks launched (x, y, z) for the chosen config."""
    grid_source: str = ""  # how `grid` was found
    """Where the grid was read."""
    threads_per_block: Optional[int] = None
    """`num_warps` x warp size."""
    target: str = ""  # e.g. cuda sm_90
    """E.g. `cuda sm_90a`."""
    ir: tuple[KernelIR, ...] = ()
    """Its IR down to PTX."""
    ir_config: Optional[int] = None
    """Index into `configs` of the build whose IR is shown."""
    ir_source: str = ""  # where the IR came from
    """Where the IR was read."""
    source_nodes: tuple[str, ...] = ()
    """The FX nodes it fuses."""
    aten_ops: tuple[str, ...] = ()
    """The ATen ops it computes."""
    user_lines: tuple[SourceLoc, ...] = ()
    """The user lines they came from."""
    notes: tuple[str, ...] = ()
    """What could not be read, in words."""


@dataclass(frozen=True)
class ExternCall:
    """A call Inductor leaves to a library (cuBLAS, cuDNN, oneDNN, ATen): not generated code."""

    name: str
    """As the wrapper calls it: `extern_kernels.mm`, `torch.ops.aten.convolution.default`."""
    compile_id: Optional[CompileKey] = None
    """Its compilation."""
    graph_kind: str = ""
    """`forward`, `backward` or `inference`."""
    count: int = 1
    """Calls per graph call."""


@dataclass(frozen=True)
class AutotuneChoice:
    """One choice Inductor timed for an op under `--mode max-autotune`."""

    name: str  # e.g. triton_mm_3, mm (ATen), cpp_CppMicroGemmFP32Vec_2
    """The choice: `triton_mm_3`, `mm` (ATen), `cpp_CppMicroGemmFP32Vec_2`."""
    kind: str  # template | extern | other
    """`template`, `extern` or `other`."""
    time_s: Optional[float]  # measured; None when it failed or was not run
    """Its measured time; `null` when it failed or was not run."""
    description: str = ""
    """Block sizes, warps, stages, as Inductor describes the choice."""
    winner: bool = False
    """Whether it won."""


@dataclass(frozen=True)
class Autotuning:
    """One op Inductor autotuned (max-autotune): the choices tried, their times, the winner."""

    op: str
    """`mm`, `addmm`, `bmm`, `convolution`, ..."""
    inputs: tuple[str, ...] = ()  # the inputs' shapes and dtypes, as text
    """Its inputs' shapes and dtypes, as text."""
    choices: tuple[AutotuneChoice, ...] = ()
    """The choices tried."""
    winner: Optional[str] = None
    """The winner."""
    compile_id: Optional[CompileKey] = None
    """Its compilation."""


@dataclass(frozen=True)
class CudaGraphs:
    """mode="reduce-overhead": whether CUDA graphs were used, and why not if they were not."""

    asked: bool  # the compile asked for CUDA graphs (reduce-overhead, triton.cudagraphs)
    """Whether the mode asks for CUDA graphs."""
    used: bool  # at least one graph was recorded (and so replayed thereafter)
    """Whether they were used."""
    recordings: int = 0
    """How many graphs were recorded."""
    rerecordings: int = 0
    """How many were recorded again."""
    rerecord_reasons: tuple[str, ...] = ()
    """torch's reasons for recording again."""
    skips: tuple[str, ...] = ()  # torch's reason for each graph that was not made a CUDA graph
    """torch's own reasons for skipping them."""
    notes: tuple[str, ...] = ()
    """What the view says."""


@dataclass(frozen=True)
class PreviewGraph:
    """One graph of the CUDA preview: lowered for the GPU (what of it, with which symbolic sizes), or why not."""

    label: str  # "graph 0 (0/0)": the graph's place among the compiled graphs, and its compilation's key
    """The graph, as `graph N (frame/compile)`."""
    compile_id: Optional[str] = None  # the compilation of the main report it came from
    """The compilation of the main report it came from (`null`: not known)."""
    previewed: bool = False
    """Whether it was lowered for the GPU."""
    lowered: str = "inference"  # inference | forward and backward (a training graph) | forward | backward
    """What of it: `inference`, `forward and backward` (a training graph), `forward` or `backward` (a script's, as
    Inductor received them)."""
    symbols: tuple[str, ...] = ()  # the sizes it was lowered with as symbols (dynamic shapes): s77, ...
    """The sizes it was lowered with as symbols (dynamic shapes: `s77`), as the wrapper names them; empty for static
    sizes."""
    reason: Optional[str] = None  # why it was not previewed, in words
    """Why it was not previewed, in words (`null` when it was)."""


@dataclass(frozen=True)
class Preview:
    """What a CUDA GPU would get for the compiled graphs, lowered on this machine without one.

    A preview that was not run: nothing executed on a GPU, no kernel was timed
    or autotuned (where Inductor would autotune among configs, all are listed).
    """

    target: str
    """E.g. `cuda sm_90 (NVIDIA H200, mocked)`."""
    label: str
    """Its label: a preview that was not run."""
    capture: Optional[CaptureData] = None  # the child's capture: output code, kernels, IR, PTX
    """What the child captured, shaped like `capture`."""
    graphs: tuple[str, ...] = ()  # per graph, one line: previewed, or why it was not (``outcomes`` in words)
    """Per graph, one line: previewed (what was lowered, its symbolic sizes), or why it was not."""
    error: Optional[str] = None  # why the preview failed as a whole, in words
    """Why it failed, if it did."""
    notes: tuple[str, ...] = ()
    """What the view says."""
    outcomes: tuple[PreviewGraph, ...] = ()  # per graph: what was lowered, or why it was not
    """Per graph, in the order they were compiled: what was lowered for the GPU, or why not."""

    @property
    def not_previewed(self) -> tuple[PreviewGraph, ...]:
        return tuple(o for o in self.outcomes if not o.previewed)
