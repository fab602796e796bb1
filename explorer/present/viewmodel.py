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

Blocks (``{"t": KIND, ...}``) are ``present.blocks``'s kinds, typed there (mypy checks them): its docstring is the
one list of kinds and of the keys the renderers read.

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

from typing import Any, Collection, Iterable, Mapping, Optional, Sequence, Union

from ..capturing.model import CaptureData, Compilation, Finding
from ..clinic.fixlist import BreakSite
from ..clinic.recompiles import RecompileExplanation
from ..plural import counted, noun
from ..report import Report
from ..stages import STAGES, why_missing
from ..timing.model import GraphTiming, KernelTiming, ModeResult, TimingReport
from . import (
    ddp_view,
    diff_view,
    numbers_view,
    partial_reads,
    preview_view,
    ranks,
    run_time_view,
    shapes_view,
    structure_view,
    usage_view,
    why_slow_view,
    words,
)
from .blocks import Block, Chart, Diff, Item, Note, P, Row, Run, Runs, Section, Side, Table, note
from .context import PaneContext, capture_of, pane_context
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
    origin_of,
    ratio_text,
)
from .panes import BY_STAGE, break_line, kernel_anchor, stage_panes

MISSING_LABELS = {"source": "Source not available", "graph_break": "No graph break", "kernels": "No kernels",
                  "timing": "Not timed"}  # any other empty stage: "Not captured here"
PART_NAMES = {"dynamo": "Dynamo", "aot": "AOTAutograd", "inductor": "Inductor", "runtime": "Runtime"}
EAGER_COLOUR = "#9aa5b1"
COMPILED_COLOUR = "#3b7dd8"


def as_report(obj: Any) -> Report:
    """A Report as is; bare capture data gets the clinic's reading, so it shows the same way."""
    return Report.of(obj)


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
    contexts = {c.compile_id: pane_context(c, report) for c in data.compilations}  # each made once
    comps = [compilation(c, report, panes=panes, ctx=contexts[c.compile_id]) for c in data.compilations]
    for c, view in zip(data.compilations, comps):  # what a view offers to diff at once (diff_view; the text none)
        ctx = contexts[c.compile_id]
        prev = contexts.get(ctx.previous.compile_id) if panes and ctx.previous is not None else None
        view["diffs"] = recompile_diffs(ctx, prev) if prev is not None else []
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
    data = capture_of(report)
    dist = report.distributed  # whose report this is, in a distributed job: said first
    chips = [["rank", f"{dist.rank} of {dist.world_size}"]] if dist is not None else []
    chips += [count_chip(n, *nouns) for n, nouns in zip(
        (len(data.compilations), data.num_graphs, data.break_count, len(data.recompiles), len(data.kernels)),
        COUNT_NOUNS)] + [["compile time", f"{data.compile_time_s:.2f} s"]]
    if data.wall_time_s is not None:
        chips.append(["wall time", f"{data.wall_time_s:.2f} s"])
    chips += usage_view.header_chips(data, report.entry == "open")  # which cache mode ran, the stance in force
    chips += [["device", data.device], ["torch", data.torch_version], ["python", data.python_version]]
    body: list[Block] = []
    if data.error:
        body.append(note("cx-bad", [{"b": "The code raised "}, data.error]))
    body += why_slow_view.blocks(report)  # --why-slow: the answer first
    body += fix_list(report.clinic.fix_list, data.break_count)
    body += recompiles(report.clinic.recompiles, {c.compile_id for c in data.compilations}, report.clinic.cells)
    for f in report.findings:
        where = f" [{f.compile_id}]" if f.compile_id else ""
        body.append(note("cx-missing cx-finding", [{"b": f"torch.compile differs from a plain run{where}: "},
                                                  f.message, {"muted": f" {f.hint}"} if f.hint else ""]))
    for n in data.notes:
        body.append(note("cx-missing", [{"b": "Note: "}, n]))
    body += ddp_view.header_notes(data)  # what DDP and FSDP2 did that the graphs do not show
    body += usage_view.header_blocks(data, {c.compile_id: c for c in data.compilations}, report.entry == "open")
    body += graph_order(data)
    body += run_time_view.section(report, data)  # where the whole run's compile time went
    body += partial_reads.header_notes(data)  # records read in part whose data no pane shows
    body += preview_view.header_blocks(report)  # --target cuda: what was lowered for the GPU, what was not and why
    for p in report.all_problems:
        body.append(note("cx-bad cx-problem", [{"b": words.could_not(p.where)}, p.detail()]))
    unknown = [a for a in data.other_artifacts if not a.why.startswith("dropped")]
    if unknown:
        items: list[Item] = [{"r": [{"code": a.name}, f" [{a.compile_id}]" if a.compile_id else "",
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


def graph_order(data: CaptureData) -> list[Block]:
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


def fix_list(sites: Sequence[BreakSite], total_breaks: Optional[int] = None) -> list[Block]:
    """The "what to fix" list: one row per break site, most costly first."""
    if not sites:
        return []
    items: list[Item] = []
    for s in sites:
        link = safe_url(s.doc_url)
        code: Runs = ([" [", {"a": s.gb_code, "href": link} if link else s.gb_code, "]"] if s.gb_code else "")
        items.append({"origin": origin_of(s.filename, s.lineno), "text": s.line(), "r": [
            {"code": s.location}, ": ", s.reason, code, f" ×{s.count}" if s.count > 1 else "",
            [" ", {"code": s.source_line}] if s.source_line else ""],
            "body": [*([P(t="p", cls="cx-muted", r=f"hint: {s.hints[0]}")] if s.hints else []),
                     {"t": "p", "cls": "cx-muted", "r": s.ran_as_python}]})
    n = len(sites)
    of = f" ({counted(total_breaks, 'break')})" if total_breaks is not None else ""
    return [{"t": "section", "title": f"Graph breaks: what to fix ({n} site{'s' if n != 1 else ''})", "open": True,
             "text": f"graph breaks: {n} site{'s' if n != 1 else ''} to fix{of}, most costly first",
             "body": [{"t": "list", "cls": "cx-breaks", "items": items}]}]


def recompiles(explained: Sequence[RecompileExplanation], cids: Collection[str] = (),
               cells: Optional[dict[str, str]] = None) -> list[Block]:
    """One line per recompile: the failing guard, old -> new value, the user line, the remedy. One a stance
    refused reads the same, marked refused; it leads to the guards of the compilation it failed (``cids``:
    the compilations this report has; ``cells``: the notebook cells' names, ``Clinic.cells``)."""
    if not explained:
        return []
    items: list[Item] = [recompile_item(e, cids, cells) for e in explained]
    return [{"t": "section", "title": f"Recompiles ({len(items)})", "open": len(items) <= 4,
             "text": f"recompiles: {len(items)}", "body": [{"t": "list", "cls": "cx-recompiles", "items": items}]}]


def recompile_item(e: RecompileExplanation, cids: Collection[str] = (), cells: Optional[dict[str, str]] = None) -> Item:
    item: Item = {"r": e.one_line(cells),
                  "origin": origin_of(e.primary.filename, e.primary.lineno) if e.primary else None}
    if not e.refused_by:
        cause = shapes_view.recompile_cause(e)  # a size made to matter by a specialization or guard: its row
        if cause and e.primary is not None:
            item["body"] = cause
            if e.primary.shape_cause is not None and e.primary.against in cids:  # a click shows the row
                item["go"] = {"cid": e.primary.against, "stage": "dynamic_shapes"}
        return item
    item["text"], item["cls"] = e.one_line(cells), "cx-refused"
    item["r"] = [{"chip": f"refused by set_stance({e.refused_by!r})"}, " ", e.one_line(cells)]
    item["body"] = [{"t": "p", "cls": "cx-muted", "r": [
        f"The call would have compiled {e.compile_id} (a new entry for {e.frame_name}); the stance made it raise "
        "instead, so no compilation exists for it. Its cached entries' failing guards:"]},
        {"t": "list", "items": [{"r": [{"code": f.against}, f" {f.describe()}",
                                       {"muted": f" (guard from {f.guard_where(cells)})"} if f.lineno else ""],
                                 "origin": origin_of(f.filename, f.lineno)} for f in e.failures]}]
    against = e.primary.against if e.primary else ""  # the clinic's key of the entry (GuardFailure.against)
    if against in cids:
        item["go"] = {"cid": against, "stage": "guards"}
    return item


# ---- one compilation ----

def compilation(comp: Compilation, report: Report, *, panes: Panes = True,
                ctx: Optional[PaneContext] = None) -> dict:
    """One compilation's view: its label, summary, which stages it has (why not the others) and the panes asked
    for (``ctx``: its panes' context, when the caller has made it)."""
    ctx = ctx or pane_context(comp, report)
    present = [s.id for s in STAGES if s.scope == "compilation" and s.present(comp)]
    why = {s.id: why_missing(s.id, comp) for s in STAGES if s.scope == "compilation" and s.id not in present}
    drawn = stage_panes(ctx, [sid for sid in present if panes is True or (panes and sid in panes)])
    timed = timing_pane(report, comp.compile_id) if panes else None
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
            "why": why, "why_report": why_report, "kernels": list(ctx.refs),
            "previous": ctx.previous.compile_id if ctx.previous is not None else None,
            "break_line": break_line(comp), "findings": [finding_note(f) for f in report.findings
                                                         if f.compile_id == comp.compile_id and f.stage],
            "repeats": structure_view.summary(ctx.structure, comp),  # "repeated: 80× Block (layers.0–79), ..."
            "panes": drawn}


# ---- diffs: a pane against another (present.diff_view computes them) ----

def pane_title(stage: str, kernel: Optional[str] = None) -> str:
    """What a pane shows: its stage's title, or one kernel's."""
    if kernel is not None:
        return words.front("kernel_title", ref=kernel)
    return BY_STAGE[stage].title if stage in BY_STAGE else stage


def pane_lines(report: Report, side: Side) -> diff_view.Pane:
    """The lines of the pane a diff's side names (``{"cid", "stage", ["kernel"], ["rank"]}``: its rank's in a merged
    report), built as the views build it."""
    if side.get("rank") is not None and report.distributed is not None and report.distributed.rank != side["rank"]:
        report = report.rank(int(side["rank"]))
    comp = report.compilation(side["cid"])
    stage = side["stage"]
    if stage == "timing":
        blocks = timing_pane(report, comp.compile_id) or []
    elif stage in BY_STAGE and BY_STAGE[stage].scope == "compilation" and BY_STAGE[stage].present(comp):
        blocks = pane_blocks({"panes": stage_panes(pane_context(comp, report), [stage])}, stage,
                             side.get("kernel")) or []
    else:
        blocks = []
    return diff_view.pane_lines(blocks, lambda src: resolve(comp, src))


def pane_diff(report: Report, a: Mapping[str, Any], b: Mapping[str, Any]) -> Diff:
    """Any two panes' diff (what the widget asks its kernel for): sides ``{"cid", "stage", ["kernel"], ["rank"]}``."""
    sa, sb = (diff_view.side(str(s["cid"]), str(s["stage"]), s.get("rank"), kernel=s.get("kernel")) for s in (a, b))
    return diff_view.diff_block(sa, pane_lines(report, sa), sb, pane_lines(report, sb),
                                (pane_title(sa["stage"], sa.get("kernel")), pane_title(sb["stage"], sb.get("kernel"))))


def recompile_diffs(ctx: PaneContext, before: PaneContext) -> list[Block]:
    """A recompile against the compilation it replaced (``before``'s): each of ``diff_view.DIFF_STAGES`` that both
    have."""
    comp, prev = ctx.comp, before.comp
    stages = [s for s in diff_view.DIFF_STAGES if BY_STAGE[s].present(comp) and BY_STAGE[s].present(prev)]
    mine, theirs = stage_panes(ctx, stages), stage_panes(before, stages)
    return [diff_view.diff_block(diff_view.side(prev.compile_id, s), diff_view.pane_lines(theirs[s], _text(prev)),
                                 diff_view.side(comp.compile_id, s), diff_view.pane_lines(mine[s], _text(comp)),
                                 (BY_STAGE[s].title,) * 2) for s in stages]


def _text(comp: Compilation) -> diff_view.TextOf:
    return lambda src: resolve(comp, src)


def ensure_panes(view: dict, comp: Compilation, report: Report, stages: Optional[Collection[str]] = None) -> dict:
    """``view``'s panes (one compilation of a model), first building those of ``stages`` (None: every present
    stage) that it was made without; they are kept in it."""
    wanted = view["present"] if stages is None else [sid for sid in stages if sid in view["present"]]
    todo = [sid for sid in wanted if sid not in view["panes"]]
    if todo:
        view["panes"].update(stage_panes(pane_context(comp, report), todo))
    return view["panes"]


def why_not(view: dict, key: str) -> str:
    """Why a compilation's view has nothing for stage ``key``."""
    return view["why"].get(key) or view["why_report"].get(key) or words.front("not_recorded")


def pane_blocks(view: dict, stage: str, kernel: Optional[str] = None) -> Optional[list[Block]]:
    """The blocks a pane shows for ``stage``; of the kernels stage, ``kernel`` (its key, ``kernel_refs``) picks that
    kernel's own part."""
    if stage == "kernels" and kernel is not None:
        divs = [b for b in view["panes"].get("kernels", ()) if b["t"] == "div" and b["data"]["ref"] == kernel]
        return divs or None
    return view["panes"].get(stage)


def finding_note(f: Finding) -> Note:
    """A finding shown at the top of the pane of the stage it concerns."""
    said = note("cx-missing cx-finding", [{"b": "torch.compile differs from a plain run: "}, f.message,
                                          {"muted": f" {f.hint}"} if f.hint else ""])
    if f.stage:
        said["stage"] = f.stage
    return said


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






# ---- timing ----

def timing_pane(report: Report, cid: str) -> Optional[list[Block]]:
    """The timing of one compilation's graphs, or None when none was timed."""
    if report.timing is None:
        return None
    mine = tuple(g for g in report.timing.graphs if g.compile_id == cid)
    return timing_blocks(report.timing, mine, (), timeit=False) if mine else None


def timing_section(report: Report) -> Optional[Section]:
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


def timing_blocks(timing: Optional[TimingReport], graphs: tuple[GraphTiming, ...],
                  comparisons: tuple[ModeResult, ...], *, timeit: bool) -> list[Block]:
    """Tables and charts: eager vs compiled per graph, where a graph's time goes, the modes compared."""
    out: list[Block] = []
    if timing is not None:
        rows: list[Row] = []
        timed = graphs + ((timing.timeit,) if timeit and timing.timeit else ())
        for t in timed:
            ct = "n/a" if t.compile_time_s is None else f"{t.compile_time_s:.2f} s"
            host = getattr(t, "host", None)
            label: Runs = [t.label, " ", {"chip": numbers_view.bound_word(t)}] if host is not None and host.bound \
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
        modes: list[Row] = [{"c": [r.mode, *([r.error, "", "", ""] if r.error else
                                             [f"{r.compile_time_s:.2f} s", format_time(r.eager_s),
                                              format_time(r.compiled_s), numbers_view.speedup_cell(r)]),
                                   "; ".join(r.notes)], "text": mode_text(r)}
                for r in comparisons]
        out.append({"t": "table", "caption": "modes compared", "rows": modes,
                    "head": ["mode", "compile (cold)", "eager", "compiled", "speedup", "notes"]})
    return out


def graph_text(t: Any) -> str:  # a GraphTiming, or the timeit line (timing.EndToEnd's kin)
    """A timed graph in one line (the text summary's form of its rows): times, speedup, compile, break-even."""
    comp = "n/a" if t.compile_time_s is None else f"{t.compile_time_s:.2f} s"
    train = ""
    if t.train_eager is not None or t.train_compiled is not None:
        train = (f"; forward+backward: eager {measurement_text(t.train_eager)}, compiled "
                 f"{measurement_text(t.train_compiled)}, speedup {ratio_text(t.train_speedup, t.train_ratio)}")
    return (f"{t.label}: eager {measurement_text(t.eager)}, compiled {measurement_text(t.compiled)}, "
            f"speedup {numbers_view.speedup_cell(t)}{train}; compile {comp} ({t.compile_time_source}), "
            f"break-even {numbers_view.break_even_cell(t)}")


def mode_text(r: ModeResult) -> str:
    """A compared mode in one line."""
    if r.error:
        return f"{r.mode}: failed ({r.error})"
    return (f"{r.mode}: compile {r.compile_time_s:.1f} s, {format_time(r.compiled_s)} per call, "
            f"{numbers_view.speedup_cell(r)}")


def _kernel_text(k: KernelTiming) -> str:
    bw = "" if k.bandwidth_gbs is None else f", {k.bandwidth_gbs:,.1f} GB/s"
    bw += "" if k.peak_pct is None else f" ({k.peak_pct:.0f}% of peak)"
    bw += "" if not k.launched_by else f"; launched by {launched_by_text(k)}"
    return f"{k.name}: {format_time(k.time_s)} ({k.share_pct:.0f}%){bw}"


SUMMARY_KERNELS = 5  # the text summary names a timed graph's costliest kernels only


def _kernel_table(t: GraphTiming) -> Table:
    top = {id(k) for k in sorted(t.kernels, key=lambda k: -k.time_s)[:SUMMARY_KERNELS]}
    estimated = any(getattr(k, "estimate_s", None) for k in t.kernels)
    rows: list[Row] = []
    for k in t.kernels:
        name: Run = {"go": {"stage": "kernels", "kernel": k.name, "anchor": kernel_anchor(k.name)}, "code": k.name} \
            if k.kind == "generated" else {"code": k.name}
        row: Row = {"c": [name, k.kind, format_time(k.time_s), [{"bar": k.share_pct}, f"{k.share_pct:.1f}%"],
                          "" if k.bytes is None else f"{k.bytes:,}",
                          "" if k.bandwidth_gbs is None else f"{k.bandwidth_gbs:,.1f}",
                          "" if k.peak_pct is None else f"{k.peak_pct:.0f}%", launched_by_text(k),
                          *(numbers_view.estimate_cells(k) if estimated else [])]}
        if id(k) in top:
            row["text"] = _kernel_text(k)
        else:
            row["summary"] = False
        rows.append(row)
    return {"t": "table", "cls": "cx-ktimes", "caption": f"{t.label}: kernels", "rows": rows,
            "head": ["kernel", "kind", "time", "share", "bytes", "GB/s", "% of peak", "launched by"]
            + (numbers_view.ESTIMATE_HEAD if estimated else [])}


def graphs_chart(timings: Iterable[GraphTiming]) -> Chart:
    """Eager vs compiled time per call, two bars per graph on one scale."""
    rows: list[list] = []
    for t in timings:
        for what, m, colour in (("eager", t.eager, EAGER_COLOUR), ("compiled", t.compiled, COMPILED_COLOUR)):
            if m is not None:
                text = format_time(m.median_s) + (f" ±{m.iqr_pct:.0f}%" if m.iqr_pct >= 0.5 else "")
                rows.append([f"{t.label} {what}", m.median_s, text, colour])
    return {"t": "chart", "title": "time per call: eager vs compiled (median, ±IQR)", "rows": rows}


def kernels_chart(timing: GraphTiming, top: int = 12) -> Chart:
    """The compiled graph's time split over its kernels and extern calls, largest first."""
    ks = sorted(timing.kernels, key=lambda k: -k.time_s)
    rows: list[list] = [[k.name, k.time_s, f"{format_time(k.time_s)} ({k.share_pct:.0f}%)",
             COMPILED_COLOUR if k.kind == "generated" else EAGER_COLOUR] for k in ks[:top]]
    if ks[top:]:
        rest = sum(k.time_s for k in ks[top:])
        rows.append([f"{len(ks) - top} more", rest, format_time(rest), EAGER_COLOUR])
    return {"t": "chart", "title": f"{timing.label}: kernel time (generated in blue, extern in grey)", "rows": rows}
