"""torch's other artifacts, as plain data: what the partitioner weighed, what each kernel cost to compile,
the order Inductor scheduled the collectives in, the order graphs ran in, where collectives were called.

Each comes from one record torch writes only in some runs (tlparse shows them raw when present): the
partitioner's ``min_cut_information`` (``AOT_PARTITIONER_DEBUG=1`` and an activation memory budget
below 1), ``triton_kernel_info`` (each Triton kernel's compile), ``inductor_collective_schedule`` (a
lowering with collectives), ``graph_execution`` (``torch._inductor.debug.record_and_log_graph_execution_order``)
and Dynamo's ``trace_call`` log (the explorer's own capture listens to it: the user line a library
function that made a collective was called from). Frozen values of strings and numbers, like the rest of
``model``; no torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .graph_model import SourceLoc


@dataclass(frozen=True)
class MinCutCandidate:
    """One joint-graph node the partitioner could either save or recompute, and what it chose.

    The knapsack's items: nodes the min-cut would save that the backward could recompute instead;
    ``memory_bytes`` is what saving it costs, ``runtime`` what recomputing it costs (torch's estimate,
    in its own unit: FLOPs by default).
    """

    name: str
    """The joint graph's node."""
    target: str  # aten.addmm.default
    """Its op: `aten.addmm.default`."""
    shape: str  # as torch printed it: torch.Size([256, 32])
    """Its shape as torch printed it: `torch.Size([256, 32])`."""
    memory_bytes: int
    """What saving it costs, in bytes."""
    runtime: float
    """What recomputing it costs (torch's estimate, in its own unit: FLOPs by default)."""
    saved: bool
    """The knapsack saves it."""
    recomputed: bool
    """The backward recomputes it."""
    stack_trace: str = ""
    """The node's whole Python stack, innermost frame last."""


@dataclass(frozen=True)
class MinCut:
    """``min_cut_information``: how the partitioner met the activation memory budget on one joint graph.

    ``memory_budget`` is ``torch._functorch.config.activation_memory_budget`` (1.0 saves whatever is
    fastest, 0 recomputes all it can); the activation sizes are torch's estimates in GB: saving the
    inputs only (``min``), saving what the plain min-cut saves (``max``), and what was chosen (``saved``).
    """

    memory_budget: float
    """`torch._functorch.config.activation_memory_budget` (1.0 saves whatever is fastest, 0 recomputes all it can)."""
    candidates: tuple[MinCutCandidate, ...] = ()  # largest first, as torch ordered them
    """The knapsack's items, largest first as torch ordered them."""
    saved_values: tuple[str, ...] = ()
    """The min-cut solution: the joint graph's nodes the forward saves."""
    min_activation_gb: Optional[float] = None
    """torch's estimate (GB) of the activations when saving the inputs only."""
    max_activation_gb: Optional[float] = None
    """torch's estimate (GB) of the activations the plain min-cut saves."""
    saved_activation_gb: Optional[float] = None
    """torch's estimate (GB) of the activations chosen."""
    more_aggressive_ratio: Optional[float] = None  # memory ratio of the next policies torch tried first
    """The memory ratio of the next more aggressive policy torch tried."""
    aggressive_ratio: Optional[float] = None
    """The memory ratio of the aggressive policy torch tried."""
    expected_runtime: Optional[float] = None  # the knapsack's estimate of what recomputation costs
    """The knapsack's estimate of what recomputation costs (torch's unit)."""
    joint_nodes: int = 0  # the joint graph's size as the partitioner saw it
    """How many nodes the joint graph has."""


@dataclass(frozen=True)
class KernelCompileInfo:
    """``triton_kernel_info``: one Triton kernel's compile, as Inductor's async compile measured it."""

    name: str  # triton_poi_fused_relu_1
    """The Triton kernel: `triton_poi_fused_relu_1`."""
    graph_kind: str = ""  # the lowering it belongs to: forward | backward | inference
    """The lowering it belongs to: forward, backward or inference."""
    compile_time_s: Optional[float] = None
    """How long Triton took to compile it."""
    autotune_cache: Optional[str] = None  # hit | miss | only 1 config | ... (torch's autotune_cache_state)
    """torch's autotune cache state: hit, miss, only 1 config, ..."""
    num_configs: Optional[int] = None
    """How many configs were tried."""
    only_config: dict[str, int] = field(default_factory=dict)
    """The one config, when there was no choice."""


@dataclass(frozen=True)
class CollectiveSchedule:
    """``inductor_collective_schedule``: the collective kernels of one lowered graph, in Inductor's final
    order (after its reordering passes): the order they are issued at run time."""

    graph_kind: str  # forward | backward | inference
    """forward, backward or inference."""
    ops: tuple[str, ...] = ()  # torch.ops._c10d_functional.all_reduce_.default, ...wait_tensor.default
    """Its collective kernels and waits, in Inductor's order."""


@dataclass(frozen=True)
class CallSite:
    """How Dynamo came to make one collective's FX node (its ``trace_call`` log): the frames it was tracing,
    outermost first, the node's own last. ``dist.all_reduce(b)`` makes its node inside
    ``_functional_collectives.py``, the only frame the printed graph names; the user's line is further out."""

    op: str
    """The collective: `all_reduce`, `all_gather_into_tensor`, ..."""
    node: str  # the node's name when Dynamo made it (Dynamo may rename it afterwards: matched by order)
    """The node's name when Dynamo made it (renamed nodes are matched by order)."""
    stack: tuple[SourceLoc, ...] = ()
    """The frames Dynamo was tracing, outermost first, the node's own last."""
