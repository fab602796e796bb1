"""One HTML renderer per kind of stage (``explorer.stages``), for one compilation.

Each renderer takes the registry's ``Stage``, the compilation and the render's
``Ctx`` (highlighter, character limit, pictures) and returns a fragment. A
stage with nothing in it says what is missing and why (``stages.why_missing``),
so a pane is never blank. Every string from user code goes through ``esc``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from ..capturing.model import Bytecode, Compilation, FxGraph, FxNode, Guard, Kernel, SourceLoc
from ..stages import Stage, why_missing
from . import graphviz_svg
from .escape import esc, safe_url
from .highlight import Highlighter

MAX_TABLE_ROWS = 2_000


@dataclass
class Ctx:
    """What one render shares: the highlighter (its pygments budget), the text limit,
    and the SVG pictures drawn for it. Made per render: nothing outlives it."""

    hl: Highlighter = field(default_factory=Highlighter)
    max_chars: int = 200_000
    svgs: dict[str, tuple[Optional[str], str]] = field(default_factory=dict)
    pictures: bool = True  # False: no `dot` runs (the notebook's static copy, which must be quick)
    budget: Optional[int] = None  # characters of stage HTML one render may spend; None: no limit
    spent: int = 0

    def block(self, text: str, lang: Optional[str], *, max_chars: Optional[int] = None, **kw) -> str:
        if self.budget is not None:  # a budgeted copy: long texts are cut, not folded
            return self.hl.block(text, lang, max_chars=min(max_chars or self.max_chars, self.budget // 4),
                                 keep_rest=False, **kw)
        return self.hl.block(text, lang, max_chars=max_chars or self.max_chars, **kw)

    def svg(self, dot: str) -> tuple[Optional[str], str]:
        if dot not in self.svgs:
            self.svgs[dot] = graphviz_svg.render_svg(dot)
        return self.svgs[dot]

    def prefetch_pictures(self, graphs: Iterable[Optional[FxGraph]]) -> None:
        """Run ``dot`` for every drawable graph at once: it is a subprocess, so threads
        overlap the waits and a report with dozens of graphs draws them in parallel."""
        if not self.pictures:
            return
        dots = list({fx.dot for fx in graphs if fx is not None and fx.dot and drawable(fx)} - set(self.svgs))
        if len(dots) < 2 or graphviz_svg.dot_program() is None:
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(dots), os.cpu_count() or 2)) as pool:
            for dot, result in zip(dots, pool.map(graphviz_svg.render_svg, dots)):
                self.svgs[dot] = result


def drawable(fx: FxGraph) -> bool:
    """Small enough for a picture (bigger ones are unreadable and slow to lay out)."""
    return max(fx.num_nodes, len(fx.nodes)) <= graphviz_svg.MAX_NODES


def short_path(path: Optional[str]) -> str:
    """Paths under the working directory are shown relative: shorter, same meaning."""
    if not path:
        return "?"
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def loc_text(filename: Optional[str], lineno: Optional[int], function: Optional[str] = None) -> str:
    where = short_path(filename) + (f":{lineno}" if lineno else "")
    return where + (f" in {function}" if function else "")


def missing(comp: Compilation, key: str, what: str = "") -> str:
    why = why_missing(key, comp)
    label = what or "Not captured"
    return f'<div class="cx-missing"><b>{esc(label)}:</b> {esc(why)}</div>'


# ---- source and bytecode ----

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


def source(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    bc = comp.original_bytecode
    if bc is None or not bc.source:
        why_key = "source" if "source" in comp.missing or bc is not None else "original_bytecode"
        return missing(comp, why_key, "Source not available")
    first = bc.firstlineno or comp.frame.lineno
    line = break_line(comp)
    parts = [f'<p class="cx-muted">{esc(loc_text(bc.filename, first, bc.name))}</p>']
    if comp.is_resume:
        parts.append('<p class="cx-muted">A resume function: Dynamo made it to run the rest of the function '
                     'after an earlier graph break; its code starts at the line of that break.</p>')
    gb = comp.graph_break
    if line is not None:
        parts.append(f'<p>Line <b>{line}</b> (highlighted) is where the graph break happened: {esc(gb.reason)}</p>')
    elif gb is not None:  # the break is in a function this frame calls
        parts.append(f'<p>The graph break happened outside this code, at '
                     f'<code>{esc(loc_text(gb.filename, gb.lineno))}</code>: {esc(gb.reason)}</p>')
    parts.append(ctx.block(bc.source, "python", hl_lines=[line] if line else (),
                          first_line=first, linenos=True))
    return "".join(parts)


_DIS_LINE = re.compile(r"^\s*(?:(\d+)\s+)?(?:>>|L\d+:)?\s*\d+\s+[A-Z_]")  # jump targets: >> to 3.12, L1: in 3.13


def listing_hl_rows(listing: str, lineno: Optional[int]) -> list[int]:
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


def _listing(bc: Bytecode, ctx: Ctx, mark_line: Optional[int] = None) -> str:
    rows = listing_hl_rows(bc.listing, mark_line)
    return ctx.block(bc.listing, None, hl_lines=rows)


def bytecode(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """A ``dis`` listing; the original's marks the graph-break line's instructions."""
    bc = stage.content(comp)
    if bc is None:
        return missing(comp, stage.id)
    line = break_line(comp) if stage.id == "original_bytecode" else None
    head = f'<p class="cx-muted">{esc(bc.name)} — {esc(loc_text(bc.filename, bc.firstlineno))}</p>'
    if line is not None:
        head += f'<p>Highlighted: the instructions of line <b>{line}</b>, where the graph break happened.</p>'
    return head + _listing(bc, ctx, line)


def code(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """Text in the stage's language; a tuple of wrapper modules gets one block per graph kind."""
    content = stage.content(comp)
    if not content:
        return missing(comp, stage.id)
    if isinstance(content, str):
        return ctx.block(content, stage.language)
    return "".join(
        f'<div class="cx-h4">{esc(o.graph_kind)}</div><p class="cx-muted"><code>{esc(o.filename or "")}</code></p>'
        f'{ctx.block(o.code, stage.language)}' for o in content)


# ---- graphs ----

def node_table(nodes: tuple[FxNode, ...]) -> str:
    rows, users = [], {}  # many nodes share a user line: format each line once
    for n in nodes[:MAX_TABLE_ROWS]:
        user = ""
        if n.loc is not None:
            key = (n.loc.filename, n.loc.lineno, n.loc.code)
            user = users.get(key)
            if user is None:
                user = users[key] = (f"<code>{esc(loc_text(n.loc.filename, n.loc.lineno))}</code> "
                                     f"{esc(n.loc.code or '')}")
        rows.append(f"<tr><td><code>{esc(n.name)}</code></td><td>{esc(n.op)}</td><td><code>{esc(n.target)}</code></td>"
                    f"<td><code>{esc(n.type or '')}</code></td><td>{user}</td></tr>")
    more = len(nodes) - MAX_TABLE_ROWS
    tail = f'<p class="cx-muted">… {more:,} more nodes (see the code above)</p>' if more > 0 else ""
    return ('<table class="cx-table cx-nodes"><tr><th>name</th><th>op</th><th>target</th><th>type</th>'
            f'<th>user line</th></tr>{"".join(rows)}</table>{tail}')


def graph_picture(fx: FxGraph, ctx: Ctx) -> str:
    """The SVG, or the node table with a one-line reason when there is no picture."""
    count = max(fx.num_nodes, len(fx.nodes))
    if not ctx.pictures:
        return '<p class="cx-muted cx-nopic">The picture is drawn in the interactive view.</p>'
    if not drawable(fx):
        note = (f"Picture skipped: {count:,} nodes is over the {graphviz_svg.MAX_NODES}-node limit "
                "(too big to read, and slow to lay out). The node table is below.")
        return (f'<p class="cx-muted">{esc(note)}</p><details class="cx-sub"><summary>node table</summary>'
                f'{node_table(fx.nodes)}</details>')
    if not fx.dot:
        svg, why = None, "no Graphviz text was captured for this graph"
    else:
        svg, why = ctx.svg(fx.dot)
    if svg:
        return f'<div class="cx-svg">{svg}</div>'
    return f'<p class="cx-muted cx-nopic">{esc(why)}.</p>{node_table(fx.nodes)}'


def graph_view(fx: FxGraph, ctx: Ctx, *, title: str = "") -> str:
    count = max(fx.num_nodes, len(fx.nodes))
    head = f'<div class="cx-h4">{esc(title)}</div>' if title else ""
    return (f'{head}<p class="cx-muted">{count:,} nodes</p>'
            f'<details class="cx-sub" open><summary>code</summary>{ctx.block(fx.code, "python")}</details>'
            f'<details class="cx-sub" open><summary>picture</summary>{graph_picture(fx, ctx)}</details>')


def graph(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """An FX graph: its code and its picture."""
    fx = stage.content(comp)
    return missing(comp, stage.id) if fx is None else graph_view(fx, ctx)


# ---- guards, breaks, recompiles ----

def _guard_row(g: Guard) -> str:
    user = ""
    if g.source or g.lineno:
        user = esc(g.source or "")
        if g.filename:
            user += f' <span class="cx-muted"><code>{esc(loc_text(g.filename, g.lineno, g.function))}</code></span>'
    return (f"<tr><td>{esc(g.kind)}</td><td><code>{esc(g.code)}</code></td>"
            f"<td><code>{esc(g.subject or '')}</code></td><td>{user}</td></tr>")


def guards(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    if not comp.guards and not comp.guard_tree:
        return missing(comp, "guards")
    parts = []
    if comp.guards:
        from_user = sum(1 for g in comp.guards if g.source)
        parts.append(f'<p class="cx-muted">{len(comp.guards)} guards checked before each call reuses this '
                     f'compilation; {from_user} point at a line of user code.</p>')
        limit = MAX_TABLE_ROWS if ctx.budget is None else 100  # a budgeted copy lists the first ones
        rows = "".join(_guard_row(g) for g in comp.guards[:limit])
        parts.append('<table class="cx-table cx-guards"><tr><th>kind</th><th>check</th><th>guarded value</th>'
                     f'<th>user line</th></tr>{rows}</table>')
        if len(comp.guards) > limit:
            parts.append(f'<p class="cx-muted">… {len(comp.guards) - limit:,} more guards</p>')
    if comp.guard_tree:
        parts.append(f'<details class="cx-sub"{"" if comp.guards else " open"}>'
                     '<summary>guard tree (as torch printed it)</summary>'
                     f'{ctx.block(comp.guard_tree, None)}</details>')
    return "".join(parts)


def _traceback(frames: tuple[SourceLoc, ...]) -> str:
    items = "".join(f"<li><code>{esc(loc_text(f.filename, f.lineno, f.function))}</code>"
                    + (f"<br><code>{esc(f.code)}</code>" if f.code else "") + "</li>" for f in frames)
    return f'<ol class="cx-list">{items}</ol>'


def graph_break_html(comp: Compilation, ctx: Ctx) -> str:
    gb = comp.graph_break
    if gb is None:
        return ""
    link = safe_url(gb.doc_url)
    code = ""
    if gb.gb_code:
        code = (f' <a href="{esc(link)}" target="_blank" rel="noopener">{esc(gb.gb_code)}</a>' if link
                else f" {esc(gb.gb_code)}")
    parts = [f'<div class="cx-h4 cx-gb-reason">Graph break: {esc(gb.reason)}{code}</div>',
             f'<p><code>{esc(loc_text(gb.filename, gb.lineno))}</code></p>']
    if gb.source_line:
        parts.append(ctx.block(gb.source_line, "python", first_line=gb.lineno or 1, linenos=bool(gb.lineno),
                              hl_lines=[gb.lineno] if gb.lineno else ()))
    if gb.explanation:
        parts.append(f"<p>{esc(gb.explanation)}</p>")
    if gb.hints:
        parts.append("<p>Hints:</p><ul class=\"cx-list\">" + "".join(f"<li>{esc(h)}</li>" for h in gb.hints) + "</ul>")
    if gb.user_traceback:
        parts.append("<details class=\"cx-sub\"><summary>user traceback</summary>" + _traceback(gb.user_traceback)
                     + "</details>")
    if gb.detail:
        parts.append(f'<details class="cx-sub"><summary>torch\'s full message</summary>'
                     f'{ctx.block(gb.detail, None)}</details>')
    return "".join(parts)


def graph_break(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """Graph break, recompile reason, restarts and failure: why this compilation looks as it does."""
    parts = []
    if comp.failure:
        parts.append(f'<div class="cx-bad"><b>Compilation failed:</b> {esc(comp.failure)}</div>')
    if comp.recompile_reason:
        parts.append('<div class="cx-h4">Recompiled</div>'
                     '<p>An earlier compilation of this frame no longer matched its guards:</p>'
                     f'{ctx.block(comp.recompile_reason, None)}')
    parts.append(graph_break_html(comp, ctx))
    if comp.restarts:
        items = "".join(
            f"<li>attempt {r.attempt}: {esc(r.reason.splitlines()[0] if r.reason else '')}"
            f"<details class=\"cx-sub\"><summary>details</summary>{ctx.block(r.reason, None)}</details></li>"
            for r in comp.restarts)
        parts.append('<div class="cx-h4">Restarts</div>'
                     '<p>Dynamo threw its trace away and traced this frame again:</p>'
                     f'<ul class="cx-list">{items}</ul>')
    if not any(parts):
        parts.append(missing(comp, stage.id, "No graph break"))
    else:
        if comp.graph_break is None:
            parts.append('<p class="cx-muted">No graph break in this compilation.</p>')
        if not comp.recompile_reason:
            parts.append('<p class="cx-muted">Not a recompile.</p>')
    return "".join(parts)


# ---- Inductor ----

def ir(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """Inductor's loop-level IR, one dump per lowered graph (forward, backward, inference)."""
    dumps = stage.content(comp)
    if not dumps:
        return missing(comp, stage.id)
    return "".join(f'<div class="cx-h4">{esc(d.graph_kind)}</div>{ctx.block(d.text, "python")}' for d in dumps)


def _locs(locs: tuple[SourceLoc, ...]) -> str:
    return "<br>".join(f"<code>{esc(loc_text(loc.filename, loc.lineno))}</code> {esc(loc.code or '')}"
                      for loc in locs)


def kernel_anchor(name: str) -> str:
    """The element id of a kernel's section: other views (the timing table) link to it."""
    return "cx-k-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


def kernel_view(kernel: Kernel, ctx: Ctx) -> str:
    facts = [f'<span class="cx-chip">{esc(kernel.language)}</span>']
    if kernel.graph_kind:
        facts.append(f'<span class="cx-chip">{esc(kernel.graph_kind)}</span>')
    rows = []
    if kernel.source_nodes:
        rows.append(f"<tr><th>FX nodes</th><td><code>{esc(', '.join(kernel.source_nodes))}</code></td></tr>")
    if kernel.aten_ops:
        rows.append(f"<tr><th>ATen ops</th><td><code>{esc(', '.join(kernel.aten_ops))}</code></td></tr>")
    if kernel.user_lines:
        rows.append(f"<tr><th>user lines</th><td>{_locs(kernel.user_lines)}</td></tr>")
    table = f'<table class="cx-table cx-kfacts">{"".join(rows)}</table>' if rows else \
        '<p class="cx-muted">torch recorded no FX nodes or user lines for this kernel.</p>'
    return (f'<div class="cx-kernel" id="{esc(kernel_anchor(kernel.name))}" data-kernel="{esc(kernel.name)}">'
            f'<div class="cx-h4"><code>{esc(kernel.name)}</code></div>'
            f'<div class="cx-stat">{"".join(facts)}</div>{table}'
            f'{ctx.block(kernel.source, kernel.language)}</div>')


def kernels(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    if not comp.kernels:
        return missing(comp, "kernels", "No kernels")
    rows = "".join(
        f"<tr><td><code>{esc(k.name)}</code></td><td>{esc(k.language)}</td><td>{esc(k.graph_kind)}</td>"
        f"<td>{_locs(k.user_lines)}</td></tr>" for k in comp.kernels)
    index = ('<table class="cx-table cx-kindex"><tr><th>kernel</th><th>language</th><th>graph</th>'
             f'<th>user lines</th></tr>{rows}</table>')
    each = "".join(f'<details class="cx-sub"><summary><code>{esc(k.name)}</code> '
                   f'({esc(k.language)}, {len(k.source.splitlines()):,} lines)</summary>'
                   f"{kernel_view(k, ctx)}</details>" for k in comp.kernels)
    return index + each


def find_kernel(comp: Compilation, ref: str) -> Optional[Kernel]:
    """``name`` or ``graph_kind/name`` (names can repeat between forward and backward)."""
    for k in comp.kernels:
        if ref in (k.name, f"{k.graph_kind}/{k.name}"):
            return k
    return None


BY_KIND: dict[str, Callable[[Stage, Compilation, Ctx], str]] = {
    "source": source,
    "code": code,
    "bytecode": bytecode,
    "graph": graph,
    "guards": guards,
    "break": graph_break,
    "ir": ir,
    "kernels": kernels,
}


def render(stage: Stage, comp: Compilation, ctx: Ctx) -> str:
    """The pane of one stage of one compilation (report-wide stages are drawn by ``html``)."""
    return BY_KIND[stage.kind](stage, comp, ctx)
