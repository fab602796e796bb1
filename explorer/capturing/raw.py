"""What the recorder keeps while user code runs: raw records, before any decoding.

Kept raw (plain dicts and strings, plus the bytecode hook's code objects) so
that recording costs the compile almost nothing and cannot fail on an odd
record: decoding happens once, after the block, in ``assemble``. A
``RawCapture`` can also be filled from a file of recorded records (the tests
replay torch's traces that way, without torch).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from .compile_id import CompileId
from .model import OtherArtifact, Problem

WHERE = "_where"  # a record read from a log file: "file:line" (``trace_file``), for problems to name
# keys of a structured-trace record that are envelope, not the event's name
ENVELOPE = frozenset({"frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id",
                      "stack", "severity", "timestamp", "pathname", "thread", "subgraph_name", WHERE})
NO_NAME = "<unnamed record>"


@dataclass(frozen=True)
class RawEvent:
    """One record as it arrived: what subscribers see live and decoders read afterwards.

    ``name`` is the trace event's key (``dynamo_output_graph``), ``artifact:<name>``
    for torch's named artifacts, or the kind of a non-trace source (``ir_pre_fusion``,
    ``ir_post_fusion``, ``bytecode_log``, ``bytecode_hook``). ``payload`` is the
    record's text; for ``bytecode_hook`` it is the pair (original, rewritten) of code objects, for
    ``traced_code`` the tuple of code objects Dynamo traced into a graph (the frame's first).
    """

    seq: int
    name: str
    compile_id: Optional[CompileId]
    metadata: dict
    payload: Any = None

    @property
    def size(self) -> int:
        """Characters of text payload (what an OtherArtifact row counts)."""
        return len(self.payload) if isinstance(self.payload, str) else 0


def event_name(metadata: dict) -> str:
    """The event's key in a trace record's metadata (torch puts it first), artifacts by their name."""
    for key, value in metadata.items():
        if key in ENVELOPE:
            continue
        if key == "artifact" and isinstance(value, dict):
            return f"artifact:{value.get('name')}"
        return key
    return NO_NAME


def describe_error(error: BaseException, where: bool = True) -> str:
    """``Type: message``, and where it was raised (a bug, or a torch change, is then one line to report)."""
    text = f"{type(error).__name__}: {error}"
    if not where or error.__traceback__ is None:
        return text
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return f"{text} (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name})"


@dataclass
class Tally:
    """Records counted instead of kept (noise, or ones nobody decodes): one OtherArtifact row each."""

    rows: dict[tuple[str, Optional[str]], list[Any]] = field(default_factory=dict)

    def add(self, name: str, compile_id: Optional[CompileId], size: int, why: str) -> None:
        key = (name, compile_id.key if compile_id else None)
        row = self.rows.get(key)
        if row is None:
            self.rows[key] = [1, size, why]
        else:
            row[0] += 1
            row[1] += size

    def artifacts(self) -> list[OtherArtifact]:
        return [OtherArtifact(name, cid, count, size, why) for (name, cid), (count, size, why) in self.rows.items()]


@dataclass
class RawCapture:
    """Everything one capture recorded, in arrival order; ``assemble`` reads only this."""

    events: list[RawEvent] = field(default_factory=list)
    strings: dict[int, str] = field(default_factory=dict)  # the trace's interned file names
    dropped: Tally = field(default_factory=Tally)  # noise, counted at the door
    frame_caches: list[Any] = field(default_factory=list)  # (a compile id of the frame, its FrameCache): frame_cache
    _problems: dict[tuple[str, Optional[str], str], list[Any]] = field(default_factory=dict)

    def add_problem(self, problem: Problem) -> None:
        """The same failure on many records (one bug, every chromium event) is one Problem with a count."""
        key = (problem.where, problem.event, problem.message.split("\n", 1)[0])
        if key in self._problems:
            self._problems[key][1] += 1
        else:
            self._problems[key] = [problem, 1]

    @property
    def problems(self) -> list[Problem]:
        """What went wrong while recording, each once, saying how often it happened."""
        return [p if n == 1 else replace(p, message=f"{p.message}\n(the same happened {n - 1} more times)")
                for p, n in self._problems.values()]


class DecodeError(ValueError):
    """A record whose content is not what its decoder knows torch to write."""
