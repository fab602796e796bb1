"""The view model: a report as plain data (dicts, lists, strings, numbers) that every view draws.

Built once per report (``build``). The front end (``frontend/src/``) draws it in the
notebook widget and on the standalone page; ``present.html`` draws it as static
HTML (the copy GitHub and nbviewer show without JavaScript); ``present.text``
draws the parts that read as text. A pane, a label or an explanation changes
here, in one place; the renderers only know how to draw a dozen kinds of block.
Big texts (code, listings, kernel sources) are not copied in: a ``code`` block
names the text by its path in the compilation (``src``: ``"graph.code"``,
``"kernels.3.source"``), which the renderer reads from the report it has (the
report's JSON in the browser, the dataclasses in Python).

Blocks (``{"t": KIND, ...}``); optional keys in brackets:
  p        {r, [cls]}                        a paragraph of inline runs
  h        {r, [cls]}                        a small heading
  note     {r, cls}                          a coloured box: cx-missing (why not), cx-bad (failed), cx-finding
  list     {items: [{r, [body], [origin], [text]}], [ordered], [cls]}
  table    {head: [str], rows: [{c: [runs], [origin], [cls], [th]}], [cls], [key], [caption]}; th: the first
           cell heads its row
           key: the lineage block of the rows (row i is line i + 1); origin: the row's own user line
  code     {key, src, lang, [first], [linenos], [marks], [title], [sub]}
           key: the lineage block (``block_key``: ``STAGE:PART``, ``kernels:REF``; a name, never split);
           marks: rows (1-based) to mark
  details  {s: runs, body: [blocks], [open], [cls]}
  section  {title, body, [open], [text]}     a header section (the fix list, recompiles); text: its plain form
  div      {body, cls, [data], [id], [fold]} a group (one kernel: data {"kernel": name, "ref": ref}); fold: a
           summary under which a long page may fold it
  graph    {stage, code: code block, num_nodes}   an FX graph: its code and its picture
  chart    {title, rows: [[label, value, text, colour]]}   bars
  button   {r, go: {stage, [diff]}}          interactive views only: moves the pane (static views skip it); diff: the
           pane to diff against, ``{cid, stage, [rank]}`` (``diff_view.side``)
  diff     a pane against another, computed in Python (``present.diff_view`` has its format)
A table row or a list item may carry ``go`` ({rank, [cid], [stage], [diff], [origins]}: where a click on it
leads in the interactive views: that rank, its compilation and stage, a diff source (``{cid, stage, [rank]}``),
user lines to light;
static views ignore it). ``text`` is a block's plain form where its runs would not read as a line (the text
summary prints it instead; a list of strings is several lines): on p, h, note, a table row, a list item,
details; on a section, its heading line. ``summary: False`` leaves a block (or a table row) out of the text.
An origin (``origin``, ``origins``) is a user line as an object ``{file, line}`` (``fmt.origin_of``; the views
write it ``FILE:LINE`` in their ``data-origin`` attribute, ``fmt.origin_key``).
Inline runs: a string, a list of runs, or {b: runs} | {code: str, [origin]} | {muted: runs} | {a: text, href}
| {chip: str} | {go: {stage, [kernel], [anchor]}, code: str} (a link to another pane: ``kernel`` names one kernel
of the kernels stage by its key, ``kernel_refs``) | {bar: percent} | {br: true}
| {origin} (code linked to a user line; its text is ``code`` when given, else the origin).

Top level: ``stages`` (the registry), ``labels`` (each part's name, what an empty stage is called, the
interactive views' own words: ``present.words``),
``ranks`` (a merged multi-rank report's picker and "ranks compared" blocks, drawn above the rest:
``present.ranks``; None for any other report), ``header`` ({chips, body}), ``timing`` (a section or
None) and ``compilations``, one per compilation
in capture order: ``cid``, ``label``, ``frame``, ``summary``, ``failed``, ``present`` and ``why``
(the stages with content; why the others are empty; ``why_report`` for report-wide ones),
``kernels`` (stable keys), ``previous`` (what a recompile replaced: the diff's other side), ``diffs`` (its
``diff`` blocks against it, made by ``build`` when it builds panes),
``break_line``, ``findings`` (notes for the pane of their stage), ``from_where`` (a warm capture's
caches, kernels loaded or built, the stance: drawn over every pane of the compilation;
``present.usage_view`` builds it and the other parts of real programs' use) and ``panes`` (stage id ->
blocks, for every present stage, or those ``build(panes=...)`` asked for: ``ensure_panes`` adds the
others; ``kernels`` holds one ``div`` per kernel, which a pane of stage ``kernels`` with a ``kernel`` shows alone).
Whether a
stage has content is ``present``, not ``panes``. A new pane or section adds blocks here, never a
renderer's branch.

Sits on the report; imports no renderer.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Any, Collection, Optional, Union

from ..capturing.model import CaptureData, Compilation, Kernel
from ..clinic.locate import GuardLine, guard_line
from ..plural import counted, noun
from ..report import Report
from ..stages import STAGES, Stage, why_missing
from . import (
    changes_view,
    ddp_view,
    diff_view,
    loop_view,
    numbers_view,
    partial_reads,
    preview_view,
    ranks,
    saved_view,
    structure_view,
    usage_view,
    words,
)
from .escape import safe_url
from .fmt import (
    comp_label,
    comp_name,
    flops_line,
    format_time,
    headline,
    launched_by_text,
    loc_text,
    measurement_text,
    name_cells,
    origin_key,
    origin_of,
    ratio_text,
)
from .inlined_view import entry_index, function_blocks, inlined_blocks

MISSING_LABELS = {"source": "Source not available", "graph_break": "No graph break", "kernels": "No kernels",
                  "timing": "Not timed"}  # any other empty stage: "Not captured here"
MAX_TABLE_ROWS = 2_000
SOURCE_ORIGINS = {  # a trace's source (``Bytecode.source_origin``): where it was read, since no code object was
    "file": "The trace holds no source: this is {file} as it is on this machine now, at the path the job "
            "recorded (if it changed since the job ran, lines may not match).",
    "quoted": "{file} is not on this machine: only the lines the trace quotes (the graphs' and guards' comments, "
              "the graph break) are shown, the others are blank. Open the trace where the job's code is, at the "
              "same path, to see it all."}
PART_NAMES = {"dynamo": "Dynamo", "aot": "AOTAutograd", "inductor": "Inductor", "runtime": "Runtime"}
EAGER_COLOUR = "#9aa5b1"
COMPILED_COLOUR = "#3b7dd8"


def as_report(obj: Any) -> Report:
    """A Report as is; bare capture data gets the clinic's reading, so it shows the same way."""
    return Report.of(obj)


def block_key(stage: str, part: int = 0, kernel: Optional[str] = None) -> str:
    """The name of one text a pane shows, as code blocks and the chain's compacted blocks name it (``STAGE:PART``;
    ``kernels:REF`` for one kernel's source): built here only, and only ever compared, never split."""
    return f"kernels:{kernel}" if stage == "kernels" and kernel else f"{stage}:{part}"


def kernel_refs(comp: Compilation) -> list[str]:
    """A stable key per kernel, parallel to ``comp.kernels``: its name, or ``graph_kind/name`` when a
    name repeats (forward and backward can each have a ``cpp_fused_0``)."""
    names = Counter(k.name for k in comp.kernels)
    return [k.name if names[k.name] == 1 else f"{k.graph_kind}/{k.name}" for k in comp.kernels]


def previous_compilation(comp: Compilation, data: CaptureData) -> Optional[Compilation]:
    """The frame's compilation before ``comp`` (what a recompile replaced), or None."""
    mine = comp.cid
    prev = [c for c in data.compilations if c.frame == comp.frame and mine is not None and c.cid is not None
            and c.cid < mine]
    return prev[-1] if prev else None


def break_line(comp: Compilation) -> Optional[int]:
    """The graph-break line if it lies in this compilation's own frame source."""
    gb, bc = comp.graph_break, comp.original_bytecode
    if gb is None or gb.lineno is None or bc is None or not bc.source:
        return None
    if gb.filename and os.path.abspath(gb.filename) != os.path.abspath(bc.filename or comp.frame.filename):
        return None
    first = bc.firstlineno or comp.frame.lineno
    last = first + bc.source.count("\n")
    return gb.lineno if first <= gb.lineno <= last else None


# ---- the whole report ----

def labels() -> dict:
    """Words the views put around the registry's: each part's name, what an empty stage is called, and the
    interactive views' own (``ui``: their controls and pane states, ``present.words``)."""
    return {"parts": PART_NAMES, "missing": {s.id: MISSING_LABELS.get(s.id, words.front("not_captured"))
                                             for s in STAGES}, "ui": words.FRONT}


Panes = Union[bool, Collection[str]]  # which present stages' panes to build: all, none, or these ids


def build(report: Any, *, panes: Panes = True) -> dict:
    """The view model of ``report`` (a Report, or bare capture data).

    ``panes``: True builds every present stage's pane; False none (the one-screen summary draws none);
    a collection of stage ids only those (a big report's widget sends its first panes first). A pane left
    out is built later by ``ensure_panes``, and comes out the same."""
    report = as_report(report)
    data = report.capture
    name_cells(report.clinic.cells)  # its notebook cells' files read "cell [5]" wherever a place is named
    comps = [compilation(c, report, panes=panes) for c in data.compilations]
    for c, view in zip(data.compilations, comps):  # what a view offers to diff at once (diff_view; the text none)
        prev = previous_compilation(c, data) if panes and c.recompile_reason else None
        view["diffs"] = recompile_diffs(c, prev, report) if prev is not None else []
    job = ranks.build(report)
    if job is not None:
        job["diffs"] = [pane_diff(report, a, b) for a, b in ranks.diff_pairs(report.distributed)] if panes else []
    return {
        "stages": [s.to_dict() for s in STAGES],
        "labels": labels(),
        "ranks": job,
        "header": header(report),
        "timing": timing_section(report),
        "compilations": comps,
    }


def header(report: Report) -> dict:
    """The numbers first, then what to fix: what a reader checks before opening anything."""
    data = report.capture
    chips = [count_chip(n, *nouns) for n, nouns in zip(
        (len(data.compilations), data.num_graphs, data.break_count, len(data.recompiles), len(data.kernels)),
        COUNT_NOUNS)] + [["compile time", f"{data.compile_time_s:.2f} s"]]
    if data.wall_time_s is not None:
        chips.append(["wall time", f"{data.wall_time_s:.2f} s"])
    chips += usage_view.header_chips(data)  # which cache mode ran, the stance in force
    chips += [["device", data.device], ["torch", data.torch_version], ["python", data.python_version]]
    if report.distributed is not None:  # whose report this is, in a distributed job
        chips.insert(0, ["rank", f"{report.distributed.rank} of {report.distributed.world_size}"])
    body: list[dict] = []
    if data.error:
        body.append(note("cx-bad", [{"b": "The code raised "}, data.error]))
    body += fix_list(report.clinic.fix_list, data.break_count)
    body += recompiles(report.clinic.recompiles, {c.compile_id for c in data.compilations}, report.clinic.cells)
    for f in report.findings:
        where = f" [{f.compile_id}]" if f.compile_id else ""
        body.append(note("cx-missing cx-finding", [{"b": f"torch.compile differs from a plain run{where}: "},
                                                  f.message, {"muted": f" {f.hint}"} if f.hint else ""]))
    for n in data.notes:
        body.append(note("cx-missing", [{"b": "Note: "}, n]))
    body += ddp_view.header_notes(data)  # what DDP and FSDP2 did that the graphs do not show
    body += usage_view.header_blocks(data, {c.compile_id: c for c in data.compilations})
    body += graph_order(data)
    body += partial_reads.header_notes(data)  # records read in part whose data no pane shows
    body += preview_view.header_blocks(report)  # --target cuda: what was lowered for the GPU, what was not and why
    for p in report.all_problems:
        body.append(note("cx-bad cx-problem", [{"b": words.could_not(p.where)}, p.detail()]))
    unknown = [a for a in data.other_artifacts if not a.why.startswith("dropped")]
    if unknown:
        items = [{"r": [{"code": a.name}, f" [{a.compile_id}]" if a.compile_id else "",
                        f": {counted(a.count, 'record')}, {counted(a.size, 'character')}"]} for a in unknown]
        # the explorer's internals: folded in the page, left out of the text summary (the JSON has them all)
        body.append({"t": "section", "title": f"Other artifacts torch emitted that the explorer does not show "
                     f"({len(unknown)})", "open": False, "body": [{"t": "list", "items": items}],
                     "summary": False})
    return {"chips": chips, "body": body}


# the header's counts, in order: each chip's label agrees with its number ("1 graph break")
COUNT_NOUNS = (("compilation", "compilations"), ("graph", "graphs"), ("graph break", "graph breaks"),
               ("recompile", "recompiles"), ("kernel", "kernels"))
COUNT_CHIPS = frozenset(w for pair in COUNT_NOUNS for w in pair)


def count_chip(n: int, singular: str, plural: str) -> list:
    return [noun(n, singular, plural), n]


MAX_ORDER_RUNS = 40


def graph_order(data: CaptureData) -> list[dict]:
    """The compiled graphs in the order they ran (torch's graph_execution), repeats folded: ``0/0 ×3 → 1/0``."""
    order = data.graph_execution
    if not order:
        return []
    runs: list[list] = []
    for cid in order:
        if runs and runs[-1][0] == cid:
            runs[-1][1] += 1
        else:
            runs.append([cid, 1])
    text = " → ".join(f"{cid}{f' ×{n}' if n > 1 else ''}" for cid, n in runs[:MAX_ORDER_RUNS])
    more = f" … ({counted(len(runs) - MAX_ORDER_RUNS, 'more run')})" if len(runs) > MAX_ORDER_RUNS else ""
    n = len(order)
    return [{"t": "section", "title": f"Graphs in the order they ran ({n} call{'s' if n != 1 else ''})",
             "open": False, "text": f"graph order ({n} calls): {text}{more}",
             "body": [{"t": "p", "r": [{"code": text}, more]},
                      {"t": "p", "cls": "cx-muted", "r": "Each compiled graph (by compile id) as Inductor's code ran "
                       "it, recorded by torch._inductor.debug.record_and_log_graph_execution_order(); repeats "
                       "of one graph are folded (×N)."}]}]


def schedule_blocks(comp: Compilation) -> list[dict]:
    """Inductor's collective schedule of each lowered graph: the order the collectives run in."""
    out = []
    for s in comp.collective_schedule:
        ops = " → ".join(op.replace("torch.ops.", "") for op in s.ops)
        out.append({"t": "p", "r": [{"b": f"Collectives as Inductor scheduled them ({s.graph_kind}): "},
                                    {"code": ops or "none"}],
                    "text": f"collective schedule ({s.graph_kind}): {ops or 'none'}"})
    return out


def note(cls: str, runs: Any) -> dict:
    return {"t": "note", "cls": cls, "r": runs}


def fix_list(sites: Any, total_breaks: Optional[int] = None) -> list[dict]:
    """The "what to fix" list: one row per break site, most costly first."""
    if not sites:
        return []
    items = []
    for s in sites:
        link = safe_url(s.doc_url)
        code = ([" [", {"a": s.gb_code, "href": link} if link else s.gb_code, "]"] if s.gb_code else "")
        items.append({"origin": origin_of(s.filename, s.lineno), "text": s.line(), "r": [
            {"code": s.location}, ": ", s.reason, code, f" ×{s.count}" if s.count > 1 else "",
            [" ", {"code": s.source_line}] if s.source_line else ""],
            "body": ([{"t": "p", "cls": "cx-muted", "r": f"hint: {s.hints[0]}"}] if s.hints else []) + [
                {"t": "p", "cls": "cx-muted", "r": s.ran_as_python}]})
    n = len(sites)
    of = f" ({counted(total_breaks, 'break')})" if total_breaks is not None else ""
    return [{"t": "section", "title": f"Graph breaks: what to fix ({n} site{'s' if n != 1 else ''})", "open": True,
             "text": f"graph breaks: {n} site{'s' if n != 1 else ''} to fix{of}, most costly first",
             "body": [{"t": "list", "cls": "cx-breaks", "items": items}]}]


def recompiles(explained: Any, cids: Any = (), cells: Any = None) -> list[dict]:
    """One line per recompile: the failing guard, old -> new value, the user line, the remedy. One a stance
    refused reads the same, marked refused; it leads to the guards of the compilation it failed (``cids``:
    the compilations this report has; ``cells``: the notebook cells' names, ``Clinic.cells``)."""
    if not explained:
        return []
    items = [recompile_item(e, cids, cells) for e in explained]
    return [{"t": "section", "title": f"Recompiles ({len(items)})", "open": len(items) <= 4,
             "text": f"recompiles: {len(items)}", "body": [{"t": "list", "cls": "cx-recompiles", "items": items}]}]


def recompile_item(e: Any, cids: Any = (), cells: Any = None) -> dict:
    item = {"r": e.one_line(cells), "origin": origin_of(e.primary.filename, e.primary.lineno) if e.primary else None}
    if not e.refused_by:
        return item
    item.update(text=e.one_line(cells), cls="cx-refused", r=[{"chip": f"refused by set_stance({e.refused_by!r})"},
                                                              " ", e.one_line(cells)])
    item["body"] = [{"t": "p", "cls": "cx-muted", "r": [
        f"The call would have compiled {e.compile_id} (a new entry for {e.frame_name}); the stance made it raise "
        "instead, so no compilation exists for it. Its cached entries' failing guards:"]},
        {"t": "list", "items": [{"r": [{"code": f.against}, f" {f.describe()}",
                                       {"muted": f" (guard from {f.guard_where(cells)})"} if f.lineno else ""],
                                 "origin": origin_of(f.filename, f.lineno)} for f in e.failures]}]
    against = e.primary.against.strip("[]") if e.primary else ""
    if against in cids:
        item["go"] = {"cid": against, "stage": "guards"}
    return item


# ---- one compilation ----

def compilation(comp: Compilation, report: Report, *, panes: Panes = True) -> dict:
    data = report.capture
    present = [s.id for s in STAGES if s.scope == "compilation" and s.present(comp)]
    why = {s.id: why_missing(s.id, comp) for s in STAGES if s.scope == "compilation" and s.id not in present}
    refs = kernel_refs(comp)
    prev = previous_compilation(comp, data) if comp.recompile_reason else None
    drawn = stage_panes(comp, report, [sid for sid in present if panes is True or (panes and sid in panes)], refs)
    timed = timing_pane(report, comp.compile_id) if panes else None
    if panes and comp.phases:  # compile time per phase (a trace's chromium events), over the timing if any
        timed = phases_blocks(comp) + (timed or [note("cx-missing", why_missing("timing", comp))])
    why_report = {}  # report-wide stages (timing): why this compilation has none
    if timed is not None:
        drawn["timing"] = timed
    elif panes:
        why_report["timing"] = ("no graph of this compilation was timed" if report.timing is not None
                                else why_missing("timing", comp))
    bits = usage_view.region_bits(comp)  # the frame list names its regions, disabled and opaque calls
    return {"cid": comp.compile_id, "label": comp_label(comp) + (f" · {', '.join(bits)}" if bits else ""),
            "frame": comp.frame.name, "summary": comp_summary(comp, report),
            "from_where": usage_view.from_where(comp),
            "failed": headline(comp.failure) if comp.failure else None, "present": present,
            "why": why, "why_report": why_report, "kernels": refs,
            "previous": prev.compile_id if prev is not None else None,
            "break_line": break_line(comp), "findings": [finding_note(f) for f in report.findings
                                                         if f.compile_id == comp.compile_id and f.stage],
            "repeats": structure_view.summary(report, comp),  # "repeated: 80× Block (layers.0–79), ..."
            "panes": drawn}


def stage_panes(comp: Compilation, report: Report, stages: Collection[str],
                refs: Optional[list[str]] = None) -> dict[str, list[dict]]:
    """The panes of these present stages of one compilation, with what real programs' use adds and a
    recompile's diff button: a stage's pane is the same whether it is built alone or with the others."""
    refs = kernel_refs(comp) if refs is None else refs
    name_cells(report.clinic.cells)  # built alone (a widget's later panes, a diff): named as in ``build``
    drawn = {sid: stage_blocks(BY_STAGE[sid], comp, refs, report) for sid in stages}
    usage_panes(drawn, comp, report, refs)
    structure_view.fold_panes(drawn, comp, report, guard_row)  # a model's repeated blocks, folded
    prev = previous_compilation(comp, report.capture) if comp.recompile_reason and "graph_break" in drawn else None
    if prev is not None:  # after the recompile's reason: its diff, one click away
        at = next(i for i, b in enumerate(drawn["graph_break"]) if b.get("key") == "recompile:0") + 1
        drawn["graph_break"].insert(at, {"t": "button", "go": {"stage": "graph",
                                                               "diff": diff_view.side(prev.compile_id, "graph")},
                                         "r": f"Show the FX graph's diff against {prev.compile_id}"})
    return drawn


# ---- diffs: a pane against another (present.diff_view computes them) ----

def pane_title(stage: str, kernel: Optional[str] = None) -> str:
    """What a pane shows: its stage's title, or one kernel's."""
    if kernel is not None:
        return words.front("kernel_title", ref=kernel)
    return BY_STAGE[stage].title if stage in BY_STAGE else stage


def pane_lines(report: Report, side: dict) -> diff_view.Pane:
    """The lines of the pane a diff's side names (``{"cid", "stage", ["kernel"], ["rank"]}``: its rank's in a merged
    report), built as the views build it."""
    if side.get("rank") is not None and report.distributed is not None and report.distributed.rank != side["rank"]:
        report = report.rank(int(side["rank"]))
    comp = report.compilation(side["cid"])
    stage = side["stage"]
    if stage == "timing":
        blocks = timing_pane(report, comp.compile_id) or []
    elif stage in BY_STAGE and BY_STAGE[stage].scope == "compilation" and BY_STAGE[stage].present(comp):
        blocks = pane_blocks({"panes": stage_panes(comp, report, [stage])}, stage, side.get("kernel")) or []
    else:
        blocks = []
    return diff_view.pane_lines(blocks, lambda src: resolve(comp, src))


def pane_diff(report: Report, a: dict, b: dict) -> dict:
    """Any two panes' diff (what the widget asks its kernel for): sides ``{"cid", "stage", ["kernel"], ["rank"]}``."""
    a, b = (diff_view.side(str(s["cid"]), str(s["stage"]), s.get("rank"), kernel=s.get("kernel")) for s in (a, b))
    return diff_view.diff_block(a, pane_lines(report, a), b, pane_lines(report, b),
                                (pane_title(a["stage"], a.get("kernel")), pane_title(b["stage"], b.get("kernel"))))


def recompile_diffs(comp: Compilation, prev: Compilation, report: Report) -> list[dict]:
    """A recompile against the compilation it replaced: each of ``diff_view.DIFF_STAGES`` that both have."""
    stages = [s for s in diff_view.DIFF_STAGES if BY_STAGE[s].present(comp) and BY_STAGE[s].present(prev)]
    mine, theirs = stage_panes(comp, report, stages), stage_panes(prev, report, stages)
    return [diff_view.diff_block(diff_view.side(prev.compile_id, s), diff_view.pane_lines(theirs[s], _text(prev)),
                                 diff_view.side(comp.compile_id, s), diff_view.pane_lines(mine[s], _text(comp)),
                                 (BY_STAGE[s].title,) * 2) for s in stages]


def _text(comp: Compilation) -> Any:
    return lambda src: resolve(comp, src)


def ensure_panes(view: dict, comp: Compilation, report: Report, stages: Optional[Collection[str]] = None) -> dict:
    """``view``'s panes (one compilation of a model), first building those of ``stages`` (None: every present
    stage) that it was made without; they are kept in it."""
    wanted = view["present"] if stages is None else [sid for sid in stages if sid in view["present"]]
    todo = [sid for sid in wanted if sid not in view["panes"]]
    if todo:
        view["panes"].update(stage_panes(comp, report, todo, view["kernels"]))
    return view["panes"]


def usage_panes(drawn: dict, comp: Compilation, report: Report, refs: list[str]) -> None:
    """What real programs' use adds to the panes: where a cached stage came from, the frame's compiled regions,
    the guards a filter dropped, the exported program's tables, which record the chain's links were read from."""
    for sid, bs in drawn.items():
        bs[:0] = (changes_view.note(sid, comp, report) + usage_view.cache_note(sid, comp, report.capture.cache_mode)
                  + usage_view.aoti_note(sid, comp) + ddp_view.piece_note(BY_STAGE[sid], comp)
                  + partial_reads.pane_notes(sid, comp, report.capture))
    if "graph" in drawn:
        drawn["graph"] += usage_view.regions_blocks(comp) + ddp_view.split_blocks(comp)
    if "guards" in drawn:
        drawn["guards"][:0] = usage_view.guard_filter_blocks(comp)
    if "output_code" in drawn:
        drawn["output_code"][:0] = schedule_blocks(comp)
    ep = next((e for e in report.capture.exports if e.compile_id == comp.compile_id), None)
    if ep is not None and "export_graph" in drawn:
        drawn["export_graph"] += usage_view.export_blocks(ep)
    lin = next((x for x in report.lineage if x.compile_id == comp.compile_id), None)
    sources = {(t.stage, t.part): t.source for t in lin.texts if t.source} if lin is not None else {}
    for sid in ("output_code", "ir_pre_fusion", "ir_post_fusion"):
        bs = drawn.get(sid, [])
        captions = {block_key(sid, part): source for (stage, part), source in sources.items() if stage == sid}
        for i in reversed(range(len(bs))):
            source = captions.get(bs[i].get("key")) if bs[i]["t"] == "code" else None
            if source:
                bs.insert(i, usage_view.chain_caption(source))
    # the kernels' sources: once over the pane when they agree (a big report has thousands), else per kernel
    index = {ref: i for i, ref in enumerate(refs)}
    kernels = drawn.get("kernels", [])
    named = {sources.get(("kernels", i)) for i in range(len(refs))}
    if len(named) == 1 and None not in named:
        at = next((i for i, b in enumerate(kernels) if b.get("cls") == "cx-kindex"), 0)
        kernels.insert(at, usage_view.chain_caption(named.pop()))
        return
    for b in kernels:
        source = sources.get(("kernels", index[b["data"]["ref"]])) if b["t"] == "div" else None
        if source:
            b["body"].insert(-1, usage_view.chain_caption(source))


def why_not(view: dict, key: str) -> str:
    """Why a compilation's view has nothing for stage ``key``."""
    return view["why"].get(key) or view["why_report"].get(key) or words.front("not_recorded")


def pane_blocks(view: dict, stage: str, kernel: Optional[str] = None) -> Optional[list[dict]]:
    """The blocks a pane shows for ``stage``; of the kernels stage, ``kernel`` (its key, ``kernel_refs``) picks that
    kernel's own part."""
    if stage == "kernels" and kernel is not None:
        divs = [b for b in view["panes"].get("kernels", ()) if b["t"] == "div" and b["data"]["ref"] == kernel]
        return divs or None
    return view["panes"].get(stage)


def finding_note(f: Any) -> dict:
    """A finding shown at the top of the pane of the stage it concerns."""
    return dict(note("cx-missing cx-finding", [{"b": "torch.compile differs from a plain run: "}, f.message,
                                               {"muted": f" {f.hint}"} if f.hint else ""]), stage=f.stage)


def comp_summary(comp: Compilation, report: Optional[Report] = None) -> list:
    bits = [comp.status.replace("_", " ")]
    if comp.graph is not None:
        bits.append(counted(max(comp.graph.num_nodes, len(comp.graph.nodes)), "node"))
    if comp.kernels:
        bits.append(counted(len(comp.kernels), "kernel"))
    if comp.graph_break is not None:
        bits.append("graph break")
    if comp.recompile_reason:
        bits.append("recompile")
    if comp.failure:
        bits.append("failed")
    if comp.compile_time_s:
        bits.append(f"{comp.compile_time_s:.2f} s")
    bits += usage_view.region_bits(comp)
    entry = comp.entry if comp.entry is not None and (comp.entry.wrapper or comp.entry.decorated) else None
    at = entry.called_at if entry is not None and entry.called_at else None
    file, line = ((at.filename, at.lineno) if at else (entry.filename, entry.lineno) if entry and entry.decorated
                  else (comp.frame.filename, comp.frame.lineno))
    where = (report.clinic.where(file, line) if report is not None
             else loc_text(file, line))  # "cell [5], line 3" in a notebook
    frame = "" if entry is None else (f"; compiled frame: {comp.frame_text}, a decorator's wrapper"
                                      if entry.decorated else f"; torch's frame: {comp.frame_text}")
    name = comp_name(comp)
    cell = name.split(",")[0]
    if name.startswith("cell [") and where.startswith(cell + ", "):  # "cell [5] (line 3)": the cell named once
        where = where[len(cell) + 2:]
    return [{"code": comp.compile_id}, f" {name} ",
            {"muted": f"({'called at ' if at else ''}{where}) — {', '.join(bits)}{frame}"}]


def resolve(obj: Any, path: str) -> Any:
    """``"kernels.3.source"`` in a compilation (the path a code block names, read as the front end reads the JSON)."""
    for name in path.split("."):
        obj = obj[int(name)] if name.isdigit() else getattr(obj, name, None)
        if obj is None:
            return None
    return obj


def code(key: str, src: str, lang: Optional[str], **kw: Any) -> dict:
    return {"t": "code", "key": key, "src": src, "lang": lang, **{k: v for k, v in kw.items() if v}}


def stage_blocks(stage: Stage, comp: Compilation, refs: list[str], report: Optional[Report] = None) -> list[dict]:
    """The blocks of one present stage of one compilation; a pane that reads other compilations (the loop reads
    its frame's) reads them from ``report`` (None: ``comp`` alone)."""
    if stage.kind in _WITH_REPORT:
        return _WITH_REPORT[stage.kind](comp, report if report is not None else as_report(_alone(comp)))
    return _BY_KIND[stage.kind](stage, comp, refs)


def _alone(comp: Compilation) -> CaptureData:
    return CaptureData(torch_version="", device="", python_version="", compilations=(comp,))


def _source(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    bc = comp.original_bytecode
    first = bc.firstlineno or comp.frame.lineno
    line = break_line(comp)
    k = entry_index(comp)  # a decorator's wrapper's frame: the pane opens on the module's forward it wraps
    # (then the forward's own block names it and its place)
    out = [{"t": "p", "cls": "cx-muted", "r": loc_text(bc.filename, first, bc.name)}] if k is None else []
    if bc.source_origin in SOURCE_ORIGINS:  # read from a trace: the file as it is now, or the lines quoted
        out.append(note("cx-missing", SOURCE_ORIGINS[bc.source_origin].format(file=bc.filename)))
    if comp.is_resume:
        out.append({"t": "p", "cls": "cx-muted", "r": "A resume function: Dynamo made it to run the rest of the "
                    "function after an earlier graph break; its code starts at the instruction after the break (after "
                    "a data-dependent branch, there is one for each side). Its calls go through the same cache and "
                    "guards as any frame's (How the pieces run)."})
    if comp.entry is not None and comp.entry.wrapper:
        out.append({"t": "p", "cls": "cx-muted", "r": [
            "torch.compile was given ", {"code": comp.entry.name.partition(".")[0]}, ", whose code is torch's: "
            "Dynamo compiled this wrapper frame of torch's, which calls it, and inlined its ",
            {"code": comp.entry.name}, "."]})
    gb = comp.graph_break
    if line is not None:
        out.append({"t": "p", "r": ["Line ", {"b": str(line)}, " (highlighted) is where the graph break happened: ",
                                    gb.reason]})
    elif gb is not None:  # the break is in a function this frame calls
        out.append({"t": "p", "r": ["The graph break happened outside this code, at ",
                                    {"code": loc_text(gb.filename, gb.lineno)}, ": ", gb.reason]})
    out.append({"t": "p", "cls": "cx-hint", "interactive": True,
                "r": "Hover or click a line: every pane lights what came from it."})
    frame = [code("source:0", "original_bytecode.source", "python", first=first, linenos=True,
                  marks=[line - first + 1] if line else None, file=bc.filename)]
    if k is None:
        return out + frame + inlined_blocks(comp)
    # a decorator's wrapper around the module's forward: the forward first, the wrapper Dynamo compiled below it
    wrapper = [{"t": "h", "r": "The decorator's wrapper Dynamo compiled"},
               {"t": "p", "cls": "cx-muted", "r": [
                   "Dynamo compiled ", {"code": comp.frame.name}, f" ({loc_text(bc.filename, first)}), the wrapper "
                   "a decorator put around ", {"code": comp.entry.name}, ", and inlined the forward above into it."]}]
    return out + function_blocks(comp, k) + wrapper + frame + inlined_blocks(comp, shown_first=k)


_DIS_LINE = re.compile(r"^\s*(?:(\d+)\s+)?(?:>>|L\d+:)?\s*\d+\s+[A-Z_]")  # jump targets: >> to 3.12, L1: in 3.13


def listing_rows(listing: str, lineno: Optional[int]) -> list[int]:
    """Rows (1-based) of a ``dis`` listing whose instructions come from source line ``lineno``."""
    if lineno is None:
        return []
    rows, current = [], None
    for i, text in enumerate(listing.splitlines(), 1):
        m = _DIS_LINE.match(text)
        if not m:
            continue
        if m.group(1):
            current = int(m.group(1))
        if current == lineno:
            rows.append(i)
    return rows


def _bytecode(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    """A ``dis`` listing; the original's marks the graph-break line's instructions."""
    bc = stage.content(comp)
    line = break_line(comp) if stage.id == "original_bytecode" else None
    out = [{"t": "p", "cls": "cx-muted", "r": f"{bc.name} — {loc_text(bc.filename, bc.firstlineno)}"}]
    if line is not None:
        out.append({"t": "p", "r": ["Highlighted: the instructions of line ", {"b": str(line)},
                                    ", where the graph break happened."]})
    return out + [code(f"{stage.id}:0", stage.field + ".listing", "dis", marks=listing_rows(bc.listing, line))]


def _code(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    """Text in the stage's language; a tuple of wrapper modules gets one block per graph kind."""
    content = stage.content(comp)
    if isinstance(content, str):
        return [code(block_key(stage.id), stage.field, stage.language)]
    return [code(block_key(stage.id, i), f"{stage.field}.{i}.code", "wrapper", title=o.graph_kind, sub=o.filename)
            for i, o in enumerate(content)]


def _graph(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    """An FX graph: its code and its picture."""
    fx = stage.content(comp)
    n = max(fx.num_nodes, len(fx.nodes))
    return [{"t": "p", "cls": "cx-muted", "r": counted(n, "node")},
            {"t": "graph", "stage": stage.id, "num_nodes": n, "code": code(f"{stage.id}:0", f"{stage.field}.code",
                                                                           "python")}]


def _guard_line_cell(w: GuardLine) -> Any:
    if not w.filename:
        return w.source or ""
    cell = [w.source or "", {"muted": [" ", {"code": loc_text(w.filename, w.lineno, w.function)}]}]
    if w.checked_in:
        cell.append({"muted": [" (torch checks it in ", {"code": w.checked_in}, ")"]})
    return cell


def guard_row(g: Any, w: GuardLine) -> dict:
    """One guard's row of the guards pane: kind, check, guarded value, the user line it came from."""
    return {"c": [g.kind, {"code": g.code}, {"code": g.subject or ""}, _guard_line_cell(w)],
            "origin": origin_of(w.filename, w.lineno)}


def _guards(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    out: list[dict] = []
    if comp.guards:
        lines = [guard_line(g, comp.original_bytecode) for g in comp.guards]
        from_user = sum(1 for w in lines if w.is_user)
        moved = sum(1 for w in lines if w.checked_in)
        out.append({"t": "p", "cls": "cx-muted", "r": f"{counted(len(comp.guards), 'guard')} checked before each "
                    f"call reuses this compilation; {from_user} {noun(from_user, 'points', 'point')} at a line of "
                    "user code"
                    + (f" ({moved} checked inside a library, shown at the line that hands the value there)."
                       if moved else ".")})
        rows = [guard_row(g, w) for g, w in zip(comp.guards[:MAX_TABLE_ROWS], lines)]
        out.append({"t": "table", "cls": "cx-guards", "key": "guards:0", "rows": rows,
                    "head": ["kind", "check", "guarded value", "user line"]})
        if len(comp.guards) > MAX_TABLE_ROWS:
            more = len(comp.guards) - MAX_TABLE_ROWS
            out.append({"t": "p", "cls": "cx-muted", "r": f"… {counted(more, 'more guard')}"})
    if comp.guard_tree:
        out.append({"t": "details", "s": "guard tree (as torch printed it)", "open": not comp.guards,
                    "body": [code("guard_tree:0", "guard_tree", None)]})
    return out


def _graph_break(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    """Graph break, recompile reason, restarts and failure: why this compilation looks as it does."""
    out: list[dict] = []
    if comp.failure:
        out.append(note("cx-bad", [{"b": "Compilation failed: "}, comp.failure]))
    if comp.recompile_reason:
        out += [{"t": "h", "r": "Recompiled"},
                {"t": "p", "r": "An earlier compilation of this frame no longer matched its guards:"},
                code("recompile:0", "recompile_reason", None)]
    gb = comp.graph_break
    if gb is not None:
        link = safe_url(gb.doc_url)
        gb_code = ({"a": gb.gb_code, "href": link} if link else gb.gb_code) if gb.gb_code else ""
        out.append({"t": "h", "cls": "cx-gb-reason", "r": ["Graph break: ", gb.reason, " " if gb_code else "",
                                                           gb_code]})
        out.append({"t": "p", "r": [linked(gb.filename, gb.lineno),
                                    ["  ", {"code": gb.source_line}] if gb.source_line else ""]})
        if gb.explanation:
            out.append({"t": "p", "r": gb.explanation})
        if gb.hints:
            out += [{"t": "p", "r": "Hints:"}, {"t": "list", "items": [{"r": h} for h in gb.hints]}]
        if gb.user_traceback:
            frames = [{"r": {"code": loc_text(f.filename, f.lineno, f.function)},
                       "body": [{"t": "p", "r": {"code": f.code}}] if f.code else []} for f in gb.user_traceback]
            out.append({"t": "details", "s": "user traceback", "body": [{"t": "list", "ordered": True,
                                                                        "items": frames}]})
        if gb.detail:
            out.append({"t": "details", "s": "torch's full message",
                        "body": [code("gb_detail:0", "graph_break.detail", None)]})
    else:
        out.append({"t": "p", "cls": "cx-muted", "r": "No graph break in this compilation."})
    if not comp.recompile_reason:
        out.append({"t": "p", "cls": "cx-muted", "r": "Not a recompile."})
    if comp.restarts:
        items = [{"r": f"attempt {r.attempt}: {r.reason.splitlines()[0] if r.reason else ''}",
                  "body": [{"t": "details", "s": "details",
                            "body": [code(f"restart:{i}", f"restarts.{i}.reason", None)]}]}
                 for i, r in enumerate(comp.restarts)]
        out += [{"t": "h", "r": "Restarts"},
                {"t": "p", "r": "Dynamo threw its trace away and traced this frame again from the start. That is the "
                                "usual path of a graph break: the second trace stops just before the instruction "
                                "that broke and compiles the graph up to there."},
                {"t": "list", "items": items}]
    return out


def _ir(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    """Inductor's loop-level IR, one dump per lowered graph (forward, backward, inference)."""
    return [code(block_key(stage.id, i), f"{stage.field}.{i}.text", "python", title=d.graph_kind)
            for i, d in enumerate(stage.content(comp))]


def kernel_anchor(name: str) -> str:
    """The element id of a kernel's section: other views (the timing table) link to it."""
    return "cx-k-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


def linked(filename: Optional[str], lineno: Optional[int]) -> dict:
    """A user line as code, linked to the chain; its text is left out when it is the origin itself
    (a kernel of a big report names thousands: each is sent once)."""
    text, origin = loc_text(filename, lineno), origin_of(filename, lineno)
    return {"origin": origin} if text == origin_key(origin) else {"code": text, "origin": origin}


def _lines(locs: Any) -> list:
    return [[{"br": True} if i else "", linked(loc.filename, loc.lineno), f" {loc.code or ''}"]
            for i, loc in enumerate(locs)]


def kernel_div(k: Kernel, ref: str, i: int, compiled: Any = None) -> dict:
    """One kernel: name, language, the FX nodes / ATen ops / user lines it came from, its compile, its source."""
    rows = []
    if compiled is not None:  # torch's triton_kernel_info
        rows.append({"th": True, "c": ["compile", compile_text(compiled)]})
    if k.source_nodes:
        rows.append({"th": True, "c": ["FX nodes", {"code": ", ".join(k.source_nodes)}]})
    if k.aten_ops:
        rows.append({"th": True, "c": ["ATen ops", {"code": ", ".join(k.aten_ops)}]})
    if k.user_lines:
        rows.append({"th": True, "c": ["user lines", _lines(k.user_lines)]})
    if k.op_trace:  # torch's per-kernel record: the ops in the order the kernel runs them
        rows.append({"th": True, "c": ["op trace", {"code": " → ".join(k.op_trace)}]})
    facts = ({"t": "table", "cls": "cx-kfacts", "head": [], "rows": rows} if rows else
             {"t": "p", "cls": "cx-muted", "r": "torch recorded no FX nodes or user lines for this kernel."})
    head = {"t": "h", "r": [{"code": ref}, " ", {"chip": k.language}, {"chip": k.graph_kind} if k.graph_kind else "",
                            usage_view.build_chip(k)]}
    return {"t": "div", "cls": "cx-kernel", "id": kernel_anchor(k.name), "data": {"kernel": k.name, "ref": ref},
            "fold": [{"code": k.name}, f" ({k.language}, {counted(k.source.count(chr(10)) + 1, 'line')})"],
            "body": [head, facts, code(block_key("kernels", kernel=ref), f"kernels.{i}.source", k.language)]}


def _kernels(stage: Stage, comp: Compilation, refs: list[str]) -> list[dict]:
    times = kernel_compiles(comp)
    rows = [{"c": [{"go": {"stage": "kernels", "kernel": ref, "anchor": kernel_anchor(k.name)}, "code": ref},
                   k.language, k.graph_kind or "", f"{k.source.count(chr(10)) + 1:,}",
                   ", ".join(loc_text(u.filename, u.lineno) for u in k.user_lines)]  # each kernel's part links them
                  + ([_compile_time(times.get((k.graph_kind, k.name)))] if times else [])}
            for k, ref in zip(comp.kernels, refs)]
    index = {"t": "table", "cls": "cx-kindex", "rows": rows,
             "head": ["kernel", "language", "graph", "lines", "user lines"] + (["compile time"] if times else [])}
    ref_of = {k.name: ref for k, ref in zip(comp.kernels, refs)}

    def link(name: str) -> dict:
        ref = ref_of.get(name)
        return {"go": {"stage": "kernels", "kernel": ref, "anchor": kernel_anchor(name)}, "code": name} if ref \
            else {"code": name}

    out = [index] + numbers_view.op_estimates(comp, link) + [
        kernel_div(k, ref, i, times.get((k.graph_kind, k.name))) for i, (k, ref) in enumerate(zip(comp.kernels, refs))]
    shown = {(k.graph_kind, k.name) for k in comp.kernels}
    others = [c for key, c in times.items() if key not in shown]
    if others:  # compiled, but not in the output code the capture has (a cache served it, or it was not recorded)
        out.insert(1, {"t": "p", "cls": "cx-muted", "r": ["torch also compiled: ", ", ".join(
            f"{comp_name(c)} ({compile_text(c)})" for c in others)]})
    return out


def kernel_compiles(comp: Compilation) -> dict[tuple[str, str], Any]:
    """torch's triton_kernel_info for the compilation's kernels, by (graph kind, kernel name)."""
    return {(c.graph_kind, c.name): c for c in comp.kernel_compile}


def _compile_time(c: Any) -> str:
    return format_time(c.compile_time_s) if c is not None and c.compile_time_s is not None else ""


def compile_text(c: Any) -> str:
    """``0.289 s (autotune cache miss, 2 configs)``: one kernel's compile, as torch's triton_kernel_info says."""
    bits = [f"autotune cache {c.autotune_cache}" if c.autotune_cache else "",
            counted(c.num_configs, "config") if c.num_configs else "",
            ", ".join(f"{k}={v}" for k, v in c.only_config.items())]
    detail = ", ".join(b for b in bits if b)
    return (format_time(c.compile_time_s) if c.compile_time_s is not None else "time not given") + (
        f" ({detail})" if detail else "")


_BY_KIND = {"source": _source, "code": _code, "bytecode": _bytecode, "graph": _graph, "guards": _guards,
            "break": _graph_break, "ir": _ir, "kernels": _kernels,
            "saved": lambda stage, comp, refs: saved_view.blocks(comp)}
_WITH_REPORT = {"loop": loop_view.blocks}  # kinds whose pane reads the whole report
BY_STAGE = {s.id: s for s in STAGES}


# ---- timing ----

def timing_pane(report: Report, cid: str) -> Optional[list[dict]]:
    """The timing of one compilation's graphs, or None when none was timed."""
    if report.timing is None:
        return None
    mine = tuple(g for g in report.timing.graphs if g.compile_id == cid)
    return timing_blocks(report.timing, mine, (), timeit=False) if mine else None


def phases_blocks(comp: Compilation) -> list[dict]:
    """Where the compile time went: torch's timed spans, each with those it contains indented under it."""
    total = sum(p.seconds for p in comp.phases if p.depth == 0) or None
    rows = [{"c": ["\u00a0\u00a0" * p.depth + p.name, format_time(p.seconds),
                   [{"bar": 100 * p.seconds / total}, f"{100 * p.seconds / total:.0f}%"] if total else "",
                   str(p.count) if p.count > 1 else ""],
             "text": f"{'  ' * p.depth}{p.name}: {format_time(p.seconds)}"} for p in comp.phases]
    return [{"t": "p", "r": "Compile time per phase, from torch's own timed spans (its chromium events): each "
                            "phase includes the phases indented under it; a phase that ran more than once is "
                            "summed."},
            {"t": "table", "cls": "cx-phases", "head": ["phase", "time", "share", "runs"], "rows": rows}]


def timing_section(report: Report) -> Optional[dict]:
    """Folded in the header: it is the last step of the story, and the panes should stay in view."""
    t = report.timing
    if t is None and not report.comparisons:
        return None
    title = "Eager vs compiled"
    if t is not None:
        speedups = ", ".join(numbers_view.speedup_title(g, g.compile_id or g.label) for g in t.graphs
                             if g.speedup is not None)
        title += f" ({speedups})" if speedups else ""
        if t.warnings:
            title += f", {counted(len(t.warnings), 'warning')}"
    body = timing_blocks(t, t.graphs if t else (), report.comparisons, timeit=True)
    return {"t": "section", "title": title, "open": False, "body": body}


def timing_blocks(timing: Any, graphs: tuple, comparisons: tuple, *, timeit: bool) -> list[dict]:
    """Tables and charts: eager vs compiled per graph, where a graph's time goes, the modes compared."""
    out: list[dict] = []
    if timing is not None:
        rows = []
        timed = graphs + ((timing.timeit,) if timeit and timing.timeit else ())
        for t in timed:
            ct = "n/a" if t.compile_time_s is None else f"{t.compile_time_s:.2f} s"
            host = getattr(t, "host", None)
            label = [t.label, " ", {"chip": numbers_view.bound_word(t)}] if host is not None and host.bound \
                else t.label
            rows.append({"c": [label, measurement_text(t.eager), measurement_text(t.compiled),
                               numbers_view.speedup_cell(t), ct, numbers_view.break_even_cell(t)],
                         "cls": numbers_view.slow_class(t), "text": graph_text(t)})
            if t.train_eager is not None or t.train_compiled is not None:  # the text's line above says it too
                rows.append({"c": [f"{t.label} forward+backward", measurement_text(t.train_eager),
                                   measurement_text(t.train_compiled),
                                   ratio_text(t.train_speedup, getattr(t, "train_ratio", None)), "", ""],
                             "summary": False})
        whole = getattr(timing, "end_to_end", None) if timeit else None
        rows += [r for r in [numbers_view.end_to_end_row(whole)] if r is not None]
        out.append({"t": "p", "r": f"Timing on {timing.device}: median per call, ± inter-quartile range of the "
                                   "repeats; the speedup is the median of the per-repeat ratios, eager and compiled "
                                   "timed in alternating repeats, ± their spread."})
        if any(numbers_view.no_verdict(t) for t in timed + (whole,)):  # the warnings say why, in the text too
            out.append({"t": "p", "cls": "cx-muted", "r": numbers_view.VERDICT_RULE, "summary": False})
        out.append({"t": "table", "cls": "cx-timing", "rows": rows,
                    "head": ["graph", "eager", "compiled", "speedup", "compile", "break-even"]})
        # the report's warnings already hold each graph's (labelled): each is said once
        labelled = [f"{t.label}: {n}" for t in timed for n in t.notes + t.warnings]
        warnings = dict.fromkeys(list(timing.warnings) + labelled)
        out += [note("cx-missing", w) for w in warnings]
        out += [note("cx-missing", [{"b": "Note: "}, n]) for n in timing.notes]
        out += [b for t in timed if (b := numbers_view.host_block(t)) is not None]
        if graphs:
            out.append(graphs_chart(graphs))
        for t in graphs:
            if t.kernels:
                out += [kernels_chart(t), _kernel_table(t)] + numbers_view.indirect_lines(t)
            if flops_line(t):
                out.append({"t": "p", "cls": "cx-muted", "r": f"{t.label}: {flops_line(t)}"})
            if t.kernels_note:  # why there are no rows, or what the rows lack (FLOPs, the copy ceiling)
                out.append({"t": "p", "cls": "cx-muted", "r": f"{t.label}: {t.kernels_note}"})
        out += numbers_view.estimate_blocks(graphs)
        if timing.peak is not None:
            out.append({"t": "p", "r": f"Device copy bandwidth: {timing.peak.gbs:,.0f} GB/s (measured once, "
                                       f"±{timing.peak.measurement.iqr_pct:.0f}%)."})
    if comparisons:
        rows = [{"c": [r.mode] + ([r.error, "", "", ""] if r.error else
                                  [f"{r.compile_time_s:.2f} s", format_time(r.eager_s), format_time(r.compiled_s),
                                   numbers_view.speedup_cell(r)]) + ["; ".join(r.notes)], "text": mode_text(r)}
                for r in comparisons]
        out.append({"t": "table", "caption": "modes compared", "rows": rows,
                    "head": ["mode", "compile (cold)", "eager", "compiled", "speedup", "notes"]})
    return out


def graph_text(t: Any) -> str:
    """A timed graph in one line (the text summary's form of its rows): times, speedup, compile, break-even."""
    comp = "n/a" if t.compile_time_s is None else f"{t.compile_time_s:.2f} s"
    train = ""
    if t.train_eager is not None or t.train_compiled is not None:
        train = (f"; forward+backward: eager {measurement_text(t.train_eager)}, compiled "
                 f"{measurement_text(t.train_compiled)}, speedup {ratio_text(t.train_speedup, t.train_ratio)}")
    return (f"{t.label}: eager {measurement_text(t.eager)}, compiled {measurement_text(t.compiled)}, "
            f"speedup {numbers_view.speedup_cell(t)}{train}; compile {comp} ({t.compile_time_source}), "
            f"break-even {numbers_view.break_even_cell(t)}")


def mode_text(r: Any) -> str:
    """A compared mode in one line."""
    if r.error:
        return f"{r.mode}: failed ({r.error})"
    return (f"{r.mode}: compile {r.compile_time_s:.1f} s, {format_time(r.compiled_s)} per call, "
            f"{numbers_view.speedup_cell(r)}")


def _kernel_text(k: Any) -> str:
    bw = "" if k.bandwidth_gbs is None else f", {k.bandwidth_gbs:,.1f} GB/s"
    bw += "" if k.peak_pct is None else f" ({k.peak_pct:.0f}% of peak)"
    bw += "" if not k.launched_by else f"; launched by {launched_by_text(k)}"
    return f"{k.name}: {format_time(k.time_s)} ({k.share_pct:.0f}%){bw}"


SUMMARY_KERNELS = 5  # the text summary names a timed graph's costliest kernels only


def _kernel_table(t: Any) -> dict:
    top = {id(k) for k in sorted(t.kernels, key=lambda k: -k.time_s)[:SUMMARY_KERNELS]}
    estimated = any(getattr(k, "estimate_s", None) for k in t.kernels)
    rows = [{"c": [{"go": {"stage": "kernels", "kernel": k.name, "anchor": kernel_anchor(k.name)}, "code": k.name}
                   if k.kind == "generated"
                   else {"code": k.name}, k.kind, format_time(k.time_s),
                   [{"bar": k.share_pct}, f"{k.share_pct:.1f}%"], "" if k.bytes is None else f"{k.bytes:,}",
                   "" if k.bandwidth_gbs is None else f"{k.bandwidth_gbs:,.1f}",
                   "" if k.peak_pct is None else f"{k.peak_pct:.0f}%", launched_by_text(k)]
                  + (numbers_view.estimate_cells(k) if estimated else []),
             **({"text": _kernel_text(k)} if id(k) in top else {"summary": False})} for k in t.kernels]
    return {"t": "table", "cls": "cx-ktimes", "caption": f"{t.label}: kernels", "rows": rows,
            "head": ["kernel", "kind", "time", "share", "bytes", "GB/s", "% of peak", "launched by"]
            + (numbers_view.ESTIMATE_HEAD if estimated else [])}


def graphs_chart(timings: Any) -> dict:
    """Eager vs compiled time per call, two bars per graph on one scale."""
    rows = []
    for t in timings:
        for what, m, colour in (("eager", t.eager, EAGER_COLOUR), ("compiled", t.compiled, COMPILED_COLOUR)):
            if m is not None:
                text = format_time(m.median_s) + (f" ±{m.iqr_pct:.0f}%" if m.iqr_pct >= 0.5 else "")
                rows.append([f"{t.label} {what}", m.median_s, text, colour])
    return {"t": "chart", "title": "time per call: eager vs compiled (median, ±IQR)", "rows": rows}


def kernels_chart(timing: Any, top: int = 12) -> dict:
    """The compiled graph's time split over its kernels and extern calls, largest first."""
    ks = sorted(timing.kernels, key=lambda k: -k.time_s)
    rows = [[k.name, k.time_s, f"{format_time(k.time_s)} ({k.share_pct:.0f}%)",
             COMPILED_COLOUR if k.kind == "generated" else EAGER_COLOUR] for k in ks[:top]]
    if ks[top:]:
        rest = sum(k.time_s for k in ks[top:])
        rows.append([f"{len(ks) - top} more", rest, format_time(rest), EAGER_COLOUR])
    return {"t": "chart", "title": f"{timing.label}: kernel time (generated in blue, extern in grey)", "rows": rows}
