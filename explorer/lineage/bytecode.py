"""Source, bytecode listings and the decompiled rewritten code -> one row per line.

* ``source``: line i of the frame's source is file line ``firstlineno + i - 1``
  and is its own origin (blank lines are glue); so are the lines of each function
  Dynamo inlined into the frame (part k + 1 of the stage is ``inlined[k]``).
* ``original_bytecode``: each instruction row of the ``dis`` listing gets the
  line of its instruction in the code object's line table (``instructions[].line``);
  rows are matched to instructions in order, by opname, so the listing's
  layout (offsets, 3.13's labels) does not matter. Blank and table rows are glue.
* ``rewritten_bytecode``: the instructions Dynamo copied keep the user line
  they had; what Dynamo generated carries the function's first line and is
  glue, except two runs: from loading ``__compiled_fn_N`` to storing its result
  (the call of the graph), which gets every user line of the Dynamo graph, and
  from loading ``__resume_at_<offset>_N`` to the return (the call of the resume
  function), which gets the user lines of the original instructions from that
  offset on (the code the resume function runs).
* ``decompiled``: a line calling ``__compiled_fn_N`` or ``__resume_at_...`` gets
  what those calls get above; the ``def`` line gets the first line; a line that
  names what the graph break's user line calls (``print`` in
  ``__builtins_dict___7['print']('break')``) gets the break's line (by name:
  a heuristic); the rest (Dynamo's stack and list shuffling) is glue.
"""

from __future__ import annotations

import re
from typing import Union

from ..capturing.model import Bytecode, Compilation, InlinedFunction
from .graphs import Row
from .model import Origin

_GLUE: tuple[Origin, ...] = ()
_OPNAME = re.compile(r"\b([A-Z][A-Z0-9_]{2,})\b")
_RESUME = re.compile(r"__resume_at_(\d+)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_COMMON = {"torch", "self", "return", "None", "True", "False", "and", "not", "for", "in", "if", "else", "is"}


def source_rows(bc: Union[Bytecode, InlinedFunction]) -> list[Row]:
    """The frame's source, or a function inlined into it (each its own part of the stage): line i is its own origin."""
    if not bc.source:
        return []
    return [((Origin(bc.filename, bc.firstlineno + i),) if line.strip() else _GLUE, None)
            for i, line in enumerate(bc.source.splitlines())]


def _listing_rows(bc: Bytecode, origin_of: list[tuple[Origin, ...]]) -> list[Row]:
    """One row per listing line; instruction rows get ``origin_of[k]`` for the k-th instruction."""
    rows: list[Row] = []
    k, n = 0, len(bc.instructions)
    for line in bc.listing.splitlines():
        if k < n:
            m = _OPNAME.search(line)
            if m and m.group(1) == bc.instructions[k].opname:
                rows.append((origin_of[k], None))
                k += 1
                continue
        rows.append((_GLUE, None))
    return rows


def original_rows(bc: Bytecode) -> list[Row]:
    origin_of = [(Origin(bc.filename, i.line),) if i.line else _GLUE for i in bc.instructions]
    return _listing_rows(bc, origin_of)


def resume_origins(comp: Compilation, offset: int) -> tuple[Origin, ...]:
    """The user lines of the original code from ``offset`` on: what a resume function at it runs."""
    bc = comp.original_bytecode
    if bc is None:
        return _GLUE
    lines = sorted({i.line for i in bc.instructions if i.line and i.offset >= offset})
    return tuple(Origin(bc.filename, line) for line in lines)


def rewritten_rows(bc: Bytecode, comp: Compilation, graph_origins: tuple[Origin, ...]) -> list[Row]:
    ins = bc.instructions
    origin_of: list[tuple[Origin, ...]] = [
        (Origin(bc.filename, i.line),) if i.line and i.line != bc.firstlineno else _GLUE for i in ins]
    k = 0
    while k < len(ins):
        arg = ins[k].argrepr
        if ins[k].opname.startswith("LOAD") and "__compiled_fn" in arg:
            end = next((j for j in range(k, len(ins)) if ins[j].opname.startswith("STORE")
                        and "graph_out" in ins[j].argrepr), k)
            for j in range(k, end + 1):
                origin_of[j] = graph_origins
            k = end + 1
            continue
        m = _RESUME.search(arg) if ins[k].opname.startswith("LOAD") else None
        if m:
            lines = resume_origins(comp, int(m.group(1)))
            end = next((j for j in range(k, len(ins)) if ins[j].opname.startswith("RETURN")), len(ins) - 1)
            for j in range(k, end + 1):
                origin_of[j] = lines
            k = end + 1
            continue
        k += 1
    return _listing_rows(bc, origin_of)


def decompiled_rows(bc: Bytecode, comp: Compilation, graph_origins: tuple[Origin, ...]) -> list[Row]:
    if not bc.decompiled:
        return []
    brk = comp.graph_break
    break_names: set[str] = set()
    if brk is not None and brk.lineno and brk.source_line and brk.filename == bc.filename:
        break_names = {w for w in _IDENT.findall(brk.source_line) if len(w) > 2 and w not in _COMMON}
    rows: list[Row] = []
    for line in bc.decompiled.splitlines():
        stripped = line.strip()
        if stripped.startswith("def ") and line == stripped:
            rows.append(((Origin(bc.filename, bc.firstlineno),), None))
        elif "__compiled_fn" in line:
            rows.append((graph_origins, None))
        elif "__resume_at_" in line:
            m = _RESUME.search(line)
            rows.append((resume_origins(comp, int(m.group(1))) if m else _GLUE, None))
        elif break_names and _names_any(line, break_names):
            rows.append(((Origin(brk.filename, brk.lineno),), None))
        else:
            rows.append((_GLUE, None))
    return rows


def _names_any(line: str, names: set[str]) -> bool:
    return any(w in names for w in _IDENT.findall(line))

