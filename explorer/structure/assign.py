"""Which module each node of one FX graph came from, read from the graph as torch printed it.

torch's printed graphs (what the structured trace holds, and all the explorer keeps) do not write a node's
``nn_module_stack``; they write its user line (``# File: model.py:49 in forward``), its inputs, and graph
inputs named after the parameters they are (``L_model_modules_layers_modules_0_..._parameters_weight_`` in
Dynamo's graph; ``primals_7``, the seventh of those inputs, in the AOT graphs). So the module of a node is
inferred, in this order:

1. a node that reads a parameter or buffer of module M (or, in a backward graph, an activation the forward saved
   from M) runs in M: a *seed*;
2. program order nests modules: between the first and last seed of M, with no seed of an unrelated module in
   between, every node runs in M (or deeper); a module called twice (a tied weight) makes two such spans;
3. between two sibling spans, the nodes on the same user line as the next span's first seed open it (``x.pow(2)``
   before the norm's ``* self.weight``), those on the line of the last span's last seed close it; a node on a line
   of a member's own ``forward`` (a line where Dynamo guarded that member's attributes, or where other nodes of
   that member sit) belongs to the member it follows (a backward graph runs the model in reverse: the one it
   precedes): a block's last residual ``x + ...``;
4. what is left belongs to the span around it, and outside every span to the compiled function itself ("").

A module of torch's own (``nn.Linear``) has no user line of its own: its ops show the caller's line, so a node
next to it on that line stays in the caller.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..capturing.model import FxNode
from .paths import common, is_builtin, is_under, parent_of

_DIGITS = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.|$)")


def family(path: str) -> str:
    """``model.layers.3.attn`` -> ``model.layers.*.attn``: the lines one member runs, every member runs."""
    return _DIGITS.sub("*", path)


@dataclass
class _Span:
    start: int
    end: int
    path: str
    parent: Optional[_Span] = None
    children: list[_Span] = field(default_factory=list)


def assign(nodes: Sequence[FxNode], inputs: dict[str, str], *, classes: Optional[dict[str, str]] = None,
           backward: bool = False, frame_lines: Optional[dict[str, set]] = None,
           anchors: Optional[dict[str, str]] = None) -> list[str]:
    """The module path of each node of ``nodes`` (a graph in program order).

    ``inputs``: graph inputs (placeholders, by name) known to belong to a module: parameters and buffers, a
    backward graph's saved activations. ``classes``: module path -> class (a torch class has no lines of its own).
    ``backward``: the graph runs the model in reverse. ``frame_lines``: per ``family``, the user lines
    ``(file, line)`` its members' own code runs (from the guards). ``anchors``: nodes whose module is known
    outright (a backward graph's gradient of a parameter: it returns them in the parameters' order)."""
    classes = classes or {}
    n = len(nodes)
    owner: list[Optional[str]] = [None] * n
    seeds: dict[int, str] = {}
    for i, node in enumerate(nodes):
        if node.op == "placeholder":
            owner[i] = inputs.get(node.name, "")
        elif node.op == "output":
            owner[i] = ""
        else:
            labels = [inputs[x] for x in node.inputs if inputs.get(x)]
            if anchors and anchors.get(node.name):
                labels = [anchors[node.name]]
            if labels:
                seeds[i] = common(labels)
    spans = _spans(seeds)
    inner = _innermost(n, spans)
    for i in range(n):
        if owner[i] is None:
            owner[i] = inner[i].path if inner[i] is not None else ""
    locs = [_loc(node) for node in nodes]
    free = [owner[i] is not None and nodes[i].op not in ("placeholder", "output") and i not in seeds
            for i in range(n)]

    def callee_side(path: str) -> str:
        return parent_of(path) if is_builtin(classes.get(path)) else path

    # 3a. a span's own line runs on past its ends
    for span in spans:
        if span.parent is None and not span.path:
            continue
        home = span.parent.path if span.parent is not None else ""
        first, last = locs[span.start], locs[span.end]
        i = span.start - 1
        while first is not None and i >= 0 and free[i] and owner[i] == home and locs[i] == first:
            owner[i] = callee_side(owner[span.start])
            i -= 1
        i = span.end + 1
        while last is not None and i < n and free[i] and owner[i] == home and locs[i] == last:
            owner[i] = callee_side(owner[span.end])
            i += 1
    # 3b. a member's own lines, then a node left between two members on one of them
    lines = {k: set(v) for k, v in (frame_lines or {}).items()}
    for i in range(n):
        if free[i] and inner[i] is not None and owner[i] == inner[i].path and locs[i] is not None:
            lines.setdefault(family(owner[i]), set()).add(locs[i])
    for span in spans:
        _attach(span.children, span.start, span.end, span.path, owner, free, locs, lines, backward)
    tops = [s for s in spans if s.parent is None]
    _attach(tops, 0, n - 1, "", owner, free, locs, lines, backward)
    return [o or "" for o in owner]


def _attach(kids: list[_Span], start: int, end: int, home: str, owner: list, free: list, locs: list,
            lines: dict[str, set], backward: bool) -> None:
    """Nodes of ``home`` between its child spans ``kids``, on a line of a member's own code: to the member they
    follow (precede, in a backward graph), or the deepest module inside it whose code has that line."""
    if not kids:
        return
    starts = [k.start for k in kids]
    for i in range(start, end + 1):
        if not free[i] or owner[i] != home or locs[i] is None:
            continue
        at = bisect.bisect_left(starts, i)
        near = (kids[at] if at < len(kids) else None) if backward else (kids[at - 1] if at > 0 else None)
        found = None
        while near is not None:
            if locs[i] in lines.get(family(near.path), ()):
                found = near.path
            near = (near.children[0] if backward else near.children[-1]) if near.children else None
        if found is not None:
            owner[i] = found


def _loc(node: FxNode) -> Optional[tuple[str, int]]:
    return line_key(node.loc.filename, node.loc.lineno) if node.loc is not None and node.loc.lineno else None


def line_key(filename: str, lineno: int) -> tuple[str, int]:
    """A user line by its file's name: torch cuts a guard's file to its last characters (``programs/m.py``)."""
    return filename.rsplit("/", 1)[-1], lineno


def _spans(seeds: dict[int, str]) -> list[_Span]:
    """Per module (every prefix of a seed's path), its spans in program order, nested: a module's span is cut by a
    seed of a module neither inside nor around it."""
    open_: dict[str, _Span] = {}
    out: list[_Span] = []
    for i in sorted(seeds):
        path = seeds[i]
        for m in list(open_):
            if not (is_under(path, m) or is_under(m, path)):
                out.append(open_.pop(m))
        parts = path.split(".") if path else []
        for k in range(1, len(parts) + 1):
            p = ".".join(parts[:k])
            if p in open_:
                open_[p].end = i
            else:
                open_[p] = _Span(i, i, p)
    out += open_.values()
    out.sort(key=lambda s: (s.start, -s.end, s.path.count(".")))
    stack: list[_Span] = []
    for s in out:
        while stack and (stack[-1].end < s.start or not is_under(s.path, stack[-1].path)):
            stack.pop()
        if stack:
            s.parent = stack[-1]
            stack[-1].children.append(s)
        stack.append(s)
    return out


def _innermost(n: int, spans: list[_Span]) -> list[Optional[_Span]]:
    """The deepest span around each position."""
    out: list[Optional[_Span]] = [None] * n
    for s in spans:  # outer spans come first, so a deeper one overwrites
        for i in range(s.start, s.end + 1):
            if out[i] is None or s.path.count(".") >= out[i].path.count("."):
                out[i] = s
    return out
