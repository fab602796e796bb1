"""FX graphs and the user lines they point at, as plain data: the part of the report model every other part uses.

Apart from ``model`` so that the records of how programs use torch.compile (``usage``: a compiled
region's own graph) can name an ``FxGraph`` without importing the whole model, which imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class SourceLoc:
    """A place in user code. Kept everywhere so views can link lines across stages."""

    filename: str
    """The file, named as the capture names it: a script's absolute path, or a notebook cell's file."""
    lineno: Optional[int] = None
    """The line."""
    function: Optional[str] = None
    """The function holding it."""
    code: Optional[str] = None  # the source line's text, stripped
    """The line's text."""

    def short(self) -> str:
        return f"{self.filename}:{self.lineno}" if self.lineno else self.filename


@dataclass(frozen=True)
class FxNode:
    """One node of an FX graph, with the user line it came from."""

    name: str
    """The node's name."""
    op: str  # placeholder | call_function | call_method | call_module | get_attr | output
    """`placeholder`, `call_function`, `call_method`, `call_module`, `get_attr` or `output`."""
    target: str
    """What it calls."""
    inputs: tuple[str, ...] = ()
    """The nodes it reads."""
    type: Optional[str] = None  # e.g. "f32[8][1]cpu"
    """Its value's type, where torch printed it, e.g. `f32[8][1]cpu`."""
    loc: Optional[SourceLoc] = None  # the user line this node came from
    """The user line (the node's stack trace)."""


@dataclass(frozen=True)
class FxGraph:
    """An FX graph as torch printed it, plus the node table parsed from that text (its picture is drawn from the
    nodes by the views: ``present.graph_dot``)."""

    code: str
    """The graph's code as torch printed it."""
    num_nodes: int
    """How many nodes."""
    nodes: tuple[FxNode, ...] = ()
    """The node table parsed from the code; the views draw the graph's picture from it (folded by module when it is
    big or its modules repeat)."""
