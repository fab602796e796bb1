"""Raw records -> CaptureData: decode each record (``decoders``), fold them per compile id (``fold``).

One pass over the records, one over the compile ids: linear in the trace.
What cannot be read is said, never dropped: a decoder or fold step that fails
is a ``Problem``; a record read in part (odd elements kept with a placeholder or
left out) is a ``PartialRead`` beside its data; an event no decoder knows, a record outside any compilation
and the noise the recorder counted are ``OtherArtifact`` rows. ``Assembly``
keeps every compilation it has built, so even a bug in its own loop (the only
thing ``CaptureSession`` still guards against) loses only what came after it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Optional, Union

from .compile_id import CompileId
from .decoders import UNKNOWN, DecodeContext, decode
from .elements import Partly
from .fold import Fold
from .frame_cache import attach
from .model import CacheLookup, CaptureData, Compilation, ExportedProgram, PartialRead, Problem
from .outside import OutsideDynamo
from .raw import WHERE, RawCapture, RawEvent, Tally, describe_error
from .records import CacheRecord, ExportedProgramText, GraphExecution

NO_DECODER = "no decoder for this event in this explorer version"
NO_COMPILATION = "decoded, but the record names no compile id, so it belongs to no compilation"
# only a compile id's last record of these is decoded (the rest were replaced)
SUPERSEDED = {"bytecode_hook", "traced_code"}
UNKNOWN_DEVICE = "unknown"
MEMO_MIN = 1024  # payloads shorter than this are decoded again rather than looked up

DeviceNamer = Callable[[list[str]], str]


class Assembly:
    """Builds the CaptureData of one RawCapture; ``run`` fills it step by step, ``data`` reads it."""

    def __init__(self, raw: RawCapture, torch_version: Optional[str] = None, memo: Optional[dict] = None) -> None:
        """``torch_version``: of the torch that wrote the records (a few read differently); ``memo``: decoded
        records by content, shared across captures (``Decoded``): a job's ranks and a trace's repeats decode each
        distinct record once, and share what it decodes to."""
        self.raw = raw
        self.torch_version = torch_version
        self.memo = memo
        self.compilations: list[Compilation] = []
        self.problems: list[Problem] = list(raw.problems)
        self.partial_reads: list[PartialRead] = []  # records read in part: what was kept of their odd elements
        self.others = Tally()
        self.outside = OutsideDynamo()  # lowerings no Dynamo compile id names (AOTInductor), export programs
        self.cache_events: list[CacheLookup] = []  # cache records outside any compilation
        self.exports: list[ExportedProgram] = []
        self.graph_execution: tuple[str, ...] = ()  # the last order torch logged (each covers one recording)

    def run(self) -> None:
        folds = self._decode_all()
        for key in sorted(folds):
            fold = folds[key]
            self.compilations.append(fold.build())
            self.problems += fold.problems
        if self.raw.frame_caches:  # each frame's cache entries, read live (none in a trace)
            self.compilations = attach(self.compilations, self.raw.frame_caches)
        self.exports = self.outside.exports(self.compilations, self.problems)
        graphs = {ep.compile_id: ep.graph for ep in self.exports if ep.compile_id and ep.graph is not None}
        if graphs:
            self.compilations = [dataclasses.replace(c, export_graph=graphs[c.compile_id])
                                 if c.compile_id in graphs else c for c in self.compilations]

    def _decode_all(self) -> dict[CompileId, Fold]:
        ctx = DecodeContext(self.raw.strings, self.torch_version)
        folds: dict[CompileId, Fold] = {}
        last = _last_of_superseded(self.raw.events)
        for ev in self.raw.events:
            key = _compilation_key(ev.compile_id)
            if ev.name in SUPERSEDED and last.get((ev.name, key)) != ev.seq:
                continue
            result = self._decode(ev, ctx)
            if isinstance(result, Partly):
                self.partial_reads.append(PartialRead.of_record(ev.name, result.note, ev.compile_id))
                result = result.record
            fold = folds.get(key) if key is not None else None
            if fold is None and key is not None:
                fold = folds[key] = Fold(key)
            if key is None and self._outside(ev, result, folds):
                continue
            self._place(ev, result, fold)
        return folds

    def _decode(self, ev: RawEvent, ctx: DecodeContext) -> Any:
        """``decode``, or the record an equal one decoded to (decoders read only the payload and the event's own
        metadata; records are frozen, so one object can serve every capture that holds the record)."""
        if self.memo is None or not isinstance(ev.payload, str) or len(ev.payload) < MEMO_MIN:
            return decode(ev, ctx)
        fields = ev.metadata.get(ev.name.split(":", 1)[0])
        key = (ev.name, repr(fields), ev.payload)
        found = self.memo.get(key)
        if found is None:
            found = decode(ev, ctx)
            if not isinstance(found, Problem):  # a problem names its record: each is said where it is
                self.memo[key] = found
        return found

    def _outside(self, ev: RawEvent, result: Any, folds: dict[CompileId, Fold]) -> bool:
        """Records no compile id names: an export program, a capture-wide cache record, or part of
        a lowering outside Dynamo (``outside.OutsideDynamo``). False: place it as any other record."""
        if isinstance(result, ExportedProgramText):
            self.outside.add_export(ev.seq, result)
            return True
        if isinstance(result, GraphExecution):
            self.graph_execution = result.order
            return True
        if isinstance(result, CacheRecord) and result.lookup.cache == "dynamo":
            self.cache_events.append(result.lookup)
            return True
        fold = self.outside.fold_for(ev.seq, result, folds)
        if fold is None:
            return False
        self._add(fold, ev, result)
        self.outside.after(result)
        return True

    def _place(self, ev: RawEvent, result: Any, fold: Optional[Fold]) -> None:
        if result is UNKNOWN:
            # read from a log file: where the first of them is (``trace_file``)
            at = ev.metadata.get(WHERE)
            self.others.add(ev.name, ev.compile_id, ev.size, f"{NO_DECODER}; the first at {at}" if at else NO_DECODER)
        elif isinstance(result, Problem):
            self.problems.append(result)
            if fold is not None:
                fold.unreadable.add(ev.name)
        elif result is None:
            return
        elif fold is None:
            self.others.add(ev.name, None, ev.size, NO_COMPILATION)
        else:
            self._add(fold, ev, result)

    def _add(self, fold: Fold, ev: RawEvent, record: Any) -> None:
        try:
            fold.add(record)
        except Exception as e:  # noqa: BLE001 - a record the fold cannot take: named, the others still fold
            self.problems.append(Problem("fold", describe_error(e), ev.name, fold.key or fold.compile_id.key))

    def data(self, *, torch_version: str, device: Union[str, DeviceNamer], python_version: str,
             wall_time_s: Optional[float], notes: list[str], error: Optional[str]) -> CaptureData:
        """Whatever has been built so far; ``device`` is a name, or a namer of the graphs' devices."""
        compilations = tuple(self.compilations)
        return CaptureData(
            torch_version=torch_version, python_version=python_version,
            device=self._device(device, compilations), compilations=compilations, wall_time_s=wall_time_s,
            notes=tuple(notes), error=error,
            other_artifacts=tuple(self.others.artifacts() + self.raw.dropped.artifacts()),
            problems=tuple(self.problems), partial_reads=tuple(self.partial_reads), exports=tuple(self.exports),
            cache_events=tuple(self.cache_events),
            graph_execution=self.graph_execution)

    def _device(self, device: Union[str, DeviceNamer], compilations: tuple[Compilation, ...]) -> str:
        if not callable(device):
            return device
        try:
            return device(graph_devices(compilations))
        except Exception as e:  # noqa: BLE001 - naming the device is cosmetic: say so, keep the report
            self.problems.append(Problem("device", describe_error(e)))
            return UNKNOWN_DEVICE


def assemble(raw: RawCapture, *, torch_version: str, device: Union[str, DeviceNamer], python_version: str,
             wall_time_s: Optional[float], notes: list[str], error: Optional[str]) -> CaptureData:
    """Decodes and folds ``raw``; a failing record or step is a Problem in the result, never an exception."""
    assembly = Assembly(raw, torch_version)
    assembly.run()
    return assembly.data(torch_version=torch_version, device=device, python_version=python_version,
                         wall_time_s=wall_time_s, notes=notes, error=error)


def _compilation_key(cid: Optional[CompileId]) -> Optional[CompileId]:
    """Attempts of one compile id fold into one compilation: the key drops the attempt."""
    return cid.compilation if cid is not None else None


def _last_of_superseded(events: list[RawEvent]) -> dict[tuple[str, Optional[CompileId]], int]:
    return {(ev.name, _compilation_key(ev.compile_id)): ev.seq for ev in events if ev.name in SUPERSEDED}


_DEVICE_RE = re.compile(r"\]((?:cpu|cuda|xpu|mps|meta|hpu)(?::\d+)?)$")


def graph_devices(compilations: tuple[Compilation, ...]) -> list[str]:
    """Devices named in the graphs' tensor types (``f32[8][1]cuda:0``), in first-seen order."""
    seen: dict[str, None] = {}
    for c in compilations:
        for n in (c.graph.nodes if c.graph else ()):
            m = _DEVICE_RE.search(n.type or "")
            if m:
                seen[m.group(1)] = None
    return list(seen)
