"""What AOTAutograd's partitioner saved for the backward, and what the backward recomputes instead.

AOTAutograd traces a training graph once as one joint forward+backward graph, then cuts it in two
(``torch/_functorch/partitioners.py``: a min-cut over the joint graph). The forward returns, besides the
user's outputs, the values the backward needs: its extra outputs, which are the backward's inputs other
than the incoming gradients (``tangents_*``). Anything else the backward needs it computes again from
those: a node computed in both halves is recomputed (the default partitioner recomputes cheap pointwise
ops rather than keep their results alive between forward and backward). The partitioner keeps node names,
so each saved value and each recomputed node is the joint graph's node of that name: its op, its size, its
user line. Where torch logged its knapsack (``MinCut``: the activation memory budget), each candidate says
what it was weighed at.

Read from the three printed graphs (traces and live captures alike): pure functions, no torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..capturing.model import Compilation, FxGraph, FxNode, MinCutCandidate, SourceLoc
from ..capturing.parse_ddp import DTYPE_BYTES
from .inputs import aot_input_names, short_type

_TYPE_RE = re.compile(r"^(?P<dtype>[a-z]+\d*[a-z0-9]*)\[(?P<shape>[^\]]*)\]")
_SYM_RE = re.compile(r"^Sym\((?P<expr>.*)\)")
# ops whose result shares its input's storage: saving one costs no memory of its own
_VIEWS = frozenset({"view", "_unsafe_view", "permute", "t", "transpose", "expand", "alias", "slice", "select",
                    "unsqueeze", "squeeze", "as_strided", "reshape", "detach", "unflatten", "view_as"})


@dataclass(frozen=True)
class Size:
    """Bytes, as a sum of terms: ``{"": 2048, "s0": 128}`` is 2048 + 128·s0 bytes (symbolic sizes kept as such)."""

    terms: dict[str, int] = field(default_factory=dict)

    @property
    def known(self) -> Optional[int]:
        """The byte count when no symbol is in it."""
        return self.terms.get("", 0) if set(self.terms) <= {""} else None

    def __add__(self, other: Size) -> Size:
        out = dict(self.terms)
        for k, v in other.terms.items():
            out[k] = out.get(k, 0) + v
        return Size(out)


@dataclass(frozen=True)
class SavedValue:
    """One value the forward saves for the backward."""

    name: str  # the forward's output, the backward's input and the joint graph's node, by one name
    kind: str  # activation (the forward computed it) | input (a graph input) | view (of an input) | symint
    type: Optional[str] = None  # "f32[4, 32]": dtype and shape
    size: Optional[Size] = None  # None: no tensor (a SymInt), or a dtype of unknown width
    op: Optional[str] = None  # what computed it in the forward (aten.addmm.default)
    input_name: Optional[str] = None  # an input's (or a view's base's) name in the user's code: x, self.fc2.weight
    loc: Optional[SourceLoc] = None  # the user line (of the joint graph's node)
    in_joint: bool = False  # the joint graph has a node of this name
    candidate: Optional[MinCutCandidate] = None  # the partitioner's knapsack item, where torch logged it


@dataclass(frozen=True)
class Recomputed:
    """A node of the joint graph the forward computes and the backward computes again, instead of saving it."""

    name: str
    op: str
    type: Optional[str] = None
    size: Optional[Size] = None  # what saving it would have cost
    loc: Optional[SourceLoc] = None
    candidate: Optional[MinCutCandidate] = None


@dataclass(frozen=True)
class SavedTensors:
    """One training graph's partition: what crosses from forward to backward, and what is computed twice."""

    saved: tuple[SavedValue, ...] = ()
    recomputed: tuple[Recomputed, ...] = ()
    has_joint: bool = False  # the joint graph was there to link saved values and recomputed nodes to

    @property
    def activations(self) -> Size:
        """What the saved activations cost: the memory held from forward to backward beyond the inputs."""
        return self._total("activation")

    @property
    def inputs(self) -> Size:
        """The saved graph inputs' size: alive anyway (parameters, the user's inputs), so no extra memory."""
        return self._total("input")

    def _total(self, kind: str) -> Size:
        total = Size()
        for s in self.saved:
            if s.kind == kind and s.size is not None:
                total = total + s.size
        return total


def saved_tensors(comp: Compilation) -> Optional[SavedTensors]:
    """The partition of ``comp``'s training graph; None when it has no AOT forward and backward graphs."""
    fwd, bwd, joint = comp.aot_forward, comp.aot_backward, comp.aot_joint
    if fwd is None or bwd is None:
        return None
    fwd_nodes = _by_name(fwd)
    joint_nodes = _by_name(joint) if joint is not None else {}
    names = aot_input_names(fwd, comp.graph)
    candidates = {c.name: c for c in comp.min_cut.candidates} if comp.min_cut is not None else {}
    saved = tuple(_saved(n, fwd_nodes, joint_nodes, names, candidates) for n in bwd.nodes
                  if n.op == "placeholder" and not n.name.startswith("tangents_"))
    recomputed = tuple(_recomputed(n, joint_nodes.get(n.name), candidates) for n in bwd.nodes
                       if _computed_in(n, fwd_nodes))
    return SavedTensors(saved, recomputed, joint is not None)


def size_of(type_text: Optional[str]) -> Optional[Size]:
    """Bytes of a tensor from its printed type (``f32[4, s0]`` -> 16·s0); None for a SymInt or an unknown dtype."""
    m = _TYPE_RE.match(type_text or "")
    if not m or m["dtype"] not in DTYPE_BYTES:
        return None
    known, symbols = DTYPE_BYTES[m["dtype"]], []
    for dim in (d.strip() for d in m["shape"].split(",")):
        if not dim:
            continue
        if dim.isdigit():
            known *= int(dim)
        else:
            symbols.append(dim if re.fullmatch(r"\w+", dim) else f"({dim})")
    if known == 0:
        return Size({"": 0})
    return Size({"·".join(sorted(symbols)): known})


def _by_name(graph: FxGraph) -> dict[str, FxNode]:
    return {n.name: n for n in graph.nodes}


def _saved(node: FxNode, fwd: dict[str, FxNode], joint: dict[str, FxNode], names: dict[str, str],
           candidates: dict[str, MinCutCandidate]) -> SavedValue:
    made = fwd.get(node.name)
    at = joint.get(node.name)
    loc = (at.loc if at is not None else None) or (made.loc if made is not None else None)
    base = {"kind": "activation", "type": short_type(node.type), "size": size_of(node.type), "loc": loc,
            "in_joint": at is not None, "candidate": candidates.get(node.name)}
    if _SYM_RE.match(node.type or ""):
        return SavedValue(node.name, **{**base, "kind": "symint", "size": None})
    if made is None or made.op == "placeholder":
        return SavedValue(node.name, **{**base, "kind": "input", "input_name": names.get(node.name)})
    root = _view_base(made, fwd)
    if root is not None:
        return SavedValue(node.name, **{**base, "kind": "view", "op": made.target, "input_name": names.get(root)})
    return SavedValue(node.name, op=made.target, **base)


def _view_base(node: FxNode, fwd: dict[str, FxNode]) -> Optional[str]:
    """The graph input a chain of views of it ends at, or None when ``node`` is no view of an input."""
    seen = 0
    while node.op == "call_function" and _op_stem(node.target) in _VIEWS and node.inputs and seen < 64:
        node = fwd.get(node.inputs[0])
        if node is None:
            return None
        seen += 1
    return node.name if seen and node.op == "placeholder" else None


def _op_stem(target: str) -> str:
    """``aten.permute.default`` -> ``permute``."""
    parts = target.split(".")
    return parts[1] if len(parts) >= 3 and parts[0] in ("aten", "prims") else parts[-1]


def _computed_in(node: FxNode, fwd: dict[str, FxNode]) -> bool:
    """The backward computes ``node`` and the forward computes a node of that name with the same op: the
    partitioner kept the name, so it is the one joint-graph node, computed twice."""
    if node.op != "call_function":
        return False
    made = fwd.get(node.name)
    return made is not None and made.op == "call_function" and made.target == node.target


def _recomputed(node: FxNode, at: Optional[FxNode], candidates: dict[str, MinCutCandidate]) -> Recomputed:
    loc = (at.loc if at is not None else None) or node.loc
    return Recomputed(node.name, node.target, short_type(node.type), size_of(node.type), loc,
                      candidates.get(node.name))

