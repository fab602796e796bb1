"""torch's structured trace (``torch._logging``): the logger tlparse reads, its interned file names, the detailed trace.

Subsystem: ``torch._logging`` (``_internal.trace_log``, ``structured.INTERN_TABLE``, ``GET_DTRACE_STRUCTURED``).
The artifact loggers of each subsystem (Inductor's IR, Dynamo's bytecode) are named in that subsystem's module.
Version differences: none among 2.11-2.14 (``INTERN_TABLE`` and ``GET_DTRACE_STRUCTURED`` exist in all; a torch
without the detailed trace switch is said in the capture's notes).
"""

from __future__ import annotations

import logging
from typing import Any

TRACE_LOGGER = "torch.__trace"  # what tlparse reads; emits while it has handlers


def trace_logger() -> logging.Logger:
    return logging.getLogger(TRACE_LOGGER)


def interned_strings() -> dict[int, str]:
    """The file names the trace has interned so far in this process, by number. torch writes each one's ``str``
    record once per process, so a capture after another sees only the numbers (2.11-2.14: structured.INTERN_TABLE)."""
    from torch._logging import structured

    return {index: path for path, index in getattr(structured, "INTERN_TABLE", {}).items()}


def detailed_trace(notes: list[str]) -> list[tuple[Any, str, Any]]:
    """Turns on ``dtrace_structured`` (what ``TORCH_DTRACE`` turns on); returns what to restore."""
    try:
        from torch._logging import _internal
    except ImportError:
        notes.append("this torch has no detailed structured trace: the exported program is not shown")
        return []
    if not hasattr(_internal, "GET_DTRACE_STRUCTURED"):
        notes.append("this torch has no detailed structured trace switch: the exported program is not shown")
        return []
    old = _internal.GET_DTRACE_STRUCTURED
    _internal.GET_DTRACE_STRUCTURED = True
    return [(_internal, "GET_DTRACE_STRUCTURED", old)]
