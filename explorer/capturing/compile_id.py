"""Dynamo's compile id as a value: frame, compile of that frame, restart attempt, and generation.

torch names every compilation ``<frame id>/<frame compile id>`` and, after
Dynamo restarted its analysis of the frame, ``_<attempt>``; its log lines
print it in brackets (``[0/1]``, ``[1/0_1]``). ``torch._dynamo.reset()`` (and
``torch.compiler.reset()``) starts the numbering again at ``0/0``, so one run
can hold two different compilations named ``0/0``. The explorer keeps torch's
id and adds a generation: how many resets came before the compilation within
one capture (``Generations``). Generation 0 prints as torch prints (``[0/1]``,
key ``"0/1"``, what ``torch._guards.CompileId.from_string`` reads); a later one
leads with it: ``[g1 0/0]``, key ``"g1 0/0"``.

The key is the one form a compilation is named by in the report and its JSON
(``CompileKey``; the schema names its pattern, ``KEY_PATTERN``): never the attempt
(a restart folds into its compilation; a record that names one says so beside the
key), and for a lowering no Dynamo compile id names, ``aoti/N`` or ``inductor/N``
(``outside.py``). Only this module reads a key or torch's printed id back into
its parts: above the capture, code holds ``Compilation.cid`` or compares keys.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import NewType, Optional

# torch's own form (``0/1``, ``1/0_2``), as its log lines and recompile reasons print it: for patterns of others
TORCH_ID = r"\d+/\d+(?:_\d+)?"
# the report's key of a compilation: a Dynamo compile id (generation after a reset), or a lowering outside Dynamo
KEY_PATTERN = r"^(?:g[0-9]+ )?[0-9]+/[0-9]+$|^(?:aoti|inductor)/[0-9]+$"
CompileKey = NewType("CompileKey", str)  # a str of KEY_PATTERN: what the report's compile_id fields hold
_KEY_RE = re.compile(r"^\[?(?:g(?P<gen>\d+) )?(?P<frame>\d+)/(?P<compile>\d+)(?:_(?P<attempt>\d+))?\]?$")


@functools.total_ordering
@dataclass(frozen=True)
class CompileId:
    frame_id: int
    frame_compile_id: int
    attempt: int = 0
    generation: int = 0  # torch._dynamo.reset() calls before this compilation, within one capture

    @classmethod
    def parse(cls, text: str) -> Optional[CompileId]:
        """``"0/1"``, ``"[0/1]"``, ``"1/0_2"`` or ``"g1 0/0"``; None for anything else."""
        return _parsed(text) if isinstance(text, str) else None

    @classmethod
    def from_torch(cls, text: str, generation: int = 0) -> Optional[CompileId]:
        """An id as torch prints it in its own text (a recompile reason's cached entry, ``[0/1_2]``), which names no
        generation: in ``generation``, the one of the compilation whose text it is. None for anything else."""
        cid = cls.parse(text)
        return cid.in_generation(generation) if cid is not None else None

    @classmethod
    def of_metadata(cls, metadata: dict) -> Optional[CompileId]:
        """From a structured-trace record's envelope (``frame_id``, ``frame_compile_id``, ``attempt``)."""
        frame = metadata.get("frame_id")
        if not isinstance(frame, int):
            return None
        compile_no = metadata.get("frame_compile_id")
        attempt = metadata.get("attempt")
        return cls(frame, compile_no if isinstance(compile_no, int) else 0,
                   attempt if isinstance(attempt, int) else 0)

    @classmethod
    def key_of(cls, text: str) -> str:
        """Any printed form of an id (``[0/1_2]``, ``g1 0/0``) as the report's key (``0/1``, ``g1 0/0``);
        text that is no compile id (``aoti/0``, an outside-Dynamo name) unchanged."""
        cid = cls.parse(text)
        return cid.key if cid is not None else text

    def in_generation(self, generation: int) -> CompileId:
        """This id as torch printed it inside a compilation of ``generation`` (torch's text has none)."""
        return self if self.generation == generation else replace(self, generation=generation)

    def same_frame(self, other: CompileId) -> bool:
        """Both compile the same frame (torch's frame id, in the same generation)."""
        return (self.generation, self.frame_id) == (other.generation, other.frame_id)

    def _order(self) -> tuple[int, int, int, int]:
        return (self.generation, self.frame_id, self.frame_compile_id, self.attempt)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, CompileId):
            return NotImplemented
        return self._order() < other._order()

    @property
    def compilation(self) -> CompileId:
        """The id of the compilation this attempt belongs to (attempt 0): restarts fold into one."""
        return self if not self.attempt else replace(self, attempt=0)

    @property
    def torch_key(self) -> str:
        """Frame and compile as torch prints them, without the generation."""
        return f"{self.frame_id}/{self.frame_compile_id}"

    @property
    def key(self) -> str:
        """The compilation's key in the report: generation (after a reset), frame and compile, no attempt."""
        return f"g{self.generation} {self.torch_key}" if self.generation else self.torch_key

    @property
    def trace_key(self) -> str:
        """As torch's ``TraceId`` prints it (the attempt only when Dynamo restarted), after the generation."""
        return self.key if not self.attempt else f"{self.key}_{self.attempt}"

    def __str__(self) -> str:
        return f"[{self.trace_key}]"


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> Optional[CompileId]:
    """A report names a few hundred compilations many times over: each key is read once."""
    m = _KEY_RE.match(text.strip())
    if m is None:
        return None
    return CompileId(int(m["frame"]), int(m["compile"]), int(m["attempt"] or 0), int(m["gen"] or 0))


@dataclass
class Generations:
    """Numbers the compilations of one capture across ``torch._dynamo.reset()``.

    A reset is noticed at the next compilation's start record: either Dynamo's
    callback registry was emptied (``torch_door.dynamo.CompileCallbacks.reset_seen``,
    what a reset does) or the start names an id this generation already had
    (torch's counters start again at 0: what a recorded trace shows). Only a
    generation that holds compilations is closed, so a reset before the first
    compile of a capture changes no id.
    """

    current: int = 0
    _started: set[tuple[int, int, int]] = field(default_factory=set)

    def start(self, cid: CompileId, reset_seen: bool = False) -> None:
        """A compilation (or a restart attempt) begins: ``dynamo_start``."""
        key = (cid.frame_id, cid.frame_compile_id, cid.attempt)
        if self._started and (reset_seen or key in self._started):
            self.current += 1
            self._started.clear()
        self._started.add(key)

    def stamp(self, cid: Optional[CompileId]) -> Optional[CompileId]:
        """``cid`` in the current generation."""
        return cid if cid is None or not self.current else replace(cid, generation=self.current)
