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
    lineno: Optional[int] = None
    function: Optional[str] = None
    code: Optional[str] = None  # the source line's text, stripped

    def short(self) -> str:
        return f"{self.filename}:{self.lineno}" if self.lineno else self.filename


@dataclass(frozen=True)
class FxNode:
    name: str
    op: str  # placeholder | call_function | call_method | call_module | get_attr | output
    target: str
    inputs: tuple[str, ...] = ()
    type: Optional[str] = None  # e.g. "f32[8][1]cpu"
    loc: Optional[SourceLoc] = None  # the user line this node came from


@dataclass(frozen=True)
class FxGraph:
    """An FX graph as torch printed it, plus the node table parsed from that text (its picture is drawn from the
    nodes by the views: ``present.graph_dot``)."""

    code: str
    num_nodes: int
    nodes: tuple[FxNode, ...] = ()
