"""``fullgraph=True`` failures read as graph breaks.

With ``fullgraph=True`` Dynamo raises ``torch._dynamo.exc.Unsupported`` where
it would otherwise have broken the graph. Its message carries the same title,
explanation, hints and gbXXXX link as the ``dynamo_graph_break_reason``
artifact, but the user frames follow ``from user code:`` instead of ``User code
traceback:``; once that header is renamed the break parser reads it as is.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

from ..capturing.model import CaptureData, GraphBreak
from ..capturing.parse_breaks import parse_graph_break

_FROM_USER = re.compile(r"^\s*from user code:\s*$", re.M)
_TAIL = re.compile(r"^\s*Set TORCHDYNAMO_VERBOSE=1.*$", re.M | re.S)


def explain_exception(exc: BaseException) -> Optional[GraphBreak]:
    """The graph break a Dynamo exception describes, or None for any other exception.

    Recognised by its text (a gbXXXX link or an ``Explanation:`` line plus user
    frames), so torch need not be imported and a chained exception is followed.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        brk = explain_message(str(exc))
        if brk is not None:
            return brk
        exc = exc.__cause__ or exc.__context__
    return None


def explain_message(text: str) -> Optional[GraphBreak]:
    if "Explanation:" not in text and "/gb/gb" not in text.lower():
        return None
    text = _TAIL.sub("", text)
    text = _FROM_USER.sub("User code traceback:", text, count=1)
    brk = parse_graph_break(text)
    return brk if brk.reason else None


def with_failure_break(data: CaptureData, brk: GraphBreak) -> CaptureData:
    """The failed compilation (the last one without a break) gets the break that failed it."""
    comps = list(data.compilations)
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].status == "failed" and comps[i].graph_break is None:
            comps[i] = dataclasses.replace(comps[i], graph_break=brk)
            return dataclasses.replace(data, compilations=tuple(comps))
    return data
