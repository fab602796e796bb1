"""The explorer's stage store: what an FX graph cache hit skips, kept from the capture that lowered the graph.

The default capture leaves torch's graph caches on, as a plain run has them. Three of the values it sets are part of
their keys (``torch_door.config.CAPTURE_CONFIG``), so an entry a capture hits was written by a capture, never by a plain
run. On a hit torch writes the AOT graphs, the post-grad graph, the output code and its provenance again from the
entry, but not what exists only while a graph is lowered: the loop-level IR and the runtime estimates
(``torch_door.inductor.FX_HIT_SKIPS``). So when a capture lowers a graph (an FX graph cache miss), those records are
kept here, one file per lowering, named by the sha256 of the output code it made; when a later capture's hit brings
that output code back, they are put back among its records, just before the hit's own, as if torch had written
them, with an ``explorer_stage_store`` record saying so. Where the store has none (an entry written outside a
capture, a store cleared or trimmed), that record says which records are missing and why.

Keyed by the output code, not by the FX graph cache key alone: one key can hold several lowerings (one per set of
shape guards), and the output code torch brings back names the one it served. The folder is inside Inductor's
cache (``torch_door.inductor.stage_store_dir``): clearing that cache clears both. Files are written after the capture,
whole (a temporary file renamed), and the oldest go when the folder passes ``LIMIT_BYTES``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
import time
from typing import Any, Optional

from . import torch_door
from .decode_usage import STORE_EVENT
from .raw import ENVELOPE, RawCapture, RawEvent, describe_error

FORMAT = 1
LIMIT_BYTES = 512 * 2**20  # the store's folder at most; trimmed to 3/4 of it, oldest first
NO_ENTRY = ("the explorer's stage store holds no records of this lowering: the cache entry was written outside a "
            "capture (a plain run with the capture's settings, or another machine's remote cache), or by a capture "
            "whose store was cleared or trimmed since")
NO_CODE = "torch wrote no output code for this hit, so the store cannot tell which lowering it served"


class StageStore:
    """One folder of JSON files, one per lowering, by the sha256 of its output code."""

    def __init__(self, folder: str, limit_bytes: int = LIMIT_BYTES) -> None:
        self.folder = folder
        self.limit_bytes = limit_bytes

    def path(self, code_sha: str) -> str:
        return os.path.join(self.folder, f"{code_sha}.json")

    def get(self, code_sha: str) -> Optional[dict]:
        """The stored lowering, None where there is none; its file is touched (the trim keeps what is used).
        Raises OSError or ValueError for a file that cannot be read."""
        path = self.path(code_sha)
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
        except FileNotFoundError:
            return None
        if not self.well_formed(entry):
            raise ValueError(f"{path} is not a {self.kind} entry of format {FORMAT}")
        try:
            os.utime(path)
        except OSError:
            pass  # read-only store: still served, only the trim's order is older
        return entry

    kind = "stage store"

    def well_formed(self, entry: Any) -> bool:
        """An entry this version wrote (a reader of another format sees none)."""
        return _well_formed(entry)

    def put(self, code_sha: str, entry: dict) -> None:
        """Written whole or not at all (a temporary file renamed): a reader never sees half of it."""
        os.makedirs(self.folder, exist_ok=True)
        tmp = os.path.join(self.folder, f".{code_sha}.{os.getpid()}.{threading.get_ident()}.tmp")  # as umask allows
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(entry, fh)
            os.replace(tmp, self.path(code_sha))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def trim(self) -> int:
        """Removes the least recently used files while the folder is over its limit, down to 3/4 of it; how many."""
        files = []
        for entry in os.scandir(self.folder):
            if entry.name.endswith(".json") and entry.is_file():
                st = entry.stat()
                files.append((st.st_mtime, st.st_size, entry.path))
        total = sum(size for _, size, _ in files)
        if total <= self.limit_bytes:
            return 0
        removed = 0
        for _, size, path in sorted(files):
            if total <= self.limit_bytes * 3 // 4:
                break
            try:
                os.unlink(path)
            except OSError:
                continue
            total -= size
            removed += 1
        return removed


def _well_formed(entry: Any) -> bool:
    """An entry this version wrote: its records are (name, metadata, text) as ``_keep`` writes them."""
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or not isinstance(entry.get("events"), list):
        return False
    return all(isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("payload"), str)
               and isinstance(e.get("metadata"), dict) for e in entry["events"])


def default_store() -> StageStore:
    return StageStore(torch_door.inductor.stage_store_dir())


@dataclasses.dataclass
class _Span:
    """One lowering's records, from its post-grad graph to its FX graph cache record."""

    events: list[RawEvent] = dataclasses.field(default_factory=list)


def put_back(raw: RawCapture, store: Optional[StageStore], notes: list[str]) -> RawCapture:
    """``raw`` with each FX graph cache hit's skipped records put back from the store (or a record saying why not),
    and each lowering's records stored for the hits of later captures: a miss's, and, with the graph caches off (a
    fresh capture), each lowering's (none of its records names the cache). Never raises: a store that cannot be
    read or written is a note, and the hits it could not serve say so."""
    spans: dict[Any, _Span] = {}
    lowered: dict[str, dict] = {}  # this capture's lowerings, by output code: a later hit in it reads them here
    out: list[RawEvent] = []
    for ev in raw.events:
        outcome = torch_door.inductor.FX_CACHE_OUTCOMES.get(ev.name)
        if ev.name in torch_door.inductor.FX_LOWERING_STARTS:
            _keep(spans.pop(ev.compile_id, None), None, lowered)  # ended without a cache record: caches off
            spans[ev.compile_id] = _Span()
        if outcome is None:
            span = spans.get(ev.compile_id)
            if span is not None:
                span.events.append(ev)
            out.append(ev)
            continue
        span = spans.pop(ev.compile_id, None)
        if outcome == "miss":
            _keep(span, _key_of(ev), lowered)
        elif outcome == "hit":
            out += _served(ev, span or _Span(), store, lowered)
        out.append(ev)  # a bypass: torch will lower that graph again, nothing to keep
    for span in spans.values():
        _keep(span, None, lowered)
    if lowered and store is not None:
        _save(store, lowered, notes)
    return dataclasses.replace(raw, events=out)


def _code_sha(span: _Span) -> Optional[str]:
    codes = [e.payload for e in span.events
             if e.name == torch_door.inductor.OUTPUT_CODE_RECORD and isinstance(e.payload, str)]
    return hashlib.sha256("\0".join(codes).encode()).hexdigest() if codes else None


def _keep(span: Optional[_Span], key: Optional[str], lowered: dict[str, dict]) -> None:
    if span is None:
        return
    sha = _code_sha(span)
    events = [{"name": e.name, "metadata": {k: v for k, v in e.metadata.items() if k not in ENVELOPE},
               "payload": e.payload} for e in span.events
              if e.name in torch_door.inductor.FX_HIT_SKIPS and isinstance(e.payload, str)]
    if sha is not None and events:
        lowered[sha] = {"format": FORMAT, "fx_graph_key": key, "lowered_at": time.time(),
                        "torch": torch_door.version.torch_version(), "events": events}


def _served(hit: RawEvent, span: _Span, store: Optional[StageStore], lowered: dict[str, dict]) -> list[RawEvent]:
    """The records to put before ``hit``: what the store gives back that the hit did not write, and a record of it."""
    written = {e.name for e in span.events}
    sha = _code_sha(span)
    entry, detail = None, NO_CODE
    if sha is not None:
        detail = NO_ENTRY
        entry = lowered.get(sha)
        if entry is None and store is not None:
            try:
                entry = store.get(sha)
            except (OSError, ValueError) as e:
                detail = f"the explorer's stage store could not be read ({describe_error(e, where=False)})"
    if entry is None:
        lacking = [r for r in torch_door.inductor.FX_HIT_ALWAYS if r not in written]
        return [_record(hit, {"outcome": "missing", "records": lacking, "detail": detail})] if lacking else []
    back = [RawEvent(hit.seq, e["name"], hit.compile_id, dict(e["metadata"]), e["payload"])
            for e in entry["events"] if e["name"] not in written]
    if not back:
        return []
    return back + [_record(hit, {"outcome": "replayed", "records": [e.name for e in back],
                                 "lowered_at": entry.get("lowered_at")})]


def _record(hit: RawEvent, fields: dict) -> RawEvent:
    return RawEvent(hit.seq, STORE_EVENT, hit.compile_id, {STORE_EVENT: dict(fields, key=_key_of(hit))})


def _key_of(ev: RawEvent) -> Optional[str]:
    """The FX graph cache key in a cache record's JSON payload (None where it names none)."""
    try:
        info = json.loads(ev.payload) if isinstance(ev.payload, str) else None
    except ValueError:
        return None
    key = info.get("key") if isinstance(info, dict) else None
    return str(key) if key else None


def _save(store: StageStore, lowered: dict[str, dict], notes: list[str]) -> None:
    try:
        for sha, entry in lowered.items():
            store.put(sha, entry)
        store.trim()
    except (OSError, TypeError, ValueError) as e:  # a full disk, a read-only cache, a record JSON cannot hold
        notes.append(f"the explorer's stage store ({store.folder}) could not be written ({describe_error(e, False)}): "
                     "a later capture that hits these graphs in torch's cache will not show their loop-level IR")
