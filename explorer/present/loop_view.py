"""The "How the pieces run" pane: the cache-and-guard loop of a frame, run on the frame's own entries.

What Dynamo's frame evaluator does on every call of a compiled frame, in a few lines of pseudo-Python, each line
beside what it meets in this frame: its cache entries as read live during the capture (``Compilation.frame_cache``,
most recently used first), each entry's guard count, the recompile limit, the resume functions its graph breaks
call. Then the entries one per row (a click leads to an entry's guards), and the calls that compiled, replayed from
torch's own records: which entries each tried, in its order, and why each failed. From a trace the cache was not
read: the entries are the frame's compilations, newest first, and the pane says what a trace cannot tell. Words
users read are written here; the renderers only lay the blocks out.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import Compilation, FrameCache
from ..report import Report
from .blocks import Block, Item, Row, Table
from .fmt import loc_text

INDENT = "\u00a0" * 4  # a code run keeps its spaces in every view
FROM_A_TRACE = ("Read from a trace, which does not record the live cache: the entries below are this frame's "
                "compilations, newest first, as each new entry is put in front. A trace cannot tell which entries "
                "later calls moved to the front (a hit does), which were dropped, or the recompile limit in force.")
DROPPED_BEFORE = ("explore() dropped this function's earlier entries before compiling it (so that it compiles "
                  "afresh): the cache holds what this capture made.")
NOT_READ = ("This report holds no reading of the live cache (an older report, or the frame's code was not seen): "
            "the entries below are this frame's compilations, newest first, as each new entry is put in front.")


def blocks(comp: Compilation, report: Report) -> list[Block]:
    """The pane of one compilation: the loop beside its frame's entries, the entries, the calls that compiled."""
    frame = frame_compilations(comp, report)
    cache = comp.frame_cache
    ids = ([e.compile_id for e in cache.entries] if cache is not None  # else each compilation that made an entry
           else [c.compile_id for c in reversed(frame) if c.guards or c.guard_tree])
    guards = {c.compile_id: guard_count(c) for c in frame}
    name = comp.frame.name
    caller = linked_by_breaks(comp, report, callers=True)
    out: list[Block] = [{"t": "p", "r": [
        "Every call of ", {"code": name}, f" ({loc_text(comp.frame.filename, comp.frame.lineno)})",
        [" (a resume function: the rewritten code of ", {"code": ", ".join(caller)}, " calls it at a graph break)"]
        if caller else "",
        " runs this loop, in Dynamo's frame evaluator (C code CPython calls instead of running the frame, through "
        "PEP 523). Beside each line, what it meets in this frame"
        + (f", its cache read {cache.read_at}:" if cache is not None else ":")]}]
    if cache is None:
        out.append({"t": "note", "cls": "cx-missing",
                    "r": FROM_A_TRACE if report.entry == "open" else NOT_READ})
    elif report.entry == "explore":  # the explorer changed this cache: said where it is shown
        out.append({"t": "note", "cls": "cx-missing cx-changed", "r": DROPPED_BEFORE})
    out.append(loop_table(comp, report, ids, guards, cache))
    out += entry_blocks(comp, ids, guards, cache, {c.compile_id for c in frame})
    out += replay_blocks(comp, report, frame)
    return out


def frame_compilations(comp: Compilation, report: Report) -> list[Compilation]:
    """The compilations of ``comp``'s frame (its code object) in the report, in compile order."""
    cid = comp.cid
    return [c for c in report.capture.compilations
            if c.origin == "dynamo" and c.cid is not None and cid is not None and c.cid.same_frame(cid)]


def guard_count(comp: Compilation) -> Optional[int]:
    """The number of guards an entry checks: the guards pane's rows (None where none were recorded)."""
    return len(comp.guards) if comp.guards else None


def _guards_text(cid: Optional[str], guards: dict, mine: str) -> str:
    n = guards.get(cid) if cid else None
    counted = f"{n} guards" if n is not None else "guards not in this report"
    return f"{cid or '?'}{' (this one)' if cid == mine else ''}: {counted}"


def loop_table(comp: Compilation, report: Report, ids: list, guards: dict,
               cache: Optional[FrameCache]) -> Table:
    """The loop, one pseudo-Python line per row, beside what that line meets in this frame."""
    name = comp.frame.name
    n = len(ids)
    backends = sorted({e.backend for e in cache.entries}) if cache is not None else []
    limit = cache.recompile_limit if cache is not None and cache.recompile_limit is not None else None
    resumes = linked_by_breaks(comp, report)
    tried = ", then ".join(_guards_text(i, guards, comp.compile_id) for i in ids) or "none: the cache is empty"
    lines = [
        (0, "def call(frame):", f"a call of {name}: its code object and its live arguments"),
        (1, "entries = frame.f_code.co_extra",
         f"{name}'s cache: {n} entr{'y' if n == 1 else 'ies'} [{', '.join(i or '?' for i in ids)}]"),
        (1, "for entry in entries:", "most recently used first"),
        (2, "if entry.backend != backend: continue",
         f"compiled for {', '.join(backends)}" if backends else "an entry is tried only under its own backend"),
        (2, "if entry.guards(frame):", tried),
        (3, "entries.move_to_front(entry)", "a hit goes first next time"),
        (3, "return run(entry.code, frame)",
         "its rewritten code: calls the compiled graph" + (
             f"; at its graph break a resume function, a new frame that runs this same loop ({', '.join(resumes)})"
             if resumes else "")),
        (1, "if too_many(entries, recompile_limit):",
         f"{n} of {limit}" if limit is not None else "recompile_limit: 8 by default (a trace does not say)"),
        (2, "return run(frame.f_code, frame)", f"{name} as plain Python, compiling nothing (its entries are "
                                              "still tried first on later calls)"),
        (1, "entry = dynamo_compile(frame)", "trace the bytecode, build the graph, call the backend, make guards: "
                                            "a new compile id"),
        (1, "entries.insert(0, entry)", "a new entry goes first"),
        (1, "return run(entry.code, frame)", ""),
    ]
    rows: list[Row] = [{"c": [{"code": INDENT * depth + text}, note],
             "text": (f"{'    ' * depth + text:<46}  # {note}" if note else "    " * depth + text)}
            for depth, text, note in lines]
    return {"t": "table", "cls": "cx-loop", "head": ["the loop (pseudo-Python)", f"in {name}"], "rows": rows}


def linked_by_breaks(comp: Compilation, report: Report, *, callers: bool = False) -> list[str]:
    """The compilations of the resume functions ``comp``'s graph breaks call (the fix list's sites); ``callers``:
    those whose graph break calls ``comp``, a resume function."""
    out: list[str] = []
    for site in report.clinic.fix_list:
        mine, theirs = (site.resume_ids, site.compile_ids) if callers else (site.compile_ids, site.resume_ids)
        if comp.compile_id in mine:
            out += [c for c in theirs if c not in out]
    return out


def entry_blocks(comp: Compilation, ids: list, guards: dict, cache: Optional[FrameCache],
                 known: set) -> list[Block]:
    """The entries one per row, in the order they are tried; a click leads to an entry's guards."""
    rows: list[Row] = []
    for i, cid in enumerate(ids, 1):
        entry = cache.entries[i - 1] if cache is not None else None
        n = guards.get(cid) if cid else None
        row: Row = {"c": [str(i), [{"code": cid or "?"}, " (this one)" if cid == comp.compile_id else ""],
                     str(n) if n is not None else "", entry.backend if entry is not None else "",
                     "" if cid in known else "compiled before this capture: its guards are not in this report"]}
        if cid in known:
            row["go"] = {"cid": cid, "stage": "guards"}
        rows.append(row)
    out: list[Block] = [{"t": "h", "r": "The frame's cache entries, in the order a call tries them"}]
    out.append({"t": "table", "cls": "cx-entries", "head": ["tried", "entry", "guards", "backend", ""], "rows": rows}
               if rows else {"t": "p", "r": "The cache held no entry when it was read: the next call compiles."})
    gone = [c for c in known if c not in ids]
    if cache is not None and gone:
        out.append({"t": "p", "cls": "cx-muted", "r": [
            "Compiled here but no longer in the cache when it was read: ", {"code": ", ".join(sorted(gone))},
            " (torch._dynamo.reset(), or the code was dropped)."]})
    return out


def replay_blocks(comp: Compilation, report: Report, frame: list[Compilation]) -> list[Block]:
    """The calls of this frame that compiled, replayed through the loop from torch's records: what each tried."""
    explained = {e.compile_id: e for e in report.clinic.recompiles}
    items: list[Item] = []
    for c in frame:
        e = explained.get(c.compile_id)
        here = " (this one)" if c.compile_id == comp.compile_id else ""
        if e is None:
            said = (f"no entry to try (the cache was empty) → compiled {c.compile_id}{here}" if not c.recompile_reason
                    else f"no cached entry's guards passed → compiled {c.compile_id}{here}")
        else:
            tried = "; ".join(f"{f.against} failed: {f.describe()}" for f in e.failures) or e.reason_text
            end = ("past recompile_limit: ran as plain Python, compiling nothing" if e.limit_hit
                   else f"refused by set_stance({e.refused_by!r}): raised" if e.refused_by
                   else f"compiled {c.compile_id}{here}")
            said = f"tried {tried} → {end}"
        if c.status == "failed":
            said += "; the compile failed, so no entry was made"
        items.append({"r": said, "text": f"call: {said}"})
    return [{"t": "h", "r": "The calls that compiled, through the loop"},
            {"t": "list", "ordered": True, "items": items},
            {"t": "p", "cls": "cx-muted", "r": "A call whose guards passed compiled nothing and left no record here; "
                                               "torch's record of the graphs as they ran is the header's \"Graphs in "
                                               "the order they ran\", where it logged one."}]
