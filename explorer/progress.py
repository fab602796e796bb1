"""A live one-line status while a cell compiles, replaced by the view when done.

A first C++ compile takes ~10 s on 2 cores: without a sign of life a user
interrupts it. The stage comes from torch's structured-trace events (a
``logging.Handler`` on ``torch.__trace``, removed on exit); a daemon ticker
refreshes the elapsed time during long silent phases (a C++ build emits no
event), stopped before the line is replaced. Updates go by display id, so the
front end applies them to the right output from any thread. Nothing here may
raise into the user's cell: every display call is guarded.
"""

from __future__ import annotations

import html
import logging
import threading
import time
from typing import Any, Optional

from .capturing import torch_compat

# structured-trace event -> what the user is waiting for
STAGE_OF_EVENT = {
    "dynamo_start": "Dynamo: tracing bytecode",
    "dynamo_output_graph": "Dynamo: FX graph captured",
    "aot_joint_graph": "AOTAutograd: joint graph",
    "aot_forward_graph": "AOTAutograd: forward/backward graphs",
    "aot_inference_graph": "AOTAutograd: inference graph",
    "inductor_pre_grad_graph": "Inductor: pre-grad passes",
    "inductor_post_grad_graph": "Inductor: lowering and generating kernels",
    "inductor_output_code": "Inductor: compiling generated code",
    "dynamo_graph_break_reason": "graph break",
    "compilation_metrics": "frame compiled",
}
MIN_UPDATE_S = 0.2  # display updates are messages to the front end: keep them few
TICK_S = 1.0  # how often the elapsed time refreshes while no event arrives


class _StatusLine:
    """What the display shows: one line, as text and as escaped HTML."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text,
                "text/html": f"<div class='cx-progress' style='font-family:monospace;opacity:.8'>"
                             f"{html.escape(self.text)}</div>"}


class _TraceHandler(logging.Handler):
    def __init__(self, progress: "Progress") -> None:
        super().__init__(logging.DEBUG)
        self.progress = progress

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.progress._on_event(getattr(record, "metadata", None))
        except Exception:  # noqa: BLE001 - a status line must never break the compile
            pass


class Progress:
    """Context manager: shows the line on enter, stops listening on exit.

    ``finish(obj)`` replaces the line with ``obj`` (the view), or clears it.
    """

    def __init__(self, enabled: bool = True, title: str = "compile-explorer", tick_s: Optional[float] = TICK_S) -> None:
        self.enabled = enabled
        self.tick_s = tick_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None
        self.title = title
        self.stage = "starting"
        self.frame: Optional[str] = None
        self._handle: Any = None
        self._handler: Optional[_TraceHandler] = None
        self._t0 = 0.0
        self._last_update = 0.0

    def __enter__(self) -> "Progress":
        self._t0 = time.perf_counter()
        if not self.enabled:
            return self
        self._handle = _display(_StatusLine(self._line()))
        if self._handle is not None:
            self._handler = _TraceHandler(self)
            torch_compat.trace_logger().addHandler(self._handler)
            if self.tick_s:
                self._ticker = threading.Thread(target=self._tick, name="compile-explorer-progress", daemon=True)
                self._ticker.start()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2.0)
            self._ticker = None
        if self._handler is not None:
            torch_compat.trace_logger().removeHandler(self._handler)
            self._handler = None
        return False

    def finish(self, obj: Any = None) -> bool:
        """Replaces the status line; returns False if there was none to replace."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is None:
            return False
        try:
            handle.update(obj if obj is not None else _StatusLine(""))
            return True
        except Exception:  # noqa: BLE001
            return False

    def set_stage(self, stage: str) -> None:
        """A stage of the explorer's own (e.g. timing) after torch's events have stopped."""
        self.stage, self.frame = stage, None
        self._update()

    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self._t0

    def _line(self) -> str:
        where = f" [{self.frame}]" if self.frame else ""
        return f"{self.title}: {self.stage}{where} ... {self.elapsed_s:.1f} s"

    def _on_event(self, metadata: Any) -> None:
        if not isinstance(metadata, dict):
            return
        name = _event_name(metadata)
        stage = STAGE_OF_EVENT.get(name) if name else None
        if stage is None:
            return
        if "frame_id" in metadata:
            self.frame = f"{metadata['frame_id']}/{metadata.get('frame_compile_id', 0)}"
        changed = stage != self.stage
        self.stage = stage
        if changed or time.perf_counter() - self._last_update >= MIN_UPDATE_S:
            self._update()

    def _tick(self) -> None:
        while not self._stop.wait(self.tick_s):
            if time.perf_counter() - self._last_update >= self.tick_s:
                self._update()

    def _update(self) -> None:
        with self._lock:
            if self._handle is None:
                return
            self._last_update = time.perf_counter()
            try:
                self._handle.update(_StatusLine(self._line()))
            except Exception:  # noqa: BLE001
                pass


def _event_name(metadata: dict) -> Optional[str]:
    artifact = metadata.get("artifact")
    if isinstance(artifact, dict):
        return str(artifact.get("name"))
    for key in STAGE_OF_EVENT:
        if key in metadata:
            return key
    return None


def _display(obj: Any) -> Any:
    try:
        from IPython.display import display

        return display(obj, display_id=True)
    except Exception:  # noqa: BLE001 - no front end: no status line
        return None
