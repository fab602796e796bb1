"""Inductor's loop-level IR dumps (``ir_pre_fusion.txt``, ``ir_post_fusion.txt``): scheduler nodes and their
loop bodies.

A dump is a run of blocks, one per scheduler node::

    op3: SchedulerNode(ComputedBuffer)
    op3.writes = [MemoryDep('buf3', c0, {c0: 64})]
    ...
    buf3: ComputedBuffer
    ...
    class op3_loop_body:
        ...
        def body(self, ops):
            get_index = self.get_index('index0')
            load = ops.load('arg0_1', get_index)
            sin = ops.sin(load)
            ...
            return store

(a fused node is ``op2_op3: FusedSchedulerNode(...)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Optional

# each match starts at the newline before its line (anchoring on "\n" scans far faster than ^ with re.M)
_MARKS = re.compile(r"\n(?:(?P<op>op\w+): (?P<cls>\w+)\(|    (?P<buf>buf\d+): \w"
                    r"|(?P<body>    def body\(self, ops\):\n)|(?P<ret>        return [^\n]*))")
_FLOAT = re.compile(r"\d\.\d+(?:e[-+]?\d+)?|\de[-+]\d+")  # what differs between layers: eps, scales
_QUOTED_NAME = re.compile(r"'[A-Za-z_]*\d\w*'")  # 'buf12', 'arg0_1', 'index0' (not 'sum')
_STRING = re.compile(r"'(\w+)'")
_NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
_NAME_NUMBER = re.compile(r"(?<=[A-Za-z_])\d+")


@dataclass(frozen=True)
class SchedulerNodeBlock:
    """The lines of one scheduler node in a dump: from its header to the next one (0-based rows)."""

    name: str  # op3, or op2_op3 (fused)
    node_class: str  # SchedulerNode, FusedSchedulerNode, ExternKernelSchedulerNode, NopKernelSchedulerNode
    span: tuple[int, int]  # [first row, one past the last)
    body: Optional[tuple[int, int]]  # the rows of its loop body's statements (``def body`` to its return)
    body_text: str
    buffers: tuple[str, ...]  # the buffers it writes (``buf3: ComputedBuffer``)
    elements: tuple[tuple[int, str], ...]  # (row, name) of the node's and its buffers' lines
    members: tuple[str, ...]  # a fused node's nodes (op2, op3); () otherwise

    @property
    def computes_nothing(self) -> bool:
        """A ``NopKernelSchedulerNode`` (a concatenation's buffer): no kernel computes it."""
        return self.node_class == "NopKernelSchedulerNode"


class _Open:
    def __init__(self, name: str, cls: str, start: int) -> None:
        self.name, self.cls, self.start, self.stop = name, cls, start, start
        self.body: Optional[tuple[int, int]] = None
        self.body_text = ""
        self.buffers: list[str] = []
        self.elements: dict[int, str] = {start: name}

    def close(self) -> SchedulerNodeBlock:
        parts = self.name.split("_")
        members = parts if len(parts) > 1 and all(p[:2] == "op" and p[2:].isdigit() for p in parts) else []
        return SchedulerNodeBlock(self.name, self.cls, (self.start, self.stop), self.body, self.body_text,
                                  tuple(self.buffers), tuple(self.elements.items()), tuple(members))


def scheduler_nodes(text: str) -> tuple[dict[str, SchedulerNodeBlock], int]:
    """The scheduler nodes of a dump, by name in its order (found by one regex scan, not line by line), and
    its line count."""
    blocks: dict[str, _Open] = {}
    current: Optional[_Open] = None
    row, pos = 0, 0
    body_start = -1
    for m in _MARKS.finditer(text):
        start = m.start() + 1  # the line itself
        row += text.count("\n", pos, start)
        pos = start
        kind = m.lastgroup
        if kind == "cls":
            name = m["op"]
            if current is not None:
                current.stop = row
            current = blocks.get(name)
            if current is None:
                current = blocks[name] = _Open(name, m["cls"], row)
            current.start = current.stop = row
        elif current is None:
            continue
        elif kind == "buf":
            current.buffers.append(m["buf"])
            current.elements[row] = m["buf"]
        elif kind == "body":
            body_start = m.end()
        elif body_start >= 0:  # the body's return: its last line
            current.body = (row - text.count("\n", body_start, start), row + 1)
            current.body_text = text[body_start:m.end()]
            body_start = -1
    n = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0
    if current is not None:
        current.stop = n
    return {name: b.close() for name, b in blocks.items()}, n


def scheduler_node_rows(text: str) -> list[int]:
    """The row (from 0) each scheduler node of a loop-IR dump starts on, in the dump's order."""
    return [b.span[0] for b in scheduler_nodes(text)[0].values()]


def body_shape_key(text: str) -> str:
    """A loop body with its buffers' and indices' names and its float constants written away: the same node
    before and after fusion, and a model's layers, read alike."""
    return _QUOTED_NAME.sub("''", _FLOAT.sub("0", text))


class BodyLine(NamedTuple):
    """One statement of a loop body (``name = ops.op(args)`` as ``LoopBody`` prints it)."""

    row: int  # from the body's first line
    name: str  # what it defines ('' for the return)
    kind: str  # "return", "index" (``self.get_index``), "load", "store", "op" (``ops.*``), "other"
    op: str  # the ``ops.`` function ('' when none)
    operands: tuple[str, ...]  # an op's arguments (as written), else the names it reads; a return's value
    strings: tuple[str, ...]  # the quoted words of a reduction or scan (``'sum'``)


def body_lines(text: tuple[str, ...]) -> list[BodyLine]:
    """A loop body's statements, in order (lines that define nothing, and ``return None``, left out)."""
    out = []
    for r, line in enumerate(text):
        name, eq, rhs = line.strip().partition(" = ")
        if not eq:
            if name.startswith("return ") and name != "return None":
                out.append(BodyLine(r, "", "return", "", (name[7:],), ()))
            continue
        if rhs.startswith("self.get_index("):
            out.append(BodyLine(r, name, "index", "", (), ()))
            continue
        paren = rhs.find("(")
        op = rhs[4:paren] if rhs.startswith("ops.") and paren > 0 else ""
        if op:
            operands = tuple(rhs[paren + 1:-1].split(", "))
            kind = "load" if op == "load" else "store" if op.startswith("store") else "op"
            strings = tuple(_STRING.findall(rhs)) if op in ("reduction", "scan") else ()
            out.append(BodyLine(r, name, kind, op, operands, strings))
        else:  # `getitem = reduction[0]`
            out.append(BodyLine(r, name, "other", "", tuple(_NAME.findall(rhs)), ()))
    return out


def node_listing(lines: list[str], start: int, stop: int) -> list[str]:
    """A scheduler node's header and the ops of its loop body (or the library call it makes), rows ``start``
    to ``stop``, the names' numbers written away: two layers' nodes list alike."""
    out = [_NAME_NUMBER.sub("", lines[start].strip())]
    out += [_NAME_NUMBER.sub("", line.strip()) for line in lines[start + 1:stop]
            if " = ops." in line or ".node.kernel = " in line]
    return out
