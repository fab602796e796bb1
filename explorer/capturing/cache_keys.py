"""Why a graph cache missed: its key's components against the last ones seen for the same lines.

torch writes, with each FX graph cache hit and miss, the key and its ``components``: one line per input of the key
(``FxGraphCachePickler.debug_lines``, 2.11-2.14), ``[<hash>] <component>: <value>`` or ``[<hash>]
<component>[<k>]: <value>`` (``gm``: the graph's code; ``example_inputs[i]``: a ``TensorMetadata(...)``;
``inductor_config[<name>]``: one per config value; ``cache_key_tag``, ``torch_version``, ``system_info[...]``,
``fx_kwargs[...]``, ...). AOTAutograd's cache writes the same for its own key (2.11 always; from 2.12 only while
its logger, ``torch._functorch._aot_autograd.autograd_cache``, is at DEBUG: ``TORCH_LOGS`` cache details). The
live capture sets that logger to DEBUG while it runs, with a filter that emits nothing more
(``torch_door.aot.cache_components_on``): an AOTAutograd miss whose FX graph lookups then hit (vllm#20451) is
explained like any other. A trace has them only where it was written with that logger at DEBUG.

``explain_keys`` reads each lookup's components once, as the capture ends (or a trace is opened), compares a
miss's with the last ones seen for **the same lines**, writes the differences into the record (as
``WHY``: what ``decode_usage`` reads into ``CacheLookup.why``) and drops the components: the report keeps the
explanation, never the tens of KB of components.

The same lines (``identity``): the cache (``fx_graph`` or ``aotautograd``), the compiled frame's file (a
``%%compile`` cell by the id its notebook front end gives the cell, which outlives edits; any other notebook cell is
one ``<notebook cell>``: IPython names a cell's file by a digest of its text, which any edit changes), its
function's name (a resume function's ``_at_<line>`` left out: it moves with any edit above the break), the frame's
compile index (0 for its first compile, 1 for its first recompile, ...) and the graph kind (``forward``,
``backward``, ``inference``; from the key's own ``fx_kwargs``). A miss is compared with, in this order: an earlier
lookup of the same identity in this capture or trace; the last capture of it (the key store, live captures only: a
trace is compared within itself); an earlier compile of the same frame in this run (a recompile, compared with the
compile before it). Nothing of these: there is nothing to compare with, and the graph was lowered from scratch.

The key store: one JSON file per identity (named by its digest), beside the stage store in Inductor's cache folder
(``torch_door.inductor.key_store_dir``; a folder per rank in a job): the last key and components seen (long values
shortened), written whole after the capture (a temporary file renamed; not again while the key is the same) and
trimmed, oldest first, like the stage store.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Mapping, Optional

from . import torch_door
from .cache_tag import MARK
from .decode_usage import WHY  # the field ``explain_keys`` adds to a cache record's JSON (never torch's)
from .inductor_code.syntax import split_args
from .raw import RawCapture, RawEvent, describe_error
from .stage_store import StageStore

FORMAT = 1
LIMIT_BYTES = 64 * 2**20
MAX_CHANGES = 12
LONG_VALUE = 2000  # a component's value kept in the store, at most (the graph's code: GRAPH_VALUE)
GRAPH_VALUE = 64_000
DIFF_LINES = 16
MAX_LINES = 5000  # the user lines of a graph's nodes kept in the store, at most

CACHE_RECORDS = {**{name: ("fx_graph", outcome) for name, outcome in torch_door.inductor.FX_CACHE_OUTCOMES.items()},
                 **{f"{p}aotautograd_cache_{o}": ("aotautograd", o)
                    for p in ("artifact:", "") for o in ("hit", "miss")}}

NO_COMPONENTS = {
    "aotautograd": "torch wrote no components for its key (from torch 2.12 only while its logger is at DEBUG: a "
                   "trace written with TORCH_LOGS=\"+torch._functorch._aot_autograd.autograd_cache\")",
    "fx_graph": "torch wrote no components for its key, so what changed cannot be told",
}
NO_FRAME = "the lookup names no compiled frame (no Dynamo frame started it), so there are no lines to compare with"
SAME_KEY = ("every component of the key is the same as then: the entry is gone from this cache (cleared or "
            "trimmed, or another TORCHINDUCTOR_CACHE_DIR), or its shape guards did not hold for these inputs")
FIRST = "no earlier capture of these lines to compare with: their first capture, the graph lowered from scratch"
FIRST_IN_TRACE = ("nothing earlier in this trace to compare with (a trace is compared within itself): the graph "
                  "lowered from scratch")
EXPLORER_TAG = ("the lines of this graph changed, not the graph: only the explorer's part of the cache key tag "
                "differs (a line edited or moved, in this file or in a function it calls)")
TAGGED_ONCE = ("the explorer's part of the cache key tag is in one key and not the other: the default capture "
               "tags each graph's key with its lines, a --warm capture (or a plain run) does not")
EXPLORER_TAG_NOTE = ("The explorer keys graphs by their lines so that the stages name the right ones: torch alone "
                     "could have hit.")
_CELL_FILES = (re.compile(r"ipykernel_\d+[/\\]\d+\.py$"), re.compile(r"^<ipython-input-"),
               re.compile(r"^<compiled-cell-"))
_LINE = re.compile(r"\[(?P<hash>[^\]]*)\] (?P<name>[^\s:\[]+(?:\[[^\]]*\])?): ?(?P<value>.*)\Z", re.S)
_ORDER = ("gm", "example_inputs", "cache_key_tag", "torch_version", "inductor_config", "fx_kwargs", "system_info")


class KeyStore(StageStore):
    """The last cache key components seen for each identity, one JSON file each (``StageStore``'s folder rules)."""

    kind = "key store"

    def well_formed(self, entry: Any) -> bool:
        return (isinstance(entry, dict) and entry.get("format") == FORMAT and isinstance(entry.get("components"), dict)
                and all(isinstance(v, list) and len(v) == 2 for v in entry["components"].values()))


def default_key_store() -> KeyStore:
    """This process's key store: each rank of a job (torchrun's ``RANK``) has its own, so ranks that share a cache
    folder compare each with its own last capture (another rank's inputs are on another device)."""
    rank = os.environ.get("RANK", "").strip()
    folder = torch_door.inductor.key_store_dir()
    return KeyStore(os.path.join(folder, f"rank{rank}") if rank.isdigit() else folder, LIMIT_BYTES)


Components = dict[str, tuple[str, str]]  # component -> (torch's hash of it, its value)


def parse_components(lines: Any) -> Components:
    """torch's ``components`` lines as component -> (hash, value); a line of another shape is kept whole."""
    out: Components = {}
    for line in lines if isinstance(lines, list) else ():
        m = _LINE.match(str(line))
        if m:
            out[m["name"]] = (m["hash"], m["value"])
        else:
            out[str(line)[:200]] = (hashlib.sha256(str(line).encode("utf-8", "surrogatepass")).hexdigest(), "")
    return out


@dataclass(frozen=True)
class Seen:
    """One lookup's components, where it was made (``compile_id``: in this run; ``at``: a stored capture)."""

    components: Components
    key: Optional[str]
    compile_id: str = ""
    at: Optional[float] = None
    lines: tuple[tuple[str, int, str], ...] = ()  # the user lines of the Dynamo graph's nodes: (file, line, code)


# ---- identity ----

def graph_kind(cache: str, components: Components) -> str:
    """``forward``, ``backward`` or ``inference`` from the key's own compile options ("" for AOTAutograd's)."""
    if cache != "fx_graph":
        return ""
    if components.get("fx_kwargs[is_backward]", ("", ""))[1] == "True":
        return "backward"
    return "inference" if components.get("fx_kwargs[is_inference]", ("", ""))[1] == "True" else "forward"


def identity(cache: str, filename: str, function: str, index: Optional[int], kind: str,
             places: Mapping[str, str] = MappingProxyType({})) -> str:
    """The same lines, as a stable string (``index`` None: any compile of the frame). ``places``: a file's stable
    name where its host gives one (a notebook cell's id, which outlives the edits that rename its file)."""
    if filename in places:
        filename = places[filename]
    elif any(p.search(filename) for p in _CELL_FILES):
        filename = "<notebook cell>"
    resumed = torch_door.dynamo.resumed(function)
    if resumed is not None:
        function = f"torch_dynamo_resume_in_{resumed[0]}"
    return json.dumps([cache, filename, function, index, kind])


# ---- comparing ----

def compare(now: Components, then: Components, loc: tuple[Optional[str], Optional[int]],
            lines: tuple[Lines, Lines] = ((), ())) -> tuple[list[dict], int]:
    """The components that differ, in words, most telling first; and how many more were left out. ``lines``: the
    user lines of the Dynamo graph's nodes then and now, to say which line a change of the graph's code came from."""
    names = sorted(set(now) | set(then), key=_rank)
    changed = [n for n in names if now.get(n, ("", None))[0] != then.get(n, ("", None))[0]]
    changes: list[dict] = []
    explorer_only = False
    for name in changed:
        old, new = then.get(name, ("", "")), now.get(name, ("", ""))
        if name == "cache_key_tag":
            (old_user, old_ours), (new_user, new_ours) = _tag(old[1]), _tag(new[1])
            if bool(old_ours) != bool(new_ours):
                changes.append(_change(name, TAGGED_ONCE, old[1], new[1]))
            elif old_user != new_user:
                changes.append(_change(name, f"your cache key tag (torch.compiler.config.cache_key_tag): "
                                             f"{old_user!r} -> {new_user!r}", old_user, new_user))
            elif old_ours != new_ours:
                explorer_only = True
            continue
        at = _changed_line(*lines) or loc if name == "gm" else loc
        changes += _words(name, old[1] if name in then else None, new[1] if name in now else None, at)
    if explorer_only and not changes:
        changes.append(_change("cache_key_tag", EXPLORER_TAG, "", "", loc=loc))
    changes = _grouped(changes)
    return changes[:MAX_CHANGES], max(0, len(changes) - MAX_CHANGES)


_INPUT_FIELD = re.compile(r"^example_inputs\[(?P<i>\d+)\]\.(?P<field>\w+)$")


def _grouped(changes: list[dict]) -> list[dict]:
    """The same change of several inputs (every parameter's dtype) as one: ``graph inputs 0, 1, 2's dtype: ...``."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    out: list[Any] = []
    for ch in changes:
        m = _INPUT_FIELD.match(ch["component"])
        if m is None:
            out.append(ch)
            continue
        group = groups.setdefault((m["field"], ch["old"], ch["new"]), [])
        if not group:
            out.append(group)
        group.append(ch)
    return [c if isinstance(c, dict) else _merged(c) for c in out]


def _merged(group: list[dict]) -> dict:
    if len(group) == 1:
        return group[0]
    first = group[0]
    indices = [c["component"].split("[", 1)[1].split("]", 1)[0] for c in group]
    field = first["component"].rsplit(".", 1)[1]
    head = first["words"].split("'s ", 1)[1]
    return dict(first, component=f"example_inputs[{','.join(indices)}].{field}",
                words=f"graph inputs {', '.join(indices)}'s {head}")


Lines = tuple[tuple[str, int, str], ...]
_NODE_LINE = re.compile(r"# File: (?P<file>.+?):(?P<line>\d+) in \S+, code: (?P<code>.*)$")


def graph_lines(text: Any) -> Lines:
    """The user lines Dynamo's graph names, one per ``# File: <path>:<line> in <fn>, code: <text>`` comment."""
    out: dict[tuple[str, int, str], None] = {}
    for line in text.splitlines() if isinstance(text, str) else ():
        m = _NODE_LINE.search(line)
        if m:
            out[(m["file"], int(m["line"]), m["code"].strip())] = None
    return tuple(out)


def _changed_line(then: Lines, now: Lines) -> Optional[tuple[str, int]]:
    """The first user line of the graph now whose code the graph did not have then (an edited or a new line)."""
    before = {(f, code) for f, _, code in then}
    return next(((f, n) for f, n, code in now if (f, code) not in before), None) if then else None


def _rank(name: str) -> tuple[int, str]:
    base = name.split("[", 1)[0]
    return (_ORDER.index(base) if base in _ORDER else len(_ORDER), name)


def _tag(value: str) -> tuple[str, str]:
    """(the user's part, the explorer's digest) of a cache key tag ``cache_tag.tag_for`` wrote."""
    if f"|{MARK}" in value:
        user, ours = value.rsplit(f"|{MARK}", 1)
        return user, ours
    if value.startswith(MARK):
        return "", value[len(MARK):]
    return value, ""


def _change(component: str, words: str, old: str = "", new: str = "", diff: str = "",
            loc: tuple[Optional[str], Optional[int]] = (None, None)) -> dict:
    return {"component": component, "words": words, "old": _short(old), "new": _short(new), "diff": diff,
            "filename": loc[0], "lineno": loc[1]}


def _short(value: str, n: int = 200) -> str:
    value = value.strip()
    return value if len(value) <= n else value[:n - 1] + "…"


def _words(name: str, old: Optional[str], new: Optional[str], loc: tuple[Optional[str], Optional[int]]) -> list[dict]:
    """One component's change in words (several for an input: one per field of its metadata that changed)."""
    base, _, rest = name.partition("[")
    sub = rest[:-1] if rest.endswith("]") else rest
    if old is None or new is None:
        what = "is new in the key" if old is None else "is no longer in the key"
        return [_change(name, f"{name} {what}", old or "", new or "")]
    if base == "gm":
        return [_change(name, "the graph's code changed", diff=_graph_diff(old, new), loc=loc)]
    if base == "example_inputs":
        return _input_changes(name, sub, old, new, loc)
    if base in ("inductor_config", "inductor_config_comms"):
        return [_change(name, f"Inductor config {sub}: {_short(old, 80)} -> {_short(new, 80)}", old, new)]
    if base == "torch_version":
        return [_change(name, "torch changed (torch_version: a digest of torch's own source, so another version "
                              "or build of torch)")]
    if base == "system_info":
        return [_change(name, f"the system changed (system_info[{sub}]: the device, its compiler and Triton "
                              f"versions): {_short(old, 60)} -> {_short(new, 60)}", old, new)]
    if base == "fx_kwargs":
        return [_change(name, f"compile option {sub}: {_short(old, 80)} -> {_short(new, 80)}", old, new)]
    if base == "user_defined_triton_source":
        return [_change(name, "a user-defined Triton kernel's source changed", loc=loc)]
    return [_change(name, f"{name}: {_short(old, 80)} -> {_short(new, 80)}", old, new)]


def _graph_diff(old: str, new: str) -> str:
    lines = [ln for ln in difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "now", n=0,
                                                lineterm="") if not ln.startswith(("---", "+++", "@@"))]
    cut = len(lines) - DIFF_LINES
    return "\n".join(lines[:DIFF_LINES] + ([f"… {cut} more changed lines"] if cut > 0 else []))


_TENSOR = re.compile(r"^TensorMetadata\((?P<fields>.*)\)\s*$", re.S)
_FIELD_WORDS = {"dtype": "dtype", "shape": "shape", "stride": "stride", "device": "device",
                "requires_grad": "requires_grad", "storage_offset": "storage offset", "layout": "layout",
                "memory_format": "memory format"}


def _input_changes(name: str, index: str, old: str, new: str,
                   loc: tuple[Optional[str], Optional[int]]) -> list[dict]:
    """``graph input 0's dtype: float32 -> float16``, one per field of ``TensorMetadata`` that changed."""
    a, b = _tensor_fields(old), _tensor_fields(new)
    if a is None or b is None:
        return [_change(name, f"graph input {index}: {_short(old, 80)} -> {_short(new, 80)}", old, new, loc=loc)]
    out = []
    for field in sorted(set(a) | set(b), key=lambda f: (list(_FIELD_WORDS).index(f) if f in _FIELD_WORDS else 99, f)):
        if a.get(field) != b.get(field):
            was, now = _plain(a.get(field, "")), _plain(b.get(field, ""))
            out.append(_change(f"{name}.{field}", f"graph input {index}'s {_FIELD_WORDS.get(field, field)}: "
                                                  f"{was} -> {now}", was, now, loc=loc))
    return out or [_change(name, f"graph input {index} changed", old, new, loc=loc)]


def _tensor_fields(value: str) -> Optional[dict[str, str]]:
    m = _TENSOR.match(value.strip())
    if not m:
        return None
    pairs = (part.split("=", 1) for part in split_args(m["fields"]) if "=" in part)
    return {k.strip(): v.strip() for k, v in pairs}


def _plain(value: str) -> str:
    """``torch.float32`` -> ``float32``, ``torch.Size([8])`` -> ``[8]``, ``device(type='cuda', index=0)`` ->
    ``cuda:0``."""
    m = re.fullmatch(r"torch\.Size\((.*)\)", value)
    if m:
        return m[1]
    m = re.fullmatch(r"device\(type='(\w+)'(?:, index=(\d+))?\)", value)
    if m:
        return m[1] + (f":{m[2]}" if m[2] else "")
    return value[len("torch."):] if value.startswith("torch.") else value


# ---- the pass over a capture's records ----

def explain_keys(raw: RawCapture, store: Optional[KeyStore], notes: list[str],
                 places: Mapping[str, str] = MappingProxyType({})) -> RawCapture:
    """``raw`` with each graph cache hit's and miss's components read and dropped, and each miss's comparison
    added to its record (``WHY``). ``store``: the last captures' components (None for a trace: compared within
    itself); each identity's last components are written back to it. ``places``: ``identity``'s. Never raises
    for a store it cannot use: a note says so, and a bug of its own leaves the records as they were, with a
    note."""
    explainer = _Explainer(raw.strings, store, notes, places)
    try:
        events = [explainer.take(ev) for ev in raw.events]
    except Exception as e:  # noqa: BLE001 - the capture stands without the reasons, and says why
        notes.append(f"the explorer could not say why the graph caches missed ({describe_error(e)})")
        return raw
    if store is not None and explainer.last:
        _save(store, explainer.last, notes)
    return replace(raw, events=events)


class _Explainer:
    """One pass over a capture's records, in order: each compiled frame and its graph's lines as they start, each
    cache lookup compared with the last of the same lines."""

    def __init__(self, strings: dict[int, str], store: Optional[KeyStore], notes: list[str],
                 places: Mapping[str, str]) -> None:
        self.strings, self.store, self.notes, self.places = strings, store, notes, places
        self.frames: dict[Any, tuple[str, str, int]] = {}  # (frame id, index, generation) -> file, function, line
        self.graphs: dict[Any, Lines] = {}  # the same -> the user lines of its Dynamo graph
        self.seen: dict[str, Seen] = {}  # this run's last lookup of each identity, and of each frame (index None)
        self.last: dict[str, tuple[dict, Seen]] = {}  # identity -> (its description, its last lookup): the store's

    def take(self, ev: RawEvent) -> RawEvent:
        if ev.name == "dynamo_start" and ev.compile_id is not None:
            frame = _frame(ev, self.strings)
            if frame is not None:
                self.frames[_frame_key(ev)] = frame
        elif ev.name == "dynamo_output_graph" and ev.compile_id is not None:
            self.graphs[_frame_key(ev)] = graph_lines(ev.payload)
        which = CACHE_RECORDS.get(ev.name)
        try:
            info = json.loads(ev.payload) if which is not None and isinstance(ev.payload, str) else None
        except ValueError:
            info = None  # the decoder says why it cannot be read
        if which is None or not isinstance(info, dict):
            return ev
        self._lookup(ev, info, *which)
        return replace(ev, payload=json.dumps(info))

    def _lookup(self, ev: RawEvent, info: dict, cache: str, outcome: str) -> None:
        """Compares a miss (into ``info[WHY]``) and remembers the lookup; drops torch's components from ``info``."""
        components = parse_components(info.pop("components", None))
        file, function, line = self.frames.get(_frame_key(ev), ("?", "?", 0))
        index = ev.compile_id.frame_compile_id if ev.compile_id is not None else None
        kind = graph_kind(cache, components)
        same = identity(cache, file, function, index, kind, self.places)
        frame_any = identity(cache, file, function, None, kind, self.places)
        now = Seen(components, str(info["key"]) if info.get("key") else None, _cid(ev),
                   lines=self.graphs.get(_frame_key(ev), ()))
        if outcome == "miss" and file == "?":
            info[WHY] = {"against": "unknown", "note": NO_FRAME}
        elif outcome == "miss":
            info[WHY] = _why(now, cache, self.seen.get(same), self.store, same, self.seen.get(frame_any),
                             (file, line or None), self.notes)
        if components and file != "?":
            self.seen[same] = self.seen[frame_any] = now
            self.last[same] = ({"cache": cache, "file": file, "function": function, "index": index, "kind": kind},
                               now)


def _frame(ev: RawEvent, strings: dict[int, str]) -> Optional[tuple[str, str, int]]:
    fields = ev.metadata.get("dynamo_start")
    stack = fields.get("stack") if isinstance(fields, dict) else None
    if not isinstance(stack, list) or not stack or not isinstance(stack[-1], dict):
        return None
    top = stack[-1]
    filename = top.get("filename")
    if isinstance(filename, int):
        filename = strings.get(filename)
    line = top.get("line")
    return (str(filename or "?"), str(top.get("name") or "?"),
            line if isinstance(line, int) and not isinstance(line, bool) else 0)


def _frame_key(ev: RawEvent) -> Any:
    cid = ev.compile_id
    return (cid.frame_id, cid.frame_compile_id, cid.generation) if cid is not None else None


def _cid(ev: RawEvent) -> str:
    cid = ev.compile_id
    return f"{cid.frame_id}/{cid.frame_compile_id}" if cid is not None else ""


def _why(seen: Seen, cache: str, earlier: Optional[Seen], store: Optional[KeyStore], same: str,
         frame_any: Optional[Seen], loc: tuple[Optional[str], Optional[int]], notes: list[str]) -> dict:
    """A miss's comparison (``KeyComparison``'s fields) with the nearest earlier lookup of the same lines."""
    if not seen.components:
        return {"against": "unknown", "note": NO_COMPONENTS[cache]}
    against, then = "earlier", earlier
    if then is None and store is not None:
        against, then = "stored", _stored(store, same, notes)
    if then is None and frame_any is not None:
        against, then = "earlier", frame_any
    if then is None:
        return {"against": "none", "note": FIRST if store is not None else FIRST_IN_TRACE}
    changes, more = compare(seen.components, then.components, loc, (then.lines, seen.lines))
    note = SAME_KEY if not changes else EXPLORER_TAG_NOTE if changes[0]["words"] == EXPLORER_TAG else ""
    return {"against": against, "changes": changes, "more": more, "compile_id": then.compile_id, "at": then.at,
            "note": note}


def _name(same: str) -> str:
    return hashlib.sha256(same.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _stored(store: KeyStore, same: str, notes: list[str]) -> Optional[Seen]:
    try:
        entry = store.get(_name(same))
    except (OSError, ValueError) as e:
        notes.append(f"the explorer's key store could not be read ({describe_error(e, False)}): a cache miss is "
                     "compared only within this capture")
        return None
    if entry is None:
        return None
    comps = {k: (str(v[0]), str(v[1])) for k, v in entry["components"].items()}
    at = entry.get("at")
    lines = tuple((str(f), n, str(c)) for f, n, c in (x for x in entry.get("lines") or () if isinstance(x, list)
                                                       and len(x) == 3) if isinstance(n, int))
    return Seen(comps, entry.get("key"), "", float(at) if isinstance(at, (int, float)) else None, lines)


_KEY_FIELD = re.compile(r'"key": "(?P<key>[^"]+)"')


def _stored_key(store: KeyStore, name: str) -> Optional[str]:
    """The key an identity's file holds, read from its head (written right after the format): None for none."""
    try:
        with open(store.path(name), encoding="utf-8") as fh:
            m = _KEY_FIELD.search(fh.read(4096))
    except OSError:
        return None
    return m["key"] if m else None


def _save(store: KeyStore, last: dict[str, tuple[dict, Seen]], notes: list[str]) -> None:
    """Each identity's last components, values shortened (the graph's code kept longer, for its diff)."""
    try:
        for same, (described, seen) in last.items():
            if seen.key and _stored_key(store, _name(same)) == seen.key:
                os.utime(store.path(_name(same)))  # the same key as stored (a hit): only kept from the trim
                continue
            comps = {k: [h, v[:GRAPH_VALUE if k == "gm" else LONG_VALUE]] for k, (h, v) in seen.components.items()}
            store.put(_name(same), {"format": FORMAT, "key": seen.key, "identity": described, "at": time.time(),
                                    "components": comps, "lines": [list(x) for x in seen.lines[:MAX_LINES]]})
        store.trim()
    except (OSError, TypeError, ValueError) as e:
        notes.append(f"the explorer's key store ({store.folder}) could not be written ({describe_error(e, False)}): "
                     "the next capture cannot say why its cache lookups missed")
