"""What the front end does with a payload, in Python, for tests: read a packed text back (``unpack``, the twin
of ``packed.js``, which does it when a pane first shows one), read every packed text of a payload back, and put a
payload in a page's ``<script type="application/json">`` as the page does."""

from __future__ import annotations

from typing import Any

from explorer.present.packed_text import KEY, MARK
from explorer.present.payload import script_safe, to_json


def unpack(packed: dict) -> str:
    """The text ``pack`` packed."""
    body = packed[KEY]
    parts = [t.split(MARK) for t in body["t"]]
    last: dict[int, list[int]] = {}
    out = []
    for row in body["l"].split("\n"):
        fields = row.split(" ")
        tid = int(fields[0])
        pieces = parts[tid]
        if len(fields) == 1:
            out.append(pieces[0])
            continue
        prev = last.get(tid)
        nums = [int(d) + (prev[i] if prev is not None else 0) for i, d in enumerate(fields[1:])]
        last[tid] = nums
        out.append(pieces[0] + "".join(str(n) + p for n, p in zip(nums, pieces[1:])))
    return "\n".join(out)


def unpack_texts(doc: Any) -> Any:
    """``doc`` with every packed text unpacked, in place (what the front end sees once it has read them all)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if isinstance(v, dict) and KEY in v and len(v) == 1:
                doc[k] = unpack(v)
            elif isinstance(v, (dict, list)):
                unpack_texts(v)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            if isinstance(v, dict) and KEY in v and len(v) == 1:
                doc[i] = unpack(v)
            elif isinstance(v, (dict, list)):
                unpack_texts(v)
    return doc


def to_script_json(payload: dict) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<`` at all, so no ``</script>``."""
    return script_safe(to_json(payload))
