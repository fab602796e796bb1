"""Decoders for the records real programs' compiles write: caches, AOTInductor's C++, export, newer provenance.

Registered in ``decoders.DECODERS`` like every other decoder: one function per
event kind, reading one record only. Cache records are JSON (torch's
``cache_info``); their ``components`` list (tens of KB per graph: every input
of the cache key) is read by ``cache_keys.explain_keys`` before them, which leaves in its place what changed
since the last lookup of the same lines (``cache_keys.WHY``, read here into ``CacheLookup.why``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional, Union

from .elements import Elements, Partly, partly
from .model import CacheLookup, KeyChange, KeyComparison, StoredStages
from .raw import DecodeError as UsageDecodeError
from .raw import RawEvent
from .records import AotiCode, CacheRecord, ExportedProgramText, KernelTrace, StoreRecord

_BUNDLED_RE = re.compile(r"cached_kernel_names=\[(?P<names>[^\]]*)\]")


def json_payload(ev: RawEvent) -> Any:
    """The record's payload parsed as JSON (``DecodeError`` when it is none)."""
    if not isinstance(ev.payload, str) or not ev.payload.strip():
        raise UsageDecodeError(f"the record has no payload (got {type(ev.payload).__name__})")
    try:
        return json.loads(ev.payload)
    except ValueError as e:
        raise UsageDecodeError(f"the payload is not JSON ({e})") from None


def _seconds(value: Any, scale: float) -> Optional[float]:
    return float(value) * scale if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bundled(meta: Any) -> tuple[str, ...]:
    """Kernel names in ``TritonBundlerMetadata(cached_kernel_names=[...], ...)`` (a repr, or a dict)."""
    if isinstance(meta, dict):
        return tuple(str(n) for n in meta.get("cached_kernel_names") or ())
    m = _BUNDLED_RE.search(str(meta or ""))
    if not m:
        return ()
    return tuple(n.strip().strip("'\"") for n in m["names"].split(",") if n.strip())


def cache_decoder(cache: str, outcome: str):
    """The decoder of one cache's one outcome (``fx_graph`` ``hit``, ...)."""

    def decode(ev: RawEvent, ctx: Any) -> CacheRecord:
        info = json_payload(ev)
        if not isinstance(info, dict):
            raise UsageDecodeError(f"a cache record is {type(info).__name__}, expected a JSON object")
        saved = _seconds(info.get("time_saved_ns"), 1e-9)
        if saved is None:
            saved = _seconds(info.get("time_saved_ms"), 1e-3)
        detail = str(info.get("cache_bypass_reason") or info.get("cache_status_detailed") or "")
        return CacheRecord(CacheLookup(
            cache=cache, outcome=str(info.get("cache_state") or outcome), key=_key(info), detail=detail,
            time_saved_s=saved, time_taken_s=_seconds(info.get("time_taken_ns"), 1e-9),
            bundled_kernels=_bundled(info.get("triton_bundler_meta")), why=_why(info.get(WHY))))

    return decode


WHY = "compile_explorer_why"  # ``cache_keys.WHY``: the explorer's comparison, put in the record as it is read


def _why(fields: Any) -> Optional[KeyComparison]:
    """The comparison ``cache_keys.explain_keys`` wrote into a miss's record (None where it wrote none)."""
    if not isinstance(fields, dict) or not fields.get("against"):
        return None
    changes = tuple(KeyChange(
        component=str(c.get("component") or ""), words=str(c.get("words") or ""), old=str(c.get("old") or ""),
        new=str(c.get("new") or ""), diff=str(c.get("diff") or ""),
        filename=c.get("filename") if isinstance(c.get("filename"), str) else None,
        lineno=c.get("lineno") if isinstance(c.get("lineno"), int) else None)
        for c in fields.get("changes") or () if isinstance(c, dict))
    at = fields.get("at")
    return KeyComparison(against=str(fields["against"]), changes=changes,
                         compile_id=str(fields.get("compile_id") or ""),
                         at=float(at) if isinstance(at, (int, float)) else None, more=int(fields.get("more") or 0),
                         note=str(fields.get("note") or ""))


def _key(info: dict) -> Optional[str]:
    key = info.get("key")
    return str(key) if key else None


def decode_dynamo_cache(outcome: str):
    """``dynamo_cache_entries`` (the precompile cache's entries), ``_bypass``, ``_exception``."""

    def decode(ev: RawEvent, ctx: Any) -> CacheRecord:
        info = json_payload(ev)
        if not isinstance(info, dict):
            raise UsageDecodeError(f"a Dynamo cache record is {type(info).__name__}, expected a JSON object")
        if outcome == "entries":
            n = info.get("num_entries")
            detail = f"{n} entries" if n is not None else ""
        elif outcome == "bypass":
            detail = f"backend {info.get('missing_backend')} not found" if info.get("missing_backend") else ""
        else:
            detail = str(info.get("error") or "")
        return CacheRecord(CacheLookup(cache="dynamo", outcome=outcome, key=_key(info), detail=detail))

    return decode


_AOTI_NAMES = {"inductor_aot_wrapper_code": "wrapper", "inductor_aot_kernel_code": "kernel",
               "inductor_aot_header_code": "header"}


def decode_graph_dump(ev: RawEvent, ctx: Any) -> Optional[AotiCode]:
    """``graph_dump``: AOTInductor's C++ wrapper, kernels and header (others: nothing to keep)."""
    fields = ev.metadata.get("graph_dump")
    if not isinstance(fields, dict):
        raise UsageDecodeError(f"metadata['graph_dump'] is {type(fields).__name__}, expected a dict")
    which = _AOTI_NAMES.get(str(fields.get("name")))
    if which is None or which == "header":
        return None
    if not isinstance(ev.payload, str):
        raise UsageDecodeError("an AOTInductor code record without text")
    filename = fields.get("filename")
    return AotiCode(which, ev.payload, str(filename) if filename else None)


def decode_exported_program(ev: RawEvent, ctx: Any) -> ExportedProgramText:
    text = ev.payload if isinstance(ev.payload, str) else ""
    if "ExportedProgram" not in text and "def forward(" not in text:
        raise UsageDecodeError("not torch's print of an exported program (no 'ExportedProgram' or 'def forward(')")
    return ExportedProgramText(text)


def decode_kernel_trace(ev: RawEvent, ctx: Any) -> Union[KernelTrace, Partly]:
    """A JSON object keyed by ``kernel:handle`` (``kernel_information.json``'s shape; the per-kernel op trace); a
    kernel whose entry is no JSON object is left out."""
    value = json_payload(ev)
    if isinstance(value, dict) and isinstance(value.get("kernels"), dict):
        value = value["kernels"]  # a versioned envelope around the per-kernel table
    if not isinstance(value, dict):
        raise UsageDecodeError(f"a per-kernel table is {type(value).__name__}, expected a JSON object")
    read = Elements(("kernel", "kernels"), len(value))
    kept = {}
    for k, v in value.items():
        if isinstance(v, dict):
            kept[str(k)] = v
        else:
            read.left_out("held no fields (not a JSON object)")
    return partly(KernelTrace(ev.name.split(":", 1)[-1], kept), read)


STORE_EVENT = "explorer_stage_store"  # the explorer's own record (``stage_store``), never torch's


def decode_stage_store(ev: RawEvent, ctx: Any) -> StoreRecord:
    """What the stage store gave back for a hit, or why it could not (its fields, written by ``stage_store``)."""
    fields = ev.metadata.get(STORE_EVENT)
    if not isinstance(fields, dict) or fields.get("outcome") not in ("replayed", "missing"):
        raise UsageDecodeError(f"a stage store record without an outcome ({fields!r:.200})")
    at = fields.get("lowered_at")
    return StoreRecord(StoredStages(
        outcome=str(fields["outcome"]), records=tuple(str(r) for r in fields.get("records") or ()),
        key=_key(fields), lowered_at=float(at) if isinstance(at, (int, float)) else None,
        detail=str(fields.get("detail") or "")))


def _caches() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cache, prefix in (("fx_graph", "fx_graph_cache_"), ("aotautograd", "aotautograd_cache_")):
        for outcome in ("hit", "miss", "bypass"):
            decoder = cache_decoder(cache, outcome)
            out[f"artifact:{prefix}{outcome}"] = decoder
            out[f"{prefix}{outcome}"] = decoder  # the event name older torch used
    out["artifact:fx_graph_bundled_cache_hit"] = cache_decoder("fx_graph", "hit")
    for outcome in ("entries", "bypass", "exception"):
        out[f"artifact:dynamo_cache_{outcome}"] = decode_dynamo_cache(outcome)
    return out


# newer per-kernel provenance: kernel_information.json's table as a trace artifact, the proposed
# per-kernel op trace (pytorch/pytorch#189270); both keyed by "kernel:handle"
KERNEL_TRACE_NAMES = ("inductor_kernel_information", "kernel_information", "inductor_kernel_trace",
                      "triton_kernel_trace", "inductor_triton_kernel_trace")

USAGE_DECODERS: dict[str, Any] = {
    **_caches(),
    "graph_dump": decode_graph_dump,
    STORE_EVENT: decode_stage_store,
    "exported_program": decode_exported_program,
    **{f"artifact:{name}": decode_kernel_trace for name in KERNEL_TRACE_NAMES},
}
