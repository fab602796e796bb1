"""Listens on torch.compile's official seams while a capture is open: the one listener.

Three seams, all removed in ``close()``:
  * a ``logging.Handler`` on the structured-trace logger (what tlparse reads);
  * handlers on the artifact loggers for the loop-level IR (not in the trace)
    and for Dynamo's bytecode listing (covers frames Dynamo skipped);
  * Dynamo's bytecode hook (original and rewritten code objects).
Records are kept raw, in arrival order, in a ``RawCapture``; ``assemble``
decodes them afterwards. Whoever else wants the trace live (the status line,
the CLI's repro collection) subscribes here instead of adding a handler of its
own: ``Recorder.subscribe`` for one capture, ``watching`` for whichever capture
opens while a block runs. Nothing here may raise into the user's compile: a
failure while recording, or in a subscriber, becomes a ``Problem``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional

from . import torch_compat
from .compile_id import CompileId, Generations
from .loggers import listen_at_debug, tap
from .model import Problem
from .raw import RawCapture, RawEvent, describe_error, event_name

_BETWEEN = "an intermediate graph between the stages shown"
_DESCRIBE = "fake-tensor bookkeeping tlparse uses for its own views"
# records whose content is noise for a reader, counted but not kept: event name -> why
NOISE: dict[str, str] = {
    "chromium_event": "profiling spans for chrome://tracing (hundreds per compile)",
    **dict.fromkeys(["describe_storage", "describe_tensor", "describe_source"], _DESCRIBE),
    **dict.fromkeys(["guard_added_fast", "create_symbol", "symbolic_shape_specialization"],
                    "one record per guard or symbol as Dynamo adds it; the guard tree shows them all"),
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

Subscriber = Callable[[RawEvent], None]


@dataclass(eq=False)
class Subscription:
    """A live reader of the trace: called with each kept record, and with the noise it names in ``keep``."""

    fn: Subscriber
    keep: frozenset[str] = frozenset()
    failed: bool = False  # set at its first exception: it is not called again

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
    """Owns the listeners; safe to nest (each recorder has its own handlers)."""

    def __init__(self, listeners: Iterable[Subscriber] = (), keep: Iterable[str] = ()) -> None:
        self.raw = RawCapture()
        self._subscriptions = [Subscription(fn, frozenset(keep)) for fn in listeners]
        self._lock = threading.Lock()
        self._seq = 0
        self._undo: list[Callable[[], None]] = []
        self.generations = Generations()  # compile ids stay unique across torch._dynamo.reset()
        self._resets: Optional[torch_compat.CompileCallbacks] = None

    def subscribe(self, fn: Subscriber, keep: Iterable[str] = ()) -> Callable[[], None]:
        """Calls ``fn(event)`` live for each record kept (and the noise named in ``keep``); returns the undo."""
        sub = Subscription(fn, frozenset(keep))
        self._subscriptions.append(sub)
        return lambda: self._subscriptions.remove(sub) if sub in self._subscriptions else None

    # ---- install / remove ----
    def open(self) -> None:
        with _LOCK:
            _OPEN.append(self)
        self._undo.append(self._leave)
        trace = torch_compat.trace_logger()
        h = _ListHandler(self, "trace")
        trace.addHandler(h)
        self._undo.append(lambda: trace.removeHandler(h))
        for kind, name in list(torch_compat.IR_LOGGERS.items()) + [("bytecode_log", torch_compat.BYTECODE_LOGGER)]:
            self._listen(kind, logging.getLogger(name))
        # DDPOptimizer's INFO line (its DEBUG lines are one per graph node); its logger has a stderr handler
        self._undo.append(tap(logging.getLogger(torch_compat.DDP_OPTIMIZER_LOGGER),
                              lambda record: self._on_tapped("ddp_optimizer_log", record), logging.INFO))
        handle = torch_compat.register_bytecode_hook(self._on_bytecode)
        self._undo.append(handle.remove)
        self._resets = torch_compat.CompileCallbacks().install()
        self._undo.append(self._resets.remove)

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

    def close(self) -> None:
        """Undoes everything ``open`` did; an undo that fails is a Problem, the rest still run."""
        while self._undo:
            undo = self._undo.pop()
            try:
                undo()
            except Exception as e:  # noqa: BLE001 - keep undoing the rest; the user sees what could not be undone
                self.record_failure("recorder.close", e, None)

    # ---- intake ----
    def on_log_record(self, kind: str, record: logging.LogRecord) -> None:
        if kind == "trace":
            self.take_trace(getattr(record, "metadata", None), getattr(record, "payload", None))
        else:
            self.take(kind, self.generations.stamp(torch_compat.current_compile_id()), {}, record.getMessage())

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        try:
            self.take("bytecode_hook", self.generations.stamp(torch_compat.current_compile_id()), {},
                      (code, new_code))
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
            return
        asked = [s for s in self._readers() if name in s.keep]
        # one row per name for the whole capture: per compilation, noise would outnumber the stages
        self.raw.dropped.add(name, None, _size(payload),
                             KEPT_WHY.format(", ".join(s.name for s in asked)) if asked else NOISE_WHY.format(why))
        if asked:
            self._deliver(RawEvent(self._next(), name, cid, metadata, payload), asked)

    def compile_id_of(self, metadata: dict, starts: bool = False) -> Optional[CompileId]:
        """A record's compile id in this capture's generation; ``starts``: it is a compilation's start record."""
        cid = CompileId.of_metadata(metadata)
        if starts and cid is not None:
            self.generations.start(cid, reset_seen=self._resets is not None and self._resets.reset_seen())
        return self.generations.stamp(cid)

    def take(self, name: str, compile_id: Optional[CompileId], metadata: dict, payload: Any) -> None:
        """Keeps one record and hands it to the subscribers (also the way a recorded trace is replayed)."""
        event = RawEvent(self._next(), name, compile_id, metadata, payload)
        self.raw.events.append(event)
        readers = self._readers()
        if readers:
            self._deliver(event, readers)

    def record_failure(self, where: str, error: BaseException, event: Optional[str],
                       compile_id: Optional[CompileId] = None) -> None:
        self.raw.add_problem(Problem(where, describe_error(error), event, compile_id.trace_key if compile_id else None))

    # ---- subscribers ----
    def _readers(self) -> list[Subscription]:
        subs = [s for s in self._subscriptions if not s.failed]
        if _OPEN and _OPEN[0] is self:
            subs += [s for s in _WATCHERS if not s.failed]
        return subs

    def _deliver(self, event: RawEvent, readers: list[Subscription]) -> None:
        for sub in readers:
            try:
                sub.fn(event)
            except Exception as e:  # noqa: BLE001 - a subscriber's bug is reported, never raised into the compile
                sub.failed = True
                cid = event.compile_id.trace_key if event.compile_id else None
                message = f"{describe_error(e)}; not called again in this capture"
                self.raw.add_problem(Problem(f"subscriber {sub.name}", message, event.name, cid))

    def _next(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq


def current_compile_id() -> Optional[CompileId]:
    """The compile running now, numbered as the innermost open capture numbers it (see ``Generations``)."""
    cid = torch_compat.current_compile_id()
    with _LOCK:
        innermost = _OPEN[-1] if _OPEN else None
    return innermost.generations.stamp(cid) if innermost is not None else cid


def compile_id_of(metadata: dict) -> Optional[CompileId]:
    """A trace record's compile id as the innermost open capture numbers it (read after that capture saw it)."""
    with _LOCK:
        innermost = _OPEN[-1] if _OPEN else None
    cid = CompileId.of_metadata(metadata)
    return innermost.generations.stamp(cid) if innermost is not None else cid


def _size(payload: Any) -> int:
    return len(payload) if isinstance(payload, str) else 0


def _name_of(kind: str, record: logging.LogRecord) -> str:
    metadata = getattr(record, "metadata", None)
    return event_name(metadata) if kind == "trace" and isinstance(metadata, dict) else kind
