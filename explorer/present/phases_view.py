"""Where a compilation's compile time went: torch's own timed spans (``Compilation.phases``), as a chart of the
phases by the time spent in each itself (biggest first) and a tree of every phase with the phases inside it.

The spans are what ``torch._dynamo.utils.dynamo_timed`` writes as ``chromium_event`` records; a live capture and
an opened TORCH_TRACE read them the same way (``capturing.phases``). A phase's own time is its time less the
phases directly inside it, so the bars add up to the compile time the outermost spans cover.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import Compilation, Phase
from ..capturing.phases import own_times
from ..capturing.phases import total as covered
from .blocks import Block, Chart, Row
from .fmt import format_time

TOP = 12  # bars in the chart; the rest are one bar
# what torch's span names stand for (the names are dynamo_timed's keys in torch/_dynamo, _functorch, _inductor),
# and the part of torch.compile each belongs to
SPANS: dict[str, tuple[str, str]] = {
    "dynamo": ("torch.compile of this frame, start to end", "dynamo"),
    "entire_frame_compile": ("Dynamo: the whole frame's compile", "dynamo"),
    "bytecode_tracing": ("Dynamo tracing the bytecode", "dynamo"),
    "build_guards": ("Dynamo building the guards", "dynamo"),
    "insert_deferred_runtime_asserts": ("Dynamo adding runtime asserts", "dynamo"),
    "backend_compile": ("the backend (AOTAutograd and Inductor)", "aot"),
    "_recursive_pre_grad_passes": ("Inductor's pre-grad passes", "inductor"),
    "create_aot_dispatcher_function": ("AOTAutograd", "aot"),
    "aot_collect_metadata": ("AOTAutograd collecting metadata", "aot"),
    "aot_trace_joint_graph": ("AOTAutograd tracing the joint graph", "aot"),
    "_recursive_joint_graph_passes": ("Inductor's joint-graph passes", "inductor"),
    "min_cut_rematerialization_partition": ("AOTAutograd partitioning forward and backward", "aot"),
    "compile_fx.<locals>.fw_compiler_base": ("Inductor compiling the forward", "inductor"),
    "compile_fx.<locals>.bw_compiler": ("Inductor compiling the backward", "inductor"),
    "inductor_compile": ("Inductor compile", "inductor"),
    "fx_codegen_and_compile": ("Inductor lowering and code generation", "inductor"),
    "additional_fake_tensor_prop": ("Inductor's fake-tensor propagation", "inductor"),
    "_recursive_post_grad_passes": ("Inductor's post-grad passes", "inductor"),
    "GraphLowering.run": ("Inductor lowering to loop-level IR", "inductor"),
    "GraphLowering.compile_to_fn": ("Inductor code generation and loading", "inductor"),
    "code_gen": ("Inductor code generation", "inductor"),
    "GraphLowering.codegen": ("Inductor code generation", "inductor"),
    "Scheduler.__init__": ("Inductor scheduling and fusion", "inductor"),
    "Scheduler.codegen": ("Inductor writing the kernels", "inductor"),
    "PythonWrapperCodegen.generate": ("Inductor writing the wrapper", "inductor"),
    "PyCodeCache.load_by_key_path": ("loading the wrapper module (its kernels' compiles)", "compile"),
    "compile_file": ("C++ compile (the compiler run)", "compile"),
    "async_compile.wait": ("waiting for the kernels' compiles", "compile"),
    "inductor_codecache_torch_key": ("Inductor hashing torch's own files for its cache keys (once a process)",
                                     "inductor"),
    "gc": ("Python's garbage collector", "other"),
}
COLOURS = {"dynamo": "#e0a030", "aot": "#8a63d2", "inductor": "#3b7dd8", "compile": "#2a9d5c", "other": "#9aa5b1"}
LEGEND = "Dynamo in amber, AOTAutograd in purple, Inductor in blue, C++/Triton compiles in green, the rest in grey"


def words(name: str) -> str:
    """A span's name in words, with torch's name beside it (or torch's name alone where it is not known here)."""
    said = SPANS.get(name)
    if said is None and name.startswith("compile_attempt_"):
        said = (f"Dynamo: attempt {name.rsplit('_', 1)[-1]} (a restart begins another)", "dynamo")
    return f"{said[0]} · {name}" if said else name


def part(name: str) -> str:
    """The part of torch.compile a span belongs to: dynamo, aot, inductor, compile (a C++/Triton build), other."""
    said = SPANS.get(name)
    if said is not None:
        return said[1]
    if name.startswith("compile_attempt_"):
        return "dynamo"
    if name.startswith("pass."):
        return "inductor"
    return "other"


def by_cost(phases: tuple[Phase, ...]) -> list[tuple[Phase, float]]:
    """The phases with their own time, biggest first (the order the chart names them)."""
    return sorted(zip(phases, own_times(phases)), key=lambda pt: -pt[1])


def chart(phases: tuple[Phase, ...], top: int = TOP) -> Chart:
    """The phases by their own time, biggest first; the ones after ``top`` as one bar."""
    ranked = by_cost(phases)
    total = sum(t for _, t in ranked) or 1.0
    rows: list[list] = [[words(p.name), t, f"{format_time(t)} ({100 * t / total:.0f}%)", COLOURS[part(p.name)]]
                        for p, t in ranked[:top]]
    rest = sum(t for _, t in ranked[top:])
    if ranked[top:]:
        rows.append([f"{len(ranked) - top} more phases", rest, format_time(rest), COLOURS["other"]])
    return {"t": "chart", "title": f"where the compile time went, each phase's own time ({LEGEND})", "rows": rows}


def tree(comp: Compilation) -> list[Block]:
    """Every phase, each with those it contains indented under it, in the order they began."""
    spent = covered(comp.phases)
    rows: list[Row] = [{"c": ["\u00a0\u00a0" * p.depth + p.name, format_time(p.seconds),
                              [{"bar": 100 * p.seconds / spent}, f"{100 * p.seconds / spent:.0f}%"] if spent else "",
                              f"+{format_time(p.start_s)}", str(p.count) if p.count > 1 else ""],
                        "text": f"{'  ' * p.depth}{p.name}: {format_time(p.seconds)}"} for p in comp.phases]
    return [{"t": "p", "r": "Every phase in the order it began, each including the phases indented under it "
                            "(\"begins\": after the compilation's first span began; a phase that ran more than "
                            "once is summed, from its first start)."},
            {"t": "table", "cls": "cx-phases", "head": ["phase", "time", "share", "begins", "runs"], "rows": rows}]


def blocks(comp: Compilation, wall_time_s: Optional[float]) -> list[Block]:
    """The Compile time pane's content: what the spans cover, the chart, the biggest costs in words, the tree."""
    total = covered(comp.phases) or 0.0
    ranked = [(p, t) for p, t in by_cost(comp.phases) if t > 0][:3]
    top = "; ".join(f"{words(p.name)}: {format_time(t)}" for p, t in ranked)
    out: list[Block] = [
        {"t": "p", "r": f"torch's own timed spans for this compilation cover {format_time(total)}. "
                        f"The biggest costs: {top}."},
        chart(comp.phases)]
    out += tree(comp)
    out.append({"t": "p", "r": _own_cost(wall_time_s)})
    return out


def _own_cost(wall_time_s: Optional[float]) -> str:
    """Where the explorer's own cost is said: measured per capture, in the run's section beside torch's spans."""
    whole = f"The capture took {format_time(wall_time_s)} in all (your code, torch.compile and the explorer). " \
        if wall_time_s else ""
    return (whole + "The explorer's own time is not among these phases: the Compile time section at the top (the "
            "whole run) puts what it measured of it beside torch's spans; tests/benchmarks/bench_compile_time.py "
            "measures what keeping these spans costs.")
