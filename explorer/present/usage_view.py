"""The view model's blocks for how the program used torch.compile: caches, stance, regions, guard filters, export.

Pure functions of the report that return blocks (``present.blocks``'s kinds): the pane builders
(``present.panes``) and the header (``present.viewmodel``) place them, the text summary
(``present.summary_view``) the ones it prints; the front end, the static copy and the text draw
them like every other block. A block's
``text`` is its plain form where its runs would not read as one line; the
words of both forms are written here, once. Nothing here draws.
"""

from __future__ import annotations

from typing import Any, Optional

from ..capturing.model import CacheLookup, CaptureData, Compilation, ExportedProgram
from ..clinic.guard_filter import DroppedGuard, dropped_guards, user_name
from ..plural import counted
from ..stages import BY_ID, CACHE_NAMES, FRESH_REMEDY, cached_from, skipped_by_cache, stored_from, stored_title
from . import cache_why_view
from .blocks import Block, Item, Note, P, Row, Runs, Table
from .fmt import loc_text, origin_of

AS_THE_JOB_RAN = "as the job ran"  # an opened trace: what the caches did then (its graphs were not lowered now)
GUARD_FILTER_WARNING = ("A guard filter drops guards Dynamo would check before each call: checking is cheaper, but a "
                        "change to a dropped guard's value no longer recompiles. The compiled code keeps what it "
                        "traced for the old value (wrong results or a crash, not an error).")


def _key(key: Optional[str]) -> list:
    return [" ", {"muted": ["key ", {"code": key}]}] if key else []


def _key_text(key: Optional[str]) -> str:
    return f" (key {key[:12]}...)" if key and len(key) > 12 else (f" (key {key})" if key else "")


def _s(seconds: Optional[float]) -> str:
    return "?" if seconds is None else f"{seconds:.2f} s"


# ---- the header ----

def header_chips(data: CaptureData, opened: bool = False) -> list[list]:
    """What the caches did (``caches``: lowered now, or served) and the stance in force: two chips beside the
    counts. ``opened``: a report read from a trace, whose graphs were lowered when the job ran, not now."""
    stance = data.stance + (f" → {data.stance_at_end}" if data.stance_at_end else "")
    return [["caches", caches_chip(data, opened)], ["stance", stance]]


# ---- what the caches did ----

def graph_counts(data: CaptureData) -> tuple[int, int]:
    """(graphs lowered now, graphs torch's graph caches served): each forward, backward or inference graph Inductor
    lowers, by its FX graph cache lookup (a hit served it; a miss or bypass, lowered now); a compilation without
    one (the graph caches off: ``--fresh``) lowered each post-grad graph it has."""
    lowered = served = 0
    for comp in data.compilations:
        lookups = [c for c in comp.caches if c.cache == "fx_graph"]
        if lookups:
            hits = sum(1 for c in lookups if c.outcome == "hit")
            served, lowered = served + hits, lowered + len(lookups) - hits
        else:
            lowered += sum(1 for g in (comp.post_grad_graph, comp.post_grad_graph_backward) if g is not None)
    return lowered, served


def _graphs(n: int) -> str:
    return f"{n} graph{'' if n == 1 else 's'}"


def caches_chip(data: CaptureData, opened: bool = False) -> str:
    """The header's ``caches`` chip: what happened (``9 lowered now``, ``9 served``), after the mode when it is
    not the default; an opened trace's: what happened when the job ran (``as the job ran: 9 lowered``)."""
    lowered, served = graph_counts(data)
    said = ", ".join(part for part in (f"{lowered} {_lowered(opened)}" if lowered else "",
                                       f"{served} served from cache" if served else "") if part) or "none lowered"
    if opened:
        return f"{AS_THE_JOB_RAN}: {said}"
    return said if data.cache_mode == "cold" else f"{data.cache_mode}: {said}"


def _lowered(opened: bool) -> str:
    """A capture lowered its graphs now; a trace's were lowered when the job ran."""
    return "lowered" if opened else "lowered now"


def _outcome_words(data: CaptureData, hits_said: bool = True, opened: bool = False) -> str:
    """``9 graphs served by torch's graph caches (FX graph cache 9 hits, AOTAutograd cache 5 hits)``, ``9 graphs
    lowered now``, or both: what the caches did, counted (the hits by cache unless ``hits_said`` is False: a warm
    capture lists every lookup after it)."""
    lowered, served = graph_counts(data)
    if not lowered and not served:
        return "no graph lowered by Inductor (nothing for its caches to serve)"
    parts = [f"{_graphs(lowered)} {_lowered(opened)}"] if lowered else []
    if served:
        hits: dict[str, int] = {}
        for c in (c for comp in data.compilations for c in comp.caches if c.outcome == "hit"):
            hits[c.cache] = hits.get(c.cache, 0) + 1
        counts = ", ".join(f"{CACHE_NAMES.get(cache, cache)} {n} hit{'' if n == 1 else 's'}"
                           for cache, n in hits.items())
        parts.append(f"{_graphs(served)} served by torch's graph caches" + (f" ({counts})" if hits_said else ""))
    return ", ".join(parts)


def mode_blocks(data: CaptureData, opened: bool = False) -> list[Block]:
    """What the caches did (lowered now, served, with counts) in the mode that ran; the stance when it is not the
    default. The text summary prints them all under its first line; the header shows the warm caches' and the
    stance's (the default mode's and a fresh one's are their chip's)."""
    out: list[Block] = []
    if data.cache_mode == "warm":
        lookups = [c for comp in data.compilations for c in comp.caches] + list(data.cache_events)
        counts: dict[tuple[str, str], int] = {}
        for c in lookups:
            counts[(c.cache, c.outcome)] = counts.get((c.cache, c.outcome), 0) + 1
        said = ", ".join(f"{CACHE_NAMES.get(cache, cache)} {n} {outcome}" for (cache, outcome), n in counts.items())
        kernels = [k for comp in data.compilations for k in comp.kernels if k.build]
        built = sum(1 for k in kernels if k.build == "built")
        kern = f"; kernels: {len(kernels) - built} loaded, {built} built" if kernels else ""
        mode = (f" {AS_THE_JOB_RAN} (the traced job's caches as it had them)" if opened
                else " warm (the program's compile caches as they are)")
        lines = [f"{mode}: {_outcome_words(data, False, opened)}; lookups: "
                 f"{said or 'no cache was consulted'}{kern}"]
        saved = [s for s in (_saved(comp) for comp in data.compilations) if s is not None]
        if saved:
            now, then = sum(s[0] for s in saved), sum(s[1] for s in saved)
            lines.append(f"compile {now:.2f} s here against {then:.2f} s when the caches were filled "
                         f"(as torch measured it then): {then - now:.2f} s saved")
        runs: list[Runs] = [{"b": "caches:"}, lines[0]]
        out.append({"t": "note", "cls": "cx-missing cx-usage cx-warm",
                    "r": runs + [[{"br": True}, line] for line in lines[1:]],
                    "text": ["caches:" + lines[0]] + [f"  {line}" for line in lines[1:]]})
    elif data.cache_mode == "fresh":
        out.append({"t": "p", "cls": "cx-muted cx-usage",
                    "r": f"caches: fresh (torch's graph caches off while capturing): {_outcome_words(data)}; "
                         f"{_code_cache_words(data)}; without --fresh a re-run is served by torch's graph caches, "
                         "its loop-level IR by the explorer's stage store; --warm for a second run's view"})
    else:
        lowered, served = graph_counts(data)
        after = ("; a re-run is served by torch's graph caches, its loop-level IR by the explorer's stage store "
                 "(the explorer puts each graph's source lines in its cache key: torch.compiler.config.cache_key_tag)"
                 if lowered and not served else "")
        out.append({"t": "p", "cls": "cx-muted cx-usage",
                    "r": f"caches: {_outcome_words(data)}{_store_counts(data)}; {_code_cache_words(data)}{after} "
                         "(--fresh lowers every graph again, --warm shows the program's own caches)"})
    if data.stance != "default" or data.stance_at_end:
        end = f" (at the end: {data.stance_at_end})" if data.stance_at_end else ""
        out.append({"t": "p", "cls": "cx-muted cx-usage", "r": f"stance: {data.stance}{end} "
                                                               "(torch.compiler.set_stance)"})
    return out


def _store_counts(data: CaptureData) -> str:
    """How many of the graphs torch's caches served had their loop-level IR from the explorer's stage store."""
    stored = [s for comp in data.compilations for s in comp.stored]
    if not stored:
        return ""
    back = sum(1 for s in stored if s.outcome == "replayed")
    lacking = f", {len(stored) - back} not in it" if len(stored) > back else ""
    return f", the loop-level IR of {back} from the explorer's stage store{lacking}"


def _code_cache_words(data: CaptureData) -> str:
    """What torch's code cache did: the kernels it loaded (their source compiled before) and those built now."""
    kernels = [k for comp in data.compilations for k in comp.kernels if k.build]
    if not kernels:
        return "torch's code cache serves kernels compiled before from the same source"
    built = sum(1 for k in kernels if k.build == "built")
    return f"kernels: {len(kernels) - built} loaded from torch's code cache (compiled before from the same source), " \
           f"{built} built"


def header_blocks(data: CaptureData, comps: dict[str, Compilation], opened: bool = False) -> list[Block]:
    """What the mode and the stance mean for this report, then the exported programs. The text summary prints
    the mode's lines under its first line (``mode_blocks``), so the header's are left out of it."""
    mode = mode_blocks(data, opened)
    out: list[Block] = []
    for b in mode if data.cache_mode == "warm" else mode[1:]:  # each a copy, left out of the text
        said = b.copy()
        said["summary"] = False
        out.append(said)
    if data.exports:
        items: list[Item] = [export_item(ep, comps) for ep in data.exports]
        out.append({"t": "section", "title": f"Exported programs ({len(items)})", "open": True, "summary": False,
                    "body": [{"t": "list", "cls": "cx-exports", "items": items}]})
    return out


def export_item(ep: ExportedProgram, comps: dict[str, Compilation]) -> Item:
    """One exported program in the header: what it is; a click leads to its AOTInductor compile's exported
    graph, and a program AOTInductor never compiled shows its tables here. Its ``text`` is the summary's lines."""
    comp = comps.get(ep.compile_id or "")
    lines = export_lines(ep, comps)
    item: Item = {"r": lines[0], "text": lines}
    if comp is not None:
        item["r"] = [lines[0], " → AOTInductor ", {"code": comp.compile_id}]
        item["go"] = {"cid": comp.compile_id, "stage": "export_graph"}
    else:
        item["body"] = export_blocks(ep)
    return item


def export_lines(ep: ExportedProgram, comps: dict[str, Compilation], max_files: int = 4) -> list[str]:
    """An exported program as the text summary's lines: signature, ranges, decompositions, AOTInductor, package."""
    kinds: dict[str, int] = {}
    for s in ep.inputs:
        kinds[s.kind] = kinds.get(s.kind, 0) + 1
    ins = ", ".join(f"{n} {k.lower().replace('_', ' ')}" for k, n in kinds.items())
    nodes = f"{counted(ep.graph.num_nodes, 'node')}, " if ep.graph is not None else ""
    lines = [f"export: {nodes}inputs: {ins or 'none'}; {counted(len(ep.outputs), 'output')}"]
    lines += [f"  input {s.name}: {s.type or '?'}" for s in ep.inputs if s.kind == "USER_INPUT"]
    for rc in ep.range_constraints:
        where = f" ({', '.join(rc.sources)})" if rc.sources else ""
        lines.append(f"  range {rc.symbol}{where}: [{rc.low}, {rc.high}]")
    decomposed = [d for d in ep.decompositions if d.decomposed]
    if decomposed:
        lines.append("  decomposed: " + "; ".join(f"{d.node} ({d.op}) -> {', '.join(d.into_ops)}" for d in decomposed))
    comp = comps.get(ep.compile_id or "")
    if comp is not None:
        wrapper = next((oc for oc in comp.output_code or () if oc.language == "cpp"), None)
        size = f", C++ wrapper {counted(wrapper.code.count(chr(10)) + 1, 'line')}" if wrapper else ""
        lines.append(f"  AOTInductor [{comp.compile_id}]: {counted(len(comp.kernels), 'kernel')}"
                     f" ({', '.join(k.name for k in comp.kernels)}){size}")
    if ep.package_files:
        total = sum(f.size for f in ep.package_files)
        where = f" {ep.package_path}" if ep.package_path else ""
        lines.append(f"  package{where}: {counted(len(ep.package_files), 'file')}, {total / 1e6:.2f} MB")
        biggest = sorted(ep.package_files, key=lambda f: -f.size)
        lines += [f"    {f.name}  {f.size:,} bytes" for f in biggest[:max_files]]
        if len(biggest) > max_files:
            lines.append(f"    ... {counted(len(biggest) - max_files, 'smaller file')}")
    return lines + [f"  note: {n}" for n in ep.notes]


# ---- one compilation: where it came from ----

def from_where(comp: Compilation) -> list[Block]:
    """The strip over each of a compilation's panes: Dynamo, each cache consulted, the kernels loaded or built,
    the compile time a hit saved against the cold compile that filled it; the stance when not the default."""
    if not comp.caches and not (comp.stance and comp.stance != "default"):
        return []
    runs: list[Runs] = [{"b": "From where: "}]
    runs.append({"chip": "Dynamo compiled" if comp.origin == "dynamo" else "no Dynamo frame (AOTInductor)"})
    for c in comp.caches:
        runs += [" → ", lookup_runs(c)]
    built = [k for k in comp.kernels if k.build]
    if built:
        n = sum(1 for k in built if k.build == "built")
        runs += [" → ", {"chip": f"kernels: {len(built) - n} loaded, {n} built"}]
    saved = _saved(comp)
    if saved is not None:
        now, then = saved
        runs += [" → ", {"chip": f"{then - now:.2f} s saved"},
                 {"muted": f" ({now:.2f} s here, {then:.2f} s cold when the entry was filled, as torch measured)"}]
    stance = [f"stance: {comp.stance}"] if comp.stance and comp.stance != "default" else []
    if stance:
        runs += ["  ", {"chip": stance[0]}]
    if not comp.caches:
        return [{"t": "p", "cls": "cx-strip cx-from-where", "r": runs, "text": stance}]
    dynamo = "Dynamo traced it" if comp.origin == "dynamo" else "no Dynamo frame"
    head = f"from where: {dynamo}; " + "; ".join(lookup_text(c) for c in comp.caches)
    out: list[Block] = [{"t": "p", "cls": "cx-strip cx-from-where", "r": runs, "text": [head] + stance}]
    skipped = [BY_ID[s].title for s in BY_ID if skipped_by_cache(s, comp) and not BY_ID[s].present(comp)]
    cached = [BY_ID[s].title for s in BY_ID if cached_from(s, comp) and BY_ID[s].present(comp)]
    said = ([f"skipped: cache hit: {', '.join(skipped)}"] if skipped else []) + (
        [f"from the cache: {', '.join(cached)}"] if cached else []) + _store_words(comp)
    if said:
        out.append({"t": "p", "cls": "cx-muted cx-cache-stages", "r": "; ".join(said), "text": said})
    return out + cache_why_view.why_blocks(comp)  # each miss: what changed in its key; each hit: what it saved


def _store_words(comp: Compilation) -> list[str]:
    """What the explorer's stage store gave back for the compilation's hits, and what it could not."""
    out = []
    for outcome, words in (("replayed", "from the explorer's stage store (as a capture lowered them)"),
                           ("missing", "not in the explorer's stage store")):
        chosen = [s for s in comp.stored if s.outcome == outcome]
        titles = dict.fromkeys(stored_title(r) for s in chosen for r in s.records)
        kinds = dict.fromkeys(s.graph_kind for s in chosen if s.graph_kind)
        if titles:
            of = f" [{', '.join(kinds)}]" if kinds else ""
            out.append(f"{words}: {', '.join(titles)}{of}" + (f" ({FRESH_REMEDY})" if outcome == "missing" else ""))
    return out


def _saved(comp: Compilation) -> Optional[tuple[float, float]]:
    """(this compile's time, the cold compile's time torch recorded in the entry) for a compilation a cache
    served, the latter from the outermost hit (AOTAutograd's covers Inductor's)."""
    hits = [c for c in comp.caches if c.outcome == "hit" and c.time_saved_s]
    if not hits or comp.compile_time_s is None:
        return None
    best = max(hits, key=lambda c: c.time_saved_s or 0.0)
    return comp.compile_time_s, float(best.time_saved_s or 0.0)


def lookup_words(c: CacheLookup) -> tuple[str, str, str]:
    """A cache lookup's words, for the strip and its plain form: (``FX graph cache hit [inference]``, the
    detail, the figure and bundle: ``, saves 1.20 s, 3 Triton kernels from its bundle``); the key goes between."""
    kind = f" [{c.graph_kind}]" if c.graph_kind else ""
    figure = ""
    if c.outcome == "hit" and c.time_saved_s:
        figure = f", saves {_s(c.time_saved_s)}"
    elif c.time_taken_s:
        figure = f", compiled in {_s(c.time_taken_s)}"
    detail = f" ({c.detail})" if c.detail and c.detail not in (c.outcome, "full_miss") else ""
    bundled = f", {counted(len(c.bundled_kernels), 'Triton kernel')} from its bundle" if c.bundled_kernels else ""
    return f"{CACHE_NAMES.get(c.cache, c.cache)} {c.outcome}{kind}", detail, figure + bundled


def lookup_text(c: CacheLookup) -> str:
    head, detail, tail = lookup_words(c)
    return f"{head}{detail}{_key_text(c.key)}{tail}"


def lookup_runs(c: CacheLookup) -> list:
    """``FX graph cache hit [inference] key …, saves 1.2 s``: the chip says hit or miss, the rest is muted."""
    head, detail, tail = lookup_words(c)
    tail = detail + tail
    return [{"chip": head}, *_key(c.key), {"muted": tail} if tail else ""]


def kernel_builds(comp: Compilation) -> list[Block]:
    """A warm capture's kernels, each loaded or built (the text summary's line under the compilation; the views
    chip each kernel's own)."""
    built = [k for k in comp.kernels if k.build]
    if not built:
        return []
    return [{"t": "p", "cls": "cx-muted", "r": "kernels: " + ", ".join(f"{k.name} {k.build}" for k in built)}]


def provenance_blocks(data: CaptureData) -> list[Block]:
    """Kernels whose line-level links use torch's newer per-kernel records (op traces): the summary's line (each
    kernel's facts show its op trace)."""
    traced = [k.name for c in data.compilations for k in c.kernels if k.op_trace]
    return [{"t": "p", "cls": "cx-muted", "r": f"per-kernel op traces from torch: {', '.join(traced)}"}] if traced \
        else []


TAGGED = (" The explorer changes these caches' keys in its default capture (not --warm): it sets "
          "torch.compiler.config.cache_key_tag, per graph, to a digest of the graph and of the source lines it came "
          "from (and turns on settings of its own that are part of the keys), so this entry is an earlier "
          "capture's of the same graph from the same lines, never a plain run's.")


def cache_note(stage_id: str, comp: Compilation, mode: str = "cold") -> list[Block]:
    """At the top of a stage shown from a cache entry: where it came from (the output code on a hit; the loop-level
    IR from the explorer's stage store); in the default capture (``mode`` "cold", its old name), how the explorer
    keys the entries."""
    where = cached_from(stage_id, comp)
    out: list[Block] = [{"t": "note", "cls": "cx-missing cx-cached",
                         "r": [{"b": "From the cache: "}, where + (TAGGED if mode == "cold" else "")]}] if where else []
    stored = stored_from(stage_id, comp)
    if stored:
        out.append({"t": "note", "cls": "cx-missing cx-cached", "r": [{"b": "From the explorer's stage store: "},
                                                                      stored]})
    return out


def build_chip(kernel: Any) -> Any:
    """A kernel's "built" or "loaded" in a warm capture ("" when not known)."""
    return {"chip": kernel.build} if kernel.build else ""


# ---- compiled regions ----

def region_bits(comp: Compilation) -> list[str]:
    """The words the frame list adds for a compilation's regions: ``region subgraph_0 ×4``, ``disable: f``."""
    out = []
    for r in comp.regions:
        if r.kind == "nested_compile_region":
            out.append(f"region {r.name} ×{r.calls}")
        else:
            out.append(f"{r.kind}: {r.name}")
    return out


def regions_blocks(comp: Compilation) -> list[Block]:
    """The frame's regions as a tree: each region's graph once, how often it is called, the kernels every call
    reuses; ``disable`` and ``nonstrict_trace`` calls named as what they are."""
    if not comp.regions:
        return []
    items: list[Item] = []
    for i, r in enumerate(comp.regions):
        where = loc_text(r.filename, r.lineno) if r.filename and r.lineno else ""
        at: Runs = [" ", {"code": where, "origin": origin_of(r.filename, r.lineno)}] if where else ""
        body: list[Block] = []
        if r.kind == "nested_compile_region":
            nodes = f", {counted(r.graph.num_nodes, 'node')}" if r.graph is not None else ""
            head: Runs = [{"b": r.name}, " ", {"chip": "nested_compile_region"}, f" compiled once, called {r.calls}×",
                    {"muted": nodes + (f", {r.aot_name} after AOTAutograd" if r.aot_name else "")}, at]
            if r.kernels:
                body.append({"t": "p", "cls": "cx-muted", "r": ["kernels reused by every call: ",
                                                                [[", " if j else "", {"code": k}]
                                                                 for j, k in enumerate(r.kernels)]]})
            if r.options:
                body.append({"t": "p", "cls": "cx-muted", "r": ["options: ", {"code": r.options}]})
            if r.graph is not None:
                body.append({"t": "details", "s": f"the region's graph (compiled once for {counted(r.calls, 'call')})",
                             "body": [{"t": "code", "key": f"region:{i}", "src": f"regions.{i}.graph.code",
                                       "lang": "python"}]})
        elif r.kind == "disable":
            head = [{"b": r.name}, " ", {"chip": "torch.compiler.disable"},
                    " runs as plain Python (the graph breaks at the call)", at]
        else:
            head = [{"b": r.name}, " ", {"chip": "nonstrict_trace"},
                    f" called opaquely from the graph {r.calls}× (its body not traced)", at]
        if r.note:
            body.append({"t": "p", "cls": "cx-muted", "r": r.note})
        items.append({"r": head, "body": body, "text": region_line(r),
                      "origin": origin_of(r.filename, r.lineno)})
    return [{"t": "h", "cls": "cx-regions-h", "r": f"Compiled regions of this frame ({len(items)})"},
            {"t": "list", "cls": "cx-regions", "items": items}]


def region_line(r: Any) -> str:
    """A region's plain form (the text summary's line)."""
    where = f" ({r.filename.rsplit('/', 1)[-1]}:{r.lineno})" if r.filename and r.lineno else ""
    if r.kind == "nested_compile_region":
        nodes = f"{counted(r.graph.num_nodes, 'node')}, " if r.graph is not None else ""
        kernels = f"; kernels reused: {', '.join(r.kernels)}" if r.kernels else ""
        return f"region {r.name}{where}: nested_compile_region, {nodes}compiled once, called {r.calls}x{kernels}"
    if r.kind == "disable":
        return f"{r.name}{where}: torch.compiler.disable: runs as plain Python (a graph break at the call)"
    return f"{r.name}{where}: nonstrict_trace: called opaquely from the graph {r.calls}x (its body not traced)"


def regions_summary(comp: Compilation) -> list[Block]:
    """The frame's regions, one line each: what the text summary prints under the compilation."""
    return [{"t": "p", "r": region_line(r)} for r in comp.regions]


# ---- guard filters ----

def guard_filter_blocks(comp: Compilation) -> list[Block]:
    """Above the guards: which guards the filter dropped (with what can go wrong) beside those it kept."""
    if comp.guard_filter is None:
        return []
    kept = [g for g in comp.filtered_guards if g.kept]
    dropped = dropped_guards(comp)
    out: list[Block] = [_guard_filter_note(comp, len(kept))]
    if dropped:
        out.append(_dropped_table(dropped))
    if kept:
        rows: list[Row] = [{"c": [{"chip": "kept"}, g.kind, {"code": user_name(g.subject)},
                       {"code": g.value} if g.value is not None else ""],
                 "origin": origin_of(g.filename, g.lineno), "cls": "cx-kept"} for g in kept]
        out.append({"t": "details", "s": f"kept by the filter ({len(kept)})", "open": not dropped,
                    "body": [{"t": "table", "cls": "cx-filtered cx-kept-guards",
                              "head": ["", "kind", "guarded value", "compiled for"], "rows": rows}]})
    return out


def guard_filter_summary(comp: Compilation, max_rows: int = 12) -> list[Block]:
    """The text summary's guard filter: kept and dropped, then the dropped guards' risks (the first few)."""
    if comp.guard_filter is None:
        return []
    dropped = dropped_guards(comp)
    said = _guard_filter_text(comp, sum(1 for g in comp.filtered_guards if g.kept))
    body: list[Block] = [_dropped_table(dropped[:max_rows])] if dropped else []
    if len(dropped) > max_rows:
        body.append({"t": "p", "r": f"... {len(dropped) - max_rows} more dropped"})
    return [{"t": "section", "title": said, "text": said, "body": body}]


def _guard_filter_note(comp: Compilation, kept: int) -> Note:
    n = len(comp.filtered_guards)
    return {"t": "note", "cls": "cx-missing cx-finding cx-guard-filter",
            "r": [{"b": f"Guard filter {comp.guard_filter}: "}, f"kept {kept} of {counted(n, 'guard')}, "
                  f"dropped {n - kept}. ",
                  GUARD_FILTER_WARNING],
            "text": _guard_filter_text(comp, kept)}


def _guard_filter_text(comp: Compilation, kept: int) -> str:
    n = len(comp.filtered_guards)
    return f"guard filter {comp.guard_filter} [{comp.compile_id}]: kept {kept} of {counted(n, 'guard')}, " \
           f"dropped {n - kept}"


def _dropped_table(dropped: list[DroppedGuard]) -> Table:
    rows: list[Row] = [{"c": [{"chip": "dropped"}, d.guard.kind, {"code": user_name(d.guard.subject)},
                   {"code": d.guard.value} if d.guard.value is not None else "", d.risk],
             "origin": origin_of(d.guard.filename, d.guard.lineno), "cls": "cx-dropped", "text": d.one_line()}
            for d in dropped]
    return {"t": "table", "cls": "cx-filtered cx-dropped-guards", "caption": "dropped: what can go wrong",
            "head": ["", "kind", "guarded value", "compiled for", "when it changes"], "rows": rows}


# ---- export and AOTInductor ----

def export_blocks(ep: ExportedProgram) -> list[Block]:
    """The exported program's signature, range constraints, decompositions and package files, as tables."""
    out: list[Block] = []
    specs: list[Row] = [{"c": ["input", s.kind, {"code": s.name}, {"code": s.target} if s.target else "", s.type or ""]}
             for s in ep.inputs]
    specs += [{"c": ["output", s.kind, {"code": s.name}, {"code": s.target} if s.target else "", s.type or ""]}
              for s in ep.outputs]
    if specs:
        out.append({"t": "table", "cls": "cx-export-specs", "caption": "inputs and outputs (the graph signature)",
                    "head": ["", "kind", "node", "stands for", "type"], "rows": specs})
    if ep.range_constraints:
        rows: list[Row] = [{"c": [{"code": rc.symbol}, f"[{rc.low}, {rc.high}]",
                       [[", " if j else "", {"code": s}] for j, s in enumerate(rc.sources)]]}
                for rc in ep.range_constraints]
        out.append({"t": "table", "cls": "cx-ranges", "caption": "range constraints (what export proved)",
                    "head": ["symbol", "range", "where"], "rows": rows})
    else:
        out.append({"t": "p", "cls": "cx-muted", "r": "No range constraints: every dimension is static."})
    decomposed = [d for d in ep.decompositions if d.decomposed]
    if decomposed:
        decomps: list[Row] = [{"c": [{"code": d.node}, {"code": d.op}, {"code": ", ".join(d.into_ops)}]}
                           for d in decomposed]
        out.append({"t": "table", "cls": "cx-decomps", "caption": "decompositions AOTInductor applied "
                    "(torch's provenance)", "head": ["node", "op", "lowered to"], "rows": decomps})
    if ep.package_files:
        total = sum(f.size for f in ep.package_files)
        files: list[Row] = [{"c": [{"code": f.name}, f"{f.size:,}"]}
                            for f in sorted(ep.package_files, key=lambda f: -f.size)]
        where = f" {ep.package_path}" if ep.package_path else ""
        out.append({"t": "table", "cls": "cx-package", "caption": f"package{where}: {counted(len(files), 'file')}, "
                    f"{counted(total, 'byte')}", "head": ["file", "bytes"], "rows": files})
    out += [{"t": "note", "cls": "cx-missing", "r": [{"b": "Note: "}, n]} for n in ep.notes]
    return out


def aoti_note(stage_id: str, comp: Compilation) -> list[Block]:
    """What an AOTInductor compile's wrapper and kernels are (they ship in the package, not run from Python)."""
    if comp.origin != "aoti":
        return []
    if stage_id == "output_code":
        return [{"t": "p", "cls": "cx-muted cx-aoti", "r": ["AOTInductor's C++ wrapper: ", {"code": "run_impl"},
                                                            " calls each kernel in order; it is compiled into the "
                                                            "package's shared library with the kernels."]}]
    if stage_id == "kernels":
        return [{"t": "p", "cls": "cx-muted cx-aoti", "r": "The kernels AOTInductor packages (compiled into the "
                                                            "package's shared library)."}]
    return []


# ---- the chain's sources ----

def chain_caption(source: str) -> P:
    """Which record a text's line-level links were read from (``lineage.model.SOURCES``): torch's own, or
    matched (inferred)."""
    return {"t": "p", "cls": "cx-muted cx-prov", "r": [{"b": "Chain links from: "}, source]}
