"""Standalone HTML views of a report: one stage, a notebook fragment, a whole page.

Public API, used by the report, the widget and the CLI:
  STAGES                          -> list of (key, label) a compilation can show
  stage_keys(comp)                -> STAGES plus one ``kernel:<name>`` key per kernel
  stage_html(comp, key, ...)      -> HTML fragment for one stage of one compilation
  kernel_html(kernel, ...)        -> HTML fragment for one kernel
  render_fragment(data)           -> self-contained HTML for a notebook output
  render_page(data)               -> a complete standalone .html document

Why static HTML with ``<details>``: the same output must read on GitHub,
nbviewer and VS Code without a kernel or JavaScript, and from a saved file
without network. Styles are inline and scoped under ``.cx-report``.
Every render makes its own ``Ctx`` (a pygments budget, see ``highlight.py``,
and the pictures drawn for it, in parallel); nothing is cached between renders.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from ..capturing.model import CaptureData, Compilation, Kernel
from ..clinic import diff_compilations, explain_recompiles, fix_list
from ..clinic.html import diff_html
from . import stages
from .stages import Ctx, esc, loc_text
from .style import ROOT, stylesheet

STAGES: list[tuple[str, str]] = [
    ("source", "Source"),
    ("original_bytecode", "Original bytecode"),
    ("rewritten_bytecode", "Rewritten bytecode"),
    ("graph", "FX graph"),
    ("guards", "Guards"),
    ("graph_break", "Graph break / recompile"),
    ("aot_forward", "AOT forward"),
    ("aot_backward", "AOT backward"),
    ("aot_inference", "AOT inference"),
    ("post_grad_graph", "Post-grad graph"),
    ("ir_pre_fusion", "Loop IR before fusion"),
    ("ir_post_fusion", "Loop IR after fusion"),
    ("output_code", "Output code"),
    ("kernels", "Kernels"),
]
_LABELS = dict(STAGES)
KERNEL_PREFIX = "kernel:"


def stage_keys(comp: Compilation) -> list[tuple[str, str]]:
    """Every key ``stage_html`` accepts for this compilation, with labels (for pickers)."""
    names = Counter(k.name for k in comp.kernels)
    per_kernel = []
    for k in comp.kernels:
        ref = k.name if names[k.name] == 1 else f"{k.graph_kind}/{k.name}"
        per_kernel.append((KERNEL_PREFIX + ref, f"Kernel {ref}"))
    return list(STAGES) + per_kernel


def stage_html(comp: Compilation, key: str, *, max_chars: int = 200_000, ctx: Optional[Ctx] = None) -> str:
    """One stage of one compilation; a missing stage says why, never an empty pane.

    ``ctx`` lets one render share its highlighter budget and pictures across stages."""
    ctx = ctx or Ctx(max_chars=max_chars)
    if key.startswith(KERNEL_PREFIX):
        kernel = stages.find_kernel(comp, key[len(KERNEL_PREFIX):])
        body = (stages.kernel_view(kernel, ctx) if kernel is not None
                else f'<div class="cx-missing"><b>No such kernel:</b> {esc(key[len(KERNEL_PREFIX):])} '
                     f'in compilation {esc(comp.compile_id)}</div>')
    elif key in stages.RENDERERS:
        body = stages.RENDERERS[key](comp, ctx)
    else:
        body = f'<div class="cx-missing"><b>Unknown stage:</b> {esc(key)}</div>'
    return f'<div class="cx-pane" data-stage="{esc(key)}">{body}</div>'


def kernel_html(kernel: Kernel, *, max_chars: int = 200_000) -> str:
    """One kernel: name, language, the FX nodes / ATen ops / user lines it came from, its source."""
    return stages.kernel_view(kernel, Ctx(max_chars=max_chars))


# ---- the whole report ----

def _chip(label: str, value: object) -> str:
    return f'<span class="cx-chip">{esc(label)} <b>{esc(value)}</b></span>'


def header_html(data: CaptureData) -> str:
    """The numbers first: what a reader checks before opening anything."""
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
    parts.append(_breaks_summary(data))
    parts.append(_recompiles_summary(data))
    for note in data.notes:
        parts.append(f'<div class="cx-missing"><b>Note:</b> {esc(note)}</div>')
    return "".join(parts)


def _breaks_summary(data: CaptureData) -> str:
    """The clinic's "what to fix" list: one row per break site, most costly first."""
    sites = fix_list(data)
    if not sites:
        return ""
    items = []
    for s in sites:
        code = esc(s.gb_code or "")
        if s.doc_url and s.doc_url.startswith(("http://", "https://")):
            code = f'<a href="{esc(s.doc_url)}" target="_blank" rel="noopener">{code}</a>'
        times = f" ×{s.count}" if s.count > 1 else ""
        src = f" <code>{esc(s.source_line)}</code>" if s.source_line else ""
        hint = f'<div class="cx-muted">hint: {esc(s.hints[0])}</div>' if s.hints else ""
        resumed = (f'<div class="cx-muted">{esc(s.ran_as_python)}'
                   f'{" Resumed in " + esc(", ".join(s.resume_functions)) if s.resume_functions else ""}</div>')
        items.append(f"<li><code>{esc(s.location)}</code>: {esc(s.reason)}{' [' + code + ']' if code else ''}"
                     f"{times}{src}{hint}{resumed}</li>")
    return (f'<div class="cx-h3">Graph breaks: what to fix ({len(sites)} sites)</div>'
            f'<ul class="cx-list cx-breaks">{"".join(items)}</ul>')


def _recompiles_summary(data: CaptureData) -> str:
    items = [f"<li>{esc(e.one_line())}</li>" for e in explain_recompiles(data)]
    return f'<div class="cx-h3">Recompiles</div><ul class="cx-list">{"".join(items)}</ul>' if items else ""


def _diff_previous(comp: Compilation, data: Optional[CaptureData]) -> str:
    """For a recompile: what changed against the frame's previous compilation."""
    if data is None or not comp.recompile_reason:
        return ""
    prev = [c for c in data.compilations if c.frame == comp.frame and c.compile_id != comp.compile_id
            and _compile_no(c) < _compile_no(comp)]
    if not prev:
        return ""
    diff = diff_compilations(prev[-1], comp)
    return (f'<details class="cx-stage" data-stage="diff"><summary>Diff against {esc(prev[-1].compile_id)}'
            f'</summary>{diff_html(diff)}</details>')


def _compile_no(comp: Compilation) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in comp.compile_id.split("/"))
    except ValueError:
        return (0,)


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


_OPEN_STAGES = ("graph_break", "graph")


def compilation_html(comp: Compilation, ctx: Ctx, *, open_: bool = False, data: Optional[CaptureData] = None) -> str:
    """One compilation: its present stages, then one list of the absent ones and why."""
    present, absent = [], []
    for key, label in STAGES:
        if stages.is_present(comp, key):
            is_open = " open" if key in _OPEN_STAGES and (key != "graph_break" or _has_story(comp)) else ""
            present.append(f'<details class="cx-stage" data-stage="{key}"{is_open}><summary>{esc(label)}</summary>'
                           f'{stage_html(comp, key, ctx=ctx)}</details>')
        else:
            absent.append((key, label))
    if absent:
        items = "".join(f"<li><b>{esc(label)}</b>: {stage_html(comp, key, ctx=ctx)}</li>"
                        for key, label in absent)
        present.append(f'<details class="cx-stage cx-absent"><summary>Not captured here ({len(absent)}): '
                       f'{esc(", ".join(label for _, label in absent))}</summary><ul class="cx-list">{items}</ul></details>')
    present.append(_diff_previous(comp, data))
    fail = f'<div class="cx-bad"><b>Failed:</b> {esc(comp.failure)}</div>' if comp.failure else ""
    return (f'<details class="cx-comp" data-compile-id="{esc(comp.compile_id)}"{" open" if open_ else ""}>'
            f'<summary>{_comp_summary(comp)}</summary>{fail}{"".join(present)}</details>')


def _has_story(comp: Compilation) -> bool:
    return bool(comp.graph_break or comp.recompile_reason or comp.restarts or comp.failure)


def render_fragment(data: CaptureData, *, max_chars: int = 200_000, sections: Sequence[str] = ()) -> str:
    """Self-contained HTML for a notebook output: inline scoped style, no script, no network.

    ``sections``: HTML made by higher layers (e.g. timing), placed after the header.
    """
    ctx = Ctx(max_chars=max_chars)
    ctx.prefetch_pictures(fx for c in data.compilations for fx in _graphs(c))
    few = len(data.compilations) <= 3
    body = "".join(compilation_html(c, ctx, open_=few or i == 0, data=data) for i, c in enumerate(data.compilations))
    if not data.compilations:
        body = ('<div class="cx-missing"><b>No compilations were captured.</b> Nothing ran through '
                'torch.compile inside the capture (or every frame was skipped).</div>')
    return f'<div class="{ROOT}"><style>{stylesheet()}</style>{header_html(data)}{"".join(sections)}<div class="cx-h3">Compilations</div>{body}</div>'


def _graphs(comp: Compilation) -> tuple:
    return (comp.graph, comp.aot_forward, comp.aot_backward, comp.aot_inference,
            comp.post_grad_graph, comp.post_grad_graph_backward)


def render_page(data: CaptureData, *, max_chars: int = 200_000, sections: Sequence[str] = ()) -> str:
    """A complete standalone document around the fragment: one file, utf-8, no network."""
    title = (f"compile-explorer: {len(data.compilations)} compilations, "
             f"{len(data.graph_breaks)} graph breaks — torch {data.torch_version}")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title>"
            "<style>html,body{margin:0;padding:0}body{padding:12px}"
            "@media (prefers-color-scheme: dark){body{background:#0d1117}}</style></head>"
            f"<body>{render_fragment(data, max_chars=max_chars, sections=sections)}</body></html>\n")
