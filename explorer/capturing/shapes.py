"""Dynamic shapes as plain data: the symbols Dynamo's ShapeEnv made for one compilation, the symbols it fixed to a
constant, and the guards it added on them, each at the user's line.

Read from torch's own structured-trace records (``create_symbol``, ``create_unbacked_symbol``,
``symbolic_shape_specialization``, ``guard_added_fast``, ``propagate_real_tensors``, written by
torch/fx/experimental/symbolic_shapes.py), so a
live capture and an opened TORCH_TRACE give the same rows. Frozen values of strings and numbers; no torch here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .graph_model import SourceLoc


@dataclass(frozen=True)
class ShapeSymbol:
    """One symbol of the ShapeEnv: a size (or scalar) Dynamo traced as a variable instead of a number."""

    name: str
    """The symbol as torch names it: `s77` (backed), `u0` (unbacked)."""
    backed: bool
    """Whether it has a value to guard on (a backed size of an input); `false` for an unbacked symbol (a
    data-dependent value such as `.item()` or `nonzero()`'s length, unknown while tracing)."""
    range: str
    """The values torch allows it, as torch prints them: `[2, int_oo]`."""
    source: Optional[str] = None
    """What it stands for in the frame's inputs: `L['x'].size()[0]`; `null` for an unbacked symbol."""
    value: Optional[str] = None
    """The value of the example input it was created from (its hint): `8`; `null` for an unbacked symbol."""
    user_loc: Optional[SourceLoc] = None
    """The user's line Dynamo was tracing when it was created."""
    framework: Optional[SourceLoc] = None
    """The innermost frame inside torch (outside the symbolic-shape machinery itself) that created it."""


@dataclass(frozen=True)
class Specialization:
    """A symbol the ShapeEnv replaced with a constant: from here on, the graph holds only for that value."""

    symbol: str
    """The symbol fixed: `s77`."""
    value: str
    """The constant it was fixed to: `8`."""
    reason: str
    """torch's reason: `range_refined_to_singleton` (a guard left it one value), `solve`, `find`, ..."""
    sources: tuple[str, ...] = ()
    """The inputs it stands for: `L['x'].size()[0]`."""
    user_loc: Optional[SourceLoc] = None
    """The user's line that fixed it."""
    framework: Optional[SourceLoc] = None
    """The innermost frame inside torch that fixed it."""


@dataclass(frozen=True)
class ShapeGuard:
    """A condition on symbols the ShapeEnv recorded while tracing: a guard on a backed symbol (a call where it
    fails recompiles), a runtime assertion on an unbacked one."""

    expression: str
    """The condition as torch prints it: `Eq(s77, 8)`, `u0 >= 2`."""
    user_loc: Optional[SourceLoc] = None
    """The user's line that made it."""
    framework: Optional[SourceLoc] = None
    """The innermost frame inside torch that evaluated it (`_dynamo/variables/tensor.py:2606`)."""


@dataclass(frozen=True)
class RealValue:
    """An answer torch read from the real tensors while tracing (``propagate_real_tensors``): a question about an
    unbacked symbol it could not decide symbolically, answered by the example inputs' actual values and kept as a
    runtime assertion."""

    expression: str
    """What torch asked, as it prints it: `u0 > 3` (a condition) or `u0` (a size it needed)."""
    result: str
    """The real tensors' answer: `True`, `5`."""
    framework: Optional[SourceLoc] = None
    """The innermost frame inside torch that asked (torch writes no user line for this record; the guard it then
    adds on the same expression has it)."""


@dataclass(frozen=True)
class DynamicShapes:
    """One compilation's symbols, specializations and guards added, in the order torch wrote them."""

    symbols: tuple[ShapeSymbol, ...] = ()
    """Each symbol created, backed and unbacked."""
    specializations: tuple[Specialization, ...] = ()
    """Each symbol fixed to a constant."""
    guards: tuple[ShapeGuard, ...] = ()
    """Each guard (or runtime assertion) added on symbols."""
    real_values: tuple[RealValue, ...] = ()
    """Each answer read from the real tensors (`torch._functorch.config.fake_tensor_propagate_real_tensors`, draft
    export): empty unless that is on."""
