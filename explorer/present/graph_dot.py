"""A graph's picture in Graphviz's language: the one writer of DOT text, for plain and folded pictures alike.

The report keeps a graph as data (``FxGraph.nodes``: each node's name, op, target, type, user line and inputs);
the picture is drawn from it here, when a view shows it. A plain picture (``graph_dot``) is every node and every
edge; a folded one (``present.fold_picture``) chooses what to draw (some nodes, a box per module, the values a
box reads from outside) and hands the shapes and edges to ``dot``, which writes both the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from ..capturing.model import FxNode

__all__ = ["Shape", "dot", "graph_dot", "node_shape"]
_SHAPE = {"placeholder": "ellipse", "output": "doubleoctagon"}
_FILL = {"placeholder": "#dbeafe", "output": "#fde68a"}


@dataclass(frozen=True)
class Shape:
    """One drawn node of a picture: a graph's node, a folded module's box, a value read from outside a box."""

    id: str  # the DOT node's name (its SVG <title>: the view links a picture's node to the chain by it)
    label: tuple[str, ...]  # its lines
    shape: str
    style: str
    fill: str
    tooltip: Optional[str] = None
    fontcolor: Optional[str] = None


def node_shape(n: FxNode, label: Optional[str] = None) -> Shape:
    """A graph's node: its name (``label`` instead, for an input), its target when it is not its name, its type;
    inputs are ellipses on top, the output an octagon; the tooltip is its user line."""
    lines = [label or n.name] if n.op in ("placeholder", "output") or n.target == n.name else [n.name, n.target]
    if n.type:
        lines.append(n.type)
    tooltip = f"{n.loc.short()}  {n.loc.code or ''}" if n.loc else ""
    return Shape(n.name, tuple(lines), _SHAPE.get(n.op, "box"), "rounded,filled", _FILL.get(n.op, "#f3f4f6"),
                 tooltip)


def graph_dot(nodes: Sequence[FxNode]) -> str:
    """The plain picture of a graph: every node, and an edge from each input it reads, data flowing down."""
    return dot((node_shape(n) for n in nodes), ((src, n.name, 1) for n in nodes for src in n.inputs))


def dot(shapes: Iterable[Shape], edges: Iterable[tuple[str, str, int]]) -> str:
    """DOT text of shapes and edges (``(from, to, count)``; a count above 1 labels the edge), inputs on top."""
    out = ["digraph G {", '  rankdir=TB; node [fontname="Helvetica", fontsize=10];']
    for s in shapes:
        label = "\\n".join(_esc(x) for x in s.label)
        attrs = [f'label="{label}"', f"shape={s.shape}", f'style="{s.style}"', f'fillcolor="{s.fill}"']
        if s.tooltip is not None:
            attrs.append(f'tooltip="{_esc(s.tooltip)}"')
        if s.fontcolor is not None:
            attrs.append(f'fontcolor="{s.fontcolor}"')
        out.append(f'  "{_esc(s.id)}" [{", ".join(attrs)}];')
    for a, b, count in edges:
        out.append(f'  "{_esc(a)}" -> "{_esc(b)}"' + (f' [label="{count}"]' if count > 1 else "") + ";")
    out.append("}")
    return "\n".join(out)


def _esc(s: str) -> str:
    """A DOT string's text: backslashes, quotes and line breaks written as escapes."""
    if "\\" not in s and '"' not in s and "\n" not in s:
        return s
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
