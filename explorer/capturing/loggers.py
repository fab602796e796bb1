"""Listening to one of torch's loggers at DEBUG for the length of a capture, and putting it back.

One place for what the recorder and the GPU watch both do: add a handler, lower the level
only if the logger would drop DEBUG records, and keep the records off the user's stderr when
the user did not ask torch for them. The returned undo restores handler, level and propagation.
"""

from __future__ import annotations

import logging
from typing import Callable


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
