"""A live one-line status while a cell compiles, replaced by the view when done.

A first C++ compile takes ~10 s on 2 cores: without a sign of life a user
interrupts it. The stage comes from torch's structured-trace events, read
live from the capture's recorder (a subscription, removed on exit; the status
line is entered before the capture opens, so by default it follows whichever
capture opens inside it); a daemon ticker
refreshes the elapsed time during long silent phases (a C++ build emits no
event), stopped before the line is replaced. Updates go by display id, so the
front end applies them to the right output from any thread. Nothing here may
raise into the user's cell: every display call is guarded.
"""

from __future__ import annotations

import contextlib
import html
import threading
import time
from typing import Any, Optional

from .capturing.raw import RawEvent
from .capturing.recorder import watching

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


class Progress:
    """Context manager: shows the line on enter, stops listening on exit.

    ``finish(obj)`` replaces the line with ``obj`` (the view), or clears it.
    ``session`` (a CaptureSession) is the capture to follow; without one, the
    line follows any capture that opens while it is shown.
    """

    def __init__(self, enabled: bool = True, title: str = "compile-explorer", tick_s: Optional[float] = TICK_S,
                 session: Any = None) -> None:
        self.enabled = enabled
        self.tick_s = tick_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None
        self.title = title
        self.stage = "starting"
        self.frame: Optional[str] = None
        self._handle: Any = None
        self._session = session
        self._listening = contextlib.ExitStack()
        self._t0 = 0.0
        self._last_update = 0.0

    def __enter__(self) -> Progress:
        self._t0 = time.perf_counter()
        if not self.enabled:
            return self
        self._handle = _display(_StatusLine(self._line()))
        if self._handle is not None:
            if self._session is not None:
                self._listening.callback(self._session.subscribe(self.on_event))
            else:
                self._listening.enter_context(watching(self.on_event))
            if self.tick_s:
                self._ticker = threading.Thread(target=self._tick, name="compile-explorer-progress", daemon=True)
                self._ticker.start()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2.0)
            self._ticker = None
        self._listening.close()
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
        except Exception:  # noqa: BLE001 - the front end is gone: the caller shows the view another way
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

    def on_event(self, event: RawEvent) -> None:
        """A subscriber of the recorder: one trace record, live (a failure here is the capture's Problem)."""
        stage = STAGE_OF_EVENT.get(event.name.removeprefix("artifact:"))
        if stage is None:
            return
        if event.compile_id is not None:
            self.frame = event.compile_id.trace_key
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
            except Exception:  # noqa: BLE001 - a status line must never break the compile
                self._handle = None  # the front end is gone: stop updating; finish() then shows the view anew


def _display(obj: Any) -> Any:
    try:
        from IPython.display import display

        return display(obj, display_id=True)
    except Exception:  # noqa: BLE001 - no front end (or IPython missing): no status line
        return None
