"""A ``guard_filter_fn``'s decisions, per compilation: the guards it kept and the ones it dropped.

torch calls the filter once per compilation with every guard Dynamo made and
builds the guard tree from the ones it keeps; the dropped ones leave no
record (the trace's guard tree shows only what was kept). So the explorer
compiles with the user's filter wrapped (``torch_door.dynamo_cache.recording_guard_filter``):
the wrapper returns the filter's own answer and notes, per compile id, what it
was asked and what it said. Only compiles the explorer makes itself can be
wrapped (``explore``, ``%%compile``); a script's own ``torch.compile(...,
options={"guard_filter_fn": ...})`` is not seen.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from . import torch_door
from .compile_id import CompileId
from .model import CaptureData, FilteredGuard, Problem


class GuardFilterRecorder:
    def __init__(self, fn: Callable[..., Any], name: Optional[str] = None) -> None:
        self.name = name or getattr(fn, "__name__", "guard_filter_fn")
        self.rows: dict[str, list[FilteredGuard]] = {}  # compile id -> the filter's decisions
        self.problems: list[Problem] = []
        self.filter = torch_door.dynamo_cache.recording_guard_filter(fn, self._sink)

    def _sink(self, cid: Optional[CompileId], rows: list) -> None:
        key = cid.key if cid is not None else "?"
        for row in rows:
            if isinstance(row, BaseException):
                self.problems.append(Problem("guard filter", f"{type(row).__name__}: {row}", None, cid and cid.key))
                continue
            kept, kind, subject, value, derived, is_global, filename, lineno, source = row
            self.rows.setdefault(key, []).append(FilteredGuard(kept, kind, subject, value, derived, is_global,
                                                               filename, lineno, source))

    def apply(self, data: CaptureData) -> CaptureData:
        """``data`` with each compilation's filter and decisions filled in."""
        comps = tuple(dataclasses.replace(c, guard_filter=self.name, filtered_guards=tuple(self.rows[c.compile_id]))
                      if c.compile_id in self.rows else c for c in data.compilations)
        return dataclasses.replace(data, compilations=comps, problems=data.problems + tuple(self.problems))
