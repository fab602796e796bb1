"""Big texts packed for the front end: each line as its template (the line with its numbers taken out) and its
numbers, each number written as its difference from the same number of the template's previous line.

A model of 80 alike layers prints every stage 80 times over with other numbers (``buf1234``, ``primals_57``,
``op812``, ``mul_45``). gzip, which packs the page and the widget's messages, sees none of that: it looks back
32 KB, less than one layer's lines. Packed, a text is a few hundred templates and rows of small differences
that repeat layer after layer, and gzips about five times smaller (the loop-level IR of a 16-layer training
step: 66 KB gzipped, 10 KB packed and gzipped). The front end unpacks a text when a pane first shows it
(``frontend/src/packed.js``); ``unpack`` in ``tests/frontend_side.py`` is its twin, for tests.

Packed form: ``{"$lines": {"t": [template, ...], "l": "ROW\\nROW..."}}``, a ROW per line: the template's index,
then its numbers' differences, separated by spaces. A template holds ``MARK`` where a number was; a number is
at most 9 digits and has no leading zero (``007`` is three numbers, ``0``, ``0``, ``7``), so every line comes
back exactly as it was.
"""

from __future__ import annotations

import re
from operator import sub
from typing import Any, Optional

MARK = "\x00"  # where a template had a number (a text holding it stays as it is)
PACK_OVER = 32 * 1024  # shorter texts gain little from packing
KEY = "$lines"
_NUMBER = re.compile(r"(0|[1-9]\d{0,8})")


def pack(text: str) -> Optional[dict]:
    """``text`` packed, or None when it is short, holds ``MARK``, or its lines are too unlike to gain."""
    if len(text) < PACK_OVER or MARK in text:
        return None
    packed = pack_lines(text)
    if len(packed[KEY]["t"]) * 4 > packed[KEY]["l"].count("\n") + 1:
        return None
    return packed


def pack_lines(text: str) -> dict:
    """``text`` packed, whatever it holds (but ``MARK``)."""
    templates: dict[str, int] = {}
    last: dict[int, list[int]] = {}
    rows = []
    split, join = _NUMBER.split, MARK.join
    for line in text.split("\n"):
        parts = split(line)
        if len(parts) == 1:
            tid = templates.get(line)
            rows.append(str(templates.setdefault(line, len(templates)) if tid is None else tid))
            continue
        digits = parts[1::2]
        template = join(parts[0::2])
        tid = templates.get(template)
        if tid is None:
            tid = templates[template] = len(templates)
        nums = list(map(int, digits))
        prev = last.get(tid)
        last[tid] = nums
        rows.append(f"{tid} {' '.join(digits if prev is None else map(str, map(sub, nums, prev)))}")
    return {KEY: {"t": list(templates), "l": "\n".join(rows)}}


def pack_texts(doc: Any, total_over: int = 0) -> Any:
    """``doc`` (the payload's JSON-ready report, or ``build_rest``'s) with every long string packed, in place;
    ``total_over``: only when its long strings add up to more than that (a live widget's messages: under it the
    kernel sends the texts faster than Python packs them)."""
    found: list[tuple[Any, Any, str]] = []
    _long_texts(doc, found)
    if sum(len(text) for _, _, text in found) <= total_over:
        return doc
    for holder, key, text in found:
        holder[key] = pack(text) or text
    return doc


def _long_texts(doc: Any, found: list[tuple[Any, Any, str]]) -> None:
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        if isinstance(v, str):
            if len(v) >= PACK_OVER:
                found.append((doc, k, v))
        elif isinstance(v, (dict, list)):
            _long_texts(v, found)
