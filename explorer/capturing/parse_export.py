"""torch's print of an exported program (``str(ExportedProgram)``) -> ``ExportedProgram``.

The print has three parts: the graph module (``class GraphModule`` with its
``# File:`` comments, as every FX graph print), ``Graph signature:`` (one line
per input and output: ``p_lin_weight: PARAMETER target='lin.weight'``) and
``Range constraints: {s77: VR[2, 64]}``. Where a range's symbol appears is
read from the placeholders' types (``x: "f32[s77, 8]"`` -> ``x.size(0)``).
"""

from __future__ import annotations

import re
import textwrap
from typing import Optional

from .model import Compilation, Decomposition, ExportedProgram, ExportSpec, FxGraph, RangeConstraint
from .parse_fx import parse_graph

_SPEC_RE = re.compile(r"^\s*(?P<name>[\w.]+): (?P<kind>[A-Z_]+)(?: target=(?P<target>'[^']*'|\S+))?")
_RANGE_RE = re.compile(r"(?P<sym>[\w]+): VR\[(?P<low>[^,\]]+), (?P<high>[^\]]+)\]")
_DIMS_RE = re.compile(r"^[a-z]+\d*\[(?P<dims>[^\]]*)\]")


def parse_exported_program(text: str) -> ExportedProgram:
    graph_text, signature, ranges = _parts(text)
    graph = parse_graph(graph_text) if "def forward(" in graph_text else None
    inputs, outputs = _signature(signature)
    types = {n.name: n.type for n in graph.nodes if n.op == "placeholder"} if graph else {}
    inputs = tuple(ExportSpec(s.kind, s.name, s.target, types.get(s.name)) for s in inputs)
    return ExportedProgram(text=text, graph=graph, inputs=inputs, outputs=outputs,
                           range_constraints=_ranges(ranges, inputs))


def _parts(text: str) -> tuple[str, str, str]:
    head, _, rest = text.partition("Graph signature:")
    signature, _, ranges = rest.partition("Range constraints:")
    lines = head.splitlines()
    if lines and lines[0].strip().startswith("ExportedProgram"):
        lines = lines[1:]
    return textwrap.dedent("\n".join(lines)).strip("\n") + "\n", signature, ranges


def _signature(text: str) -> tuple[tuple[ExportSpec, ...], tuple[ExportSpec, ...]]:
    inputs: list[ExportSpec] = []
    outputs: list[ExportSpec] = []
    into = inputs
    for line in text.splitlines():
        s = line.strip()
        if s == "# outputs":
            into = outputs
            continue
        m = _SPEC_RE.match(line)
        if m and not s.startswith("#"):
            target = m["target"].strip("'") if m["target"] else None
            into.append(ExportSpec(m["kind"], m["name"], target if target not in ("None", "") else None))
    return tuple(inputs), tuple(outputs)


def _ranges(text: str, inputs: tuple[ExportSpec, ...]) -> tuple[RangeConstraint, ...]:
    where: dict[str, list[str]] = {}
    for spec in inputs:
        m = _DIMS_RE.match(spec.type or "")
        if not m:
            continue
        for dim, expr in enumerate(d.strip() for d in m["dims"].split(",")):
            for sym in re.findall(r"\b[su]\d+\b", expr):
                where.setdefault(sym, []).append(f"{spec.name}.size({dim})" if expr == sym else
                                                 f"{spec.name}.size({dim}) = {expr}")
    return tuple(RangeConstraint(m["sym"], m["low"].strip(), m["high"].strip(), tuple(where.get(m["sym"], ())))
                 for m in _RANGE_RE.finditer(text))


def _op(target: str) -> str:
    return target[len("torch.ops."):] if target.startswith("torch.ops.") else target


def decompositions(ep: ExportedProgram, comp: Compilation) -> tuple[Decomposition, ...]:
    """Each exported node and the post-grad nodes AOTInductor lowered it to (torch's ``preToPost``)."""
    if ep.graph is None or not comp.node_map:
        return ()
    post: Optional[FxGraph] = comp.post_grad_graph
    post_ops = {n.name: _op(n.target) for n in post.nodes} if post is not None else {}
    out = []
    for n in ep.graph.nodes:
        if n.op != "call_function":
            continue
        into = comp.node_map.get(n.name, ())
        out.append(Decomposition(n.name, _op(n.target), tuple(into), tuple(post_ops.get(i, "?") for i in into)))
    return tuple(out)
