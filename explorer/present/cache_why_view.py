"""Why a graph cache missed: the lines under a compilation's "From where" strip (which says what a hit saved).

Each miss says which components of its key differ from the last lookup of the same lines (``CacheLookup.why``,
compared by ``capturing.cache_keys``): the graph's code with a short diff of its text, a config value with its old
and new value, an input's dtype, shape or device at the frame's line, torch's version, the user's cache key tag, a
system difference; or that there was nothing to compare with.
"""

from __future__ import annotations

import time
from typing import Optional

from ..capturing.model import CacheLookup, Compilation, KeyChange, KeyComparison
from ..clinic.slow import changes_said
from ..stages import CACHE_NAMES
from .blocks import Block, Item, Runs
from .fmt import loc_text, origin_of

AGAINST = {"stored": "against the last capture of these lines", "none": "", "unknown": ""}
MAX_SAID = 3  # changes named in the line itself; the rest in its body


def why_blocks(comp: Compilation) -> list[Block]:
    """One item per graph cache miss of the compilation that was compared (what a hit saved is in the strip above:
    ``usage_view.from_where``)."""
    items = [item for item in (_miss(c, comp.compile_id) for c in comp.caches) if item is not None]
    return [{"t": "list", "cls": "cx-cache-why", "items": items}] if items else []


def _head(c: CacheLookup, what: str) -> str:
    kind = f" [{c.graph_kind}]" if c.graph_kind else ""
    return f"{CACHE_NAMES.get(c.cache, c.cache)} {what}{kind}"


def _miss(c: CacheLookup, cid: str) -> Optional[Item]:
    why = c.why
    if c.outcome != "miss" or why is None:
        return None
    head = _head(c, "missed")
    against = against_words(why, cid)
    said = changes_said(why, MAX_SAID)
    line = said or why.note
    one = why.changes[0] if len(why.changes) == 1 and not why.changes[0].diff else None
    if one is not None and one.filename:
        line += f" at {loc_text(one.filename, one.lineno)}"
    if said and why.note:
        line += f". {why.note}"
    lead = f"{head}{' ' + against if against else ''}: "
    runs: list[Runs] = [{"b": lead}, line]
    text = [lead + line]
    body: list[Block] = []
    if one is None and why.changes:
        body = [{"t": "list", "items": [_change(ch) for ch in why.changes]}]
        text += [f"  {t}" for ch in why.changes for t in _change_text(ch)]
        if why.more:
            more = f"{why.more} more components differ"
            body.append({"t": "p", "cls": "cx-muted", "r": more})
            text.append(f"  {more}")
    item: Item = {"r": runs, "text": text}
    if body:
        item["body"] = body
    loc = next((ch for ch in why.changes if ch.filename), None)
    if loc is not None:
        item["origin"] = origin_of(loc.filename, loc.lineno)
    return item


def against_words(why: KeyComparison, cid: str) -> str:
    """What the key was compared with: the last capture of these lines (when it ran), an earlier compile in this
    capture or trace (a recompile: the compile before it)."""
    if why.against == "earlier":
        return (f"against compile {why.compile_id}" if why.compile_id and why.compile_id != cid
                else "against an earlier lookup of these lines")
    if why.against == "stored" and why.at:
        return f"{AGAINST['stored']} ({time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(why.at))})"
    return AGAINST.get(why.against, "")


def _change(ch: KeyChange) -> Item:
    runs: list[Runs] = [ch.words]
    if ch.filename:
        runs += [{"muted": " at "}, {"code": loc_text(ch.filename, ch.lineno), "origin": origin_of(ch.filename,
                                                                                                  ch.lineno)}]
    item: Item = {"r": runs, "text": _change_text(ch)}
    if ch.diff:
        lines: list[Runs] = []
        for line in ch.diff.split("\n"):
            lines += [{"code": line}, {"br": True}]
        item["body"] = [{"t": "p", "cls": "cx-cache-diff", "r": lines}]
    return item


def _change_text(ch: KeyChange) -> list[str]:
    where = f" at {loc_text(ch.filename, ch.lineno)}" if ch.filename else ""
    return [ch.words + where] + [f"    {line}" for line in ch.diff.split("\n") if ch.diff]
