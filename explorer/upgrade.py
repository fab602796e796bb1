"""Reports of an earlier schema version, read as this one: the one place their old string forms are taken apart.

``Report.from_dict`` passes a document of an older ``schema_version`` through ``upgrade`` before reading it, so
a report saved by an earlier explorer still loads and shows the same stages, labels and fixes. Each step turns
one version's JSON into the next one's; nothing else in the explorer knows the old forms.

Version 2 -> 3 (ids typed in the JSON): a user line of the chain (``Lineage.origins``) was ``"FILE:LINE"`` and
is ``{"file", "line"}``; a problem named a restart attempt inside its compile id (``"0/1_2"``) and now names
the compilation's key and the attempt beside it (``compile_id: "0/1", attempt: 2``); ``graph_execution``
holds the compilations' keys. The same holds in a merged report's ranks and in a preview's capture.

Version 3 -> 4 (a rank's view is a report's view): a merged report's rank (``distributed.ranks[]``) held copies of
some of its part's fields (``info``, ``capture``, ``fix_list``, ``recompiles``, ``lineage``, ``findings``,
``problems``, ``timing``, ``failure``) and now holds the part's whole report (``report``; ``missing`` says why a
rank has none). The copies' report is rebuilt: its problems less the capture's (version 3 listed those twice),
the lowest rank's notebook cells, comparisons, module structure and preview from the top level (which was that
rank's part); another rank's were not kept (the views read its module structure from its graphs again).
From version 4 on, a merged report holds a report per rank: a later step upgrades each of them as well.

Version 4 -> 5 (data, not pictures): an FX graph held its picture as Graphviz text (``dot``), which the views now
draw from its nodes (``present.graph_dot``, the same text): it is dropped. A repeated member group's diff
(``MemberGroup.diff``) was unified-diff lines (``@@ -56,3 +56,3 @@``, then `` ``/``-``/``+`` lines, perhaps
``… 3 more diff lines`` or, for members alike but for their class, one sentence saying so) and is its hunks as
data (``ListingHunk``: its ranges, its lines and each one's side) with ``diff_cut`` the lines left out. Both are
found by their shape wherever they sit (a compilation's stages, a region's or a DDP piece's graph, a preview's
capture, each rank's report).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .capturing.compile_id import CompileId


def upgrade(doc: dict[str, Any], to: int) -> dict[str, Any]:
    """``doc`` (a report's parsed JSON) as version ``to``; a version it cannot read raises ValueError."""
    version = doc.get("schema_version")
    while version != to:
        step = _STEPS.get(version) if isinstance(version, int) else None
        if step is None:
            older = ", ".join(str(v) for v in sorted(_STEPS))
            raise ValueError(f"this report has schema_version {version!r}; this explorer reads {to} "
                             f"(and upgrades {older} as it loads them)")
        doc = step(doc)
        version = doc["schema_version"]
    return doc


# ---- 2 -> 3 ----

def _v2_to_v3(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc, schema_version=3, capture=_capture(doc.get("capture")), lineage=_lineages(doc.get("lineage")),
               problems=_problems(doc.get("problems")))
    preview = doc.get("preview")
    if isinstance(preview, dict):
        out["preview"] = dict(preview, capture=_capture(preview.get("capture")))
    dist = doc.get("distributed")
    if isinstance(dist, dict) and dist.get("ranks"):
        out["distributed"] = dict(dist, ranks=[dict(r, capture=_capture(r.get("capture")),
                                                    lineage=_lineages(r.get("lineage")),
                                                    problems=_problems(r.get("problems")))
                                               for r in dist["ranks"]])
    return out


def _capture(capture: Optional[dict]) -> Optional[dict]:
    if not isinstance(capture, dict):
        return capture
    order = capture.get("graph_execution") or []
    return dict(capture, problems=_problems(capture.get("problems")),
                graph_execution=[CompileId.key_of(cid) for cid in order])


def _problems(problems: Optional[list]) -> Optional[list]:
    return [_problem(p) for p in problems] if isinstance(problems, list) else problems


def _problem(p: dict) -> dict:
    """``"0/1_2"`` -> ``"0/1"`` and attempt 2 (v2 wrote the attempt into the id, as torch prints it)."""
    cid = CompileId.parse(p.get("compile_id") or "")
    if cid is None:
        return p
    return dict(p, compile_id=cid.key, attempt=cid.attempt)


def _lineages(lineages: Optional[list]) -> Optional[list]:
    if not isinstance(lineages, list):
        return lineages
    return [dict(lin, origins=[_origin(o) for o in lin.get("origins", ())]) for lin in lineages]


def _origin(text: str) -> dict:
    """``"/home/me/prog.py:7"`` -> ``{"file": "/home/me/prog.py", "line": 7}`` (a file name may hold colons: the
    line is after the last one)."""
    file, _, line = text.rpartition(":")
    return {"file": file, "line": int(line)} if line.isdigit() else {"file": text, "line": 0}


# ---- 3 -> 4 ----

def _v3_to_v4(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(doc, schema_version=4)
    dist = doc.get("distributed")
    if isinstance(dist, dict) and dist.get("ranks"):
        out["distributed"] = dict(dist, ranks=[_rank_v4(r, doc) for r in dist["ranks"]])
    return out


def _rank_v4(run: dict, doc: dict[str, Any]) -> dict:
    """A version-3 rank (its part's fields, copied) as a version-4 one (its part's report)."""
    rank = {"rank": run.get("rank"), "report": None, "part": run.get("part"), "missing": None}
    if run.get("capture") is None:  # it wrote no part
        return dict(rank, missing=run.get("failure"))
    dist = doc["distributed"]
    top = run.get("rank") == dist.get("rank")  # the top level is this rank's part (plus the job's parts)
    capture, problems = run["capture"], list(run.get("problems") or ())
    own = capture.get("problems") or []
    if problems[:len(own)] == own:  # version 3's rank listed its capture's problems, then its own
        problems = problems[len(own):]
    report = {"capture": capture,
              "clinic": {"fix_list": run.get("fix_list") or [], "recompiles": run.get("recompiles") or [],
                         "cells": (doc.get("clinic") or {}).get("cells", {}) if top else {}},
              "timing": run.get("timing"), "comparisons": doc.get("comparisons", []) if top else [],
              "lineage": run.get("lineage") or [], "structure": doc.get("structure", []) if top else [],
              "findings": run.get("findings") or [], "problems": problems,
              "preview": doc.get("preview") if top else None, "entry": doc.get("entry", "cli"),
              "options": doc.get("options"),
              "distributed": {"world_size": dist.get("world_size"), "rank": run.get("rank"), "info": run.get("info"),
                              "ranks": [], "counts": [], "groups": [], "differences": [], "compilations": [],
                              "collectives": [], "notes": []},
              "schema_version": 4}
    return dict(rank, report=report)


# ---- 4 -> 5 ----

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CUT = re.compile(r"^… (\d+) more diff lines$")


def _v4_to_v5(doc: dict[str, Any]) -> dict[str, Any]:
    out = dict(_data_not_pictures(doc), schema_version=5)
    dist = out.get("distributed")
    if isinstance(dist, dict) and dist.get("ranks"):
        out["distributed"] = dict(dist, ranks=[dict(r, report=dict(r["report"], schema_version=5))
                                               if isinstance(r, dict) and isinstance(r.get("report"), dict) else r
                                               for r in dist["ranks"]])
    return out


def _data_not_pictures(value: Any) -> Any:
    """``value`` with every FX graph's ``dot`` dropped and every member group's text diff read into hunks."""
    if isinstance(value, list):
        return [_data_not_pictures(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "num_nodes" in value and "nodes" in value:  # an FX graph: nothing else to read inside (its nodes are most of
        return {k: v for k, v in value.items() if k != "dot"}  # a report, so they are not walked)
    out = {k: _data_not_pictures(v) for k, v in value.items()}
    if {"members", "size"} <= set(value) and isinstance(value.get("diff"), list):
        out["diff"], out["diff_cut"] = _hunks(value["diff"])
    return out


def _hunks(lines: list) -> tuple[list[dict], int]:
    """Unified-diff lines (version 4's ``MemberGroup.diff``) as hunks, and the lines left out."""
    hunks: list[dict] = []
    cut = 0
    for line in lines:
        if not isinstance(line, str):
            continue
        head, more = _HUNK.match(line), _CUT.match(line)
        if head:
            a, b = _span(head[1], head[2]), _span(head[3], head[4])
            hunks.append({"first_start": a[0], "first_count": a[1], "this_start": b[0], "this_count": b[1],
                          "lines": [], "sides": ""})
        elif more:
            cut = int(more[1])
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1]["lines"].append(line[1:])
            hunks[-1]["sides"] += line[0]
        # else: the sentence of members alike but for their class (no hunk), which the views write again
    return hunks, cut


def _span(start: str, count: Optional[str]) -> tuple[int, int]:
    """A unified diff's range (``7``: one line; ``7,3``; ``6,0``: none, after line 6) as (first line from 0, count)."""
    n = 1 if count is None else int(count)
    return (int(start) - 1 if n else int(start)), n


_STEPS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5}
