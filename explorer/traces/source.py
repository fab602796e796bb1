"""The Source pane of a compilation read from a trace: the user's file from disk, or the lines the trace quotes.

A trace has no code objects, so the source an in-process capture takes from the frame's code is read from
the path the trace records (``compilation_metrics``' ``co_filename`` and ``co_firstlineno``): the function's
block, as ``inspect`` finds it. Where that file is not on this machine, the lines the trace itself quotes (the
FX graphs' ``# File: ...`` comments, the guards' source lines, the graph break's line) are put at their line
numbers, and the pane says so (``Bytecode.source_origin``): the others are blank.
"""

from __future__ import annotations

import dataclasses
import inspect
import linecache
import os
from typing import Optional

from ..capturing.model import Bytecode, Compilation

MAX_LINES = 400  # a frame's source shown at most (a module's <module> frame can be long)


def with_source(comp: Compilation) -> Compilation:
    """``comp`` with its frame's source (as an ``original_bytecode`` without a listing when it has none), and
    where the source came from (``Bytecode.source_origin``: the file on disk, or the lines the trace quotes)."""
    old = comp.original_bytecode
    frame = comp.frame
    if not frame.filename or frame.filename == "?" or frame.lineno < 1:
        return comp
    text, origin = (old.source, "file") if old is not None and old.source else (None, "file")
    if text is None:
        text = _from_disk(frame.filename, frame.lineno)
    if text is None:
        text, origin = _quoted(comp), "quoted"
    if not text:
        return comp
    bc = (dataclasses.replace(old, source=text, source_origin=origin) if old is not None else
          Bytecode(name=frame.name, filename=frame.filename, firstlineno=frame.lineno, listing="", source=text,
                   source_origin=origin))
    return dataclasses.replace(comp, original_bytecode=bc)


def _from_disk(filename: str, first: int) -> Optional[str]:
    if not os.path.isfile(filename):
        return None
    lines = linecache.getlines(filename)
    if len(lines) < first:
        return None
    try:
        block = inspect.getblock(lines[first - 1:])
    except Exception:  # noqa: BLE001 - a file that does not tokenize (changed since): the next lines instead
        block = lines[first - 1:first - 1 + 40]
    return "".join(block[:MAX_LINES]) or None


def _quoted(comp: Compilation) -> Optional[str]:
    """The frame's lines the trace quotes, each at its line number from the frame's first line on."""
    want = os.path.abspath(comp.frame.filename)
    lines: dict[int, str] = {}

    def add(filename: Optional[str], lineno: Optional[int], code: Optional[str]) -> None:
        if filename and lineno and code and lineno >= comp.frame.lineno and os.path.abspath(filename) == want:
            lines.setdefault(lineno, code.rstrip())

    for graph in (comp.graph, comp.aot_forward, comp.aot_inference, comp.aot_joint):
        for node in graph.nodes if graph is not None else ():
            if node.loc is not None:
                add(node.loc.filename, node.loc.lineno, node.loc.code)
    for g in comp.guards:
        add(g.filename, g.lineno, g.source)
    for b in (comp.graph_break, *comp.more_breaks):
        if b is not None:
            add(b.filename, b.lineno, b.source_line)
    if not lines:
        return None
    first, last = comp.frame.lineno, min(max(lines), comp.frame.lineno + MAX_LINES)
    return "".join(lines.get(n, "") + "\n" for n in range(first, last + 1))
