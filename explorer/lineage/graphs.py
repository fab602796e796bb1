"""FX graph texts (Dynamo, AOT, post-grad) -> one row per line, and each node's user lines.

torch prints every graph with ``# File: path:line in fn, code: ...`` above the
nodes whose ``stack_trace`` names that line (``print_readable``); a blank line
or ``# No stacktrace found for following nodes`` ends such a group. A node's
line gets its group's user line, and so does the comment. Nodes torch printed
without a stack trace (made by pattern rewrites: ``sub_tensor``,
``clone_default_7``) inherit the user lines of the nearest nodes that use them
and have one, else of their nearest inputs: an inferred link, and the only
inferred one in graphs. Graph inputs, the return and the class/def lines are glue.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Optional

from ..capturing.model import FxGraph
from .match import NodeInfo, op_of
from .model import Origin

Row = tuple[tuple[Origin, ...], Optional[str]]  # (origins, element)

_FILE_RE = re.compile(r"^\s*#.*?\bFile: (?P<file>.+?):(?P<line>\d+) in ")  # as capturing/parse_fx.py reads it
_PARAM_RE = re.compile(r'^\s+(?P<name>[A-Za-z_]\w*)\s*:\s*"[^"]*"\s*(?:,|#|$)')
_PARAM_NAME = re.compile(r"[A-Za-z_]\w*")
_GLUE: tuple[Origin, ...] = ()
_SEARCH_LIMIT = 64  # nodes looked at per node without a stack trace


class GraphLines:
    """One graph's rows and node table."""

    def __init__(self, graph: FxGraph) -> None:
        self.rows: list[Row] = []
        self.origins: dict[str, tuple[Origin, ...]] = {}  # node -> user lines (after inheritance)
        self.table: dict[str, NodeInfo] = {}  # node -> (op, inputs, order), for kernels and IR
        self._read(graph)

    def _read(self, graph: FxGraph) -> None:
        placeholders = {n.name for n in graph.nodes if n.op == "placeholder"}
        for order, n in enumerate(graph.nodes):
            if n.op not in ("placeholder", "output"):
                self.table[n.name] = (op_of(n.target), n.inputs, order)
        loc: tuple[Origin, ...] = _GLUE  # the user line of the current `# File:` group
        pending: list[tuple[int, str]] = []  # rows of nodes printed without a user line
        in_return = in_signature = False
        rows, table, origins = self.rows, self.table, self.origins
        for line in graph.code.splitlines():
            stripped = line.strip()
            if not stripped:
                loc = _GLUE
                rows.append((_GLUE, None))
                continue
            first = stripped[0]
            if first == "#":
                m = _FILE_RE.match(line)
                loc = (Origin(m["file"], int(m["line"])),) if m else _GLUE
                rows.append((loc, None))
                continue
            if in_signature:  # `def forward(\n self,\n primals_1: "f32[8]",  # PlainAOTInput(idx=0)\n ):`
                in_signature = first != ")"
                name = _PARAM_NAME.match(stripped)
                rows.append((_GLUE, name.group(0) if name and in_signature and name.group(0) != "self" else None))
                continue
            if in_return:
                rows.append((_GLUE, None))
                closes = stripped.endswith(")") and stripped.count(")") > stripped.count("(")
                in_return = not (first == ")" or closes)
                continue
            lhs, eq, _ = stripped.partition(" = ")
            name = lhs.split(":", 1)[0].rstrip() if eq else ""
            if name and name.isidentifier():
                if name in placeholders or name not in table:
                    rows.append((_GLUE, name))  # an input (`l_x_ = L_x_`) or a line the node table skipped
                elif loc:
                    origins[name] = loc
                    rows.append((loc, name))
                else:
                    pending.append((len(rows), name))
                    rows.append((_GLUE, name))
                continue
            if stripped.startswith("def ") and stripped.endswith("("):
                in_signature = True
                rows.append((_GLUE, None))
            elif stripped.startswith("return"):
                rows.append((_GLUE, None))
                in_return = stripped.endswith(("(", "[", ",")) and not stripped.endswith(")")
            else:
                m = _PARAM_RE.match(line)
                rows.append((_GLUE, m["name"] if m else None))
        if pending:
            self._inherit(graph, pending)

    def _inherit(self, graph: FxGraph, pending: list[tuple[int, str]]) -> None:
        users: dict[str, list[str]] = {}
        inputs: dict[str, tuple[str, ...]] = {}
        for n in graph.nodes:
            inputs[n.name] = n.inputs
            for i in n.inputs:
                users.setdefault(i, []).append(n.name)
        for row, name in pending:
            found = _nearest(name, users, self.origins) or _nearest(name, inputs, self.origins)
            if found:
                self.origins[name] = found
                self.rows[row] = (found, name)

    def node_origins(self, name: str) -> tuple[Origin, ...]:
        return self.origins.get(name, _GLUE)


def _nearest(start: str, edges: dict, known: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The user lines of the nearest nodes (breadth first along ``edges``) that have some."""
    seen = {start}
    frontier = deque([start])
    while frontier and len(seen) < _SEARCH_LIMIT:
        level: dict[str, None] = {}
        for _ in range(len(frontier)):
            for nxt in edges.get(frontier.popleft(), ()):
                if nxt in seen:
                    continue
                seen.add(nxt)
                got = known.get(nxt)
                if got:
                    level.update(dict.fromkeys(got))
                else:
                    frontier.append(nxt)
        if level:
            return tuple(level)
    return _GLUE
