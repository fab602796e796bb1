"""Static HTML of the view model (``present.viewmodel``): what a notebook shows without JavaScript.

Public API, used by the report, the widget and the CLI:
  stage_html(comp, stage, kernel=None, report=...) -> one stage (or one kernel) of one compilation
  render_fragment(report)           -> self-contained HTML for a notebook output (no script)
  render_page(report)               -> the standalone page (``present.page``: the interactive view)

Why static HTML with ``<details>``: a notebook output must still read on GitHub
and nbviewer, which run no JavaScript; this is the fallback the notebook view
carries next to its widget. It draws the blocks the interactive view draws, one
generic function per kind of block; code is shown as plain text (the one
highlighter is the front end's: README, "How it is built"). Styles are inline
and scoped under ``.cx-report``. Every string passes through ``esc``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ..capturing.model import Compilation, FxGraph, FxNode
from ..stages import BY_ID, STAGES
from . import diff_view, fold_picture, graphviz_svg
from . import viewmodel as vm
from .blocks import Drawn
from .escape import esc
from .fmt import comp_name, loc_text, origin_key, stage_anchor
from .panes import MAX_TABLE_ROWS
from .plots import bar_chart
from .structure_view import structure_for
from .style import ROOT, stylesheet
from .words import NODE_HEAD, front, static, static_note

resolve, pane_blocks = vm.resolve, vm.pane_blocks
_OPEN_STAGES = ("graph_break", "graph")


@dataclass
class Ctx:
    """What one render shares: the compilation its code blocks read from, the text limit, the
    pictures drawn for it, and a budget of characters (the notebook's static copy stays small)."""

    comp: Any = None
    report: Any = None  # what a diff's sides are read from (their compilations)
    max_chars: int = 200_000
    pictures: bool = True  # False: no `dot` runs (the notebook's static copy, which must be quick)
    budget: Optional[int] = None  # characters of stage HTML one render may spend; None: no limit
    spent: int = 0
    svgs: dict[str, tuple[Optional[str], str]] = field(default_factory=dict)

    def svg(self, dot: str) -> tuple[Optional[str], str]:
        if dot not in self.svgs:
            self.svgs[dot] = graphviz_svg.render_svg(dot)
        return self.svgs[dot]

    def prefetch_pictures(self, graphs: Iterable[tuple[Compilation, str]]) -> None:
        """Run ``dot`` for every graph stage's picture at once (``(compilation, stage id)``): it is a subprocess, so
        threads overlap the waits."""
        if not self.pictures:
            return
        found = (picture_dot(comp, sid) for comp, sid in graphs if getattr(comp, BY_ID[sid].field, None) is not None)
        dots = list({dot for dot in found if dot} - set(self.svgs))
        if len(dots) < 2 or graphviz_svg.dot_program() is None:
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(dots), os.cpu_count() or 2)) as pool:
            for dot, result in zip(dots, pool.map(graphviz_svg.render_svg, dots)):
                self.svgs[dot] = result


# ---- inline runs and blocks ----

def runs(r: Any) -> str:
    if r is None or r == "":
        return ""
    if isinstance(r, str):
        return esc(r)
    if isinstance(r, (int, float)):
        return esc(r)
    if isinstance(r, list):
        return "".join(runs(x) for x in r)
    if "b" in r:
        return f"<b>{runs(r['b'])}</b>"
    if "muted" in r:
        return f'<span class="cx-muted">{runs(r["muted"])}</span>'
    if "a" in r:
        return f'<a href="{esc(r["href"])}" target="_blank" rel="noopener">{esc(r["a"])}</a>'
    if "chip" in r:
        return f'<span class="cx-chip">{esc(r["chip"])}</span>'
    if "go" in r:
        anchor = r["go"].get("anchor")
        inner = f"<code>{esc(r['code'])}</code>"
        return f'<a href="#{esc(anchor)}">{inner}</a>' if anchor else inner
    if "code" in r or "origin" in r:
        return f"<code>{esc(r['code'] if 'code' in r else origin_key(r['origin']))}</code>"
    if "br" in r:
        return "<br>"
    return ""  # {bar}: the static copy draws charts instead


def blocks(bs: Iterable[Drawn], ctx: Ctx) -> str:
    return "".join(block(b, ctx) for b in bs if not b.get("interactive"))


def _cls(base: str, extra: Optional[str]) -> str:
    return f"{base} {extra}".strip() if extra else base


def block(b: Drawn, ctx: Ctx) -> str:
    t = b["t"]
    if t == "p":
        return f'<p{_attr("class", b.get("cls"))}>{runs(b["r"])}</p>'
    if t == "h":
        return f'<div class="{_cls("cx-h4", b.get("cls"))}">{runs(b["r"])}</div>'
    if t == "note":
        return f'<div class="{esc(b["cls"])}">{runs(b["r"])}</div>'
    if t == "list":
        tag = "ol" if b.get("ordered") else "ul"
        items = "".join(f'<li{_attr("data-origin", origin_key(i.get("origin")))}>{runs(i["r"])}'
                        f'{blocks(i.get("body", ()), ctx)}</li>' for i in b["items"])
        return f'<{tag} class="{_cls("cx-list", b.get("cls"))}">{items}</{tag}>'
    if t == "table":
        return table(b)
    if t == "code":
        return code_block(b, resolve(ctx.comp, b["src"]) or "", ctx)
    if t == "details":
        return (f'<details class="{_cls("cx-sub", b.get("cls"))}"{" open" if b.get("open") else ""}>'
                f'<summary>{runs(b["s"])}</summary>{blocks(b["body"], ctx)}</details>')
    if t == "section":
        return f'<div class="cx-h3">{esc(b["title"])}</div>{blocks(b["body"], ctx)}'
    if t == "div":
        data = "".join(_attr(f"data-{k}", v) for k, v in (b.get("data") or {}).items())
        return f'<div class="{esc(b["cls"])}"{_attr("id", b.get("id"))}{data}>{blocks(b["body"], ctx)}</div>'
    if t == "graph":
        fx = BY_ID[b["stage"]].content(ctx.comp)
        picture = graph_picture(fx, ctx, b["stage"], b.get("folded"))
        return (f'<details class="cx-sub" open><summary>{esc(static("code"))}</summary>{block(b["code"], ctx)}'
                f'</details><details class="cx-sub" open><summary>{esc(static("picture"))}</summary>'
                f'{picture}</details>')
    if t == "chart":
        return bar_chart([tuple(r) for r in b["rows"]], title=b["title"])
    if t == "svg":  # drawn in Python, every text escaped there (timeline_svg)
        return f'<div class="cx-svg">{b["svg"]}</div>'
    if t == "diff":
        return diff_html(b, ctx)
    return ""  # "button": interactive views only


def _attr(name: str, value: Any) -> str:
    return f' {name}="{esc(value)}"' if value else ""


def table(b: Drawn) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in b.get("head", ()))
    rows = []
    for r in b["rows"]:
        cells = [runs(c) for c in r["c"]]
        first = f"<th>{cells[0]}</th>" if r.get("th") else f"<td>{cells[0]}</td>"
        rows.append(f'<tr{_attr("class", r.get("cls"))}{_attr("data-origin", origin_key(r.get("origin")))}>{first}'
                    + "".join(f"<td>{c}</td>" for c in cells[1:]) + "</tr>")
    caption = f"<caption>{esc(b['caption'])}</caption>" if b.get("caption") else ""
    return (f'<table class="{_cls("cx-table", b.get("cls"))}">{caption}{f"<tr>{head}</tr>" if head else ""}'
            f'{"".join(rows)}</table>')


def code_block(b: Drawn, text: str, ctx: Ctx) -> str:
    """A ``<pre>``: numbered lines and marked rows where asked; past ``max_chars`` the rest is folded
    under "show all" (a budgeted copy leaves it out and says how much)."""
    limit = ctx.max_chars if ctx.budget is None else min(ctx.max_chars, ctx.budget // 4)
    head, rest = cut(text, limit)
    title = ""
    if b.get("title"):
        sub = f'<p class="cx-muted"><code>{esc(b["sub"])}</code></p>' if b.get("sub") else ""
        title = f'<div class="cx-h4">{esc(b["title"])}</div>{sub}'
    out = f'{title}<pre class="cx-code">{_lines(head, b)}</pre>'
    if rest:
        n, chars = f"{rest.count(chr(10)) + 1:,}", f"{len(rest):,}"
        if ctx.budget is not None:
            out += f'<p class="cx-muted cx-cut">{esc(static("cut", n=n, chars=chars))}</p>'
        else:
            out += (f'<details class="cx-more"><summary>{esc(static("show_all", n=n, chars=chars))}</summary>'
                    f'<pre class="cx-code">{esc(rest)}</pre></details>')
    return out


def _lines(text: str, b: Drawn) -> str:
    if text.endswith("\n"):
        text = text[:-1]
    marks, linenos = set(b.get("marks", ())), b.get("linenos")
    if not marks and not linenos:
        return esc(text)
    first = b.get("first", 1)
    lines = text.split("\n")
    width = len(str(first + len(lines)))
    out = []
    for i, line in enumerate(lines):
        no = first + i
        prefix = f'<span class="cx-lno">{no:>{width}}</span>' if linenos else ""
        body = prefix + (esc(line) or (" " if i + 1 in marks else ""))
        out.append(f'<span class="cx-hl" data-line="{no}">{body}</span>' if i + 1 in marks else body)
    return "\n".join(out)


def cut(text: str, max_chars: int) -> tuple[str, str]:
    """Split at the last line end before ``max_chars``: (shown, folded away)."""
    if len(text) <= max_chars:
        return text, ""
    at = text.rfind("\n", 0, max_chars)
    if at <= 0:
        at = max_chars
    return text[:at], text[at:].lstrip("\n")


# ---- graphs: the picture, or the node table ----

def node_table(nodes: tuple[FxNode, ...]) -> str:
    rows: list[str] = []
    users: dict[tuple, str] = {}  # many nodes share a user line: format each line once
    for n in nodes[:MAX_TABLE_ROWS]:
        user: Optional[str] = ""
        if n.loc is not None:
            key = (n.loc.filename, n.loc.lineno, n.loc.code)
            user = users.get(key)
            if user is None:
                user = users[key] = (f"<code>{esc(loc_text(n.loc.filename, n.loc.lineno))}</code> "
                                     f"{esc(n.loc.code or '')}")
        rows.append(f"<tr><td><code>{esc(n.name)}</code></td><td>{esc(n.op)}</td><td><code>{esc(n.target)}</code></td>"
                    f"<td><code>{esc(n.type or '')}</code></td><td>{user}</td></tr>")
    more = len(nodes) - MAX_TABLE_ROWS
    tail = f'<p class="cx-muted">{esc(static("more_nodes", n=f"{more:,}"))}</p>' if more > 0 else ""
    head = "".join(f"<th>{esc(h)}</th>" for h in NODE_HEAD)
    return f'<table class="cx-table cx-nodes"><tr>{head}</tr>{"".join(rows)}</table>{tail}'


def picture_dot(comp: Compilation, stage: str) -> Optional[str]:
    """The DOT of a graph stage's picture: folded by module when the graph is big or its modules repeat."""
    fx = getattr(comp, BY_ID[stage].field, None)
    return fold_picture.overview_dot(fx, structure_for(None, comp), stage) if fx is not None else None


def graph_picture(fx: FxGraph, ctx: Ctx, stage: str = "graph", folded: Optional[str] = None) -> str:
    """The SVG (a folded one: its overview, whose boxes open in the interactive view; ``folded`` is the view
    model's note saying so), or the node table with a one-line reason when there is no picture."""
    if not ctx.pictures:
        return f'<p class="cx-muted cx-nopic">{esc(static("picture_in_view"))}</p>'
    dot = picture_dot(ctx.comp, stage) if ctx.comp is not None else fold_picture.overview_dot(fx, None, stage)
    svg, why = ctx.svg(dot) if dot else (None, static("no_dot"))
    if svg:
        note = f'<p class="cx-muted">{esc(folded)}</p>' if folded else ""
        return f'{note}<div class="cx-svg">{svg}</div>'
    return f'<p class="cx-muted cx-nopic">{esc(why)}.</p>{node_table(fx.nodes)}'


# ---- one stage ----

def missing(view: dict, key: str) -> str:
    label = vm.labels()["missing"].get(key, front("not_captured"))
    return f'<div class="cx-missing"><b>{esc(label)}:</b> {esc(vm.why_not(view, key))}</div>'


def stage_html(comp: Compilation, stage: str, kernel: Optional[str] = None, *, max_chars: int = 200_000,
               ctx: Optional[Ctx] = None, report: Any = None, view: Optional[dict] = None) -> str:
    """One stage of one compilation (of the kernels stage, ``kernel`` picks one kernel by its key); a missing stage
    says why, never an empty pane."""
    ctx = ctx or Ctx(max_chars=max_chars)
    ctx.comp = comp
    if view is None:
        report = vm.as_report(report if report is not None else _alone(comp))
        view = vm.compilation(comp, report, panes=(stage,))
    bs = pane_blocks(view, stage, kernel)
    if bs is not None:
        found = [f for f in view.get("findings", ()) if f["stage"] == stage]
        body = blocks(found + bs, ctx)
    elif kernel is not None:
        body = (f'<div class="cx-missing"><b>{esc(static("no_such_kernel"))}</b> '
                f'{esc(static("in_compilation", ref=kernel, cid=comp.compile_id))}</div>')
    elif stage not in BY_ID:
        body = f'<div class="cx-missing"><b>{esc(static("unknown_stage"))}</b> {esc(stage)}</div>'
    else:
        body = missing(view, stage)
    return f'<div class="cx-pane" data-stage="{esc(stage)}"{_attr("data-kernel", kernel)}>{body}</div>'


def _alone(comp: Compilation) -> Any:
    from ..capturing.model import CaptureData

    return CaptureData(torch_version="", device="", python_version="", compilations=(comp,))


def stage_block(report: Any, stage: Any, comp: Compilation) -> str:
    """One stage as a self-contained block: title, the learner's explanation, the pane."""
    return (f'<div class="{ROOT}"><style>{stylesheet()}</style>'
            f'<div class="cx-h3">{esc(stage.title)} <span class="cx-muted">[{esc(comp.compile_id)}] '
            f'{esc(comp_name(comp))}</span></div><p class="cx-muted cx-explain">{esc(stage.explanation)}</p>'
            f'{stage_html(comp, stage.id, report=report)}</div>')


# ---- the whole report ----

def header_html(model: dict, ctx: Ctx) -> str:
    """The numbers first, then what to fix: what a reader checks before opening anything."""
    chips = "".join(f'<span class="cx-chip">{esc(k)} <b>{esc(v)}</b></span>' for k, v in model["header"]["chips"])
    return (f'<div class="cx-h2">{esc(static("brand"))}</div>{ranks_html(model, ctx)}<div class="cx-stat cx-header">'
            f'{chips}</div>' + blocks(model["header"]["body"], ctx))


def ranks_html(model: dict, ctx: Ctx) -> str:
    """A merged multi-rank report: "ranks compared", then whose view follows (the lowest rank's)."""
    ranks = model.get("ranks")
    if not ranks:
        return ""
    return f'<div class="cx-ranks">{blocks(ranks["blocks"], ctx)}</div>{block(ranks["follows"], ctx)}'


def timing_section(model: dict, ctx: Ctx) -> str:
    """Folded: it is the last step of the story, and the panes should stay in view."""
    sec = model["timing"]
    if sec is None:
        return ""
    return (f'<details class="cx-stage" data-stage="timing"><summary><b>{esc(sec["title"])}</b></summary>'
            f'<div class="cx-timing">{blocks(sec["body"], ctx)}</div></details>')


def _text_of(comp: Any) -> diff_view.TextOf:
    """The texts a compilation's code blocks name (``viewmodel.resolve``)."""
    return lambda src: vm.resolve(comp, src)


def diff_html(b: Drawn, ctx: Ctx) -> str:
    """A ``diff`` block (``present.diff_view``): its heading, then one row per line, removed and added lines
    marked, what changed inside a replaced line marked; unchanged runs fold."""
    head = [f'<span class="cx-del-t">{esc(b["del"])}</span> → <span class="cx-add-t">{esc(b["add"])}</span>']
    head += [f' <span class="cx-muted">{esc(b[k])}</span>' for k in ("note", "counts") if b.get(k)]
    head += [f" <b>{esc(b['same'])}</b>"] if b.get("same") else []
    out = f'<div class="cx-diff"><p class="cx-diff-head">{"".join(head)}</p>'
    if "rows" not in b:
        return out + f'<div class="cx-missing">{esc(b["missing"])}</div></div>'
    comps = [_side_comp(ctx, s) for s in (b["a"], b["b"])]
    a, bl = (diff_view.side_lines(segs, _text_of(c)) for c, segs in zip(comps, b["lines"]))

    def row(cls: str, i: Optional[int], j: Optional[int], text: str, span: Optional[list] = None) -> str:
        sign = {"cx-del": "-", "cx-ins": "+"}.get(cls, " ")
        body = esc(text)
        if span is not None and text[span[0]:len(text) - span[1]]:
            p, q = span[0], len(text) - span[1]
            body = f'{esc(text[:p])}<mark class="cx-chg">{esc(text[p:q])}</mark>{esc(text[q:])}'
        return (f'<tr{_attr("class", cls)}><td>{"" if i is None else i + 1}</td><td>{"" if j is None else j + 1}'
                f'</td><td><pre>{sign} {body}</pre></td></tr>')

    rows = []
    for r in b["rows"]:
        tag = r[0]
        if tag in ("=", "fold"):
            equal = "".join(row("", r[1] + k, r[2] + k, bl[r[2] + k]) for k in range(r[3]))
            rows.append(equal if tag == "=" else f'<tr><td colspan="3"><details><summary>{esc(r[4])}</summary>'
                                                 f'<table>{equal}</table></details></td></tr>')
        elif tag == "-":
            rows += [row("cx-del", r[1] + k, None, a[r[1] + k]) for k in range(r[2])]
        elif tag == "+":
            rows += [row("cx-ins", None, r[1] + k, bl[r[1] + k]) for k in range(r[2])]
        else:
            rows += [row("cx-del", r[1] + k, None, a[r[1] + k], r[4][k]) for k in range(r[3])]
            rows += [row("cx-ins", None, r[2] + k, bl[r[2] + k], r[4][k]) for k in range(r[3])]
    return out + f'<table>{"".join(rows)}</table></div>'


def _side_comp(ctx: Ctx, side: dict) -> Any:
    """The compilation a diff's side reads its lines from."""
    report = ctx.report
    if ctx.comp is not None and getattr(ctx.comp, "compile_id", None) == side["cid"] and side.get("rank") is None:
        return ctx.comp
    if side.get("rank") is not None and report.distributed is not None and report.distributed.rank != side["rank"]:
        report = report.rank(side["rank"])
    return report.compilation(side["cid"])


def compilation_html(comp: Compilation, view: dict, ctx: Ctx, report: Any, *, open_: bool = False) -> str:
    """One compilation: its present stages, then one list of the absent ones and why.

    Past ``ctx.budget`` characters, further stages are named, not drawn (the
    notebook's static copy stays small and quick; the interactive view has them)."""
    present, absent, left_out = [], [], []
    for stage in STAGES:
        if stage.scope == "report":
            continue  # timing has its own section
        if stage.id in view["present"]:
            if ctx.budget is not None and ctx.spent > ctx.budget:
                left_out.append(stage)
                continue
            vm.ensure_panes(view, comp, report, (stage.id,))  # a model made with its first panes only
            is_open = " open" if stage.id in _OPEN_STAGES else ""
            anchor = esc(stage_anchor(comp.compile_id, stage.id))  # where another compilation's links lead
            part = (f'<details class="cx-stage" data-stage="{stage.id}" id="{anchor}"{is_open}><summary>'
                    f'{esc(stage.title)}</summary>{_folded(stage.id, view, ctx)}</details>')
            ctx.spent += len(part)
            present.append(part)
        else:
            absent.append(stage)
    if left_out:
        present.append(block(static_note("left_out", [s.title for s in left_out]), ctx))
    if absent:
        items = "".join(f"<li><b>{esc(s.title)}</b>: {stage_html(comp, s.id, ctx=ctx, view=view)}</li>" for s in absent)
        said = static("not_captured", n=len(absent), titles=", ".join(s.title for s in absent))
        present.append(f'<details class="cx-stage cx-absent"><summary>{esc(said)}</summary><ul class="cx-list">{items}'
                       '</ul></details>')
    if view.get("diffs") and view["previous"] and (ctx.budget is None or ctx.spent <= ctx.budget):
        present.append(f'<details class="cx-stage" data-stage="diff"><summary>'
                       f'{esc(static("diff_against", cid=view["previous"]))}</summary>{blocks(view["diffs"], ctx)}'
                       '</details>')
    fail = block(static_note("failed", comp.failure), ctx) if comp.failure else ""
    strip = blocks(view.get("from_where", ()), ctx)  # where it came from: caches, kernels, stance
    return (f'<details class="cx-comp" data-compile-id="{esc(comp.compile_id)}"{" open" if open_ else ""}>'
            f'<summary>{runs(view["summary"])}</summary>{fail}{strip}{"".join(present)}</details>')


def _folded(stage_id: str, view: dict, ctx: Ctx) -> str:
    """A stage of the page; each kernel of the kernels stage folds under its name."""
    if stage_id != "kernels":
        return stage_html(ctx.comp, stage_id, ctx=ctx, view=view)
    bs = view["panes"]["kernels"]
    body = "".join(f'<details class="cx-sub"><summary>{runs(b["fold"])}</summary>{block(b, ctx)}</details>'
                   if b["t"] == "div" else block(b, ctx) for b in bs)
    return f'<div class="cx-pane" data-stage="kernels">{body}</div>'


def render_fragment(report: Any, *, max_chars: int = 200_000, pictures: bool = True,
                    budget: Optional[int] = None, model: Optional[dict] = None) -> str:
    """Self-contained HTML for a notebook output: inline scoped style, no script, no network.

    ``pictures=False`` runs no ``dot``; ``budget`` caps the characters of stage HTML
    (past it, stages are named, not drawn): both keep the notebook's static copy quick."""
    report = vm.as_report(report)
    data = report.capture
    model = model or vm.build(report)
    ctx = Ctx(report=report, max_chars=max_chars, pictures=pictures, budget=budget)
    ctx.prefetch_pictures((c, s.id) for c in data.compilations for s in STAGES if s.kind == "graph")
    few = len(data.compilations) <= 3
    parts = []
    for i, (c, view) in enumerate(zip(data.compilations, model["compilations"])):
        ctx.comp = c
        parts.append(compilation_html(c, view, ctx, report, open_=few or i == 0))
    body = "".join(parts) or block(static_note("no_compilations"), ctx)
    return (f'<div class="{ROOT}"><style>{stylesheet()}</style>{header_html(model, ctx)}{timing_section(model, ctx)}'
            f'<div class="cx-h3">{esc(static("compilations"))}</div>{body}</div>')


def render_page(report: Any) -> str:
    """The standalone page (``report.save_html``): the interactive view, one file, no network."""
    from .page import render_page as page

    return page(report)
