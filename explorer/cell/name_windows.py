"""Placeholders for names the cell binds, present only while Dynamo compiles; Dynamo's helper globals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..capturing.model import Finding
from .function import CellFunction


@dataclass
class NameWindows:
    """Placeholders for names the cell binds, present only while Dynamo compiles.

    Dynamo resolves a global missing from the frame's globals as a builtin before
    looking at globals the frame stored itself (``_load_global`` in
    symbolic_convert.py), so in a fresh namespace ``a = torch.ones(3); b = a + 1``
    made it give up on the whole cell (``list = [...]; list.append(1)`` even read
    the builtin ``list``). A name only has to *exist* for Dynamo to use its own
    record of the store, so while a frame is being compiled each such name the
    cell's code never reads before binding it (``CellFunction.seedable``) gets a
    placeholder, removed when the compile ends: no user code runs in between. If
    Dynamo reads a placeholder itself (a function reads the name before the cell
    binds it), it cannot represent it: a graph break, and the read runs as plain
    Python, when the name is missing again, raising the plain NameError.

    Every other name that appears in the namespace during a compile is one of
    Dynamo's helper globals; those left after the compilations are dropped are removed.
    """

    cell: CellFunction
    placeholders: dict[str, Any] = field(default_factory=dict)
    installed: set[str] = field(default_factory=set)
    _before: set[str] = field(default_factory=set)
    _depth: int = 0

    def open(self) -> None:
        from ..capturing import torch_door

        self._depth += 1
        if self._depth > 1:
            return
        ns = self.cell.namespace
        self._before = set(ns)
        for name in self.cell.seedable:
            if name not in ns:
                placeholder = torch_door.dynamo.untraceable_placeholder()
                ns[name] = placeholder
                self.placeholders[name] = placeholder

    def close(self) -> None:
        self._depth -= 1
        if self._depth > 0:
            return
        ns = self.cell.namespace
        for name, placeholder in self.placeholders.items():
            if ns.get(name) is placeholder:
                del ns[name]
        self.installed |= set(ns) - self._before - set(self.placeholders)
        self.placeholders.clear()

    def remove_leftovers(self) -> None:
        """Helper globals of compilations that no longer exist (a failed compile leaves its own)."""
        from ..capturing import torch_door

        ns = self.cell.namespace
        live = torch_door.dynamo_cache.pending_cleanup_names(ns)
        for name in sorted(self.installed):
            if name in ns and name not in live:
                del ns[name]
        self.installed &= live

    def conclude(self, findings: list[Finding]) -> None:
        ns = self.cell.namespace
        kept = sorted(n for n in self.installed if n in ns)
        if kept:
            findings.append(Finding(f"Dynamo's helper globals {', '.join(kept)} stay in the namespace: "
                                    "they belong to compiled code that is still cached (a function compiled "
                                    "before this cell)"))
