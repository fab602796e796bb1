"""Lowerings no Dynamo compile id names: AOTInductor's compile of an exported program, and export itself.

``torch.export`` traces without Dynamo's frames, and AOTInductor then lowers
the program outside any compile id: its AOT graph, post-grad graph, loop IR,
C++ wrapper and kernels and provenance arrive with ``compile_id`` None, ended
by a ``compilation_metrics`` record. They fold into one compilation each, keyed
``aoti/N`` (``inductor/N`` when no AOTInductor code came: an Inductor compile
outside Dynamo), so every view and the line-level chain treat them as any
other compilation. ``exported_program`` records become ``ExportedProgram``s,
each linked to the AOTInductor compilation that followed it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .compile_id import CompileId
from .fold import Fold
from .model import Compilation, ExportedProgram, Frame, Problem
from .parse_export import decompositions, parse_exported_program
from .raw import describe_error
from .records import (
    AotGraph,
    AotiCode,
    CacheRecord,
    ExportedProgramText,
    IrText,
    KernelTrace,
    Metrics,
    OutputCodeText,
    PostGradGraph,
    Provenance,
)

OUTSIDE_BASE = 1 << 30  # their keys sort after every Dynamo compile id
_LOWERING = (AotGraph, PostGradGraph, IrText, OutputCodeText, AotiCode, Provenance, KernelTrace, CacheRecord)
AOTI_FRAME = Frame("<AOTInductor>", "?", 0)
INDUCTOR_FRAME = Frame("<Inductor, outside Dynamo>", "?", 0)


class OutsideDynamo:
    def __init__(self) -> None:
        self._open: Optional[Fold] = None
        self._folds: list[tuple[int, Fold]] = []  # (first record's seq, fold)
        self._exports: list[tuple[int, ExportedProgramText]] = []

    def add_export(self, seq: int, record: ExportedProgramText) -> None:
        self._exports.append((seq, record))

    def fold_for(self, seq: int, record: Any, folds: dict[CompileId, Fold]) -> Optional[Fold]:
        """The open outside-Dynamo fold for a lowering record (opening one); None for other records."""
        if isinstance(record, Metrics):
            return self._open  # ends the open one (``after``); a lone one is placed as before
        if not isinstance(record, _LOWERING):
            return None
        if self._open is None:
            n = len(self._folds)
            cid = CompileId(frame_id=OUTSIDE_BASE + n, frame_compile_id=0)
            fold = folds[cid] = Fold(cid)
            fold.key = f"inductor/{n}"
            fold.start = INDUCTOR_FRAME
            fold.fields["origin"] = "inductor"
            self._folds.append((seq, fold))
            self._open = fold
        return self._open

    def after(self, record: Any) -> None:
        fold = self._open
        if fold is None:
            return
        if isinstance(record, AotiCode):
            n = fold.compile_id.frame_id - OUTSIDE_BASE
            fold.key, fold.start = f"aoti/{n}", AOTI_FRAME
            fold.fields["origin"] = "aoti"
        if isinstance(record, Metrics):
            self._open = None

    def exports(self, compilations: list[Compilation], problems: list[Problem]) -> list[ExportedProgram]:
        """Each export program, linked to the AOTInductor compilation that came after it (before the next export)."""
        by_key = {c.compile_id: c for c in compilations}
        out = []
        for i, (seq, record) in enumerate(self._exports):
            limit = self._exports[i + 1][0] if i + 1 < len(self._exports) else None
            fold = next((f for s, f in self._folds if s > seq and (limit is None or s < limit)
                         and f.key and f.key.startswith("aoti/")), None)
            try:
                ep = parse_exported_program(record.text)
                comp = by_key.get(fold.key) if fold is not None else None
                if comp is not None:
                    ep = dataclasses.replace(ep, compile_id=comp.compile_id, decompositions=decompositions(ep, comp))
                out.append(ep)
            except Exception as e:  # noqa: BLE001 - one odd print costs that program's table, named
                problems.append(Problem("export", describe_error(e), "exported_program"))
                out.append(ExportedProgram(text=record.text))
        return out
