"""The capture context: listeners and config on, user code runs, everything undone.

Instrumentation never changes what the user's code does: exceptions pass
through untouched, every listener and config value is restored in ``finally``,
and if turning events into data fails, the report says so instead of raising.
"""

from __future__ import annotations

import contextlib
import platform
import time
import traceback
from typing import Optional

from . import torch_compat
from .assemble import assemble
from .model import CaptureData
from .recorder import Recorder


class CaptureSession:
    """Use as a context manager; ``data`` is filled in when the block ends."""

    def __init__(self) -> None:
        self.data: Optional[CaptureData] = None
        self.notes: list[str] = []
        self._recorder = Recorder()
        self._stack = contextlib.ExitStack()
        self._t0 = 0.0

    def __enter__(self) -> "CaptureSession":
        self._t0 = time.perf_counter()
        try:
            self._stack.enter_context(torch_compat.capture_config(self.notes))
            self._recorder.open()
        except BaseException:
            self._recorder.close()
            self._stack.close()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        wall = time.perf_counter() - self._t0
        try:
            self._recorder.close()
        finally:
            self._stack.close()
        error = None
        if exc_type is not None:
            error = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
        self.data = self._assemble(wall, error)
        return False  # never swallow the user's exception

    def _assemble(self, wall: float, error: Optional[str]) -> CaptureData:
        kwargs = dict(torch_version=torch_compat.torch_version(), device=torch_compat.describe_devices,
                      python_version=platform.python_version(), wall_time_s=wall, error=error)
        try:
            return assemble(self._recorder, notes=self.notes, **kwargs)
        except Exception as e:  # noqa: BLE001 - a bug here must not cost the user their result
            note = f"the explorer could not read what torch emitted ({type(e).__name__}: {e}); " \
                   f"please report this with the traceback:\n{traceback.format_exc()}"
            return CaptureData(notes=tuple(self.notes) + (note,), **{**kwargs, "device": torch_compat.default_device()})
        finally:
            self._recorder = Recorder()  # drop code objects and raw payloads
