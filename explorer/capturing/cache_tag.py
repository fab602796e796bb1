"""Graph cache entries that belong to this program: the default capture's cache key tag, set per graph.

torch's FX graph cache and AOTAutograd cache key a graph by its code, not by the user lines its nodes came from.
The default capture leaves those caches on (a re-run costs what a plain re-run costs), so without more, a capture of
``b.py`` whose graph is the same as one ``a.py`` lowered earlier would be served ``a.py``'s entry: its AOT and
post-grad graphs, its kernels' stack traces and the stage store's loop IR would all name ``a.py``'s lines.

``torch.compiler.config.cache_key_tag`` is part of both keys (``FxGraphHashDetails.cache_key_tag``, which
AOTAutograd's details extend; 2.11-2.14). Dynamo writes a graph to the structured trace (``dynamo_output_graph``,
printed with each node's innermost user line and its source text) and reads the code objects it traced into it
(``traced_code``) just before it calls the backend. As those two records arrive, the tag is set to the user's own
tag plus a digest of both: the graph's text and, for each function traced into it, its file, first line, name,
bytecode and line table. So an entry is hit only by a graph with the same code from the same lines of the same
functions, which is what its cached stages describe; an edit that moves a line, in the cell or in model code in
another file, misses and is lowered again (torch's code caches still serve the C++ and Triton it builds). The
user's tag is put back once the backend has returned (Dynamo then writes the frame's guards), when a compile fails
(its ``compilation_metrics``) and when the capture ends.

Two other readers of the tag see it while a graph is lowered: Triton's autotune cache (``AutotuneCache``: a
captured kernel's best config is kept under its own key, found again by a re-run of the same program, never mixed
with a plain run's) and Dynamo's profile-guided dynamic shapes (``pgo.format_cache_key``, used only where a job id
is set: Dynamo reads and writes a frame's profile as its compile starts and after its guards, outside the span).
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Optional

from . import torch_door
from .raw import RawEvent
from .recorder import TRACED_CODE

GRAPH_RECORD = "dynamo_output_graph"
# after the backend: the frame's guards (built once its graph is compiled), or the end of a compile that failed
AFTER_BACKEND = frozenset({"dynamo_cpp_guards_str", "compilation_metrics"})
MARK = "compile-explorer:"


class CacheTag:
    """Sets the cache key tag as each graph is handed to its backend; puts the user's back after it and in ``end``.
    A tag the user's own code sets meanwhile is theirs: kept under each graph's, and left in place at the end."""

    def __init__(self) -> None:
        self.user_tag: Optional[str] = None
        self._graph: Optional[str] = None  # the digest of the graph being compiled, before its code objects
        self._ours: Optional[str] = None  # the tag this capture set last, while it is in place
        self._unsubscribe: Optional[Callable[[], None]] = None

    def begin(self, recorder: Any) -> None:
        self.user_tag = torch_door.config.cache_key_tag()
        self._unsubscribe = recorder.subscribe(self._on_event)

    def _on_event(self, ev: RawEvent) -> None:
        if ev.name == GRAPH_RECORD and isinstance(ev.payload, str):
            self._graph = hashlib.sha256(ev.payload.encode("utf-8", "surrogatepass")).hexdigest()
            self._set(self._graph)
        elif ev.name == TRACED_CODE and self._graph is not None:
            self._set(self._graph + code_digest(ev.payload))
        elif ev.name in AFTER_BACKEND:
            self._graph = None
            self._restore()

    def _set(self, material: str) -> None:
        current = torch_door.config.cache_key_tag()
        if current != self._ours:  # not ours: the user's code set it since (or it is the one read at the start)
            self.user_tag = current
        digest = hashlib.sha256(material.encode()).hexdigest()[:32]
        self._ours = tag_for(self.user_tag, digest)
        torch_door.config.set_cache_key_tag(self._ours)

    def _restore(self) -> None:
        if self._ours is not None and torch_door.config.cache_key_tag() == self._ours:
            torch_door.config.set_cache_key_tag(self.user_tag or "")
        self._ours = None

    def end(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._restore()


def tag_for(user_tag: Optional[str], digest: str) -> str:
    """The user's tag (their own cache namespace, kept) with the graph's digest after it."""
    return f"{user_tag}|{MARK}{digest}" if user_tag else f"{MARK}{digest}"


def code_digest(codes: Any) -> str:
    """What of each traced function decides the lines its nodes name: file, first line, name, bytecode, line
    table (``co_linetable`` moves with any line of the body; ``co_firstlineno`` with any line above it)."""
    h = hashlib.sha256()
    for code in codes or ():
        for part in (getattr(code, "co_filename", ""), str(getattr(code, "co_firstlineno", "")),
                     getattr(code, "co_qualname", None) or getattr(code, "co_name", "")):
            h.update(str(part).encode("utf-8", "surrogatepass") + b"\0")
        for part in (getattr(code, "co_code", b""), getattr(code, "co_linetable", b"")):
            h.update(bytes(part) + b"\0")
    return h.hexdigest()
