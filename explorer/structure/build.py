"""One compilation's structure: every graph stage's nodes, the guards and the kernel launches by module.

Dynamo's graph is read first (its inputs are named after the parameters they are); the AOT and post-grad
graphs then take their parameters by position (``primals_7`` is Dynamo's seventh input, ``arg6_1`` in an
inference graph) and, in a backward graph, the activations the forward saved by name. A kernel launch belongs
to the modules of the post-grad nodes torch's provenance says it computes.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Optional

from ..capturing.model import CaptureData, Compilation, FxGraph
from ..lineage import ir_nodes
from ..lineage.graphs import GraphLines
from .assign import assign, family, line_key
from .fold import graph_listing, guard_listing, ir_listing, kernel_listing, repeats
from .model import Launch, Repeat, StageModules, Structure
from .paths import (
    SELF,
    common,
    guard_module,
    input_module,
    module_roots,
    parent_of,
    root_of,
    source_module,
    tensor_sources,
)
from .paths import classes as classes_of

# graph stages after Dynamo's: (stage id, field, runs backward, the forward graph whose saved activations it reads)
_AOT = (("aot_joint", "aot_joint", False, None), ("aot_forward", "aot_forward", False, None),
        ("aot_inference", "aot_inference", False, None), ("post_grad_graph", "post_grad_graph", False, None),
        ("aot_backward", "aot_backward", True, "aot_forward"),
        ("post_grad_graph_backward", "post_grad_graph_backward", True, "post_grad_graph"))
_POSITIONAL = re.compile(r"^(?:primals_(?P<p>\d+)|arg(?P<a>\d+)_1)$")
_POST_GRAD = {"forward": "post_grad_graph", "inference": "post_grad_graph", "backward": "post_grad_graph_backward"}

_COMMENT = re.compile(r"#.*")  # a Python comment, to the end of the line


def structure_of(data: CaptureData) -> tuple[Structure, ...]:
    """Per compilation with a graph: its structure (empty stages when no node names a module)."""
    return tuple(compilation_structure(c) for c in data.compilations if c.graph is not None)


def compilation_structure(comp: Compilation) -> Structure:
    root = root_of(comp.entry.module_source if comp.entry is not None else None)
    classes = classes_of(comp.guards, root)
    roots = module_roots(comp.guards)
    known = tensor_sources(comp.guards, root)
    lines = frame_lines(comp, root)
    stages: list[StageModules] = []
    owners: dict[str, dict[str, str]] = {}  # stage -> node name -> module path

    def add(stage: str, fx: FxGraph, inputs: dict[str, str], backward: bool,
            anchors: Optional[dict[str, str]] = None) -> None:
        paths = assign(fx.nodes, inputs, classes=classes, backward=backward, frame_lines=lines, anchors=anchors)
        owners[stage] = {n.name: p for n, p in zip(fx.nodes, paths)}
        stages.append(_stage(stage, paths))

    graph = comp.graph
    dynamo_inputs = {n.name: input_module(n.target, known, root) or input_module(n.name, known, root) or ""
                     for n in graph.nodes if n.op == "placeholder"}
    add("graph", graph, dynamo_inputs, False)
    by_position = [dynamo_inputs[n.name] for n in graph.nodes if n.op == "placeholder"]
    for stage, field, backward, forward in _AOT:
        fx = getattr(comp, field)
        if fx is None:
            continue
        inputs = {}
        for n in fx.nodes:
            if n.op != "placeholder":
                continue
            m = _POSITIONAL.match(n.name)
            k = (int(m["p"]) - 1 if m["p"] else int(m["a"])) if m else None
            if k is not None and 0 <= k < len(by_position):
                inputs[n.name] = by_position[k]
            elif forward is not None:
                inputs[n.name] = owners.get(forward, {}).get(n.name, "")
        # a backward graph returns the gradients of the forward's inputs in their order: a parameter's is its module's
        grads = {name: by_position[k] for k, name in enumerate(returned(fx.code)) if name and k < len(by_position)
                 and by_position[k]} if backward else None
        add(stage, fx, inputs, backward, grads)
    guard_paths = [guard_module(g, roots, root) for g in comp.guards]
    stages.append(_stage("guards", guard_paths))
    launches = kernel_launches(comp, owners)
    found: list[Repeat] = []
    for st in stages:
        paths = [st.paths[i] for i in st.of]
        fx = _graph(comp, st.stage)
        listing = (guard_listing(comp.guards, paths) if st.stage == "guards" else graph_listing(fx.nodes, paths))
        found += repeats(st.stage, paths, listing, classes)
    found += repeats("kernels", [k.modules[0] if k.modules else "" for k in launches], kernel_listing(launches),
                     classes)
    for stage, paths, listing in ir_stages(comp, owners):
        stages.append(_stage(stage, paths))
        found += repeats(stage, paths, listing, classes)
    notes = () if any(p for st in stages for p in st.paths) else (
        "no node, guard or kernel names a module: the compiled code reads no nn.Module's parameters",)
    return Structure(compile_id=comp.compile_id, classes=classes, stages=tuple(s for s in stages if s.of),
                     launches=tuple(launches), repeats=tuple(found), notes=notes)


def returned(code: str) -> list[Optional[str]]:
    """What a printed graph's ``forward`` returns, position by position: a node's name, or None (``None``, a
    constant). Read from the text, as the node table keeps only the names, once each."""
    lines = code.splitlines()
    start = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].lstrip().startswith("return ")), None)
    if start is None:
        return []
    text, depth = "", 0
    for line in lines[start:]:
        part = _COMMENT.sub("", line)
        text += " " + part
        depth += part.count("(") + part.count("[") - part.count(")") - part.count("]")
        if depth <= 0:
            break
    body = text.strip()[len("return"):].strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    out: list[Optional[str]] = []
    for item in body.split(","):
        item = item.strip()
        if item:
            out.append(item if item.isidentifier() and item != "None" else None)
    return out


def _graph(comp: Compilation, stage: str) -> Any:
    return getattr(comp, stage, None) if stage != "guards" else None


def _stage(stage: str, paths: list[str]) -> StageModules:
    index: dict[str, int] = {}
    of = [index.setdefault(p, len(index)) for p in paths]
    return StageModules(stage=stage, paths=tuple(index), of=tuple(of))


def frame_lines(comp: Compilation, root: str = SELF) -> dict[str, set]:
    """Per module family, the user lines its members' own ``forward`` runs: where Dynamo guarded an attribute
    of a member (``self.mlp`` on ``return x + self.mlp(x)`` guards ``layers.3._modules['mlp']``)."""
    out: dict[str, set] = {}
    for g in comp.guards:
        if not g.filename or not g.lineno:
            continue
        found = source_module(g.subject, root)
        if found is None:
            continue
        path, end = found
        # a check on the module object itself, or on how it is called (``__dict__`` for an overridden forward, its
        # hooks), was made by its caller; one on what it holds, by its own code
        rest = (g.subject or "")[end:]
        frame = parent_of(path) if not rest or rest.startswith(".__") or "hooks" in rest else path
        if frame:
            out.setdefault(family(frame), set()).add(line_key(g.filename, g.lineno))
    return out


def ir_stages(comp: Compilation, owners: dict[str, dict[str, str]]) -> list[tuple[str, list[str], Any]]:
    """Per loop-IR dump (``ir_pre_fusion:1``): each scheduler node's module, that of most of the post-grad nodes it
    computes (read as the chain reads the dump: the call writing its buffers, its loop body's lines), and the
    listing its members are compared by."""
    if not any(path for stage in set(_POST_GRAD.values()) for path in owners.get(stage, {}).values()):
        return []  # no post-grad node names a module (a cell's function): nothing to group, and reading the dumps
        # against the wrappers is most of a big report's structure time
    graphs = {stage: GraphLines(fx) for stage in set(_POST_GRAD.values())
              for fx in [getattr(comp, stage)] if fx is not None and fx.code}
    out = []
    found = ir_nodes(comp, graphs)
    for stage in ("ir_pre_fusion", "ir_post_fusion"):
        for part, dump in enumerate(getattr(comp, stage) or ()):
            ops = found.get((stage, part))
            graph = owners.get(_POST_GRAD.get(dump.graph_kind, ""), {})
            if not ops or not graph:
                continue
            paths: list[Optional[str]] = []
            for op in ops:
                counts = Counter(graph[n] for n in op.nodes if n in graph)
                placed = counts and not op.computes_nothing  # one that computes nothing: where its neighbours are
                paths.append(max(counts, key=lambda p: (counts[p], p.count("."))) if placed else None)
            out.append((f"{stage}:{part}", _between(paths), ir_listing(dump.text, [op.row for op in ops])))
    return out


def _between(paths: list[Optional[str]]) -> list[str]:
    """A scheduler node of no module (None) in the deepest module holding the nearest placed nodes before and
    after it: a concatenation inside a layer's attention is the attention's, one between two layers neither's."""
    out = list(paths)
    before = [None] * len(paths)
    last = None
    for i, p in enumerate(paths):
        before[i] = last
        last = p if p is not None else last
    after = None
    for i in range(len(paths) - 1, -1, -1):
        if paths[i] is None:
            near = [x for x in (before[i], after) if x is not None]
            out[i] = common(near) if near else ""
        else:
            after = paths[i]
    return out


def kernel_launches(comp: Compilation, owners: dict[str, dict[str, str]]) -> list[Launch]:
    """Every call in the wrappers, from torch's provenance handles (``kernel:N`` -> the post-grad nodes it
    computes), with the modules of those nodes."""
    out = []
    for o in comp.output_code or ():
        graph = owners.get(_POST_GRAD.get(o.graph_kind, ""), {})
        for kernel, nodes in o.calls():
            counts = Counter(graph[x] for x in nodes if x in graph)
            modules = tuple(p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(Launch(kernel=kernel, graph_kind=o.graph_kind, modules=modules))
    return out

