"""AOTAutograd's side: torch's repro scripts of a graph as Inductor received it, and their inputs.

Subsystem: ``torch._dynamo.repro.after_aot`` (``save_graph_repro``, the ``fx_graph_runnable`` form) and
``torch._dynamo.debug_utils.InputReader``. The functorch config a capture sets (the backward lowered eagerly, the
AOTAutograd cache) is in ``config``. Version differences: a repro names its size symbols
(``reader.symint(8, expr='s77')``) from 2.13 on, as numbers before (read by ``explorer.preview.fake_inputs``).
AOTAutograd's cache writes its key's components into its cache records (``cache_info["components"]``) always in
2.11, from 2.12 only while its module's logger is at DEBUG (``_get_debug_lines_for_cache_key``).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Callable


def graph_repro(gm: Any, inputs: Any) -> str:
    """The self-contained script torch writes for a graph and its inputs (``fx_graph_runnable``'s form)."""
    import io

    from torch._dynamo.repro.after_aot import save_graph_repro

    fd = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save_graph_repro(fd, gm, list(inputs), "inductor", save_dir=None)
    return fd.getvalue()


def repro_inputs(load_args: Callable[[Any], None]) -> list[Any]:
    """Inputs a repro's ``load_args(reader)`` describes: right shapes, strides, dtypes, devices,
    random values (torch's reader without a save directory), without its "random data" warnings."""
    from torch._dynamo.debug_utils import InputReader

    quiet = logging.Filter("no such logger")  # rejects every record of the reader's logger
    reader_log = logging.getLogger("torch._dynamo.debug_utils")
    reader_log.addFilter(quiet)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = InputReader(save_dir=None)
            load_args(reader)
            return list(reader.args)
    finally:
        reader_log.removeFilter(quiet)


AOT_CACHE_LOGGER = "torch._functorch._aot_autograd.autograd_cache"  # the module's logging.getLogger(__name__)


class _AtOrAbove(logging.Filter):
    """Lets through only the records the logger let through before: what the capture turns on is never emitted."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= self.level


def cache_components_on() -> Callable[[], None]:
    """Makes AOTAutograd's cache write its key's components (what a miss is compared with: ``cache_keys``) while
    the capture runs; returns the undo. Its logger is set to DEBUG, which is what torch asks before computing them,
    and a filter on that logger drops every record below the level it had, so nothing more reaches any handler (a
    filter on the logger itself also stops propagation). Where the logger already emits DEBUG (the user's own
    ``TORCH_LOGS``) nothing is changed."""
    log = logging.getLogger(AOT_CACHE_LOGGER)
    if log.isEnabledFor(logging.DEBUG):
        return lambda: None
    level, effective = log.level, log.getEffectiveLevel()
    only = _AtOrAbove(effective)
    log.addFilter(only)
    log.setLevel(logging.DEBUG)

    def undo() -> None:
        log.setLevel(level)
        log.removeFilter(only)

    return undo
