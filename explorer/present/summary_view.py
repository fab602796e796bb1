"""The text summary's blocks: what the one screen of ``repr(report)``, the CLI and a notebook's text/plain
shows, in its order, from the view model.

The interactive views lay the view model out as a header, a toolbar and two panes; the static copy as a
header and a section per compilation; the text as one screen of lines. That screen is composed here, of the
view model's own blocks (the header's, the ranks', the timing section, each compilation's summary and strip)
and of the blocks the view model makes for what the views show as chips or inside panes (the cache mode,
a warm capture's kernels, the regions, a guard filter, DDPOptimizer's split). ``present.text`` only lays
these out as lines.
"""

from __future__ import annotations

from ..capturing.model import Compilation
from ..report import Report
from ..stages import Stage
from . import ddp_view, ranks, usage_view, why_slow_view
from . import viewmodel as vm
from .blocks import Block, Item
from .context import capture_of
from .fmt import comp_name


def summary_blocks(report: Report, model: dict, *, max_rows: int = 12) -> list[Block]:
    """One screen: counts, the cache mode, compilations (each with where it came from), what to fix,
    recompiles, findings, problems, the guard filters, DDPOptimizer's splits, timing."""
    data = capture_of(report)
    by_id: dict[str, Compilation] = {c.compile_id: c for c in data.compilations}
    comps = model["compilations"]
    rows: list[Item] = [{"r": view["summary"], "body": [{"t": "p", "r": line} for line in view.get("repeats", ())]
             + view["from_where"] + usage_view.kernel_builds(by_id[view["cid"]])
             + usage_view.regions_summary(by_id[view["cid"]])} for view in comps[:max_rows]]
    body: list[Block] = [{"t": "list", "items": rows}] if rows else []
    if len(comps) > max_rows:
        body.append({"t": "p", "r": f"... {len(comps) - max_rows} more"})
    first = why_slow_view.blocks(report)  # --why-slow: the answer before anything else
    mode = usage_view.mode_blocks(data, report.entry == "open")
    out = rank_blocks(report, model) + [{"t": "p", "r": headline(model)}] + first + mode
    out.append({"t": "section", "title": "Compilations", "text": [], "body": body})  # no heading: two spaces in
    out += [{"t": "p", "r": f"failed: {c['cid']} {c['frame']}: {c['failed']}"} for c in comps if c["failed"]]
    if data.exports:
        out.append({"t": "list", "items": [usage_view.export_item(ep, by_id) for ep in data.exports]})
    out += [b for b in model["header"]["body"] if b not in first]
    out += [b for c in data.compilations for b in usage_view.guard_filter_summary(c)]
    out += usage_view.provenance_blocks(data)
    out += [b for c in data.compilations for b in ddp_view.split_blocks(c)]
    return out + ([model["timing"]] if model["timing"] is not None else [])


def headline(model: dict) -> str:
    """The header's chips in one line."""
    chips = {k: v for k, v in model["header"]["chips"]}
    counts = ", ".join(f"{v} {k}" for k, v in model["header"]["chips"] if k in vm.COUNT_CHIPS)
    return (f"compile-explorer: {counts}, "
            f"compile {chips['compile time'].replace(' s', 's')}  [torch {chips['torch']}, {chips['device']}]")


def rank_blocks(report: Report, model: dict) -> list[Block]:
    """A merged report's "ranks compared", then whose summary follows; a rank's part alone: which it is."""
    dist = report.distributed
    if dist is None:
        return []
    if model.get("ranks") is None:
        return [ranks.alone(dist)]
    return model["ranks"]["blocks"] + [model["ranks"]["follows"]]


def clinic_blocks(report: Report) -> list[Block]:
    """The clinic alone (what CI logs want): break sites, then recompiles; each says when there is none."""
    blocks = vm.fix_list(report.clinic.fix_list, report.capture.break_count)
    blocks += vm.recompiles(report.clinic.recompiles, cells=report.clinic.cells)
    head: list[Block] = [] if report.clinic.fix_list else [{"t": "p", "r": "graph breaks: none"}]
    tail: list[Block] = [] if report.clinic.recompiles else [{"t": "p", "r": "recompiles: none"}]
    return head + blocks + tail


def stage_blocks(report: Report, stage: Stage, comp: Compilation) -> list[Block]:
    """A stage of one compilation: title, explanation, then its content or why there is none."""
    view = vm.compilation(comp, report, panes=(stage.id,))
    head: list[Block] = [{"t": "p", "r": f"{stage.title} [{comp.compile_id}] {comp_name(comp)}"},
                         {"t": "p", "r": stage.explanation}]
    if stage.id not in view["panes"]:
        return head + [{"t": "p", "r": f"(not captured: {vm.why_not(view, stage.id)})"}]
    return head + view["panes"][stage.id]
