"""The capture context: listeners and config on, user code runs, everything undone.

Instrumentation never changes what the user's code does: exceptions pass
through untouched, every listener and config value is restored in ``finally``.
Turning records into data cannot fail as a whole: an unreadable record or a
failing step is a Problem in ``data.problems``; even a bug in the assembly's
own loop keeps every compilation built before it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import time
from typing import Callable, Iterable, Mapping, Optional

from . import torch_door
from .assemble import Assembly, DeviceNamer
from .cache_keys import default_key_store, explain_keys
from .cache_tag import CacheTag
from .model import CaptureData, OwnTime, Problem
from .phases import EVENT, READ_SPANS, PhaseClock, with_phases
from .raw import RawCapture, describe_error
from .recorder import Recorder, Subscriber
from .stage_store import default_store, put_back
from .warm import SessionUsage, aoti_generated_files, with_generated_files

# set only by tests/benchmarks/bench_compile_time.py: the capture without the compile-time spans, to measure them
NO_PHASES = "CX_BENCH_NO_PHASES"


class CaptureSession:
    """Use as a context manager; ``data`` is filled in when the block ends.

    ``listeners`` (or ``subscribe``) see each record live, as the recorder names
    it (``RawEvent``: name, CompileId, metadata, payload); ``keep`` names noise
    records they need anyway (``artifact:fx_graph_runnable`` for repro timing).
    """

    def __init__(self, listeners: Iterable[Subscriber] = (), keep: Iterable[str] = (), *, warm: bool = False,
                 export: bool = False, fresh: bool = False, places: Optional[Mapping[str, str]] = None) -> None:
        """``warm``: the user's caches as they are (``torch_door.config.WARM_KEEPS``), a second run's view; ``fresh``:
        the graph caches off, every graph lowered again; neither (the default, ``cold`` in the JSON): the graph
        caches as the program has them,
        and what a hit skips put back from the explorer's stage store (``stage_store``). ``export``: torch's
        detailed trace on, so ``torch.export`` writes the programs it makes. ``places``: files' stable names for
        "the same lines" a cache miss is compared with (``cache_keys.identity``: a notebook cell's id)."""
        if warm and fresh:
            raise ValueError("warm (the caches as they are) and fresh (the graph caches off) contradict each other")
        self.data: Optional[CaptureData] = None
        self.notes: list[str] = []
        self.warm, self.export, self.fresh = warm, export, fresh
        self.places: dict[str, str] = dict(places or {})
        self._recorder = Recorder(listeners, keep)
        self._clock = PhaseClock()  # torch's compile-time spans, summed per compilation as they arrive
        if not os.environ.get(NO_PHASES):
            self._recorder.subscribe(self._clock, (EVENT,))
        self._stack = contextlib.ExitStack()
        self._t0 = 0.0
        self._started = 0.0  # time.time() at the start: files written since were built by this capture
        self._fresh_before: set[str] = set()
        self._usage = SessionUsage()
        self._tag = CacheTag() if not (warm or fresh) else None  # default: hits only for this program's graphs
        self._aoti_files: dict[str, tuple] = {}

    def subscribe(self, fn: Subscriber, keep: Iterable[str] = ()) -> Callable[[], None]:
        """Calls ``fn(event)`` for each record from now until the capture ends; returns the unsubscribe."""
        return self._recorder.subscribe(fn, keep)

    def __enter__(self) -> CaptureSession:
        self._t0 = time.perf_counter()
        try:
            self._fresh_before = torch_door.inductor.fresh_cache_dirs()
            self._started = time.time()
            self._usage.begin(self._recorder)
            if self._tag is not None:
                self._tag.begin(self._recorder)
            self._stack.enter_context(torch_door.config.capture_config(self.notes, warm=self.warm, export=self.export,
                                                                 fresh=self.fresh))
            self._stack.callback(torch_door.aot.cache_components_on())  # what an AOTAutograd miss is compared with
            self._recorder.open()
        except BaseException:
            self._recorder.close()
            self._stack.close()
            if self._tag is not None:
                self._tag.end()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        wall = time.perf_counter() - self._t0
        self._usage.end()
        try:
            self._recorder.close()
        finally:
            if self._tag is not None:
                self._tag.end()
            self._stack.close()
            from .triton_asm import keep_stage_files

            self._aoti_files = aoti_generated_files(self._recorder.raw)  # before their folders go
            torch_door.inductor.remove_fresh_cache_dirs(self._fresh_before, _output_code_files(self._recorder.raw),
                                                 self.notes, before_removal=keep_stage_files)
        error = None
        if exc_type is not None:
            error = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
        self.data = self._assemble(wall, error)
        return False  # never swallow the user's exception

    def _assemble(self, wall: float, error: Optional[str]) -> CaptureData:
        t0 = time.perf_counter()
        busy_s, taken = self._recorder.busy_s, self._recorder.taken
        raw, self._recorder = self._recorder.raw, Recorder()  # let go of code objects and raw payloads
        # each miss: what changed since the same lines
        raw = explain_keys(raw, default_key_store(), self.notes, self.places)
        if not self.warm:  # default: hits served from the store, lowerings kept; fresh: lowerings kept
            raw = put_back(raw, default_store(), self.notes)
        data = with_phases(read(raw, notes=self.notes, wall_time_s=wall, error=error), self._clock, READ_SPANS)
        data = with_generated_files(data, self._aoti_files)
        data = self._usage.apply(data, mode=self.mode, since=self._started)
        own = OwnTime(listening_s=round(busy_s, 6), records=taken, reading_s=round(time.perf_counter() - t0, 6))
        return dataclasses.replace(data, own_time=own)

    @property
    def mode(self) -> str:
        """``cold`` (the default: the caches on, as a plain run has them), ``warm`` or ``fresh`` (the graph caches
        off): ``CaptureData.cache_mode``."""
        return "warm" if self.warm else "fresh" if self.fresh else "cold"


def _output_code_files(raw: RawCapture) -> list[str]:
    """The files this capture's compiles wrote their wrapper code to, as the trace names them."""
    out = []
    for ev in raw.events:
        fields = ev.metadata.get(ev.name) if ev.name in ("inductor_output_code", "graph_dump") else None
        if isinstance(fields, dict) and isinstance(fields.get("filename"), str):
            out.append(fields["filename"])
    return out


def read(raw: RawCapture, *, notes: list[str], wall_time_s: Optional[float], error: Optional[str],
         torch_version: Optional[str] = None, device: Optional[DeviceNamer] = None,
         python_version: Optional[str] = None, memo: Optional[dict] = None) -> CaptureData:
    """The CaptureData of a finished capture; never raises for what torch emitted.

    Only a bug in the assembly's own loop gets here as an exception: then
    the compilations built before it are kept, and the report says what happened.
    ``torch_version``, ``device``, ``python_version``: this process's unless given (a trace read from a file
    says its own); ``memo``: records already decoded, shared with other captures (``Assembly``).
    """
    assembly = Assembly(raw, torch_version or torch_door.version.torch_version(), memo)
    try:
        assembly.run()
    except Exception as e:  # noqa: BLE001 - a bug in the assembly's loop: keep what it built, say what happened
        assembly.problems.append(Problem("assemble", f"the explorer stopped reading what torch emitted "
                                         f"({describe_error(e)}); compilations after this point are missing; "
                                         f"please report this"))
    return assembly.data(torch_version=torch_version or torch_door.version.torch_version(),
                         device=device or torch_door.devices.describe_devices,
                         python_version=python_version or platform.python_version(), wall_time_s=wall_time_s,
                         notes=notes, error=error)
