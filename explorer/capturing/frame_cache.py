"""Each compiled frame's cache entries, read live: what Dynamo's frame evaluator tries on the frame's next call.

Dynamo keeps a frame's compilations on its code object (``co_extra``), one entry each: the guards, the code that
runs in the frame's place when they pass, the backend. The frame evaluator (C, installed through PEP 523) tries
them front to back on every call, and keeps the list most recently used first. That order, and whether an entry
is still there, is nowhere in torch's trace: it is read here from the code objects themselves
(``torch_door.dynamo_cache.cache_entry_facts``), as strings and numbers, while they still hold the entries: when the
capture ends, and when a cell ends, before the explorer drops the cell's entries (a cell ends as a plain run of it
would, which leaves no compiled code behind). A later reading of an emptied cache does not replace a fuller one.

The recorder notes each code object its bytecode hook sees (``saw``) with a compile id of that frame; ``attach``
gives each compilation of the frame the last reading.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Optional

from . import torch_door
from .compile_id import CompileId
from .model import CacheEntry, Compilation, FrameCache

READ_AT_END = "when the capture ended"
READ_BEFORE_DROP = ("when the cell ended, just before the explorer dropped the cell's entries (a cell ends as a "
                    "plain run of it would: with no compiled code left behind)")
Reading = tuple[CompileId, FrameCache]  # a compile id of the frame, and its cache as read


class FrameCaches:
    """The code objects Dynamo compiled during one capture, and the last reading of each one's cache."""

    def __init__(self) -> None:
        self._codes: dict[int, tuple[Any, CompileId]] = {}  # id(code) -> (code, a compile id of its frame)
        self._readings: dict[int, Reading] = {}

    def saw(self, code: Any, cid: Optional[CompileId]) -> None:
        """The bytecode hook's original code object of compilation ``cid``."""
        if cid is not None:
            self._codes[id(code)] = (code, cid)

    def read(self, read_at: str, generation: int) -> None:
        """Reads every code object's cache now; an empty cache does not replace an earlier reading."""
        limit = recompile_limit()
        for key, (code, cid) in self._codes.items():
            entries = tuple(CacheEntry(made.in_generation(generation).key if made is not None else None, name,
                                       backend)
                            for made, name, backend in torch_door.dynamo_cache.cache_entry_facts(code))
            if entries or key not in self._readings:
                self._readings[key] = (cid, FrameCache(entries, read_at, limit))

    def readings(self) -> list[Reading]:
        return list(self._readings.values())


def recompile_limit() -> Optional[int]:
    """``torch._dynamo.config.recompile_limit`` (None where this torch has no such option)."""
    try:
        value = torch_door.config.dynamo_config_value("recompile_limit")
    except AttributeError:
        return None
    return value if isinstance(value, int) else None


def attach(compilations: Iterable[Compilation], readings: Iterable[Reading]) -> list[Compilation]:
    """Each compilation with its frame's last cache reading (same frame: torch's frame id, in one generation)."""
    by_frame = {(cid.generation, cid.frame_id): cache for cid, cache in readings}
    out = []
    for comp in compilations:
        cid = comp.cid
        cache = by_frame.get((cid.generation, cid.frame_id)) if cid is not None and comp.origin == "dynamo" else None
        out.append(dataclasses.replace(comp, frame_cache=cache) if cache is not None else comp)
    return out
