"""What the recorder does to torch's loggers, each returning its undo.

* ``listen_at_debug``/``tap``: listen to a logger at DEBUG for the length of a capture: add a
  handler, lower the level only if the logger would drop DEBUG records, and keep the records off
  the user's stderr when the user did not ask torch for them;
* ``CallFilter``: a logger filter that asks a function (a cell's claim on a logger's records);
* ``divert_warnings``: torch's warnings while it compiles for a cell, kept off stderr.
"""

from __future__ import annotations

import logging
from typing import Any, Callable


def tap(logger: logging.Logger, on_record: Callable[[logging.LogRecord], None], level: int) -> Callable[[], None]:
    """``on_record`` sees the logger's records from ``level`` up; its own handlers see only what they saw before.

    For a logger torch gave a stderr handler of its own (``torch._logging`` registers some module
    loggers that way), where ``listen_at_debug``'s propagation switch would not keep the records
    off the user's stderr: a filter on the logger takes each record and lets it on to the handlers
    only if the logger was already enabled for it. The returned undo restores filter and level.
    """
    old_level = logger.level
    wanted = logger.isEnabledFor(level)

    class _Tap(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            on_record(record)
            return wanted

    tap_filter = _Tap()
    logger.addFilter(tap_filter)
    if not wanted:
        logger.setLevel(level)

    def undo() -> None:
        logger.removeFilter(tap_filter)
        logger.setLevel(old_level)

    return undo


def listen_at_debug(logger: logging.Logger, handler: logging.Handler) -> Callable[[], None]:
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    if not logger.isEnabledFor(logging.DEBUG):
        logger.setLevel(logging.DEBUG)
    if not old_propagate or old_level > logging.DEBUG or old_level == logging.NOTSET:
        # nobody asked torch for these records: keep the DEBUG lines off the user's stderr
        logger.propagate = False

    def undo() -> None:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate

    return undo


class CallFilter(logging.Filter):
    def __init__(self, fn: Callable[[logging.LogRecord], bool]) -> None:
        super().__init__()
        self.fn = fn

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fn(record)


def divert_warnings(compiling: Callable[[], bool], into: list[str]) -> Callable[[], None]:
    """Warnings Dynamo and Inductor give while ``compiling()`` go to ``into``, not to stderr.

    A plain run of a cell compiles nothing, so it prints none of them ("Dynamo does
    not know how to trace the builtin ...", "Profiler record function ... will be
    ignored"): Python warnings, and WARNING records of torch's loggers, which torch
    writes through its own stderr handlers. Everything else (the cell's own warnings,
    torch's records outside a compile) is shown as usual.
    """
    import warnings

    shown = warnings.showwarning

    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        if compiling():
            text = str(message).strip().splitlines()
            into.append(f"{category.__name__}: {text[0] if text else ''}")
            return
        shown(message, category, filename, lineno, file, line)

    def keep(record: logging.LogRecord) -> bool:
        if compiling() and record.levelno == logging.WARNING:
            text = record.getMessage().strip().splitlines()
            into.append(text[0] if text else record.name)
            return False
        return True

    handlers = {h for name, lg in list(logging.root.manager.loggerDict.items())
                if isinstance(lg, logging.Logger) and (name == "torch" or name.startswith("torch."))
                for h in lg.handlers}
    filt = CallFilter(keep)
    for h in handlers:
        h.addFilter(filt)
    warnings.showwarning = show

    def undo() -> None:
        if warnings.showwarning is show:  # someone else may have replaced it meanwhile: theirs stays
            warnings.showwarning = shown
        for h in handlers:
            h.removeFilter(filt)

    return undo
