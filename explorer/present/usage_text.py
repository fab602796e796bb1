"""Plain text for how the program used torch.compile: caches, stance, compiled regions, guard filters, export.

Written once here and placed by ``text.summary`` (the CLI's summary,
``repr(report)``, a notebook's text/plain). Each function returns lines.
"""

from __future__ import annotations

from typing import Any, Optional

from ..capturing.model import CacheLookup, CaptureData, Compilation, ExportedProgram
from ..stages import BY_ID, CACHE_NAMES, cached_from, skipped_by_cache


def _s(seconds: Optional[float]) -> str:
    return "?" if seconds is None else f"{seconds:.2f} s"


def _key(key: Optional[str]) -> str:
    return f" (key {key[:12]}...)" if key and len(key) > 12 else (f" (key {key})" if key else "")


def mode_lines(data: CaptureData) -> list[str]:
    """Which cache mode ran and, warm, what the caches did overall; the stance when it is not the default."""
    lines = []
    if data.cache_mode == "warm":
        lookups = [c for comp in data.compilations for c in comp.caches] + list(data.cache_events)
        counts: dict[tuple[str, str], int] = {}
        for c in lookups:
            counts[(c.cache, c.outcome)] = counts.get((c.cache, c.outcome), 0) + 1
        said = ", ".join(f"{CACHE_NAMES.get(cache, cache)} {n} {outcome}" for (cache, outcome), n in counts.items())
        kernels = [k for comp in data.compilations for k in comp.kernels if k.build]
        built = sum(1 for k in kernels if k.build == "built")
        kern = f"; kernels: {len(kernels) - built} loaded, {built} built" if kernels else ""
        lines.append(f"caches: warm (the program's compile caches as they are): {said or 'no cache was consulted'}"
                     f"{kern}")
        saved = [_saved(comp) for comp in data.compilations]
        saved = [s for s in saved if s is not None]
        if saved:
            now = sum(s[0] for s in saved)
            then = sum(s[1] for s in saved)
            lines.append(f"  compile {now:.2f} s here against {then:.2f} s when the caches were filled "
                         f"(cold, as torch measured it then): {then - now:.2f} s saved")
    else:
        lines.append("caches: cold (the graph caches off while capturing: every stage lowered afresh; "
                     f"{_code_cache_words(data)}; --warm for a second run's view)")
    if data.stance != "default" or data.stance_at_end:
        end = f" (at the end: {data.stance_at_end})" if data.stance_at_end else ""
        lines.append(f"stance: {data.stance}{end} (torch.compiler.set_stance)")
    return lines


def _code_cache_words(data: CaptureData) -> str:
    """What torch's code cache did in a cold capture: the kernels it loaded (their source compiled before)."""
    kernels = [k for comp in data.compilations for k in comp.kernels if k.build]
    if not kernels:
        return "torch's code cache serves kernels compiled before from the same source"
    built = sum(1 for k in kernels if k.build == "built")
    return f"kernels: {len(kernels) - built} loaded from torch's code cache (compiled before from the same source), " \
           f"{built} built"


def _saved(comp: Compilation) -> Optional[tuple[float, float]]:
    """(this compile's time, the cold compile's time torch recorded in the entry) for a compilation a cache
    served, the latter from the outermost hit (AOTAutograd's covers Inductor's)."""
    hits = [c for c in comp.caches if c.outcome == "hit" and c.time_saved_s]
    if not hits or comp.compile_time_s is None:
        return None
    best = max(hits, key=lambda c: c.time_saved_s or 0.0)
    return comp.compile_time_s, float(best.time_saved_s or 0.0)


def lookup_words(c: CacheLookup) -> tuple[str, str, str]:
    """A cache lookup's words, for the text and the view alike: (``FX graph cache hit [inference]``, the detail,
    the figure and bundle: ``, saves 1.20 s, 3 Triton kernels from its bundle``); the key goes between them."""
    kind = f" [{c.graph_kind}]" if c.graph_kind else ""
    figure = ""
    if c.outcome == "hit" and c.time_saved_s:
        figure = f", saves {_s(c.time_saved_s)}"
    elif c.time_taken_s:
        figure = f", compiled in {_s(c.time_taken_s)}"
    detail = f" ({c.detail})" if c.detail and c.detail not in (c.outcome, "full_miss") else ""
    bundled = f", {len(c.bundled_kernels)} Triton kernels from its bundle" if c.bundled_kernels else ""
    return f"{CACHE_NAMES.get(c.cache, c.cache)} {c.outcome}{kind}", detail, figure + bundled


def lookup_text(c: CacheLookup) -> str:
    head, detail, tail = lookup_words(c)
    return f"{head}{detail}{_key(c.key)}{tail}"


def compilation_lines(comp: Compilation) -> list[str]:
    """Under a compilation's row: its caches, stages a hit skipped or supplied, its regions, its stance."""
    lines = []
    if comp.caches:
        dynamo = "Dynamo traced it" if comp.origin == "dynamo" else "no Dynamo frame"
        lines.append(f"from where: {dynamo}; " + "; ".join(lookup_text(c) for c in comp.caches))
        skipped = [BY_ID[s].title for s in BY_ID if skipped_by_cache(s, comp) and not BY_ID[s].present(comp)]
        cached = [BY_ID[s].title for s in BY_ID if cached_from(s, comp) and BY_ID[s].present(comp)]
        if skipped:
            lines.append("skipped: cache hit: " + ", ".join(skipped))
        if cached:
            lines.append("from the cache: " + ", ".join(cached))
        built = [k for k in comp.kernels if k.build]
        if built:
            lines.append("kernels: " + ", ".join(f"{k.name} {k.build}" for k in built))
    for r in comp.regions:
        lines.append(region_line(r))
    if comp.stance and comp.stance != "default":
        lines.append(f"stance: {comp.stance}")
    return lines


def region_line(r: Any) -> str:
    where = f" ({r.filename.rsplit('/', 1)[-1]}:{r.lineno})" if r.filename and r.lineno else ""
    if r.kind == "nested_compile_region":
        nodes = f"{r.graph.num_nodes} nodes, " if r.graph is not None else ""
        kernels = f"; kernels reused: {', '.join(r.kernels)}" if r.kernels else ""
        return f"region {r.name}{where}: nested_compile_region, {nodes}compiled once, called {r.calls}x{kernels}"
    if r.kind == "disable":
        return f"{r.name}{where}: torch.compiler.disable: runs as plain Python (a graph break at the call)"
    return f"{r.name}{where}: nonstrict_trace: called opaquely from the graph {r.calls}x (its body not traced)"


def export_lines(ep: ExportedProgram, comps: dict[str, Compilation], max_files: int = 4) -> list[str]:
    kinds: dict[str, int] = {}
    for s in ep.inputs:
        kinds[s.kind] = kinds.get(s.kind, 0) + 1
    ins = ", ".join(f"{n} {k.lower().replace('_', ' ')}" for k, n in kinds.items())
    nodes = f"{ep.graph.num_nodes} nodes, " if ep.graph is not None else ""
    lines = [f"export: {nodes}inputs: {ins or 'none'}; {len(ep.outputs)} outputs"]
    for s in ep.inputs:
        if s.kind == "USER_INPUT":
            lines.append(f"  input {s.name}: {s.type or '?'}")
    for rc in ep.range_constraints:
        where = f" ({', '.join(rc.sources)})" if rc.sources else ""
        lines.append(f"  range {rc.symbol}{where}: [{rc.low}, {rc.high}]")
    decomposed = [d for d in ep.decompositions if d.decomposed]
    if decomposed:
        lines.append("  decomposed: " + "; ".join(f"{d.node} ({d.op}) -> {', '.join(d.into_ops)}" for d in decomposed))
    comp = comps.get(ep.compile_id or "")
    if comp is not None:
        wrapper = next((oc for oc in comp.output_code or () if oc.language == "cpp"), None)
        size = f", C++ wrapper {wrapper.code.count(chr(10)) + 1} lines" if wrapper else ""
        lines.append(f"  AOTInductor [{comp.compile_id}]: {len(comp.kernels)} kernels"
                     f" ({', '.join(k.name for k in comp.kernels)}){size}")
    if ep.package_files:
        total = sum(f.size for f in ep.package_files)
        lines.append(f"  package{' ' + ep.package_path if ep.package_path else ''}: {len(ep.package_files)} files, "
                     f"{total / 1e6:.2f} MB")
        biggest = sorted(ep.package_files, key=lambda f: -f.size)
        for f in biggest[:max_files]:
            lines.append(f"    {f.name}  {f.size:,} bytes")
        if len(biggest) > max_files:
            lines.append(f"    ... {len(biggest) - max_files} smaller files")
    lines += [f"  note: {n}" for n in ep.notes]
    return lines


def provenance_lines(data: CaptureData) -> list[str]:
    """Kernels whose line-level links use torch's newer per-kernel records (op traces)."""
    traced = [k.name for c in data.compilations for k in c.kernels if k.op_trace]
    return [f"per-kernel op traces from torch: {', '.join(traced)}"] if traced else []
