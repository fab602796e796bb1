"""Which specialization or guard added made a size matter, and which recompiles each one caused.

A recompile on a size (torch's ``tensor 'x' size mismatch at index 0``, or a shape guard such as
``5 <= x.size()[0]``) fails a check of the cached compilation. When that compilation's ShapeEnv had a symbol for the
size, the check exists because of a row of its dynamic shapes: a specialization of the symbol to a constant (the
size check then compares with that constant), or a guard added on the symbol (the shape guard is that guard, written
in terms of the input). This module finds that row, so the recompile names the user line that made the size matter,
and the row names the recompiles it caused. Pure functions of captured data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from ..capturing.graph_model import SourceLoc
from ..capturing.model import Compilation
from ..capturing.shapes import DynamicShapes

_SIZE_SOURCE = re.compile(r"^(?P<tensor>.+)\.size\(\)\[(?P<dim>\d+)\]$")  # Dynamo's source of a size
_LOCAL = re.compile(r"L\[\s*['\"](.*?)['\"]\s*\]")
_CONTAINER = re.compile(r"\._(?:modules|parameters|buffers)\[['\"](?P<name>\w+)['\"]\]")
SPECIALIZATION, GUARD = "specialization", "guard"


@dataclass(frozen=True)
class ShapeCause:
    """The row of the cached compilation's dynamic shapes that made a failed size check exist."""

    row: str
    """`specialization` (the symbol was fixed to a constant) or `guard` (a guard added on the symbol)."""
    index: int
    """Its index in that compilation's `dynamic_shapes.specializations` or `dynamic_shapes.guards`."""
    symbol: str
    """The symbol of the size: `s77`."""
    what: str
    """The specialization (`s77 = 8`) or the guard's expression (`s77 > 4`)."""
    user_loc: Optional[SourceLoc] = None
    """The user's line that made it."""


def _size_of(source: str) -> Optional[tuple[str, int]]:
    """``L['self']._modules['fc'].weight.size()[1]`` -> ``("self.fc.weight", 1)``: a size as the recompile reason
    names it (``GuardFailure.subject``, ``dim``)."""
    m = _SIZE_SOURCE.match(source)
    if m is None:
        return None
    return _CONTAINER.sub(r".\g<name>", _LOCAL.sub(r"\1", m["tensor"])).strip(), int(m["dim"])


def shape_cause(kind: str, subject: Optional[str], dim: Optional[int], lineno: Optional[int],
                cached: Optional[Compilation]) -> Optional[ShapeCause]:
    """The row of ``cached``'s dynamic shapes behind a failed check of ``kind`` (``size``: a size check against a
    constant; ``shape``: a shape guard) on ``subject``'s size at ``dim``; ``lineno``: the user line torch's text
    names, which picks among several guards on the symbol. None when no row explains it (the size was static from
    the start: no symbol, nothing to link)."""
    if kind not in ("size", "shape") or subject is None or dim is None or cached is None:
        return None
    shapes = cached.dynamic_shapes or DynamicShapes()
    wanted = (subject, dim)
    symbols = {s.name for s in shapes.symbols if s.source and _size_of(s.source) == wanted}
    for i, sp in enumerate(shapes.specializations):
        if sp.symbol in symbols or any(_size_of(src) == wanted for src in sp.sources):
            return ShapeCause(SPECIALIZATION, i, sp.symbol, f"{sp.symbol} = {sp.value}", sp.user_loc)
    on_symbol = [(i, g) for i, g in enumerate(shapes.guards)
                 if symbols & set(re.findall(r"\b[su]\d+\b", g.expression))]
    if not on_symbol:
        return None
    at_line = [(i, g) for i, g in on_symbol if lineno and g.user_loc is not None and g.user_loc.lineno == lineno]
    i, g = (at_line or on_symbol)[0]
    symbol = next(s for s in re.findall(r"\b[su]\d+\b", g.expression) if s in symbols)
    return ShapeCause(GUARD, i, symbol, g.expression, g.user_loc)


def caused(failures: Iterable[tuple[str, str, Optional[ShapeCause]]], cid: str, row: str, index: int) -> list[str]:
    """The recompiles (their compile keys, in compile order) whose failed check ``cid``'s row ``row`` ``index``
    made; ``failures``: (the recompile, the entry whose check failed, its cause) of every recompile's failures."""
    out: list[str] = []
    for recompile, against, cause in failures:
        if against == cid and cause is not None and (cause.row, cause.index) == (row, index) \
                and recompile not in out:
            out.append(recompile)
    return out
