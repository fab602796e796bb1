"""Static HTML views of a report: one stage, a notebook fragment, a whole page.

Public API, used by the report, the widget and the CLI:
  stage_keys(comp)                  -> every (key, label) a pane can show: the registry's stages, then each kernel
  stage_html(comp, key, report=...) -> one stage of one compilation
  kernel_html(kernel)               -> one kernel
  header_html(report)               -> counts, the fix list, recompiles, findings, problems
  render_fragment(report)           -> self-contained HTML for a notebook output
  render_page(report)               -> a complete standalone .html document

Why static HTML with ``<details>``: the same output must read on GitHub,
nbviewer and VS Code without a kernel or JavaScript, and from a saved file
without network. Styles are inline and scoped under ``.cx-report``. Every
render makes its own ``Ctx`` (a pygments budget and the pictures drawn for
it); nothing is cached between renders. Stages come from ``explorer.stages``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional

from ..capturing.model import CaptureData, Compilation, Kernel
from ..clinic import diff_compilations
from ..stages import BY_ID, STAGES
from . import panes
from .clinic_html import diff_html, fix_list_html, recompiles_html
from .escape import esc
from .panes import Ctx, loc_text
from .style import ROOT, stylesheet
from .timing_html import html_fragment as timing_fragment

KERNEL_PREFIX = "kernel:"
_OPEN_STAGES = ("graph_break", "graph")


def stage_keys(comp: Compilation) -> list[tuple[str, str]]:
    """Every key ``stage_html`` accepts for this compilation, with labels (for pickers)."""
    names = Counter(k.name for k in comp.kernels)
    per_kernel = []
    for k in comp.kernels:
        ref = k.name if names[k.name] == 1 else f"{k.graph_kind}/{k.name}"
        per_kernel.append((KERNEL_PREFIX + ref, f"Kernel {ref}"))
    return [(s.id, s.title) for s in STAGES] + per_kernel


def stage_html(comp: Compilation, key: str, *, max_chars: int = 200_000, ctx: Optional[Ctx] = None,
               report: Any = None) -> str:
    """One stage of one compilation; a missing stage says why, never an empty pane.

    ``ctx`` lets one render share its highlighter budget and pictures across
    stages; ``report`` supplies report-wide stages (timing)."""
    ctx = ctx or Ctx(max_chars=max_chars)
    stage = BY_ID.get(key)
    if key.startswith(KERNEL_PREFIX):
        kernel = panes.find_kernel(comp, key[len(KERNEL_PREFIX):])
        body = (panes.kernel_view(kernel, ctx) if kernel is not None
                else f'<div class="cx-missing"><b>No such kernel:</b> {esc(key[len(KERNEL_PREFIX):])} '
                     f'in compilation {esc(comp.compile_id)}</div>')
    elif stage is None:
        body = f'<div class="cx-missing"><b>Unknown stage:</b> {esc(key)}</div>'
    elif stage.scope == "report":
        body = _timing_for(comp, report)
    else:
        body = panes.render(stage, comp, ctx)
    return f'<div class="cx-pane" data-stage="{esc(key)}">{body}</div>'


def _timing_for(comp: Compilation, report: Any) -> str:
    timing = getattr(report, "timing", None)
    if timing is None:
        return panes.missing(comp, "timing")
    mine = tuple(g for g in timing.graphs if g.compile_id == comp.compile_id)
    if not mine:
        return '<div class="cx-missing"><b>Not timed:</b> no graph of this compilation was timed.</div>'
    import dataclasses

    return timing_fragment(dataclasses.replace(timing, graphs=mine, timeit=None))


def kernel_html(kernel: Kernel, *, max_chars: int = 200_000) -> str:
    """One kernel: name, language, the FX nodes / ATen ops / user lines it came from, its source."""
    return panes.kernel_view(kernel, Ctx(max_chars=max_chars))


# ---- the whole report ----

def _chip(label: str, value: object) -> str:
    return f'<span class="cx-chip">{esc(label)} <b>{esc(value)}</b></span>'


def header_html(report: Any) -> str:
    """The numbers first, then what to fix: what a reader checks before opening anything."""
    report = as_report(report)
    data: CaptureData = report.capture
    chips = [
        _chip("compilations", len(data.compilations)),
        _chip("graphs", data.num_graphs),
        _chip("graph breaks", len(data.graph_breaks)),
        _chip("recompiles", len(data.recompiles)),
        _chip("kernels", len(data.kernels)),
        _chip("compile time", f"{data.compile_time_s:.2f} s"),
    ]
    if data.wall_time_s is not None:
        chips.append(_chip("wall time", f"{data.wall_time_s:.2f} s"))
    chips += [_chip("device", data.device), _chip("torch", data.torch_version), _chip("python", data.python_version)]
    parts = [f'<div class="cx-h2">compile-explorer</div><div class="cx-stat cx-header">{"".join(chips)}</div>']
    if data.error:
        parts.append(f'<div class="cx-bad"><b>The code raised</b> {esc(data.error)}</div>')
    parts.append(fix_list_html(report.clinic.fix_list))
    parts.append(recompiles_html(report.clinic.recompiles))
    for f in report.findings:
        where = f" [{esc(f.compile_id)}]" if f.compile_id else ""
        hint = f' <span class="cx-muted">{esc(f.hint)}</span>' if f.hint else ""
        parts.append(f'<div class="cx-missing cx-finding"><b>torch.compile differs from a plain run{where}:</b> '
                     f"{esc(f.message)}{hint}</div>")
    for note in data.notes:
        parts.append(f'<div class="cx-missing"><b>Note:</b> {esc(note)}</div>')
    for p in report.all_problems:
        parts.append(f'<div class="cx-bad cx-problem"><b>The explorer could not {esc(p.where)}:</b> '
                     f"{esc(p.one_line())}</div>")
    unknown = [a for a in data.other_artifacts if not a.why.startswith("dropped")]
    if unknown:
        rows = "".join(f"<li><code>{esc(a.name)}</code>{' [' + esc(a.compile_id) + ']' if a.compile_id else ''}: "
                       f"{a.count} record(s), {a.size:,} characters</li>" for a in unknown)
        parts.append(f'<details class="cx-sub"><summary>Other artifacts torch emitted that the explorer does not '
                     f'show ({len(unknown)})</summary><ul class="cx-list">{rows}</ul></details>')
    return "".join(parts)


def timing_section(report: Any) -> str:
    """Folded: it is the last step of the story, and the panes should stay in view."""
    if report.timing is None and not report.comparisons:
        return ""
    title = "Eager vs compiled"
    if report.timing is not None:
        speedups = ", ".join(f"{g.compile_id or g.label}: {g.speedup:.2f}x" for g in report.timing.graphs
                             if g.speedup is not None)
        title += f" ({speedups})" if speedups else ""
        if report.timing.warnings:
            title += f", {len(report.timing.warnings)} warnings"
    body = timing_fragment(report.timing, report.comparisons) if report.timing is not None else \
        timing_fragment_modes(report.comparisons)
    return f'<details class="cx-stage" data-stage="timing"><summary><b>{esc(title)}</b></summary>{body}</details>'


def timing_fragment_modes(comparisons: Any) -> str:
    from .timing_html import modes_table

    return f'<div class="cx-timing">{modes_table(comparisons)}</div>'


def _diff_previous(comp: Compilation, data: CaptureData) -> str:
    """For a recompile: what changed against the frame's previous compilation."""
    if not comp.recompile_reason:
        return ""
    from ..capturing.compile_id import sort_key

    prev = [c for c in data.compilations if c.frame == comp.frame and c.compile_id != comp.compile_id
            and sort_key(c.compile_id) < sort_key(comp.compile_id)]
    if not prev:
        return ""
    diff = diff_compilations(prev[-1], comp)
    return (f'<details class="cx-stage" data-stage="diff"><summary>Diff against {esc(prev[-1].compile_id)}'
            f'</summary>{diff_html(diff)}</details>')


def _comp_summary(comp: Compilation) -> str:
    bits = [comp.status.replace("_", " ")]
    if comp.graph is not None:
        bits.append(f"{max(comp.graph.num_nodes, len(comp.graph.nodes)):,} nodes")
    if comp.kernels:
        bits.append(f"{len(comp.kernels)} kernels")
    if comp.graph_break is not None:
        bits.append("graph break")
    if comp.recompile_reason:
        bits.append("recompile")
    if comp.failure:
        bits.append("failed")
    if comp.compile_time_s:
        bits.append(f"{comp.compile_time_s:.2f} s")
    return f'<code>{esc(comp.compile_id)}</code> {esc(comp.frame.name)} ' \
           f'<span class="cx-muted">({esc(loc_text(comp.frame.filename, comp.frame.lineno))}) — {esc(", ".join(bits))}</span>'


def compilation_html(comp: Compilation, ctx: Ctx, report: Any, *, open_: bool = False) -> str:
    """One compilation: its present stages, then one list of the absent ones and why."""
    present, absent = [], []
    for stage in STAGES:
        if stage.scope == "report":
            continue  # timing has its own section
        if stage.present(comp):
            is_open = " open" if stage.id in _OPEN_STAGES else ""
            present.append(f'<details class="cx-stage" data-stage="{stage.id}"{is_open}><summary>'
                           f'{esc(stage.title)}</summary>{stage_html(comp, stage.id, ctx=ctx)}</details>')
        else:
            absent.append(stage)
    if absent:
        items = "".join(f"<li><b>{esc(s.title)}</b>: {stage_html(comp, s.id, ctx=ctx)}</li>" for s in absent)
        present.append(f'<details class="cx-stage cx-absent"><summary>Not captured here ({len(absent)}): '
                       f'{esc(", ".join(s.title for s in absent))}</summary><ul class="cx-list">{items}</ul></details>')
    present.append(_diff_previous(comp, report.capture))
    fail = f'<div class="cx-bad"><b>Failed:</b> {esc(comp.failure)}</div>' if comp.failure else ""
    return (f'<details class="cx-comp" data-compile-id="{esc(comp.compile_id)}"{" open" if open_ else ""}>'
            f'<summary>{_comp_summary(comp)}</summary>{fail}{"".join(present)}</details>')


def as_report(obj: Any) -> Any:
    """A Report as is; bare capture data gets the clinic's reading, so it renders the same way."""
    from ..report import Report

    return Report.of(obj)


def render_fragment(report: Any, *, max_chars: int = 200_000) -> str:
    """Self-contained HTML for a notebook output: inline scoped style, no script, no network."""
    report = as_report(report)
    data = report.capture
    ctx = Ctx(max_chars=max_chars)
    ctx.prefetch_pictures(getattr(c, s.field, None) for c in data.compilations for s in STAGES if s.kind == "graph")
    few = len(data.compilations) <= 3
    body = "".join(compilation_html(c, ctx, report, open_=few or i == 0) for i, c in enumerate(data.compilations))
    if not data.compilations:
        body = ('<div class="cx-missing"><b>No compilations were captured.</b> Nothing ran through '
                'torch.compile inside the capture (or every frame was skipped).</div>')
    return (f'<div class="{ROOT}"><style>{stylesheet()}</style>{header_html(report)}{timing_section(report)}'
            f'<div class="cx-h3">Compilations</div>{body}</div>')


def render_page(report: Any, *, max_chars: int = 200_000) -> str:
    """A complete standalone document around the fragment: one file, utf-8, no network."""
    report = as_report(report)
    data = report.capture
    title = (f"compile-explorer: {len(data.compilations)} compilations, "
             f"{len(data.graph_breaks)} graph breaks — torch {data.torch_version}")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title>"
            "<style>html,body{margin:0;padding:0}body{padding:12px}"
            "@media (prefers-color-scheme: dark){body{background:#0d1117}}</style></head>"
            f"<body>{render_fragment(report, max_chars=max_chars)}</body></html>\n")


def stage_block(report: Any, stage: Any, comp: Compilation) -> str:
    """One stage as a self-contained block: title, the learner's explanation, the pane."""
    return (f'<div class="{ROOT}"><style>{stylesheet()}</style>'
            f'<div class="cx-h3">{esc(stage.title)} <span class="cx-muted">[{esc(comp.compile_id)}] '
            f'{esc(comp.frame.name)}</span></div><p class="cx-muted cx-explain">{esc(stage.explanation)}</p>'
            f'{stage_html(comp, stage.id, report=report)}</div>')
