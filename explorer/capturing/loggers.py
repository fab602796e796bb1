"""Listening to one of torch's loggers at DEBUG for the length of a capture, and putting it back.

One place for what the recorder and the GPU watch both do: add a handler, lower the level
only if the logger would drop DEBUG records, and keep the records off the user's stderr when
the user did not ask torch for them. The returned undo restores handler, level and propagation.
"""

from __future__ import annotations

import logging
from typing import Callable


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
