"""Listens on torch.compile's official seams while a capture is open.

Three listeners, all removed in ``close()``:
  * a ``logging.Handler`` on the structured-trace logger (what tlparse reads);
  * handlers on the artifact loggers for the loop-level IR (not in the trace)
    and for Dynamo's bytecode listing (covers frames Dynamo skipped);
  * Dynamo's bytecode hook (original and rewritten code objects).
Records are kept raw, in arrival order; ``assemble`` turns them into data.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Optional

from . import torch_compat

# events whose content is noise for a reader (profiling spans, huge cache keys)
DROPPED = {"chromium_event", "fx_graph_cache_miss", "fx_graph_cache_hit", "fx_graph_cache_bypass",
           "aotautograd_cache_miss", "aotautograd_cache_hit", "aotautograd_cache_bypass",
           "describe_storage", "describe_tensor", "describe_source", "guard_added_fast", "create_symbol", "symbolic_shape_specialization",
           "link", "bwd_compilation_metrics", "dynamo_guards"}
DROPPED_ARTIFACTS = {"fx_graph_runnable", "torch._functorch.config", "aot_forward_graph_fw_metadata",
                     "backward_prologue", "backward_epilogue", "compiled_function_forward",
                     "compiled_function_backward", "compiled_fn_wrapper",
                     "runtime_wrapper_orchestration", "before_joint_graph", "after_joint_graph",
                     "before_pre_grad_graph", "after_pre_grad_graph", "before_post_grad_graph",
                     "fx_graph_cache_miss", "fx_graph_cache_hit", "fx_graph_cache_bypass"}
Key = tuple[int, int, int]  # frame_id, frame_compile_id, attempt


@dataclass
class RawEvent:
    seq: int
    name: str  # event name, or "artifact:<name>", or "ir_pre_fusion" etc.
    key: Optional[Key]
    metadata: dict
    payload: Optional[str]


@dataclass
class RawBytecode:
    key: Optional[Key]
    code: Any  # original code object; converted to data by assemble()
    new_code: Any


class _ListHandler(logging.Handler):
    def __init__(self, sink: "Recorder", kind: str) -> None:
        super().__init__(logging.DEBUG)
        self.sink, self.kind = sink, kind

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.sink._on_record(self.kind, record)
        except Exception:  # noqa: BLE001 - a listener must never break the compile
            pass


class Recorder:
    """Owns the listeners; safe to nest (each recorder has its own handlers)."""

    def __init__(self) -> None:
        self.events: list[RawEvent] = []
        self.bytecodes: list[RawBytecode] = []
        self.strings: dict[int, str] = {}  # the trace's interned file names
        self._lock = threading.Lock()
        self._seq = 0
        self._undo: list[Any] = []

    # ---- install / remove ----
    def open(self) -> None:
        trace = torch_compat.trace_logger()
        h = _ListHandler(self, "trace")
        trace.addHandler(h)
        self._undo.append(lambda: trace.removeHandler(h))
        for kind, name in list(torch_compat.IR_LOGGERS.items()) + [("bytecode_log", torch_compat.BYTECODE_LOGGER)]:
            self._listen(kind, logging.getLogger(name))
        handle = torch_compat.register_bytecode_hook(self._on_bytecode)
        self._undo.append(handle.remove)

    def _listen(self, kind: str, logger: logging.Logger) -> None:
        h = _ListHandler(self, kind)
        old_level, old_propagate = logger.level, logger.propagate
        logger.addHandler(h)
        if not logger.isEnabledFor(logging.DEBUG):
            logger.setLevel(logging.DEBUG)
        if not old_propagate or old_level > logging.DEBUG or old_level == logging.NOTSET:
            # nobody asked torch for this artifact: keep it off the user's stderr
            logger.propagate = False

        def undo() -> None:
            logger.removeHandler(h)
            logger.setLevel(old_level)
            logger.propagate = old_propagate

        self._undo.append(undo)

    def close(self) -> None:
        while self._undo:
            try:
                self._undo.pop()()
            except Exception:  # noqa: BLE001 - keep undoing the rest
                pass

    # ---- callbacks ----
    def _next(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        self.bytecodes.append(RawBytecode(torch_compat.current_compile_key(), code, new_code))

    def _on_record(self, kind: str, record: logging.LogRecord) -> None:
        if kind == "trace":
            self._on_trace(record)
            return
        self.events.append(RawEvent(self._next(), kind, torch_compat.current_compile_key(), {},
                                    record.getMessage()))

    def _on_trace(self, record: logging.LogRecord) -> None:
        md = getattr(record, "metadata", None)
        if not isinstance(md, dict):
            return
        if "str" in md:  # interned file name: ("path", index)
            path, idx = md["str"]
            self.strings[idx] = path
            return
        name = _event_name(md)
        if name in DROPPED or (name.startswith("artifact:") and name[9:] in DROPPED_ARTIFACTS):
            return
        key = None
        if "frame_id" in md:
            key = (md["frame_id"], md.get("frame_compile_id", 0), md.get("attempt", 0) or 0)
        payload = getattr(record, "payload", None)
        self.events.append(RawEvent(self._next(), name, key, md, payload))


_ENVELOPE = {"frame_id", "frame_compile_id", "attempt", "has_payload", "rank",
             "compiled_autograd_id", "stack", "severity", "timestamp", "pathname", "thread"}


def _event_name(md: dict) -> str:
    for k in md:
        if k not in _ENVELOPE:
            if k == "artifact" and isinstance(md[k], dict):
                return "artifact:" + str(md[k].get("name"))
            return k
    return "unknown"
