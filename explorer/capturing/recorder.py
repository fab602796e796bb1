"""Listens on torch.compile's official seams: the one listener, the only code in explorer that hooks torch.

The seams, each installed by a ``Recorder`` and all removed in ``close()``:
  * ``TRACE``: a ``logging.Handler`` on the structured-trace logger (what tlparse reads); as
    Dynamo writes a graph there, the code objects it traced into it (``TRACED_CODE``);
  * ``ARTIFACTS``: handlers on the artifact loggers for the loop-level IR (not in
    the trace), Dynamo's bytecode listing (covers frames Dynamo skipped), its
    ``trace_call`` lines (where library calls that made a node were called from)
    and DDPOptimizer's split;
  * ``BYTECODE``: Dynamo's bytecode hook (original and rewritten code objects; the originals' cache entries are
    read while they are live, ``frame_cache``);
  * ``CALLBACKS``: Dynamo's compile start/end callbacks (and resets, which empty them);
  * ``GPU``: CUDA graph trees' loggers and Inductor's autotuning feedback.
A capture (``CaptureSession``) installs ``CAPTURE_SEAMS`` and keeps the records
raw, in arrival order, in a ``RawCapture``; ``assemble`` decodes them afterwards.
Whoever else needs torch live (the status line, the CLI's repro collection, a
cell's run, the timing's profiling build, the GPU watch) subscribes instead of
adding a hook of its own: ``Recorder.subscribe`` for one capture, ``watching``
for whichever capture opens while a block runs, ``listening`` for a block
whether or not a capture is open (it then opens a recorder that keeps no
records, with only the seams asked for). Filters that keep torch's lines off
stderr go through the same door (``Listening.claim``, ``divert_warnings``).
Nothing here may raise into the user's compile: a failure while recording, or
in a subscriber, becomes a ``Problem``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional

from . import torch_door
from .compile_id import CompileId, Generations
from .frame_cache import READ_AT_END, FrameCaches
from .loggers import CallFilter, divert_warnings, listen_at_debug, tap
from .model import Problem
from .raw import RawCapture, RawEvent, describe_error, event_name

_BETWEEN = "an intermediate graph between the stages shown"
_DESCRIBE = "fake-tensor bookkeeping tlparse uses for its own views"
# records whose content is noise for a reader, counted but not kept: event name -> why
NOISE: dict[str, str] = {
    "chromium_event": "profiling spans for chrome://tracing (hundreds per compile)",
    **dict.fromkeys(["describe_storage", "describe_tensor", "describe_source"], _DESCRIBE),
    "link": "tlparse's cross-links between its pages",
    **dict.fromkeys(["expression_created", "guard_added", "export"],
                    "torch's detailed trace of symbolic shapes, on while an export is captured"),
    "bwd_compilation_metrics": "backward compile times (compilation_metrics has the frame's)",
    "dynamo_guards": "guards as Python data (rarely emitted; the guard tree is read instead)",
    "artifact:dynamo_error": "Dynamo's error text (the compilation's failure and graph break carry it)",
    "artifact:fx_graph_runnable": "a runnable repro script of each lowered graph (kept only when asked: run --time)",
    "artifact:torch._functorch.config": "a dump of AOTAutograd's config",
    "artifact:aot_forward_graph_fw_metadata": "AOTAutograd's metadata about the forward's inputs and outputs",
    **dict.fromkeys(["artifact:backward_prologue", "artifact:backward_epilogue",
                     "artifact:compiled_function_forward", "artifact:compiled_function_backward",
                     "artifact:compiled_fn_wrapper", "artifact:runtime_wrapper_orchestration"],
                    "AOTAutograd's runtime wrapper code"),
    **dict.fromkeys(["artifact:before_joint_graph", "artifact:after_joint_graph", "artifact:before_pre_grad_graph",
                     "artifact:after_pre_grad_graph", "artifact:before_post_grad_graph"], _BETWEEN),
}
NOISE_WHY = "dropped as noise (all compilations together), payload not kept: {}"
KEPT_WHY = "passed to a subscriber that asked for it ({}); not a stage of the report"
NO_METADATA = "<record without metadata>"

TRACE, ARTIFACTS, BYTECODE, CALLBACKS, GPU = "trace", "artifacts", "bytecode", "callbacks", "gpu"
TRACED_CODE = "traced_code"  # TRACE: the code objects Dynamo traced into a graph, read as its graph is written
CAPTURE_SEAMS = frozenset({TRACE, ARTIFACTS, BYTECODE, CALLBACKS})
# events made live, never kept as records: delivered only to subscribers naming them in ``keep``
COMPILE_START, COMPILE_END, RESET = "compile_start", "compile_end", "reset"  # CALLBACKS
CUDAGRAPH_LOG, AUTOTUNE = "cudagraph_log", "autotune"  # GPU: a log line; (timings, name, input_nodes, choices)
LIVE_ONLY = frozenset({COMPILE_START, COMPILE_END, RESET, CUDAGRAPH_LOG, AUTOTUNE})
_LIVE_SEAM = {COMPILE_START: CALLBACKS, COMPILE_END: CALLBACKS, RESET: CALLBACKS, CUDAGRAPH_LOG: GPU, AUTOTUNE: GPU}
_ARTIFACT_KINDS = frozenset({*torch_door.inductor.IR_LOGGERS, "bytecode_log", "ddp_optimizer_log", "trace_call"})


def seam_of(name: str) -> str:
    """The seam an event (a record's or a live event's name) comes from."""
    if name in _LIVE_SEAM:
        return _LIVE_SEAM[name]
    if name == "bytecode_hook":
        return BYTECODE
    return ARTIFACTS if name in _ARTIFACT_KINDS else TRACE

Subscriber = Callable[[RawEvent], None]


@dataclass(eq=False)
class Subscription:
    """A live reader of the trace: called with each kept record, and with the noise it names in ``keep``."""

    fn: Subscriber
    keep: frozenset[str] = frozenset()
    seams: Optional[frozenset[str]] = None  # the seams whose events it sees; None: all the recorder has
    failed: Optional[str] = None  # its first exception, described: it is not called again

    def reads(self, seam: str) -> bool:
        return not self.failed and (self.seams is None or seam in self.seams)

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or type(self.fn).__name__


_LOCK = threading.Lock()
_OPEN: list[Recorder] = []  # open recorders, outermost first
_WATCHERS: list[Subscription] = []


@contextlib.contextmanager
def watching(fn: Subscriber, keep: Iterable[str] = ()) -> Iterator[Subscription]:
    """``fn`` sees the records of every capture that is open while the block runs.

    For callers that wrap a capture they do not create (the notebook's status
    line is entered before the capture). With nested captures, only the
    outermost one calls ``fn``, so each record arrives once.
    """
    sub = Subscription(fn, frozenset(keep))
    with _LOCK:
        _WATCHERS.append(sub)
    try:
        yield sub
    finally:
        with _LOCK:
            _WATCHERS.remove(sub)


class _ListHandler(logging.Handler):
    def __init__(self, sink: Recorder, kind: str) -> None:
        super().__init__(logging.DEBUG)
        self.sink, self.kind = sink, kind

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.sink.on_log_record(self.kind, record)
        except Exception as e:  # noqa: BLE001 - a listener must never break the compile: the failure is a Problem
            self.sink.record_failure("recorder", e, _name_of(self.kind, record))


class Recorder:
    """Owns the hooks on torch; safe to nest (each recorder has its own handlers).

    ``seams`` says which to install; ``keeps_records=False`` makes a live-only
    recorder (``listening``): subscribers see each record, ``raw`` keeps none.
    """

    def __init__(self, listeners: Iterable[Subscriber] = (), keep: Iterable[str] = (), *,
                 seams: Iterable[str] = CAPTURE_SEAMS, keeps_records: bool = True) -> None:
        self.raw = RawCapture()
        self.seams = frozenset(seams)
        self.keeps_records = keeps_records
        self.notes: list[str] = []  # a seam this torch lacks
        self._subscriptions = [Subscription(fn, frozenset(keep)) for fn in listeners]
        self.busy_s = 0.0  # the explorer's own time taking torch's records and bytecode (``OwnTime.listening_s``)
        self.taken = 0
        self._lock = threading.Lock()
        self._seq = 0
        self._undo: list[Callable[[], None]] = []
        self.generations = Generations()  # compile ids stay unique across torch._dynamo.reset()
        self.frame_caches = FrameCaches()  # the code objects Dynamo compiled, their cache entries read live
        self._resets: Optional[torch_door.dynamo.CompileCallbacks] = None
        self._reset_pending = False  # a reset seen, not yet turned into a new generation

    def subscribe(self, fn: Subscriber, keep: Iterable[str] = ()) -> Callable[[], None]:
        """Calls ``fn(event)`` live for each record kept (and the noise named in ``keep``); returns the undo."""
        return self.attach(Subscription(fn, frozenset(keep)))

    def attach(self, sub: Subscription) -> Callable[[], None]:
        """``subscribe`` for a subscription made by the caller (who reads its ``failed``); returns the undo."""
        self._subscriptions.append(sub)
        return lambda: self._subscriptions.remove(sub) if sub in self._subscriptions else None

    # ---- install / remove ----
    def open(self) -> None:
        with _LOCK:
            _OPEN.append(self)
        self._undo.append(self._leave)
        if TRACE in self.seams:
            self.raw.strings.update(torch_door.logs.interned_strings())  # named by an earlier capture in this process
            trace = torch_door.logs.trace_logger()
            h = _ListHandler(self, "trace")
            trace.addHandler(h)
            self._undo.append(lambda: trace.removeHandler(h))
        if ARTIFACTS in self.seams:
            for kind, name in [*torch_door.inductor.IR_LOGGERS.items(),
                               ("bytecode_log", torch_door.dynamo.BYTECODE_LOGGER),
                               *(("trace_call", n) for n in torch_door.dynamo.TRACE_CALL_LOGGERS)]:
                self._listen(kind, logging.getLogger(name))
            # DDPOptimizer's INFO line (its DEBUG lines are one per graph node); its logger has a stderr handler
            self._undo.append(tap(logging.getLogger(torch_door.distributed.DDP_OPTIMIZER_LOGGER),
                                  lambda record: self._on_tapped("ddp_optimizer_log", record), logging.INFO))
        if BYTECODE in self.seams:
            handle = torch_door.dynamo.register_bytecode_hook(self._on_bytecode)
            self._undo.append(handle.remove)
        if CALLBACKS in self.seams:
            self._resets = torch_door.dynamo.CompileCallbacks(lambda: self._live(COMPILE_START),
                                                         lambda: self._live(COMPILE_END)).install()
            self._undo.append(self._resets.remove)
        if GPU in self.seams:
            self._open_gpu()

    def _open_gpu(self) -> None:
        for name in torch_door.inductor.CUDAGRAPH_LOGGERS:
            self._listen(CUDAGRAPH_LOG, logging.getLogger(name))
        feedback = contextlib.ExitStack()
        self._undo.append(feedback.close)
        if not feedback.enter_context(torch_door.inductor.autotune_feedback(lambda *args: self._live(AUTOTUNE, args),
                                                                     self.notes)):
            self.notes.append("this torch has no autotuning feedback hook: choices not recorded")

    def claim(self, logger_name: str, keep: Callable[[logging.LogRecord], bool]) -> Callable[[], None]:
        """``keep(record)`` decides whether each of a torch logger's records goes on (False: kept off stderr,
        e.g. an error a cell turns into a finding); returns the undo, also run at ``close``."""
        logger, filt = logging.getLogger(logger_name), CallFilter(keep)
        logger.addFilter(filt)
        return self._undoable(lambda: logger.removeFilter(filt))

    def divert_warnings(self, compiling: Callable[[], bool], into: list[str]) -> Callable[[], None]:
        """Warnings torch gives while ``compiling()`` go to ``into``, not stderr (``loggers.divert_warnings``)."""
        return self._undoable(divert_warnings(compiling, into))

    def poll_reset(self) -> bool:
        """Whether ``torch._dynamo.reset()`` ran since the last poll (needs ``CALLBACKS``); tells subscribers."""
        if self._resets is not None and self._resets.reset_seen():
            self._reset_pending = True
            self._live(RESET)
            return True
        return False

    def _undoable(self, undo: Callable[[], None]) -> Callable[[], None]:
        self._undo.append(undo)

        def once() -> None:
            if undo in self._undo:
                self._undo.remove(undo)
                undo()
        return once

    def _leave(self) -> None:
        with _LOCK:
            _OPEN.remove(self)

    def _listen(self, kind: str, logger: logging.Logger) -> None:
        self._undo.append(listen_at_debug(logger, _ListHandler(self, kind)))

    def _on_tapped(self, kind: str, record: logging.LogRecord) -> None:
        try:
            self.on_log_record(kind, record)
        except Exception as e:  # noqa: BLE001 - a listener must never break the compile: the failure is a Problem
            self.record_failure("recorder", e, kind)

    def read_frame_caches(self, read_at: str) -> None:
        """Reads now the cache entries of every frame Dynamo compiled during this capture (``frame_cache``)."""
        if not self.keeps_records:
            return
        try:
            self.frame_caches.read(read_at, self.generations.current)
        except Exception as e:  # noqa: BLE001 - the view says the frames' caches could not be read, the run goes on
            self.record_failure("recorder.read_frame_caches", e, None)

    def close(self) -> None:
        """Undoes everything ``open`` did; an undo that fails is a Problem, the rest still run. The frames' caches
        are read first (``frame_cache``), while the user's compiled code still holds them."""
        if self.keeps_records and BYTECODE in self.seams:
            self.read_frame_caches(READ_AT_END)
            self.raw.frame_caches = self.frame_caches.readings() or self.raw.frame_caches  # closed twice: kept
            self.frame_caches = FrameCaches()  # let go of the code objects
        while self._undo:
            undo = self._undo.pop()
            try:
                undo()
            except Exception as e:  # noqa: BLE001 - keep undoing the rest; the user sees what could not be undone
                self.record_failure("recorder.close", e, None)

    # ---- intake ----
    def on_log_record(self, kind: str, record: logging.LogRecord) -> None:
        t0 = time.perf_counter()
        try:
            if kind == "trace":
                self.take_trace(getattr(record, "metadata", None), getattr(record, "payload", None))
            else:
                self.take(kind, self.generations.stamp(torch_door.dynamo.current_compile_id()), {},
                          record.getMessage())
        finally:
            self.busy_s += time.perf_counter() - t0
            self.taken += 1

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        t0 = time.perf_counter()
        try:
            self._bytecode(code, new_code)
        finally:
            self.busy_s += time.perf_counter() - t0
            self.taken += 1

    def _bytecode(self, code: Any, new_code: Any) -> None:
        try:
            cid = self.generations.stamp(torch_door.dynamo.current_compile_id())
            if self.keeps_records:
                self.frame_caches.saw(code, cid)
            self.take("bytecode_hook", cid, {}, (code, new_code))
        except Exception as e:  # noqa: BLE001 - a hook must never break the compile
            self.record_failure("recorder", e, "bytecode_hook")

    def take_trace(self, metadata: Any, payload: Any) -> None:
        """One structured-trace record: noise is counted, interned strings noted, the rest kept."""
        if not isinstance(metadata, dict):
            self.raw.dropped.add(NO_METADATA, None, _size(payload), "a record on torch's trace logger "
                                 "without structured metadata (not from trace_structured)")
            return
        if "str" in metadata:  # an interned file name: ("path", index)
            path, index = metadata["str"]
            self.raw.strings[index] = path
            return
        name = event_name(metadata)
        cid = self.compile_id_of(metadata, starts=name == "dynamo_start")
        why = NOISE.get(name)
        if why is None:
            self.take(name, cid, metadata, payload)
            if name == "dynamo_output_graph":
                self._take_traced_code(cid)
            return
        asked = [s for s in self._readers(TRACE) if name in s.keep]
        # one row per name for the whole capture: per compilation, noise would outnumber the stages
        self.raw.dropped.add(name, None, _size(payload),
                             KEPT_WHY.format(", ".join(s.name for s in asked)) if asked else NOISE_WHY.format(why))
        if asked:
            self._deliver(RawEvent(self._next(), name, cid, metadata, payload), asked)

    def _take_traced_code(self, cid: Optional[CompileId]) -> None:
        """The functions Dynamo inlined into the graph just written (``TRACED_CODE``): read now, while the
        frame's tracing context is open."""
        try:
            codes = torch_door.dynamo.traced_code()
        except Exception as e:  # noqa: BLE001 - a seam this torch lacks must not break the compile: a Problem
            self.record_failure("recorder", e, TRACED_CODE, cid)
            return
        if codes:
            self.take(TRACED_CODE, cid, {}, codes)

    def compile_id_of(self, metadata: dict, starts: bool = False) -> Optional[CompileId]:
        """A record's compile id in this capture's generation; ``starts``: it is a compilation's start record."""
        cid = CompileId.of_metadata(metadata)
        if starts and cid is not None:
            self.poll_reset()  # Dynamo writes the start record before it runs the start callbacks
            self.generations.start(cid, reset_seen=self._reset_pending)
            self._reset_pending = False
        return self.generations.stamp(cid)

    def take(self, name: str, compile_id: Optional[CompileId], metadata: dict, payload: Any) -> None:
        """Keeps one record and hands it to the subscribers (also the way a recorded trace is replayed)."""
        if name in LIVE_ONLY:
            self._live(name, payload)
            return
        event = RawEvent(self._next(), name, compile_id, metadata, payload)
        if self.keeps_records:
            self.raw.events.append(event)
        readers = self._readers(seam_of(name))
        if readers:
            self._deliver(event, readers)

    def _live(self, name: str, payload: Any = None) -> None:
        """An event that is not a record (a callback, a GPU line): only to the subscribers that asked for it."""
        asked = [s for s in self._readers(seam_of(name)) if name in s.keep]
        if asked:
            cid = self.generations.stamp(torch_door.dynamo.current_compile_id()) if name != RESET else None
            self._deliver(RawEvent(self._next(), name, cid, {}, payload), asked)

    def record_failure(self, where: str, error: BaseException, event: Optional[str],
                       compile_id: Optional[CompileId] = None) -> None:
        self.raw.add_problem(Problem.of_record(where, describe_error(error), event, compile_id))

    # ---- subscribers ----
    def _readers(self, seam: str) -> list[Subscription]:
        subs = [s for s in self._subscriptions if s.reads(seam)]
        if _outermost_capture() is self:
            subs += [s for s in _WATCHERS if s.reads(seam)]
        return subs

    def _deliver(self, event: RawEvent, readers: list[Subscription]) -> None:
        for sub in readers:
            try:
                sub.fn(event)
            except Exception as e:  # noqa: BLE001 - a subscriber's bug is reported, never raised into the compile
                sub.failed = describe_error(e)
                message = f"{sub.failed}; not called again in this capture"
                self.raw.add_problem(Problem.of_record(f"subscriber {sub.name}", message, event.name, event.compile_id))

    def _next(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq


def read_frame_caches(read_at: str) -> None:
    """Every open capture reads now the cache entries of the frames it saw Dynamo compile: for code about to drop
    them (a cell's run, which ends as a plain run of it would)."""
    with _LOCK:
        open_now = [r for r in _OPEN if r.keeps_records]
    for recorder in open_now:
        recorder.read_frame_caches(read_at)


def _outermost_capture() -> Optional[Recorder]:
    with _LOCK:
        return next((r for r in _OPEN if r.keeps_records), None)


def _innermost_capture() -> Optional[Recorder]:
    with _LOCK:
        return next((r for r in reversed(_OPEN) if r.keeps_records), None)


def current_compile_id() -> Optional[CompileId]:
    """The compile running now, numbered as the innermost open capture numbers it (see ``Generations``)."""
    cid = torch_door.dynamo.current_compile_id()
    innermost = _innermost_capture()
    return innermost.generations.stamp(cid) if innermost is not None else cid


def compile_id_of(metadata: dict) -> Optional[CompileId]:
    """A trace record's compile id as the innermost open capture numbers it (read after that capture saw it)."""
    innermost = _innermost_capture()
    cid = CompileId.of_metadata(metadata)
    return innermost.generations.stamp(cid) if innermost is not None else cid


@dataclass(eq=False)
class Listening:
    """One subscriber's hold on the listener for a block (``listening``): what it may add, what went wrong."""

    recorder: Recorder
    subscription: Subscription
    _undo: list[Callable[[], None]]

    def claim(self, logger_name: str, keep: Callable[[logging.LogRecord], bool]) -> None:
        """See ``Recorder.claim``; removed when the block ends."""
        self._undo.append(self.recorder.claim(logger_name, keep))

    def divert_warnings(self, compiling: Callable[[], bool], into: list[str]) -> None:
        """See ``Recorder.divert_warnings``; removed when the block ends."""
        self._undo.append(self.recorder.divert_warnings(compiling, into))

    def poll_reset(self) -> bool:
        return self.recorder.poll_reset()

    @property
    def problems(self) -> list[str]:
        """This subscriber's failure (it is not called again after one), and seams this torch lacks."""
        failed = self.subscription.failed
        own = [] if self.recorder.keeps_records else [  # a capture's problems are in its report already
            f"{p.where}: {p.message}" for p in self.recorder.raw.problems if not p.where.startswith("subscriber")]
        return ([failed] if failed else []) + own + list(self.recorder.notes)


@contextlib.contextmanager
def listening(fn: Subscriber, *, seams: Iterable[str], keep: Iterable[str] = ()) -> Iterator[Listening]:
    """``fn`` sees torch's records (and the live events named in ``keep``) from the ``seams`` while the block runs.

    The innermost open recorder that has those seams serves it (a capture, or an
    outer ``listening``); without one, a recorder that keeps no records opens for
    the block with just those seams. Either way no second hook goes onto torch.
    """
    wanted = frozenset(seams)
    with _LOCK:
        host = next((r for r in reversed(_OPEN) if wanted <= r.seams), None)
    own = host is None
    if own:
        host = Recorder(seams=wanted, keeps_records=False)
    sub = Subscription(fn, frozenset(keep), wanted)  # only its seams' events, whatever else the host has
    undo: list[Callable[[], None]] = []
    try:
        if own:
            host.open()
        undo.append(host.attach(sub))
        yield Listening(host, sub, undo)
    finally:
        while undo:
            undo.pop()()
        if own:
            host.close()


def _size(payload: Any) -> int:
    return len(payload) if isinstance(payload, str) else 0


def _name_of(kind: str, record: logging.LogRecord) -> str:
    metadata = getattr(record, "metadata", None)
    return event_name(metadata) if kind == "trace" and isinstance(metadata, dict) else kind
