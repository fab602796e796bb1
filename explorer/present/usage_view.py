"""The view model's blocks for how the program used torch.compile: caches, stance, regions, guard filters, export.

Built by ``present.viewmodel`` (its module docstring lists the kinds of block)
and drawn, like every other block, by the front end, the static copy and the
text. The words are the text summary's (``present.usage_text``), so the three
views and the summary say the same thing. Nothing here draws.
"""

from __future__ import annotations

from typing import Any, Optional

from ..capturing.model import CacheLookup, CaptureData, Compilation, ExportedProgram
from ..clinic.guard_filter import dropped_guards, user_name
from ..stages import cached_from
from . import usage_text
from .fmt import loc_text, origin_of

# the stances torch.compiler.set_stance knows, in words (its docs)
STANCES = {
    "default": "the default: compile, recompile when a guard fails",
    "fail_on_recompile": "a call that would recompile raises instead",
    "eager_on_recompile": "a call that would recompile runs eagerly instead",
    "force_eager": "torch.compile is ignored: everything runs eagerly",
}
GUARD_FILTER_WARNING = ("A guard filter drops guards Dynamo would check before each call: checking is cheaper, but a "
                        "change to a dropped guard's value no longer recompiles. The compiled code keeps what it "
                        "traced for the old value (wrong results or a crash, not an error).")


def _key(key: Optional[str]) -> list:
    return [" ", {"muted": ["key ", {"code": key}]}] if key else []


# ---- the header ----

def header_chips(data: CaptureData) -> list[list]:
    """Which cache mode ran and the stance in force: two chips beside the counts."""
    stance = data.stance + (f" → {data.stance_at_end}" if data.stance_at_end else "")
    return [["caches", data.cache_mode], ["stance", stance]]


def header_blocks(data: CaptureData, comps: dict[str, Compilation]) -> list[dict]:
    """What the mode and the stance mean for this report, then the exported programs (the text summary says
    both in its own lines: ``usage_text``, so these are left out of it)."""
    out: list[dict] = []
    mode = usage_text.mode_lines(data)
    if data.cache_mode == "warm":  # cold is the default: its chip says so
        out.append({"t": "note", "cls": "cx-missing cx-usage cx-warm", "summary": False,
                    "r": [{"b": "caches:"}, mode[0].split(":", 1)[1]] + [[{"br": True}, line.strip()]
                                                                          for line in mode[1:]]})
    elif mode[1:]:  # a stance other than the default
        out.append({"t": "p", "cls": "cx-muted cx-usage", "summary": False, "r": mode[1:]})
    if data.exports:
        items = [export_item(ep, comps) for ep in data.exports]
        out.append({"t": "section", "title": f"Exported programs ({len(items)})", "open": True, "summary": False,
                    "body": [{"t": "list", "cls": "cx-exports", "items": items}]})
    return out


def export_item(ep: ExportedProgram, comps: dict[str, Compilation]) -> dict:
    """One exported program in the header: what it is; a click leads to its AOTInductor compile's exported
    graph, and a program AOTInductor never compiled shows its tables here."""
    comp = comps.get(ep.compile_id or "")
    lines = usage_text.export_lines(ep, comps)
    item: dict = {"r": lines[0], "text": lines[0]}
    if comp is not None:
        item["r"] = [lines[0], " → AOTInductor ", {"code": comp.compile_id}]
        item["go"] = {"cid": comp.compile_id, "stage": "export_graph"}
    else:
        item["body"] = export_blocks(ep)
    return item


# ---- one compilation: where it came from ----

def from_where(comp: Compilation) -> list[dict]:
    """The strip over each of a compilation's panes: Dynamo, each cache consulted, the kernels loaded or built,
    the compile time a hit saved against the cold compile that filled it; the stance when not the default."""
    if not comp.caches and not (comp.stance and comp.stance != "default"):
        return []
    runs: list = [{"b": "From where: "}]
    runs.append({"chip": "Dynamo compiled" if comp.origin == "dynamo" else "no Dynamo frame (AOTInductor)"})
    for c in comp.caches:
        runs += [" → ", lookup_runs(c)]
    built = [k for k in comp.kernels if k.build]
    if built:
        n = sum(1 for k in built if k.build == "built")
        runs += [" → ", {"chip": f"kernels: {len(built) - n} loaded, {n} built"}]
    saved = usage_text._saved(comp)
    if saved is not None:
        now, then = saved
        runs += [" → ", {"chip": f"{then - now:.2f} s saved"},
                 {"muted": f" ({now:.2f} s here, {then:.2f} s cold when the entry was filled, as torch measured)"}]
    if comp.stance and comp.stance != "default":
        runs += ["  ", {"chip": f"stance: {comp.stance}"}]
    lines = usage_text.compilation_lines(comp) if comp.caches else [f"stance: {comp.stance}"]
    out = [{"t": "p", "cls": "cx-strip cx-from-where", "r": runs, "text": lines[0]}]
    skipped = [line for line in lines[1:] if line.startswith(("skipped:", "from the cache:"))]
    if skipped:
        out.append({"t": "p", "cls": "cx-muted cx-cache-stages", "r": "; ".join(skipped), "text": "; ".join(skipped)})
    return out


def lookup_runs(c: CacheLookup) -> list:
    """``FX graph cache hit [inference] key …, saves 1.2 s``: the chip says hit or miss, the rest is muted."""
    head, detail, tail = usage_text.lookup_words(c)
    tail = detail + tail
    return [{"chip": head}, *_key(c.key), {"muted": tail} if tail else ""]


def cache_note(stage_id: str, comp: Compilation) -> list[dict]:
    """At the top of a stage shown from a cache entry: where it came from (the output code on a hit)."""
    where = cached_from(stage_id, comp)
    return [{"t": "note", "cls": "cx-missing cx-cached", "r": [{"b": "From the cache: "}, where]}] if where else []


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


def regions_blocks(comp: Compilation) -> list[dict]:
    """The frame's regions as a tree: each region's graph once, how often it is called, the kernels every call
    reuses; ``disable`` and ``nonstrict_trace`` calls named as what they are."""
    if not comp.regions:
        return []
    items = []
    for i, r in enumerate(comp.regions):
        where = loc_text(r.filename, r.lineno) if r.filename and r.lineno else ""
        at = [" ", {"code": where, "origin": origin_of(r.filename, r.lineno)}] if where else ""
        body: list[dict] = []
        if r.kind == "nested_compile_region":
            nodes = f", {r.graph.num_nodes} nodes" if r.graph is not None else ""
            head = [{"b": r.name}, " ", {"chip": "nested_compile_region"}, f" compiled once, called {r.calls}×",
                    {"muted": nodes + (f", {r.aot_name} after AOTAutograd" if r.aot_name else "")}, at]
            if r.kernels:
                body.append({"t": "p", "cls": "cx-muted", "r": ["kernels reused by every call: ",
                                                                [[", " if j else "", {"code": k}]
                                                                 for j, k in enumerate(r.kernels)]]})
            if r.options:
                body.append({"t": "p", "cls": "cx-muted", "r": ["options: ", {"code": r.options}]})
            if r.graph is not None:
                body.append({"t": "details", "s": f"the region's graph (compiled once for all {r.calls} calls)",
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
        items.append({"r": head, "body": body, "text": usage_text.region_line(r),
                      "origin": origin_of(r.filename, r.lineno)})
    return [{"t": "h", "cls": "cx-regions-h", "r": f"Compiled regions of this frame ({len(items)})"},
            {"t": "list", "cls": "cx-regions", "items": items}]


# ---- guard filters ----

def guard_filter_blocks(comp: Compilation) -> list[dict]:
    """Above the guards: which guards the filter dropped (with what can go wrong) beside those it kept."""
    if comp.guard_filter is None:
        return []
    kept = [g for g in comp.filtered_guards if g.kept]
    dropped = dropped_guards(comp)
    n = len(comp.filtered_guards)
    out: list[dict] = [
        {"t": "note", "cls": "cx-missing cx-finding cx-guard-filter",
         "r": [{"b": f"Guard filter {comp.guard_filter}: "},
               f"kept {len(kept)} of {n} guards, dropped {n - len(kept)}. ", GUARD_FILTER_WARNING]}]
    if dropped:
        rows = [{"c": [{"chip": "dropped"}, d.guard.kind, {"code": user_name(d.guard.subject)},
                       {"code": d.guard.value} if d.guard.value is not None else "", d.risk],
                 "origin": origin_of(d.guard.filename, d.guard.lineno), "cls": "cx-dropped", "text": d.one_line()}
                for d in dropped]
        out.append({"t": "table", "cls": "cx-filtered cx-dropped-guards", "caption": "dropped: what can go wrong",
                    "head": ["", "kind", "guarded value", "compiled for", "when it changes"], "rows": rows})
    if kept:
        rows = [{"c": [{"chip": "kept"}, g.kind, {"code": user_name(g.subject)},
                       {"code": g.value} if g.value is not None else ""],
                 "origin": origin_of(g.filename, g.lineno), "cls": "cx-kept"} for g in kept]
        out.append({"t": "details", "s": f"kept by the filter ({len(kept)})", "open": not dropped,
                    "body": [{"t": "table", "cls": "cx-filtered cx-kept-guards",
                              "head": ["", "kind", "guarded value", "compiled for"], "rows": rows}]})
    return out


# ---- export and AOTInductor ----

def export_blocks(ep: ExportedProgram) -> list[dict]:
    """The exported program's signature, range constraints, decompositions and package files, as tables."""
    out: list[dict] = []
    specs = [{"c": ["input", s.kind, {"code": s.name}, {"code": s.target} if s.target else "", s.type or ""]}
             for s in ep.inputs]
    specs += [{"c": ["output", s.kind, {"code": s.name}, {"code": s.target} if s.target else "", s.type or ""]}
              for s in ep.outputs]
    if specs:
        out.append({"t": "table", "cls": "cx-export-specs", "caption": "inputs and outputs (the graph signature)",
                    "head": ["", "kind", "node", "stands for", "type"], "rows": specs})
    if ep.range_constraints:
        rows = [{"c": [{"code": rc.symbol}, f"[{rc.low}, {rc.high}]",
                       [[", " if j else "", {"code": s}] for j, s in enumerate(rc.sources)]]}
                for rc in ep.range_constraints]
        out.append({"t": "table", "cls": "cx-ranges", "caption": "range constraints (what export proved)",
                    "head": ["symbol", "range", "where"], "rows": rows})
    else:
        out.append({"t": "p", "cls": "cx-muted", "r": "No range constraints: every dimension is static."})
    decomposed = [d for d in ep.decompositions if d.decomposed]
    if decomposed:
        rows = [{"c": [{"code": d.node}, {"code": d.op}, {"code": ", ".join(d.into_ops)}]} for d in decomposed]
        out.append({"t": "table", "cls": "cx-decomps", "caption": "decompositions AOTInductor applied "
                    "(torch's provenance)", "head": ["node", "op", "lowered to"], "rows": rows})
    if ep.package_files:
        total = sum(f.size for f in ep.package_files)
        rows = [{"c": [{"code": f.name}, f"{f.size:,}"]} for f in sorted(ep.package_files, key=lambda f: -f.size)]
        where = f" {ep.package_path}" if ep.package_path else ""
        out.append({"t": "table", "cls": "cx-package", "caption": f"package{where}: {len(rows)} files, "
                    f"{total:,} bytes", "head": ["file", "bytes"], "rows": rows})
    out += [{"t": "note", "cls": "cx-missing", "r": [{"b": "Note: "}, n]} for n in ep.notes]
    return out


def aoti_note(stage_id: str, comp: Compilation) -> list[dict]:
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

def chain_caption(source: str) -> dict:
    """Which record a text's line-level links were read from (``lineage.model.SOURCES``): torch's own, or
    matched (inferred)."""
    return {"t": "p", "cls": "cx-muted cx-prov", "r": [{"b": "Chain links from: "}, source]}
