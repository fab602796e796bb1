"""The view model's blocks for the numbers a user acts on: the verdict beside the speedup, the host's time beside
the device's, Inductor's own runtime estimate beside the measurement, and what a kernel's bytes reach through loaded
indices (issue 36).

``viewmodel`` places them (the timing section, the kernels pane); the words are here.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..timing import verdict
from .blocks import Block, Row, Run
from .fmt import calls_text, format_time, measurement_text, ratio_text

ESTIMATE_HEAD = ["Inductor's estimate", "measured / estimate"]  # the kernel table's columns, when one has it


# ---- the verdict beside the speedup (timing.verdict: judged from the figures the row shows) ----

NO_VERDICT = "too noisy to tell"  # what stands beside a speedup whose figures allow no verdict
TOO_FEW = "too few repeats to tell"
VERDICT_RULE = (f"A verdict (faster, slower, no faster) stands only where the speedup's interval (with 5 repeats, "
                f"its smallest to its largest ratio) is clear of 1x or tight around it, its spread under "
                f"{verdict.HUGE_PCT:.0f}%, and the medians agree; otherwise the row says {NO_VERDICT}, and the "
                f"warnings say how to measure again.")


def _kind(t: Any) -> Optional[str]:
    v = getattr(t, "verdict", None)
    return v.kind if v is not None else None


def no_verdict(t: Any) -> Optional[str]:
    """What stands beside a speedup whose figures allow no verdict; None where they allow one."""
    return {verdict.TOO_NOISY: NO_VERDICT, verdict.TOO_FEW: TOO_FEW}.get(_kind(t) or "")


def speedup_cell(t: Any) -> str:
    """The speedup with its spread, and where its figures allow no verdict, says so beside it."""
    text = ratio_text(t.speedup, getattr(t, "ratio", None))
    return f"{text} ({no_verdict(t)})" if no_verdict(t) else text


def break_even_cell(t: Any) -> str:
    """Calls until compiling pays; a speedup the figures cannot judge cannot say (``never`` would be a verdict)."""
    return f"? ({no_verdict(t)})" if no_verdict(t) else calls_text(t.break_even_calls)


def slow_class(t: Any) -> str:
    """A row the verdict finds slower compiled is marked; one without a verdict is not, whatever its figure."""
    return "cx-slow" if _kind(t) == verdict.SLOWER else ""


def speedup_title(t: Any, name: str) -> str:
    """``0/0: 1.41x`` for the timing section's title; a speedup the figures cannot judge says so instead."""
    return f"{name}: {no_verdict(t) or f'{t.speedup:.2f}x'}"


def end_to_end_row(e: Any) -> Optional[Row]:
    """The whole call as the user makes it (``TimingReport.end_to_end``), a row of the timing table with its verdict
    (its warnings are the report's, said below the table); None where neither side was timed."""
    if e is None or (e.eager is None and e.compiled is None):
        return None
    label = f"{e.label}, end to end ({e.method})"
    comp = "n/a" if e.compile_time_s is None else f"{e.compile_time_s:.2f} s"
    text = (f"{label}: eager {measurement_text(e.eager)}, compiled {measurement_text(e.compiled)}, speedup "
            f"{speedup_cell(e)}; compile {comp}, break-even {break_even_cell(e)}")
    return {"c": [label, measurement_text(e.eager), measurement_text(e.compiled), speedup_cell(e), comp,
                  break_even_cell(e)], "cls": slow_class(e), "text": text}


def _note(runs: Any) -> Block:
    return {"t": "note", "cls": "cx-missing", "r": runs}


MISJUDGED = 2.0  # measured over estimated beyond this (or under its inverse): Inductor's cost model misjudged


def estimate_cells(k: Any) -> list:
    """A kernel row's estimate and its measured time over it (empty without an estimate)."""
    if not getattr(k, "estimate_s", None):
        return ["", ""]
    return [format_time(k.estimate_s), f"{k.time_s / k.estimate_s:.2f}x"]


def _estimate_ratio(t: Any) -> Optional[tuple[float, float]]:
    """(measured, estimated) over the graph's kernel rows that have an estimate; None when none has."""
    rows = [k for k in t.kernels if getattr(k, "estimate_s", None)]
    if not rows:
        return None
    return sum(k.time_s for k in rows), sum(k.estimate_s for k in rows)


def _misjudged(ratio: Optional[tuple[float, float]]) -> bool:
    return ratio is not None and not (1 / MISJUDGED <= ratio[0] / ratio[1] <= MISJUDGED)


def estimate_blocks(graphs: tuple) -> list[Block]:
    """Inductor's own estimate beside the measurement, per graph; the graphs whose estimate is off by more than
    2x listed as ones its cost model misjudged."""
    out: list[Block] = []
    wrong = []
    for t in graphs:
        total = getattr(t, "estimate_s", None)
        if total is None:
            continue
        ratio = _estimate_ratio(t)
        if not total:
            out.append({"t": "p", "cls": "cx-muted", "r": f"{t.label}: Inductor's cost model estimated no runtime for "
                                                         "its ops (it estimates for GPUs; off the GPU every op is 0)."})
        elif ratio is not None:
            measured, estimated = ratio
            out.append({"t": "p", "cls": "cx-muted",
                        "r": f"{t.label}: Inductor's cost model estimated {format_time(estimated)} per call for the "
                             f"kernels it could tie to a row ({format_time(total)} for all its ops); they measured "
                             f"{format_time(measured)}, {measured / estimated:.2f}x its estimate."})
            if _misjudged(ratio):
                wrong.append(f"{t.label} (measured {measured / estimated:.2f}x its estimate)")
    if wrong:
        out.append(_note("Inductor's cost model misjudged (measured more than 2x off its estimate): "
                         + ", ".join(wrong) + ". It schedules and fuses by these estimates."))
    return out


def bound_word(t: Any) -> str:
    return "host-bound" if t.device.startswith("cuda") else "overhead-bound"


def host_block(t: Any) -> Optional[Block]:
    """The host's time per call beside the device's; when the host bounds the call, what would help."""
    h = getattr(t, "host", None)
    if h is None:
        return None
    gpu = t.device.startswith("cuda")
    if gpu:
        said = (f"the host takes {format_time(h.host_s)} to issue a call and the device runs its kernels in "
                f"{format_time(h.device_s)}")
    else:
        said = (f"the Python around its kernels (Inductor's and AOTAutograd's wrappers; the profiler's own cost "
                f"too) takes {format_time(h.host_s)} per call, its kernels {format_time(h.device_s)}")
    if not h.bound:
        kept = "the device is kept busy" if gpu else "most of the call is the kernels' work"
        return {"t": "p", "cls": "cx-muted", "r": f"{t.label}: {said}: {kept}."}
    ratio = f" ({h.host_s / h.device_s:.2f}x)" if h.device_s > 0 else ""
    if gpu:
        why = ("so the device waits on the host and every figure here, eager or compiled, follows the host's "
               "speed. What helps: CUDA graphs (torch.compile(mode=\"reduce-overhead\")) replay the whole call "
               "as one launch, where torch can use them: every tensor on one CUDA device, no CPU op in the graph, "
               "no input the graph mutates, no op that rules them out; with changing sizes it records one graph per "
               "size (torch says why it skips them: the view shows it under --mode reduce-overhead). A bigger "
               "batch gives each call more device work for the same issue time.")
    else:
        why = ("so the call's time is mostly overhead, not work. What helps: more work per call (bigger inputs or "
               "batches), torch._inductor.config.cpp_wrapper = True (the wrapper in C++, not Python), or leaving "
               "so small a piece uncompiled.")
    return _note(f"{t.label} is {bound_word(t)}: {said}{ratio}, {why}")


def indirect_lines(t: Any) -> list[Block]:
    """What each kernel's byte count reaches through loaded indices: the rows an embedding gathers, not its table."""
    out: list[Block] = []
    for k in t.kernels:
        for a in getattr(k, "indirect", ()):
            did = " and ".join(f"{verb} {n:,}" for verb, n in (("gathers", a.gathered), ("scatters into", a.scattered))
                               if n)
            out.append({"t": "p", "cls": "cx-muted",
                        "r": [f"{t.label}: ", {"code": k.name}, f" {did} of the {a.elements:,} elements of ",
                              {"code": a.buffer}, f" ({a.param}) through indices it loads: its bytes count them as if "
                              "no index repeated (an upper bound)."]})
    return out


def op_estimates(comp: Any, link: Callable[[str], Run]) -> list[Block]:
    """Inductor's estimated runtime of each op it scheduled, labelled as an estimate: in an opened trace
    nothing was measured, and this is the only runtime figure there is."""
    ops = getattr(comp, "op_estimates", ()) or ()
    if not ops:
        return []
    if not any(e.estimate_s for e in ops):
        return [{"t": "p", "cls": "cx-muted", "r": f"Inductor's cost model estimated 0 for each of its {len(ops)} "
                                                   "ops: it estimates runtimes for GPUs only."}]
    rows: list[Row] = [{"c": [{"code": e.name}, link(e.kernel) if e.kernel else {"muted": "not matched"}, e.graph_kind,
                   ", ".join(e.outputs), format_time(e.estimate_s)]} for e in ops]
    total = sum(e.estimate_s for e in ops)
    return [{"t": "table", "cls": "cx-estimates", "rows": rows,
             "caption": f"Inductor's estimated runtime of each op it scheduled ({format_time(total)} in all): its cost "
                        f"model's estimates, not measurements (read as {ops[0].unit})",
             "head": ["op", "became", "graph", "outputs", "estimate"]}]
