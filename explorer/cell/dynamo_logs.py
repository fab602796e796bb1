"""Dynamo's and Inductor's warnings while they compile for the cell: kept off stderr, as a plain run shows none."""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable, Iterator


@contextlib.contextmanager
def dynamo_warnings_diverted(compiling: Callable[[], bool], into: list[str]) -> Iterator[None]:
    """Warnings Dynamo and Inductor give while they compile for the cell become a finding, not stderr lines.

    A plain run of the cell compiles nothing, so it prints none of them ("Dynamo does
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
    try:
        yield
    finally:
        if warnings.showwarning is show:  # someone else may have replaced it meanwhile: theirs stays
            warnings.showwarning = shown
        for h in handlers:
            h.removeFilter(filt)


class CallFilter(logging.Filter):
    def __init__(self, fn: Callable[[logging.LogRecord], bool]) -> None:
        super().__init__()
        self.fn = fn

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fn(record)
