"""A record's elements read one at a time, so that one odd element costs only itself, never the record.

A decoder that reads a list of elements (an op's estimate, a min-cut candidate, a kernel's compile time, a frame
of a stack, a provenance entry, ...) counts through ``Elements`` each element torch wrote in a form it cannot read
as it is: one it can keep with a placeholder is kept (an op with no name: ``?``), one it cannot is left out. The
decoder then returns its record with one line saying what was kept (``1 of 212 ops had no name: kept as `?```),
``Partly``; the capture keeps that line as a ``PartialRead`` beside the data, not as a ``Problem``: torch writing
``None`` where an op has no node is neither the user's error nor the explorer's. A list none of whose elements
could be kept still raises ``DecodeError``: that is no odd element but a format the explorer does not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..plural import noun
from .raw import DecodeError

PLACEHOLDER = "?"  # what a kept element shows where torch wrote nothing readable
KEPT = f"kept as `{PLACEHOLDER}`"
LEFT_OUT = "left out"

R = TypeVar("R")


@dataclass(frozen=True)
class Partly(Generic[R]):
    """A decoder's record, read in part: ``note`` says in one line which elements were odd and what was kept."""

    record: R
    note: str


def record_of(result: Any) -> Any:
    """The record of a decoder's result, whether it was read whole or in part."""
    return result.record if isinstance(result, Partly) else result


class Elements:
    """The odd elements of one list in one record, counted by what was odd and what became of them."""

    def __init__(self, noun: tuple[str, str], total: int) -> None:
        """``noun``: the element, singular and plural (``("op", "ops")``); ``total``: how many the list holds."""
        self.noun = noun
        self.total = total
        self.odd: dict[tuple[str, str], int] = {}
        self.dropped = 0  # whole elements left out

    def kept(self, why: str, placeholder: Any = PLACEHOLDER, outcome: str = KEPT) -> Any:
        """An element kept with ``placeholder`` where torch wrote ``why`` ("had no name"); returns the placeholder."""
        self._count(why, outcome)
        return placeholder

    def left_out(self, why: str) -> None:
        """An element that could not be kept."""
        self.dropped += 1
        self._count(why, LEFT_OUT)

    def part_left_out(self, why: str, outcome: str) -> None:
        """A part of an element that could not be kept (``outcome``: "that output left out"); the element stays."""
        self._count(why, outcome)

    def _count(self, why: str, outcome: str) -> None:
        self.odd[(why, outcome)] = self.odd.get((why, outcome), 0) + 1

    def lines(self) -> list[str]:
        """``1 of 212 ops had no name: kept as `?```, one per kind of odd element."""
        of = noun(self.total, *self.noun)
        return [f"{n} of {self.total} {of} {why}: {outcome}" for (why, outcome), n in self.odd.items()]


def partly(record: R, *lists: Elements) -> R | Partly[R]:
    """``record`` as it is when every element was read; else with the one line that says what was kept. Raises
    ``DecodeError`` when a list had elements and none could be kept."""
    for e in lists:
        if e.total and e.dropped == e.total:
            raise DecodeError(f"none of its {e.total} {noun(e.total, *e.noun)} could be read: "
                              + "; ".join(e.lines()))
    lines = [line for e in lists for line in e.lines()]
    return Partly(record, "; ".join(lines)) if lines else record
