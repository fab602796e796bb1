"""The panes of one compilation: one builder per stage, each given the compilation's context, each returning its
pane whole and in the order it is shown.

A builder reads what it shows from its ``PaneContext`` (``present.context``: the compilation, the report, kernel
keys, the module structure, the chain's captions, ...) and places the blocks the satellites make
(``usage_view``, ``structure_view``, ``ddp_view``, ``numbers_view``, ``changes_view``, ``partial_reads``: pure
functions that return blocks) where they go. No builder looks into another's output: a pane is composed once.
The blocks are ``present.blocks``'s kinds.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Iterable, Optional

from ..capturing.model import Compilation, Guard, Kernel, KernelCompileInfo, SourceLoc
from ..capturing.shapes import DynamicShapes
from ..clinic.locate import GuardLine, guard_line
from ..plural import counted, noun
from ..stages import STAGES, Stage
from . import (
    changes_view,
    ddp_view,
    diff_view,
    loop_view,
    numbers_view,
    partial_reads,
    phases_view,
    saved_view,
    shapes_view,
    structure_view,
    usage_view,
)
from .blocks import Block, Code, Graph, Item, Row, Run, Runs, note
from .context import PaneContext, block_key
from .escape import safe_url
from .fmt import comp_name, format_time, loc_text, origin_key, origin_of
from .inlined_view import entry_index, function_blocks, inlined_blocks

MAX_TABLE_ROWS = 2_000
SOURCE_ORIGINS = {  # a trace's source (``Bytecode.source_origin``): where it was read, since no code object was
    "file": "The trace holds no source: this is {file} as it is on this machine now, at the path the job "
            "recorded (if it changed since the job ran, lines may not match).",
    "quoted": "{file} is not on this machine: only the lines the trace quotes (the graphs' and guards' comments, "
              "the graph break) are shown, the others are blank. Open the trace where the job's code is, at the "
              "same path, to see it all."}
BY_STAGE = {s.id: s for s in STAGES}


def code(key: str, src: str, lang: Optional[str], *, first: Optional[int] = None, linenos: bool = False,
         marks: Optional[list[int]] = None, title: Optional[str] = None, sub: Optional[str] = None,
         file: Optional[str] = None) -> Code:
    """A code block: the text at ``src`` in the compilation, named ``key`` (``context.block_key``); the options
    (``blocks.Code``) where they say something."""
    block: Code = {"t": "code", "key": key, "src": src, "lang": lang}
    if first:
        block["first"] = first
    if linenos:
        block["linenos"] = linenos
    if marks:
        block["marks"] = marks
    if title:
        block["title"] = title
    if sub:
        block["sub"] = sub
    if file:
        block["file"] = file
    return block


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



def _source(stage: Stage, ctx: PaneContext) -> list[Block]:
    comp = ctx.comp
    bc, entry = comp.original_bytecode, comp.entry
    if bc is None:  # not present (Stage.present): the views say why
        return []
    first = bc.firstlineno or comp.frame.lineno
    line = break_line(comp)
    k = entry_index(comp)  # a decorator's wrapper's frame: the pane opens on the module's forward it wraps
    # (then the forward's own block names it and its place)
    out: list[Block] = [{"t": "p", "cls": "cx-muted", "r": loc_text(bc.filename, first, bc.name)}] if k is None \
        else []
    if bc.source_origin in SOURCE_ORIGINS:  # read from a trace: the file as it is now, or the lines quoted
        out.append(note("cx-missing", SOURCE_ORIGINS[bc.source_origin].format(file=bc.filename)))
    if comp.is_resume:
        out.append({"t": "p", "cls": "cx-muted", "r": "A resume function: Dynamo made it to run the rest of the "
                    "function after an earlier graph break; its code starts at the instruction after the break (after "
                    "a data-dependent branch, there is one for each side). Its calls go through the same cache and "
                    "guards as any frame's (How the pieces run)."})
    if entry is not None and entry.wrapper:
        out.append({"t": "p", "cls": "cx-muted", "r": [
            "torch.compile was given ", {"code": entry.name.partition(".")[0]}, ", whose code is torch's: "
            "Dynamo compiled this wrapper frame of torch's, which calls it, and inlined its ",
            {"code": entry.name}, "."]})
    gb = comp.graph_break
    if line is not None and gb is not None:
        out.append({"t": "p", "r": ["Line ", {"b": str(line)}, " (highlighted) is where the graph break happened: ",
                                    gb.reason]})
    elif gb is not None:  # the break is in a function this frame calls
        out.append({"t": "p", "r": ["The graph break happened outside this code, at ",
                                    {"code": loc_text(gb.filename, gb.lineno)}, ": ", gb.reason]})
    out.append({"t": "p", "cls": "cx-hint", "interactive": True,
                "r": "Hover or click a line: every pane lights what came from it."})
    frame: list[Block] = [code("source:0", "original_bytecode.source", "python", first=first, linenos=True,
                  marks=[line - first + 1] if line else None, file=bc.filename)]
    if k is None or entry is None:
        return _notes(stage, ctx) + out + frame + inlined_blocks(comp)
    # a decorator's wrapper around the module's forward: the forward first, the wrapper Dynamo compiled below it
    wrapper: list[Block] = [{"t": "h", "r": "The decorator's wrapper Dynamo compiled"},
               {"t": "p", "cls": "cx-muted", "r": [
                   "Dynamo compiled ", {"code": comp.frame.name}, f" ({loc_text(bc.filename, first)}), the wrapper "
                   "a decorator put around ", {"code": entry.name}, ", and inlined the forward above into it."]}]
    return _notes(stage, ctx) + out + function_blocks(comp, k) + wrapper + frame + inlined_blocks(comp, shown_first=k)


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


def _bytecode(stage: Stage, ctx: PaneContext) -> list[Block]:
    """A ``dis`` listing; the original's marks the graph-break line's instructions."""
    comp = ctx.comp
    bc = stage.content(comp)
    line = break_line(comp) if stage.id == "original_bytecode" else None
    out: list[Block] = [{"t": "p", "cls": "cx-muted", "r": f"{bc.name} — {loc_text(bc.filename, bc.firstlineno)}"}]
    if line is not None:
        out.append({"t": "p", "r": ["Highlighted: the instructions of line ", {"b": str(line)},
                                    ", where the graph break happened."]})
    return _notes(stage, ctx) + out + [code(f"{stage.id}:0", stage.field + ".listing", "dis",
                                           marks=listing_rows(bc.listing, line))]


def _code(stage: Stage, ctx: PaneContext) -> list[Block]:
    """Text in the stage's language; a tuple of wrapper modules gets one block per graph kind, each under the
    record its chain was read from (the output code's; the decompiled code has none)."""
    content = stage.content(ctx.comp)
    if isinstance(content, str):
        return _notes(stage, ctx) + [code(block_key(stage.id), stage.field, stage.language)]
    # the output code's collectives as Inductor scheduled them come first
    out = (ddp_view.collective_schedule(ctx.comp) if stage.id == "output_code" else []) + _notes(stage, ctx)
    for i, o in enumerate(content):
        out += _captioned(ctx, block_key(stage.id, i), [
            code(block_key(stage.id, i), f"{stage.field}.{i}.code", "wrapper", title=o.graph_kind, sub=o.filename)])
    return out


def _graph(stage: Stage, ctx: PaneContext) -> list[Block]:
    """An FX graph: its size, its modules' outline (a model's), its code and its picture (folded when big or
    repeated); the Dynamo graph's regions and DDP split after it, an exported graph's tables."""
    comp, s = ctx.comp, ctx.structure
    fx = stage.content(comp)
    n = max(fx.num_nodes, len(fx.nodes))
    graph: Graph = {"t": "graph", "stage": stage.id, "num_nodes": n,
                    "code": code(f"{stage.id}:0", f"{stage.field}.code", "python")}
    out: list[Block] = _notes(stage, ctx) + [{"t": "p", "cls": "cx-muted", "r": counted(n, "node")}]
    if stage.id in structure_view.GRAPH_STAGES:
        if structure_view.picture_folds(fx, s, stage.id):
            graph["folded"] = structure_view.FOLDED  # drawn folded (present.fold_picture): its boxes open
        st = ctx.modules.stage(stage.id) if ctx.modules is not None else None
        if s is not None and st is not None and len(st.of) == len(fx.nodes):
            out += structure_view.outline(s, stage.id, fx, ctx.node_lines.get(stage.id, {}))
    out.append(graph)
    if stage.id == "graph":
        out += usage_view.regions_blocks(comp) + ddp_view.split_blocks(comp)
    if stage.id == "export_graph" and ctx.export is not None:
        out += usage_view.export_blocks(ctx.export)
    return out


def _guard_line_cell(w: GuardLine) -> Runs:
    if not w.filename:
        return w.source or ""
    cell: list[Runs] = [w.source or "", {"muted": [" ", {"code": loc_text(w.filename, w.lineno, w.function)}]}]
    if w.checked_in:
        cell.append({"muted": [" (torch checks it in ", {"code": w.checked_in}, ")"]})
    return cell


def guard_row(g: Guard, w: GuardLine) -> Row:
    """One guard's row of the guards pane: kind, check, guarded value, the user line it came from."""
    return {"c": [g.kind, {"code": g.code}, {"code": g.subject or ""}, _guard_line_cell(w)],
            "origin": origin_of(w.filename, w.lineno)}


def _guards(stage: Stage, ctx: PaneContext) -> list[Block]:
    """What a guard filter dropped, then the guards: a table, or a model's families in folded groups."""
    comp = ctx.comp
    out: list[Block] = []
    if comp.guards:
        lines = [guard_line(g, comp.original_bytecode) for g in comp.guards]
        from_user = sum(1 for w in lines if w.is_user)
        moved = sum(1 for w in lines if w.checked_in)
        out.append({"t": "p", "cls": "cx-muted", "r": f"{counted(len(comp.guards), 'guard')} checked before each "
                    f"call reuses this compilation; {from_user} {noun(from_user, 'points', 'point')} at a line of "
                    "user code"
                    + (f" ({moved} checked inside a library, shown at the line that hands the value there)."
                       if moved else ".")})
        head = ["kind", "check", "guarded value", "user line"]
        s = ctx.modules
        if s is not None and structure_view.guard_families(s):  # every guard in a group, each row its own line
            each: list[Row] = [{**guard_row(g, w), "line": i + 1} for i, (g, w) in enumerate(zip(comp.guards, lines))]
            out += structure_view.guard_groups(s, each, head)
        else:
            rows = [guard_row(g, w) for g, w in zip(comp.guards[:MAX_TABLE_ROWS], lines)]
            out.append(guards_table(rows, head))
            if len(comp.guards) > MAX_TABLE_ROWS:
                more = len(comp.guards) - MAX_TABLE_ROWS
                out.append({"t": "p", "cls": "cx-muted", "r": f"… {counted(more, 'more guard')}"})
    if comp.guard_tree:
        out.append({"t": "details", "s": "guard tree (as torch printed it)", "open": not comp.guards,
                    "body": [code("guard_tree:0", "guard_tree", None)]})
    return usage_view.guard_filter_blocks(comp) + _notes(stage, ctx) + out


def guards_table(rows: list[Row], head: list[str]) -> Block:
    """The guards' table (row i is the guards' line i + 1 of the chain's ``guards:0``, or names its own)."""
    return {"t": "table", "cls": "cx-guards", "key": "guards:0", "rows": rows, "head": head}


def _graph_break(stage: Stage, ctx: PaneContext) -> list[Block]:
    """Graph break, recompile reason, restarts and failure: why this compilation looks as it does."""
    comp = ctx.comp
    out: list[Block] = []
    if comp.failure:
        out.append(note("cx-bad", [{"b": "Compilation failed: "}, comp.failure]))
    if comp.recompile_reason:
        out += [{"t": "h", "r": "Recompiled"},
                {"t": "p", "r": "An earlier compilation of this frame no longer matched its guards:"},
                code("recompile:0", "recompile_reason", None)]
        out += [b for e in ctx.report.clinic.recompiles if e.compile_id == comp.compile_id
                for b in shapes_view.recompile_cause(e)]  # a size made to matter by a specialization: its row
        if ctx.previous is not None:  # after the recompile's reason: its diff, one click away
            out.append({"t": "button", "go": {"stage": "graph", "diff": diff_view.side(ctx.previous.compile_id,
                                                                                       "graph")},
                        "r": f"Show the FX graph's diff against {ctx.previous.compile_id}"})
    gb = comp.graph_break
    if gb is not None:
        link = safe_url(gb.doc_url)
        gb_code: Run = ({"a": gb.gb_code, "href": link} if link else gb.gb_code) if gb.gb_code else ""
        out.append({"t": "h", "cls": "cx-gb-reason", "r": ["Graph break: ", gb.reason, " " if gb_code else "",
                                                           gb_code]})
        out.append({"t": "p", "r": [linked(gb.filename, gb.lineno),
                                    ["  ", {"code": gb.source_line}] if gb.source_line else ""]})
        if gb.explanation:
            out.append({"t": "p", "r": gb.explanation})
        if gb.hints:
            hints: list[Item] = [{"r": h} for h in gb.hints]
            out += [{"t": "p", "r": "Hints:"}, {"t": "list", "items": hints}]
        if gb.user_traceback:
            frames: list[Item] = [{"r": {"code": loc_text(f.filename, f.lineno, f.function)},
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
        items: list[Item] = [{"r": f"attempt {r.attempt}: {r.reason.splitlines()[0] if r.reason else ''}",
                  "body": [{"t": "details", "s": "details",
                            "body": [code(f"restart:{i}", f"restarts.{i}.reason", None)]}]}
                 for i, r in enumerate(comp.restarts)]
        out += [{"t": "h", "r": "Restarts"},
                {"t": "p", "r": "Dynamo threw its trace away and traced this frame again from the start. That is the "
                                "usual path of a graph break: the second trace stops just before the instruction "
                                "that broke and compiles the graph up to there."},
                {"t": "list", "items": items}]
    return _notes(stage, ctx) + out


def _ir(stage: Stage, ctx: PaneContext) -> list[Block]:
    """Inductor's loop-level IR, one dump per lowered graph (forward, backward, inference), each under the record
    its chain was read from and, in a model, its scheduler nodes' outline by module."""
    s = ctx.modules
    out: list[Block] = _notes(stage, ctx)
    for i, d in enumerate(stage.content(ctx.comp)):
        key = block_key(stage.id, i)
        outline = structure_view.ir_outline(s, key, d) if s is not None and s.stage(key) is not None else []
        out += _captioned(ctx, key, outline + [code(key, f"{stage.field}.{i}.text", "python", title=d.graph_kind)])
    return out


def _captioned(ctx: PaneContext, key: str, blocks: list[Block]) -> list[Block]:
    """A text's blocks under the record its chain's links were read from (``lineage.model.SOURCES``), if any."""
    source = ctx.captions.get(key)
    return ([usage_view.chain_caption(source)] if source else []) + blocks


def kernel_anchor(name: str) -> str:
    """The element id of a kernel's section: other views (the timing table) link to it."""
    return "cx-k-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


def linked(filename: Optional[str], lineno: Optional[int]) -> Run:
    """A user line as code, linked to the chain; its text is left out when it is the origin itself
    (a kernel of a big report names thousands: each is sent once)."""
    text, origin = loc_text(filename, lineno), origin_of(filename, lineno)
    return {"origin": origin} if text == origin_key(origin) else {"code": text, "origin": origin}


def _lines(locs: Iterable[SourceLoc]) -> list[Runs]:
    return [[{"br": True} if i else "", linked(loc.filename, loc.lineno), f" {loc.code or ''}"]
            for i, loc in enumerate(locs)]


def kernel_div(k: Kernel, ref: str, i: int, compiled: Optional[KernelCompileInfo] = None, *,
               caption: Optional[str] = None, launched: Optional[str] = None) -> Block:
    """One kernel: name, language, who launches it (``launched``, a model's), the FX nodes / ATen ops / user lines
    it came from, its compile, the record its chain was read from (``caption``), its source."""
    rows: list[Row] = []
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
    facts: Block = ({"t": "table", "cls": "cx-kfacts", "head": [], "rows": rows} if rows else
                    {"t": "p", "cls": "cx-muted", "r": "torch recorded no FX nodes or user lines for this kernel."})
    head: Block = {"t": "h", "r": [{"code": ref}, " ", {"chip": k.language},
                                   {"chip": k.graph_kind} if k.graph_kind else "", usage_view.build_chip(k)]}
    body = ([head] + ([structure_view.launched_note(launched)] if launched else []) + [facts]
            + ([usage_view.chain_caption(caption)] if caption else [])
            + [code(block_key("kernels", kernel=ref), f"kernels.{i}.source", k.language)])
    return {"t": "div", "cls": "cx-kernel", "id": kernel_anchor(k.name), "data": {"kernel": k.name, "ref": ref},
            "fold": [{"code": k.name}, f" ({k.language}, {counted(k.source.count(chr(10)) + 1, 'line')})"],
            "body": body}


def _kernels(stage: Stage, ctx: PaneContext) -> list[Block]:
    """The kernels' index, then each kernel; the record their chain was read from once over them when every
    kernel's is the same (a big report has thousands), else in each; a model's launches by module."""
    comp, refs, times = ctx.comp, ctx.refs, ctx.kernel_compiles
    rows: list[Row] = [
        {"c": [{"go": {"stage": "kernels", "kernel": ref, "anchor": kernel_anchor(k.name)}, "code": ref},
               k.language, k.graph_kind or "", f"{k.source.count(chr(10)) + 1:,}",
               ", ".join(loc_text(u.filename, u.lineno) for u in k.user_lines),  # each kernel's part links them
               *([_compile_time(times.get((k.graph_kind, k.name)))] if times else [])]}
        for k, ref in zip(comp.kernels, refs)]
    index: Block = {"t": "table", "cls": "cx-kindex", "rows": rows,
                    "head": ["kernel", "language", "graph", "lines", "user lines"]
                    + (["compile time"] if times else [])}
    ref_of = {k.name: ref for k, ref in zip(comp.kernels, refs)}

    def link(name: str) -> Run:
        ref = ref_of.get(name)
        return {"go": {"stage": "kernels", "kernel": ref, "anchor": kernel_anchor(name)}, "code": name} if ref \
            else {"code": name}

    shown = {(k.graph_kind, k.name) for k in comp.kernels}
    others = [c for key, c in times.items() if key not in shown]
    # compiled, but not in the output code the capture has (a cache served it, or it was not recorded)
    also: list[Block] = [{"t": "p", "cls": "cx-muted", "r": ["torch also compiled: ", ", ".join(
        f"{comp_name(c)} ({compile_text(c)})" for c in others)]}] if others else []
    common = ctx.kernels_caption
    s = ctx.modules
    launched = structure_view.launch_texts(s) if s is not None else {}
    divs = [kernel_div(k, ref, i, times.get((k.graph_kind, k.name)), launched=launched.get((k.graph_kind, k.name)),
                       caption=None if common else ctx.captions.get(block_key("kernels", kernel=ref)))
            for i, (k, ref) in enumerate(zip(comp.kernels, refs))]
    return (_notes(stage, ctx) + ([usage_view.chain_caption(common)] if common else [])
            + (structure_view.launch_families(s) if s is not None else []) + [index] + also
            + numbers_view.op_estimates(comp, link) + divs)





def _compile_time(c: Optional[KernelCompileInfo]) -> str:
    return format_time(c.compile_time_s) if c is not None and c.compile_time_s is not None else ""


def compile_text(c: KernelCompileInfo) -> str:
    """``0.289 s (autotune cache miss, 2 configs)``: one kernel's compile, as torch's triton_kernel_info says."""
    bits = [f"autotune cache {c.autotune_cache}" if c.autotune_cache else "",
            counted(c.num_configs, "config") if c.num_configs else "",
            ", ".join(f"{k}={v}" for k, v in c.only_config.items())]
    detail = ", ".join(b for b in bits if b)
    return (format_time(c.compile_time_s) if c.compile_time_s is not None else "time not given") + (
        f" ({detail})" if detail else "")


Builder = Callable[[Stage, PaneContext], list[Block]]
BUILDERS: dict[str, Builder] = {  # by the stage's kind: each returns its stage's pane whole, in order
    "source": _source, "code": _code, "bytecode": _bytecode, "graph": _graph, "guards": _guards,
    "break": _graph_break, "ir": _ir, "kernels": _kernels,
    "shapes": lambda stage, ctx: _notes(stage, ctx) + shapes_view.blocks(ctx.comp.dynamic_shapes or DynamicShapes(),
                                                                         ctx.comp.compile_id,
                                                                         ctx.report.clinic.recompiles),
    "saved": lambda stage, ctx: _notes(stage, ctx) + saved_view.blocks(ctx.comp),
    "loop": lambda stage, ctx: _notes(stage, ctx) + loop_view.blocks(ctx.comp, ctx.report),
    "compile_time": lambda stage, ctx: _notes(stage, ctx) + phases_view.blocks(ctx.comp, ctx.data.wall_time_s)}


def stage_pane(ctx: PaneContext, stage_id: str) -> list[Block]:
    """The pane of one present stage of the context's compilation: the same whether built alone or with others."""
    stage = BY_STAGE[stage_id]
    return BUILDERS[stage.kind](stage, ctx)


def stage_panes(ctx: PaneContext, stages: Iterable[str]) -> dict[str, list[Block]]:
    """The panes of these present stages of the context's compilation."""
    return {sid: stage_pane(ctx, sid) for sid in stages}


def _notes(stage: Stage, ctx: PaneContext) -> list[Block]:
    """What goes over a pane: what the capture changed to show it, where a cached stage came from, what an
    AOTInductor compile's code is, which piece of a split graph it shows, its records read in part."""
    comp, report, data = ctx.comp, ctx.report, ctx.data
    return (changes_view.note(stage.id, comp, report) + usage_view.cache_note(stage.id, comp, data.cache_mode)
            + usage_view.aoti_note(stage.id, comp) + ddp_view.piece_note(stage, comp)
            + partial_reads.pane_notes(stage.id, comp, data))
