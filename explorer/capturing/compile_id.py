"""Dynamo's compile id as a value: frame, compile of that frame, restart attempt.

torch names every compilation ``<frame id>/<frame compile id>`` and, after
Dynamo restarted its analysis of the frame, ``_<attempt>``; its log lines
print it in brackets (``[0/1]``, ``[1/0_1]``). The report keeps the key
without brackets (``"0/1"``, what ``torch._guards.CompileId.from_string``
reads); ``str()`` prints it as torch's logs do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_KEY_RE = re.compile(r"^\[?(?P<frame>\d+)/(?P<compile>\d+)(?:_(?P<attempt>\d+))?\]?$")


@dataclass(frozen=True, order=True)
class CompileId:
    frame_id: int
    frame_compile_id: int
    attempt: int = 0

    @classmethod
    def parse(cls, text: str) -> Optional[CompileId]:
        """``"0/1"``, ``"[0/1]"`` or ``"1/0_2"``; None for anything else."""
        m = _KEY_RE.match(text.strip()) if isinstance(text, str) else None
        if m is None:
            return None
        return cls(int(m["frame"]), int(m["compile"]), int(m["attempt"] or 0))

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

    @property
    def compilation(self) -> CompileId:
        """The id of the compilation this attempt belongs to (attempt 0): restarts fold into one."""
        return self if not self.attempt else CompileId(self.frame_id, self.frame_compile_id)

    @property
    def key(self) -> str:
        """The compilation's key in the report: frame and compile, without the attempt."""
        return f"{self.frame_id}/{self.frame_compile_id}"

    @property
    def trace_key(self) -> str:
        """As torch's ``TraceId`` prints it: the attempt only when Dynamo restarted."""
        return self.key if not self.attempt else f"{self.key}_{self.attempt}"

    def __str__(self) -> str:
        return f"[{self.trace_key}]"


def sort_key(key: str) -> tuple[int, int, int]:
    """Orders compile-id keys numerically (``"10/0"`` after ``"9/3"``); unparseable ones last."""
    cid = CompileId.parse(key)
    return (cid.frame_id, cid.frame_compile_id, cid.attempt) if cid else (1 << 30, 0, 0)
