"""A graph's picture at any size: a big graph, or one of repeated blocks, is drawn folded, one box per module.

A picture of 11,000 nodes is unreadable and takes Graphviz minutes; a picture of one block is what a user reads.
So a graph of more than ``PLAIN_MAX`` nodes, or one whose modules repeat (``explorer.structure``), is drawn as an
overview: one box per module (a container's children shown in its place while the overview stays small), the
alike members of a family in one box per run ("model.layers.0–16, 17× Block"), each member that differs in a box
of its own, and edges between boxes where values flow. A box opens to its own picture: its nodes (a box of more
than ``PLAIN_MAX`` nodes is folded again), with the values it reads from outside as grey inputs. Every member of
one group opens to the picture of the group's first member, so a family of 80 draws a few pictures, not 80.

Pure text: the DOT of each picture, drawn where pictures are drawn today (the page inline, the widget on request,
off the kernel's critical path). A graph whose nodes name no module is folded by user function, then by position.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..plural import counted
from ..structure import Repeat, Structure
from ..structure.paths import short_class
from .blocks import Origin
from .fmt import origin_of
from .graph_dot import Shape, dot, graph_dot, node_shape
from .member_diff import first_change
from .structure_view import PLAIN_MAX, members_text, picture_folds

__all__ = ["PLAIN_MAX", "Box", "Folded", "fold", "overview_dot"]
ITEMS_MAX = 40  # an overview opens containers in place while it has at most about this many boxes and nodes
_PART = 200  # the last resort: boxes of this many nodes in graph order
_PARAM = re.compile(r"_(?:parameters|buffers)_(?P<name>\w+?)_?$")


@dataclass(frozen=True)
class Box:
    """One box of a folded picture: what it holds, and which picture opening it shows."""

    id: str  # the DOT node's name (its SVG <title>): "box:model.layers.0-16"
    title: str  # the opened panel's heading
    picture: str  # the key of the picture it opens
    origins: tuple[Origin, ...] = ()  # the user lines of its nodes (``{"file", "line"}``): the box lights with them


@dataclass
class Folded:
    """The pictures of one folded graph: ``""`` the overview, then one per box opened (keyed by scope).

    Each picture's DOT text is made when it is first asked for (``dot``): the widget names every picture in its
    first message, but draws only those a user opens, and writing the DOT of an 11,000-node graph's every box
    would put that cost on the kernel's critical path. ``fingerprint`` names the graph as drawn (its nodes and
    their modules), so a picture's id is known without its text."""

    boxes: dict[str, Box] = field(default_factory=dict)
    specs: dict[str, Any] = field(default_factory=dict)  # key -> what its picture holds (the folder's arguments)
    fingerprint: str = ""
    _draw: Any = field(default=None, repr=False)
    _made: dict[str, str] = field(default_factory=dict, repr=False)

    def keys(self) -> list[str]:
        return list(self.specs)

    def dot(self, key: str) -> str:
        if key not in self._made:
            self._made[key] = self._draw(*self.specs[key])
        return self._made[key]

    @property
    def dots(self) -> dict[str, str]:
        """Every picture's DOT text (all made now)."""
        return {key: self.dot(key) for key in self.specs}


def fold(fx: Any, structure: Optional[Structure], stage: str) -> Optional[Folded]:
    """The folded pictures of a graph stage, or None when it is drawn plain (small, and nothing repeats)."""
    if not picture_folds(fx, structure, stage):
        return None
    n = len(fx.nodes)
    st = structure.stage(stage) if structure is not None else None
    reps = list(structure.repeats_of(stage)) if structure is not None else []
    paths = [st.paths[i] for i in st.of] if st is not None and len(st.of) == n else [""] * n
    if not any(paths):
        paths = _by_function(fx.nodes)
    classes = structure.classes if structure is not None else {}
    folded = _Folder(fx, paths, reps, classes).run()
    seen = "\n".join(f"{x.name} {x.target} {x.type} {' '.join(x.inputs)} {p}" for x, p in zip(fx.nodes, paths))
    folded.fingerprint = hashlib.sha1(f"{stage}\n{seen}".encode()).hexdigest()
    return folded


def _by_function(nodes: Sequence[Any]) -> list[str]:
    """No module names the nodes: the user function each came from, then parts of ``_PART`` nodes in order."""
    paths = []
    for node in nodes:
        loc = node.loc
        paths.append(f"{loc.function}@{loc.filename.rsplit('/', 1)[-1].split('.')[0]}".replace(".", "_")
                     if loc is not None and loc.function else "")
    sizes: dict[str, int] = {}
    for p in paths:
        sizes[p] = sizes.get(p, 0) + 1
    if max(sizes.values(), default=0) <= PLAIN_MAX and len(sizes) > 1:
        return paths
    return [f"nodes_{i // _PART * _PART + 1}-{min(len(nodes), (i // _PART + 1) * _PART)}" for i in range(len(nodes))]


class _Folder:
    def __init__(self, fx: Any, paths: list[str], reps: list[Repeat], classes: dict[str, str]):
        self.fx, self.paths, self.classes = fx, paths, classes
        self.index = {node.name: i for i, node in enumerate(fx.nodes)}
        self.out = Folded(_draw=self.dot)
        # a family's members: consecutive alike members are one run, opened as their group's first member
        self.run_of: dict[str, str] = {}
        self.runs: dict[str, tuple[Repeat, int, list[str]]] = {}
        for r in reps:
            group_of = {m: k for k, g in enumerate(r.groups) for m in g.members}
            run: list[str] = []
            for m in r.members + ("",):
                if run and (m == "" or group_of.get(m) != group_of[run[-1]] or not _next(run[-1], m)):
                    rid = f"box:{r.path(run[0])}" + (f"-{run[-1]}" if len(run) > 1 else "")
                    self.runs[rid] = (r, group_of[run[0]], list(run))
                    for x in run:
                        self.run_of[r.path(x)] = rid
                    run = []
                if m:
                    run.append(m)

    def run(self) -> Folded:
        self.picture("", "", list(range(len(self.fx.nodes))), overview=True)
        return self.out

    # ---- one picture: a scope's nodes, as nodes and boxes ----
    def picture(self, key: str, scope: str, idx: list[int], *, overview: bool = False) -> None:
        if key in self.out.specs:
            return
        self.out.specs[key] = None  # taken: a box inside may lead back here
        if not overview and len(idx) <= PLAIN_MAX:
            items = {i: self.fx.nodes[i].name for i in idx}
            boxes: dict[str, list[int]] = {}
        else:
            items, boxes = self.items(scope, idx)
        self.out.specs[key] = (idx, items, boxes, not overview)
        for bid, members in boxes.items():
            self.open(bid, members)

    def items(self, scope: str, idx: list[int]) -> tuple[dict[int, str], dict[str, list[int]]]:
        """Each node of the scope -> the item it is drawn as: itself, or a box; a container opened in place while
        the overview stays small."""
        boxes: dict[str, list[int]] = {}
        items: dict[int, str] = {}
        for i in idx:
            box = self.box_of(scope, self.paths[i])
            if box is None:
                items[i] = self.fx.nodes[i].name
            else:
                items[i] = box
                boxes.setdefault(box, []).append(i)
        while True:
            count = len(boxes) + sum(1 for v in items.values() if not v.startswith("box:"))
            best = None
            # a container of a family's members opens first, whatever it costs: the family is the picture
            order = sorted(boxes.items(), key=lambda kv: (not self.holds_family(kv[0]), -len(kv[1])))
            for bid, members in order:
                if bid in self.runs:
                    continue
                if self.holds_family(bid):
                    best = bid
                    break
                inner = [self.box_of(bid[4:], self.paths[i]) for i in members]
                grows = len(set(inner) - {None}) + inner.count(None) - 1
                if inner.count(None) == len(inner) or (count + grows > ITEMS_MAX and count > 1):
                    continue  # a module with no modules inside stays a box; so does one that would crowd the picture
                best = bid
                break
            if best is None:
                return items, boxes
            for i in boxes.pop(best):
                child = self.box_of(best[4:], self.paths[i])
                items[i] = child if child is not None else self.fx.nodes[i].name
                if child is not None:
                    boxes.setdefault(child, []).append(i)

    def holds_family(self, bid: str) -> bool:
        scope = bid[4:]
        return any(r.parent == scope or r.parent.startswith(scope + ".") for r, _, _ in self.runs.values())

    def box_of(self, scope: str, path: str) -> Optional[str]:
        """The box a node of ``path`` sits in, seen from ``scope``; None: it is drawn as itself."""
        if path == scope or not path or (scope and not path.startswith(scope + ".")):
            return None
        rest = path[len(scope) + 1:] if scope else path
        child = f"{scope}.{rest.split('.')[0]}" if scope else rest.split(".")[0]
        return self.run_of.get(child) or f"box:{child}"

    def open(self, bid: str, members: list[int]) -> None:
        """The box's own picture (a run's: its group's first member's), and how its panel is titled."""
        lines = sorted({(loc.filename, loc.lineno) for i in members if (loc := self.fx.nodes[i].loc) is not None
                        and loc.filename and loc.lineno})
        origins = tuple(o for f, n in lines if (o := origin_of(f, n)) is not None)
        if bid in self.runs:
            r, k, run = self.runs[bid]
            g = r.groups[k]
            shown = r.path(g.members[0])
            scope_idx = [i for i, p in enumerate(self.paths) if p == shown or p.startswith(shown + ".")]
            self.out.boxes[bid] = Box(bid, self.run_title(r, k, run), f"scope:{shown}", origins)
            self.picture(f"scope:{shown}", shown, scope_idx)
            return
        scope = bid[4:]
        kind = short_class(self.classes.get(scope, ""))
        self.out.boxes[bid] = Box(bid, f"{scope}{f' ({kind})' if kind else ''}: {counted(len(members), 'node')}",
                                  f"scope:{scope}", origins)
        self.picture(f"scope:{scope}", scope, members)

    def run_title(self, r: Repeat, k: int, run: list[str]) -> str:
        g = r.groups[k]
        kind = g.kind or r.kind or "module"
        shown = r.path(g.members[0])
        where = members_text(r.parent, run)
        head = f"{where}: {len(run)}× {kind}" if len(run) > 1 else f"{where}: {kind}"
        if k:
            change = first_change(g.diff)
            head += f", differs from {r.path(r.groups[0].members[0])}" + (f" ({change})" if change else "")
        head += f", {counted(g.size, 'node')}" + (" each" if len(run) > 1 else "")
        return head + (f"; shown: {shown}, alike" if shown not in {r.path(m) for m in run[:1]} else "")

    def box_label(self, bid: str, members: list[int]) -> tuple[tuple[str, ...], str]:
        if bid in self.runs:
            r, k, run = self.runs[bid]
            g = r.groups[k]
            kind = g.kind or r.kind or "module"
            lines = [members_text(r.parent, run), f"{len(run)}× {kind}" if len(run) > 1 else kind]
            if k:
                change = first_change(g.diff)
                lines.append("differs" + (f": {change}" if change else ""))
            lines.append(counted(g.size, "node") + (" each" if len(run) > 1 else ""))
            return tuple(lines), "#fee2e2" if k else "#e0e7ff"
        scope = bid[4:]
        kind = short_class(self.classes.get(scope, ""))
        lines = [scope] + ([kind] if kind else []) + [counted(len(members), "node")]
        return tuple(lines), "#ecfdf5"

    def input_label(self, i: int) -> Optional[str]:
        """A parameter's input by the name the user writes (``attn.wq.weight``), not Dynamo's flattened source."""
        n = self.fx.nodes[i]
        m = _PARAM.search(n.name) if n.op == "placeholder" else None
        return f"{self.paths[i]}.{m['name']}" if m and self.paths[i] else None

    # ---- DOT ----
    def dot(self, idx: list[int], items: dict[int, str], boxes: dict[str, list[int]], inputs: bool) -> str:
        """One picture: its nodes drawn as themselves, its boxes, the values its nodes read from outside (when it
        is a box's own picture) and the edges between them, a count on an edge into or out of a box."""
        shapes = [node_shape(self.fx.nodes[i], self.input_label(i)) for i in idx if not items[i].startswith("box:")]
        for bid, members in boxes.items():
            label, fill = self.box_label(bid, members)
            shapes.append(Shape(bid, label, "box3d", "filled,bold", fill, "click to open"))
        edges: dict[tuple[str, str], int] = {}
        outside: dict[str, str] = {}
        for i in idx:
            dst = items[i]
            for x in self.fx.nodes[i].inputs:
                j = self.index.get(x)
                if j is None:
                    continue
                src = items.get(j)
                if src is None:
                    if not inputs:
                        continue
                    src = outside.setdefault(x, f"in:{x}")
                if src != dst:
                    edges[(src, dst)] = edges.get((src, dst), 0) + 1
        for name, node_id in outside.items():
            where = self.paths[self.index[name]] or "the function"
            shapes.append(Shape(node_id, (name, f"(from {where})"), "ellipse", "dashed,filled", "#f3f4f6",
                                fontcolor="#6b7280"))
        return dot(shapes, ((a, b, count if a.startswith("box:") or b.startswith("box:") else 1)
                            for (a, b), count in edges.items()))


def _next(a: str, b: str) -> bool:
    return a.isdigit() and b.isdigit() and int(b) == int(a) + 1


def overview_dot(fx: Any, structure: Optional[Structure], stage: str) -> Optional[str]:
    """The DOT a graph's picture starts from: its folded overview, or its own (a small graph nothing repeats in);
    None when there is none (no node was read from the graph's text)."""
    folded = fold(fx, structure, stage)
    return folded.dot("") if folded is not None else (graph_dot(fx.nodes) if fx.nodes else None)
