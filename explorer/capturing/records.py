"""Typed trace records: what one decoder makes of one raw record.

Each is a frozen value holding only what that one record says, already parsed
(FX graphs into node tables, graph breaks into fields), so that folding them
into a ``Compilation`` (``fold``) is bookkeeping: which record wins, which
lowering it belongs to. Steps that need more than one record (guards need the
frame's file, kernels need the provenance of their lowering) happen in the fold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .artifacts import KernelCompileInfo, MinCut
from .model import (
    Bytecode,
    CacheLookup,
    Frame,
    FxGraph,
    GraphBreak,
    InlinedFunction,
    Mutation,
    OpEstimate,
    SourceLoc,
    StoredStages,
)
from .shapes import RealValue, ShapeGuard, ShapeSymbol, Specialization


@dataclass(frozen=True)
class DynamoGraph:
    """``dynamo_output_graph``: the FX graph Dynamo captured."""

    graph: FxGraph


@dataclass(frozen=True)
class AotGraph:
    """``aot_joint_graph`` / ``aot_forward_graph`` / ``aot_backward_graph`` / ``aot_inference_graph``."""

    kind: str  # the Compilation field: aot_joint, aot_forward, aot_backward, aot_inference
    graph: FxGraph


@dataclass(frozen=True)
class GuardTree:
    """``dynamo_cpp_guards_str``: the guard tree text; split into guards once the frame's file is known."""

    text: str


@dataclass(frozen=True)
class GraphBreakReason:
    """``artifact:dynamo_graph_break_reason``."""

    graph_break: GraphBreak


@dataclass(frozen=True)
class RecompileReasons:
    """``artifact:recompile_reasons``: why the cached compilations' guards failed, one reason a line."""

    text: str


@dataclass(frozen=True)
class FrameStart:
    """``dynamo_start``: the innermost frame of the stack Dynamo started on, and that stack (outermost first)."""

    frame: Frame
    stack: tuple[SourceLoc, ...] = ()


@dataclass(frozen=True)
class TracedCode:
    """``traced_code``: the functions Dynamo traced into a graph: the frame's, then each inlining as it finished."""

    functions: tuple[InlinedFunction, ...]
    # Dynamo's source of the frame's first positional argument (``L['args'][0]``, ``L['self']``) when the frame is
    # shaped like a decorator's wrapper (a closure taking ``*args`` or ``**kwargs``): read from the code object,
    # for ``inlined.entry_of`` to see through the wrapper to the module's ``forward``; None for any other frame
    first_argument: Optional[str] = None


@dataclass(frozen=True)
class Metrics:
    """``compilation_metrics``: times, counts, the frame's code object, why it failed or restarted."""

    values: dict[str, Any] = field(default_factory=dict)  # the counts and times torch filled in
    frame: Optional[Frame] = None  # from co_name, co_filename, co_firstlineno
    restart_reasons: tuple[str, ...] = ()
    compile_time_s: Optional[float] = None
    failure: Optional[str] = None
    failed_at: Optional[SourceLoc] = None  # the user's line the failure came from (fail_user_frame_*)


@dataclass(frozen=True)
class PostGradGraph:
    """``artifact:inductor_post_grad_graph``: the graph Inductor lowers; it opens a new lowering."""

    graph: FxGraph


@dataclass(frozen=True)
class IrText:
    """The loop-level IR logger (``ir_pre_fusion`` / ``ir_post_fusion``): one scheduler dump."""

    fusion: str  # "pre" | "post"
    text: str


@dataclass(frozen=True)
class OutputCodeText:
    """``inductor_output_code``: the wrapper module with the kernels' source inside."""

    code: str
    filename: Optional[str] = None
    graph_kind: Optional[str] = None  # from its "# AOT ID" line: forward, backward, inference
    language: str = "python"  # cpp: AOTInductor's C++ wrapper


@dataclass(frozen=True)
class Provenance:
    """``artifact:inductor_provenance_tracking_*``: kernel <-> post-grad node <-> user line tables."""

    kind: str  # "node_mappings" | "stack_traces"
    value: dict


@dataclass(frozen=True)
class RuntimeEstimates:
    """``artifact:inductor_runtime_and_tensor_meta``: each op of one lowering with Inductor's estimated runtime."""

    ops: tuple[OpEstimate, ...]


@dataclass(frozen=True)
class BytecodeListing:
    """Dynamo's printed listing: the bytecode logger, or the trace's ``*_ORIGINAL_BYTECODE`` artifacts."""

    which: str  # "ORIGINAL" | "MODIFIED"
    listing: str


@dataclass(frozen=True)
class BytecodePair:
    """The bytecode hook: the frame's code and the code Dynamo installed instead."""

    original: Bytecode
    rewritten: Bytecode
    first_argument: Optional[str] = None  # as ``TracedCode.first_argument``: read from the frame's code object
    qualname: Optional[str] = None  # the frame's qualified name (``Net.forward``; None before Python 3.11)


@dataclass(frozen=True)
class SideEffects:
    """``artifact:dynamo_side_effects``: the objects the compiled code mutates, and whether they existed before."""

    mutations: tuple[Mutation, ...]


@dataclass(frozen=True)
class DdpLog:
    """DDPOptimizer's log line (``torch._dynamo.backends.distributed``): its cap and how many buckets it made,
    or a warning of its own."""

    bucket_cap_bytes: Optional[int] = None
    bucket_count: Optional[int] = None
    note: Optional[str] = None


@dataclass(frozen=True)
class DdpSplitGraph:
    """``optimize_ddp_split_graph``: the parent graph calling each subgraph, with their code nested in it."""

    graph: FxGraph


@dataclass(frozen=True)
class DdpSplitChild:
    """``optimize_ddp_split_child``: one subgraph (``submod_N``) DDPOptimizer made."""

    name: str
    graph: FxGraph


@dataclass(frozen=True)
class CacheRecord:
    """``artifact:fx_graph_cache_*``, ``aotautograd_cache_*``, ``dynamo_cache_*``: one cache lookup."""

    lookup: CacheLookup


@dataclass(frozen=True)
class StoreRecord:
    """``explorer_stage_store``: the explorer's own record, put among torch's where a hit's skipped records were
    given back from the stage store (or could not be): ``capturing.stage_store``."""

    stored: StoredStages


@dataclass(frozen=True)
class AotiCode:
    """``graph_dump`` ``inductor_aot_wrapper_code`` / ``inductor_aot_kernel_code``: AOTInductor's C++."""

    which: str  # "wrapper" | "kernel" | "header"
    code: str
    filename: Optional[str] = None


@dataclass(frozen=True)
class ExportedProgramText:
    """``exported_program``: torch's print of a ``torch.export`` program (graph, signature, ranges)."""

    text: str


@dataclass(frozen=True)
class KernelTrace:
    """Per-kernel provenance newer torch writes: ``kernel_information.json``'s shape, or a per-kernel op trace.

    ``kernels``: "name:handle" -> {"ops": [...], "stack_traces": [...], "post_grad_nodes": [...]}.
    """

    source: str  # the artifact's name
    kernels: dict


@dataclass(frozen=True)
class MinCutRecord:
    """``artifact:min_cut_information``: the partitioner's knapsack over one joint graph."""

    min_cut: MinCut


@dataclass(frozen=True)
class KernelCompileTimes:
    """``artifact:triton_kernel_info``: each Triton kernel of one lowering, with its compile time."""

    kernels: tuple[KernelCompileInfo, ...]


@dataclass(frozen=True)
class CollectiveScheduleRecord:
    """``artifact:inductor_collective_schedule``: one lowering's collective kernels, in Inductor's order."""

    ops: tuple[str, ...]


@dataclass(frozen=True)
class GraphExecution:
    """``artifact:graph_execution``: the compile ids of the graphs Inductor's compiled code ran, in order."""

    order: tuple[str, ...]


@dataclass(frozen=True)
class TraceCall:
    """One line of Dynamo's ``trace_call`` log: a call it inlined (``inlined``) from a frame at ``depth``, or an
    FX node it made (``fx``, kept for collectives only); ``op`` names the collective of an ``fx`` line."""

    kind: str  # inlined | fx
    name: str  # the inlined function, or the node's name as Dynamo made it
    loc: SourceLoc  # the frame the call was made from
    depth: int = 0  # Dynamo's inline depth of that frame (0: the compiled frame itself)
    attempt: int = 0  # the compile id's attempt: a restarted trace replaces the last one's lines
    op: Optional[str] = None


@dataclass(frozen=True)
class ShapeRecord:
    """``create_symbol`` / ``create_unbacked_symbol`` / ``symbolic_shape_specialization`` / ``guard_added_fast`` /
    ``propagate_real_tensors``: one row of the compilation's dynamic shapes, from the attempt that wrote it (a restart
    starts over)."""

    row: Union[ShapeSymbol, Specialization, ShapeGuard, RealValue]
    attempt: int = 0


Record = Union[SideEffects, DynamoGraph, AotGraph, GuardTree, GraphBreakReason, RecompileReasons, FrameStart,
               Metrics, PostGradGraph, IrText, OutputCodeText, Provenance, BytecodeListing, BytecodePair, DdpLog,
               DdpSplitGraph, DdpSplitChild, CacheRecord, AotiCode, ExportedProgramText, KernelTrace, MinCutRecord,
               KernelCompileTimes, CollectiveScheduleRecord, GraphExecution, TraceCall, RuntimeEstimates, TracedCode,
               StoreRecord, ShapeRecord]
