"""The front end's input: one JSON payload per report, read by the front end (``frontend/src/``).

The notebook widget (``explorer.widget``) and the standalone page
(``present.page``) send the same payload to the same module, so they look and
behave the same. It is the view model (``present.viewmodel``: what every pane,
header and label shows), the report's own JSON with what the view can derive
left out (the view model's code blocks read their texts from it), graph
pictures, and the line-level chain in a compact form.

Format (``"format": 1``)::

    {
      "format": 1,
      "stages":  [Stage.to_dict(), ...],     # explorer.stages.STAGES, in pipeline order: the only list of stages
      "labels":  {...}, "header": {...}, "timing": {...} | null,   # the view model's (present.viewmodel);
                                             # labels.ui: the views' own words (present.words)
      "report":  {...},                      # Report.to_dict(), less what "omitted" names; every text over
                                             # 32 KB packed (present/packed_text.py: {"$lines": ...})
      "views":   [{                          # the view model's compilations, in capture order, with:
          "label":      "0/0 f (prog.py:3)",
          "present":    ["source", "graph", ...],   # stages with content (Stage.present)
          "why":        {"aot_backward": "..."},     # for every other stage: why it is empty (stages.why_missing)
          "kernels":    ["cpp_fused_sin_0", "backward/cpp_fused_1"],  # stable kernel keys, parallel to
                                                     # compilation.kernels: the name, or graph_kind/name when
                                                     # a name repeats; a pane shows one as
                                                     # {"stage": "kernels", "kernel": KEY}
          "previous":   "0/0" | null,                # the compilation a recompile replaced (for its diff)
          "diffs":      [{"t": "diff", ...}],        # its panes against that one's, computed in Python
                                                     # (present/diff_view.py): the page carries no other
          "panes":      {"graph": [blocks...]},      # what each present stage shows (present.viewmodel)
          "pictures":   {"graph": "PICTURE-ID"},     # graph stages that have a picture
          "boxes":      {"graph": {"box:model.layers.0-16": {"pid": "PICTURE-ID", "title": "...",
                                   "origins": ["FILE:LINE", ...]}}},  # a folded picture's boxes: the picture
                                                     # each opens (present.fold_picture), the user lines they hold
          "no_picture": {"post_grad_graph": "why"}}],
      "pictures": {"PICTURE-ID": "<svg ...>"},  # sanitised Graphviz SVG; empty when "pictures_lazy"
      "pictures_lazy": false,                # true in the widget: it asks the kernel to draw them
      "lineage": {                           # Report.lineage, compacted
          "origins": [{"file", "line"}, ...],  # every user line the chain reaches, sorted by file and line
          "compilations": {"0/0": {
              "blocks":   {"graph:0": [0, 3, 3, -1, [3, 4], ...]},  # per line of the block (index 0 is
                          # line 1): 0 no data, -1 glue (came from no user line), k origins[k - 1],
                          # a list for several origins
              "elements": {"graph:0": {"5": "sin"}},                # the node a graph's line defines (what
                                             # its picture's node is linked by; other stages' are left out)
              "stages":   {"graph:0": "graph", "kernels:k": "kernels"}}}},  # each block's stage
      "ranks": {...} | null,                 # a merged multi-rank report: the view model's (present.ranks), with
                                             # "diffs": two ranks' panes where they compiled differently
      "rank_payloads": {"1": {...}},         # every other rank's own payload (this format; its
                                             # lineage indexes the same "origins"); the page puts each in its
                                             # own element (page.rank_scripts), the widget sends one on
                                             # request (its "rank" action)
      "omitted": ["..."],                    # what was left out of "report", and how the view gets it back
      "deferred": false,                     # true: only FIRST_FIELDS and the views' FIRST_PANES are here;
                                             # build_rest() has the rest
      "made_at": 1767000000.0                # time.time() when the payload was made (latency checks)
    }

A block key names one text as a pane shows it (``context.block_key``): ``STAGE:PART`` (``source:0``,
``original_bytecode:0``, ``graph:0``, ``ir_pre_fusion:1``, ``output_code:0``;
``guards:0`` counts guard rows) or ``kernels:KEY`` for one kernel's source. A name only: its stage travels
beside it (``stages``; a kernels block is one kernel), so no view splits it. LineLink.line, .part and .kernel
(explorer.lineage) map onto it.

Left out of ``report`` (derivable, and most of a big report's size): each FX
graph's ``nodes`` table (the code shows the nodes; pictures are drawn from them
here), bytecode ``instructions`` (the listing has them), the
report's ``lineage`` list (sent compacted) and, in wrapper modules, the kernel
sources they embed verbatim (``code`` becomes ``code_parts`` + ``kernel_refs``:
code = parts[0] + source(refs[0]) + parts[1] + ...).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import time
from typing import Any, Callable, Iterable, Mapping, Optional, Union

from ..capturing.compile_id import CompileKey
from ..capturing.model import Bytecode, CaptureData, Compilation, FxGraph, OutputCode
from ..lineage import Origin
from ..report import RankRun
from ..serial import to_jsonable
from ..stages import STAGES
from . import fold_picture, graphviz_svg, viewmodel
from .context import block_key, kernel_refs
from .fmt import origin_of
from .graph_dot import graph_dot
from .packed_text import pack_texts
from .structure_view import structure_for
from .viewmodel import as_report

FORMAT = 1
Dot = Union[str, Callable[[], str]]  # a picture's DOT text, or what makes it when it is drawn (``dot_text``)
OMITTED = (
    "capture.compilations[].{graph,aot_*,post_grad_graph*}.nodes: the node table (the graph's code shows it)",
    "capture.compilations[].{original,rewritten}_bytecode.instructions: the listing shows them",
    "capture.compilations[].output_code[].code: when it embeds kernel sources verbatim, code_parts + kernel_refs",
    "lineage: sent compacted under the payload's 'lineage' (what a line defines, for the graph stages only)",
    "distributed.ranks[].report: each rank's report, as that rank's own payload ('rank_payloads', or the widget's "
    "'rank' action)",
)
_MIN_SPLICE = 200  # kernel sources shorter than this stay in the wrapper text
# The stages whose lines' elements (the node a line defines) travel: a picture's node is linked to the chain by
# its name. The loop IR's, the wrapper's and the kernels' (most of an 80-layer chain's size) the view never reads.
PICTURED = frozenset(s.id for s in STAGES if s.kind == "graph")


# What a view draws first (the default panes: source and bytecode | Dynamo FX graph; the header);
# with ``defer=True`` everything else follows in a second message (``build_rest``).
FIRST_FIELDS = frozenset({"compile_id", "frame", "status", "original_bytecode", "rewritten_bytecode", "graph",
                          "guards", "recompile_reason", "graph_break", "restarts", "compile_time_s", "metrics",
                          "failure", "missing", "kernels",  # kernels: their facts; their sources come later
                          "regions",  # the Dynamo graph's pane draws each compiled region's graph
                          "inlined", "entry"})  # the source pane shows the functions inlined into the frame
FIRST_STAGES = frozenset(s.id for s in STAGES if s.scope == "compilation" and s.kind != "kernels"
                         and s.field.split(".")[0] in FIRST_FIELDS)
# The panes a deferred payload carries (the view model's own: ``viewmodel.build(report, panes=FIRST_PANES)``
# builds only these); the rest's panes (the kernels pane is a big report's largest) come with ``build_rest``.
FIRST_PANES = FIRST_STAGES | {"timing"}


def build(report: Any, *, pictures: str = "inline", made_at: Optional[float] = None,
          defer: bool = False, model: Optional[dict] = None, other_ranks: bool = False,
          origins: Optional[list[Origin]] = None, on_rank: Optional[Callable[[str, dict], None]] = None,
          pack_over: int = 0) -> tuple[dict, dict[str, Dot]]:
    """The payload, and ``{picture id: DOT text}`` for every picture it names.

    ``pictures``: "inline" draws them now (the page), "lazy" leaves them to be
    drawn on request (the widget, through ``draw_pictures``), "none" skips them.
    ``defer``: only what the first view draws (``FIRST_FIELDS``, the chain of
    ``FIRST_STAGES``); ``"deferred": true`` tells the front end to ask for the
    rest (``build_rest``), which a big report's widget does right after it is drawn.
    ``model``: the report's view model, when the caller has it (a view builds it once).
    ``other_ranks``: a merged multi-rank report's page embeds every other rank's own payload
    (``rank_payloads``; their pictures are drawn once, with this one's); ``origins``: the user lines
    the chain's indexes refer to (a job's, so every rank's payload indexes the same list). ``on_rank(rank,
    payload)``: each other rank's payload is handed there as it is made, not kept in this one (a page of many
    ranks packs each at once: one rank's payload in memory at a time). ``pack_over``: long texts are packed only
    when they add up to more than this (``packed_text.pack_texts``; a live widget's ``WIDGET_PACK_OVER``).
    """
    report = as_report(report)
    data: CaptureData = report.capture
    model = model or viewmodel.build(report)
    if origins is None:
        origins = job_origins(report)
    views, dots = [], {}
    for comp, view in zip(data.compilations, model["compilations"]):
        view, comp_dots = _view(view, comp, with_pictures=pictures != "none", defer=defer, report=report)
        views.append(view)
        dots.update(comp_dots)
    others = {}
    if other_ranks and model.get("ranks"):
        for r in model["ranks"]["ranks"]:
            if r["rank"] != model["ranks"]["rank"] and r["status"] != "missing":
                sub, sub_dots = rank_payload(report, r["rank"], pictures="none" if pictures == "none" else "lazy",
                                             origins=origins, made_at=made_at)
                sub["pictures_lazy"] = pictures == "lazy"
                dots.update(sub_dots)
                if on_rank is not None:
                    on_rank(str(r["rank"]), sub)
                else:
                    others[str(r["rank"])] = sub
    drawn = draw_pictures(dots) if pictures == "inline" else {}
    refs = {c.compile_id: kernel_refs(c) for c in data.compilations}
    payload = {
        "format": FORMAT,
        "stages": model["stages"],
        "labels": model["labels"],
        "header": model["header"],
        "timing": model["timing"],
        "report": _pack_later_texts(_report_dict(report, first_only=defer), pack_over),
        "views": views,
        "pictures": drawn,
        "pictures_lazy": pictures == "lazy",
        "lineage": compact_lineage(report.lineage, refs, stages=FIRST_STAGES if defer else None, origins=origins),
        "ranks": model.get("ranks"),
        "omitted": list(OMITTED),
        "deferred": defer,
        "first_fields": sorted(FIRST_FIELDS),
        "made_at": time.time() if made_at is None else made_at,
    }
    if others:
        payload["rank_payloads"] = others
    return payload, dots


def _pack_later_texts(doc: dict, total_over: int) -> dict:
    """``doc`` (``_report_dict``'s) with its long texts packed, but for what the first view draws (``FIRST_FIELDS``:
    the Dynamo graph, the bytecode): unpacking is on the first paint's path (a 2,300-node graph's text, 370 KB:
    16 ms in the browser, cold), while those texts gzip well enough as they are (71 KB). ``total_over``: as
    ``pack_texts``'."""
    comps = doc["capture"]["compilations"]
    firsts = [{k: c.pop(k) for k in list(c) if k in FIRST_FIELDS} for c in comps]
    pack_texts(doc, total_over)
    for comp, first in zip(comps, firsts):
        comp.update(first)
    return doc


def rank_payload(report: Any, rank: int, *, pictures: str = "lazy", origins: Optional[list[Origin]] = None,
                 made_at: Optional[float] = None, pack_over: int = 0) -> tuple[dict, dict[str, Dot]]:
    """Rank ``rank``'s own payload, out of a merged report: what the view swaps in when that rank is picked.
    Its chain indexes the job's ``origins`` (every rank's the same list), so a pinned line stays lit."""
    return build(report.rank(rank), pictures=pictures, made_at=made_at,
                 origins=origins if origins is not None else job_origins(report), pack_over=pack_over)


def job_origins(report: Any) -> Optional[list[Origin]]:
    """Every user line the chain of any rank of a merged report reaches, in one order; None for any other report."""
    dist = getattr(report, "distributed", None)
    if dist is None or not dist.merged:
        return None
    found: set[Origin] = set()
    for lineages in [report.lineage] + [r.lineage for r in dist.ranks]:
        for lin in lineages:
            found.update(lin.origins if hasattr(lin, "texts") else (o for k in lin.links for o in k.origins))
    return sorted(found)


def build_rest(report: Any, model: Optional[dict] = None, dots: Optional[dict[str, Dot]] = None,
               pack_over: int = 0) -> dict:
    """What ``build(defer=True)`` left out: ``{"compilations": {cid: {field: value, "kernel_sources": [...],
    "panes": {stage: blocks}, "view_pictures": {"pictures", "boxes", "no_picture"} of every stage}},
    "lineage": the whole chain}``; the front end merges it into the payload it has.
    ``model``: the view model the first part was made from (the panes it lacks are built into it); ``dots``:
    where its stages' pictures go, to be drawn on request (None: none named, as for a view without them);
    ``pack_over``: as ``build``'s."""
    report = as_report(report)
    data: CaptureData = report.capture
    model = model or viewmodel.build(report, panes=False)
    comps, views = {}, {}
    for comp, view in zip(data.compilations, model["compilations"]):
        full = _compilation_dict(comp)
        rest = {k: v for k, v in full.items() if k not in FIRST_FIELDS}
        rest["kernel_sources"] = [k["source"] for k in full["kernels"]]
        comps[comp.compile_id] = rest
        later = [sid for sid in view["present"] if sid not in FIRST_PANES]
        panes = viewmodel.ensure_panes(view, comp, report, later)
        views[comp.compile_id] = {"panes": {sid: panes[sid] for sid in later}}
        if dots is not None:  # every stage's pictures: the first message named none (``_view``)
            pics, later_dots = _pictures(comp, view["present"], with_pictures=True, report=report)
            views[comp.compile_id]["view_pictures"] = pics
            dots.update(later_dots)
    pack_texts(comps, pack_over)  # the report's texts; the panes are the view model's blocks, read as they are
    for cid, rest in comps.items():
        rest.update(views[cid])
    refs = {c.compile_id: kernel_refs(c) for c in data.compilations}
    return {"compilations": comps,
            "lineage": compact_lineage(report.lineage, refs, origins=job_origins(report))}


def heavy_chars(report: Any) -> int:
    """About how many characters of text a payload carries (decides whether a widget defers)."""
    data = as_report(report).capture
    n = 0
    for c in data.compilations:
        for fx in (c.graph, c.aot_joint, c.aot_forward, c.aot_backward, c.aot_inference, c.post_grad_graph,
                   c.post_grad_graph_backward):
            n += len(fx.code) if fx is not None else 0
        n += sum(len(d.text) for d in (c.ir_pre_fusion or ()) + (c.ir_post_fusion or ()))
        n += sum(len(o.code) for o in c.output_code or ()) + sum(len(k.source) for k in c.kernels)
    return n


def to_json(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=str)


def script_safe(text: str) -> str:
    """``to_json``'s text safe inside ``<script type="application/json">``: every ``<`` as ``\\u003c``, so no
    ``</script>``."""
    return text.replace("<", "\\u003c")


# ---- per compilation ----

def _view(view: dict, comp: Compilation, *, with_pictures: bool, defer: bool = False,
          report: Any = None) -> tuple[dict, dict[str, Dot]]:
    """The view model's compilation, with the pictures its graph stages have (or why not) and, for a folded
    picture, what each of its boxes opens (``boxes``); ``defer``: only the first panes (``FIRST_PANES``), and no
    picture named yet: a big report's first view draws the graph's text, and folding its graphs for their pictures
    waits for ``build_rest``."""
    stage_ids = [] if defer else [s.id for s in STAGES]
    pics, dots = _pictures(comp, stage_ids, with_pictures=with_pictures, report=report)
    panes = {sid: bs for sid, bs in view["panes"].items() if sid in FIRST_PANES} if defer else view["panes"]
    return dict(view, panes=panes, **pics), dots


def _pictures(comp: Compilation, stage_ids: Iterable[str], *, with_pictures: bool,
              report: Any = None) -> tuple[dict, dict[str, Dot]]:
    """``{"pictures": {stage: id}, "boxes": {stage: {box: ...}}, "no_picture": {stage: why}}`` for the graph
    stages among ``stage_ids``, and each picture's DOT text (a folded graph's made when drawn)."""
    pics: dict[str, str] = {}
    no_pic: dict[str, str] = {}
    dots: dict[str, Dot] = {}
    boxes: dict[str, dict] = {}
    wanted = set(stage_ids)
    if not wanted:  # a deferred first message: its module structure is not read for nothing
        return {"pictures": pics, "boxes": boxes, "no_picture": no_pic}, dots
    structure = structure_for(report, comp) if with_pictures else None
    for s in STAGES:
        fx = s.content(comp) if s.kind == "graph" and s.id in wanted else None
        if not isinstance(fx, FxGraph):
            continue
        if not with_pictures:
            no_pic[s.id] = "pictures were not drawn for this view"
            continue
        if graphviz_svg.dot_program() is None:
            no_pic[s.id] = "Graphviz's `dot` program was not found: " + graphviz_svg.INSTALL_HINT + "."
            continue
        folded = fold_picture.fold(fx, structure, s.id)
        if folded is None and not fx.nodes:
            no_pic[s.id] = "No node of this graph was read from its text: there is nothing to draw."
            continue
        if folded is not None:  # named now, written when drawn (``Folded.dot``)
            ids = {key: picture_id(f"{folded.fingerprint}\n{key}") for key in folded.keys()}
            dots.update({ids[key]: functools.partial(folded.dot, key) for key in folded.keys()})
        else:
            plain = graph_dot(fx.nodes)
            ids = {"": picture_id(plain)}
            dots[ids[""]] = plain
        pics[s.id] = ids[""]
        if folded is not None:
            boxes[s.id] = {b.id: {"pid": ids[b.picture], "title": b.title, "origins": list(b.origins)}
                           for b in folded.boxes.values()}
    return {"pictures": pics, "boxes": boxes, "no_picture": no_pic}, dots


def picture_id(dot: str) -> str:
    return hashlib.sha1(dot.encode("utf-8")).hexdigest()[:16]


def dot_text(dot: Dot) -> str:
    """A picture's DOT text: ``build``'s ``dots`` hold a folded graph's pictures as makers, called when drawn."""
    return dot if isinstance(dot, str) else dot()


def draw_pictures(dots: dict[str, Dot]) -> dict[str, str]:
    """``{id: svg}``, or ``{id: why not}`` (text, not starting with ``<svg``); ``dot`` runs in parallel."""
    if not dots:
        return {}
    items = [(pid, dot_text(d)) for pid, d in dots.items()]
    if len(items) == 1:
        results = [graphviz_svg.render_svg(items[0][1])]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(items), os.cpu_count() or 2)) as pool:
            results = list(pool.map(graphviz_svg.render_svg, (d for _, d in items)))
    return {pid: (svg if svg else f"No picture: {why}.") for (pid, _), (svg, why) in zip(items, results)}


# ---- the report, less what the view derives ----

def _report_dict(report: Any, *, first_only: bool = False) -> dict:
    doc = {}
    for f in dataclasses.fields(report):
        if not f.compare or f.name in ("capture", "lineage"):
            continue
        value = getattr(report, f.name)
        if f.name == "distributed" and value is not None and value.merged:  # each rank travels as its own payload
            value = dataclasses.replace(value, ranks=tuple(RankRun(r.rank, part=r.part, missing=r.missing)
                                                           for r in value.ranks))
        doc[f.name] = to_jsonable(value)
    doc["capture"] = _capture_dict(report.capture, first_only=first_only)
    return doc


def _capture_dict(data: CaptureData, *, first_only: bool = False) -> dict:
    doc = {f.name: to_jsonable(getattr(data, f.name)) for f in dataclasses.fields(data) if f.name != "compilations"}
    doc["compilations"] = [_compilation_dict(c, first_only=first_only) for c in data.compilations]
    return doc


def _compilation_dict(comp: Compilation, *, first_only: bool = False) -> dict:
    refs = kernel_refs(comp)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(comp):
        if first_only and f.name not in FIRST_FIELDS:
            continue
        value = getattr(comp, f.name)
        if first_only and f.name == "kernels":
            out[f.name] = [{g.name: to_jsonable(getattr(k, g.name))
                            for g in dataclasses.fields(k) if g.name != "source"}
                           for k in value]
        elif isinstance(value, FxGraph):
            out[f.name] = {"code": value.code, "num_nodes": max(value.num_nodes, len(value.nodes))}
        elif isinstance(value, Bytecode):
            d = to_jsonable(dataclasses.replace(value, instructions=()))
            del d["instructions"]
            out[f.name] = d
        elif f.name == "output_code" and value:
            out[f.name] = [_wrapper_dict(o, comp, refs) for o in value]
        else:
            out[f.name] = to_jsonable(value)
    return out


def _wrapper_dict(o: OutputCode, comp: Compilation, refs: list[str]) -> dict:
    """The wrapper module with the kernel sources it embeds verbatim cut out (the kernels carry them)."""
    code, parts, used, pos = o.code, [], [], 0
    for k, ref in zip(comp.kernels, refs):
        if len(k.source) < _MIN_SPLICE or (k.graph_kind and o.graph_kind and k.graph_kind != o.graph_kind):
            continue
        at = code.find(k.source, pos)
        if at < 0:
            continue
        parts.append(code[pos:at])
        used.append(ref)
        pos = at + len(k.source)
    if not used:
        return to_jsonable(o)
    parts.append(code[pos:])
    return {"graph_kind": o.graph_kind, "filename": o.filename, "code": None, "code_parts": parts, "kernel_refs": used}


# ---- the chain, compacted ----

def compact_lineage(lineages: Iterable[Any], refs: Mapping[CompileKey, list[str]], *,
                    stages: Optional[frozenset] = None, origins: Optional[list[Origin]] = None) -> dict:
    """Report.lineage as ``{"origins": [...], "compilations": {cid: {"blocks", "elements"}}}`` (see above).

    Reads each ``explorer.lineage.Lineage`` from its ``texts`` (run-length coded origin
    sets per text); any other object with ``compile_id`` and ``links`` (one ``LineLink``
    per line) is read from those. A kernel's line names it by ``part`` (its index in the compilation's kernels) or by
    ``kernel``: a name that repeats in one compilation needs the index. ``stages``: only
    the blocks of these stages (the origins are always all of them, so indexes agree). ``origins``: the
    list to index (it holds every origin of ``lineages``; a job's, shared by the payloads of its ranks)."""
    lineages = list(lineages)
    if origins is None:
        found: set[Origin] = set()
        for lin in lineages:
            if hasattr(lin, "texts"):
                found.update(lin.origins)
            else:
                for link in lin.links:
                    found.update(link.origins)
        origins = sorted(found)
    ordered = list(origins)
    index = {o: i + 1 for i, o in enumerate(ordered)}
    comps = {}
    for lin in lineages:
        comp_refs = refs.get(lin.compile_id, [])
        if hasattr(lin, "texts"):
            comps[lin.compile_id] = _compact_texts(lin, index, comp_refs, stages)
        else:
            links = lin.links if stages is None else [k for k in lin.links if k.stage in stages]
            comps[lin.compile_id] = _compact_links(links, index, comp_refs)
    return {"origins": [origin_of(*o) for o in ordered], "compilations": comps}


def _kernel_ref(stage: str, part: int, kernel: Optional[str], refs: list[str]) -> Optional[str]:
    if stage != "kernels":
        return None
    if 0 <= part < len(refs) and (kernel is None or refs[part] == kernel or refs[part].endswith("/" + kernel)):
        return refs[part]
    return kernel if kernel in refs else ""  # "": cannot tell which kernel


def _entry(numbers: list[int]):
    return -1 if not numbers else numbers[0] if len(numbers) == 1 else numbers


def _compact_links(links: Iterable[Any], index: dict[Origin, int], refs: list[str]) -> dict:
    blocks: dict[str, list] = {}
    elements: dict[str, dict[str, str]] = {}
    stage_of: dict[str, str] = {}
    keys: dict[tuple, Optional[str]] = {}  # (stage, part, kernel) -> block key; None: an unknown kernel
    entries: dict[tuple[Origin, ...], Any] = {(): -1}
    for link in links:
        where = (link.stage, link.part, link.kernel)
        key = keys.get(where, "")
        if key == "":
            ref = _kernel_ref(link.stage, link.part, link.kernel, refs)
            key = keys[where] = None if ref == "" else block_key(link.stage, link.part, ref)
            if key is not None:
                stage_of[key] = link.stage
        line = link.line
        if key is None or line < 1:
            continue
        arr = blocks.get(key)
        if arr is None:
            arr = blocks[key] = []
        if len(arr) < line:
            arr.extend([0] * (line - len(arr)))
        entry = entries.get(link.origins)
        if entry is None:
            entry = entries[link.origins] = _entry(sorted({index[o] for o in link.origins}))
        old = arr[line - 1]
        if old and old != -1 and entry != -1 and old != entry:  # two links for one line: keep every origin
            entry = _entry(sorted(set((old if isinstance(old, list) else [old])
                                      + (entry if isinstance(entry, list) else [entry]))))
        arr[line - 1] = entry
        if link.element and link.stage in PICTURED:
            elements.setdefault(key, {})[str(line)] = link.element
    return {"blocks": blocks, "elements": elements, "stages": stage_of}


def _compact_texts(lin: Any, index: dict[Origin, int], refs: list[str], stages: Optional[frozenset] = None) -> dict:
    sets = [_entry(sorted(index[lin.origins[i]] for i in s)) for s in lin.sets]
    blocks: dict[str, list] = {}
    elements: dict[str, dict[str, str]] = {}
    stage_of: dict[str, str] = {}
    for t in lin.texts:
        if stages is not None and t.stage not in stages:
            continue
        ref = _kernel_ref(t.stage, t.part, t.kernel, refs)
        if ref == "":
            continue
        key = block_key(t.stage, t.part, ref)
        blocks[key] = [sets[i] for i in t.sets_per_line()]
        stage_of[key] = t.stage
        if t.elements and t.stage in PICTURED:
            elements[key] = dict(t.elements)
    return {"blocks": blocks, "elements": elements, "stages": stage_of}
