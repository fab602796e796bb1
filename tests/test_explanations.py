"""What the view and the notebooks teach stays true to torch: each corrected claim keeps its essential idea and never
gets its wrong phrasing back.

``CLAIMS`` is the table: where a learner reads the claim, the phrasings it once had that taught a wrong picture, the
words that carry the right one, and the torch source (2.13, read at torch/...; the C frame evaluator in
pytorch/pytorch's torch/csrc, which the wheel ships compiled) it was checked against. A few claims are checked
against the installed torch as well (the ``test_torch_*`` tests below), so a torch release that changes them fails
here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from explorer.clinic import fixlist
from explorer.present import changes_view, numbers_view, panes, viewmodel
from explorer.stages import _USUALLY, BY_ID

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"


def stage(stage_id: str) -> Callable[[], str]:
    return lambda: BY_ID[stage_id].explanation


def notebook(name: str) -> Callable[[], str]:
    """Every markdown cell of a notebook, as one text."""
    def read() -> str:
        nb = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
        return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return read


def source_of(obj: object) -> Callable[[], str]:
    """The words a function writes (its source, adjacent string literals joined): for words built from parts."""
    import inspect
    import re

    return lambda: re.sub(r"[\"']\s*\n\s*f?[\"']", "", inspect.getsource(obj))


@dataclass(frozen=True)
class Claim:
    name: str
    text: Callable[[], str]
    gone: tuple[str, ...]  # phrasings that taught a wrong picture
    present: tuple[str, ...]  # the words that carry the right one
    checked: str  # the torch source the claim was checked against


CLAIMS = (
    # 1. the backward is lowered lazily; the explorer lowers it early and says so
    Claim("AOT backward: traced with the forward, lowered at the first .backward()", stage("aot_backward"),
          ("ahead of time", "before .backward() is ever called"),
          ("traces and partitions it when the forward compiles", "first .backward()", "lazy backward lowering",
           "symbolic sizes"),
          "_functorch/_aot_autograd/graph_compile.py (compiled_bw_func only if num_symints_saved_for_bw > 0 or "
          "force_non_lazy_backward_lowering); runtime_wrappers.py Note [Backward graph lazy lowering]"),
    Claim("notebook 07: the backward's lowering, and what the explorer changes", notebook("07_aotautograd.ipynb"),
          ("compiled **ahead of time**", "backward ahead of time", "before `.backward()` runs"),
          ("lazy backward lowering", "force_non_lazy_backward_lowering", "first `.backward()`"),
          "_functorch/config.py force_non_lazy_backward_lowering = False; graph_compile.py"),
    Claim("the backward panes say the explorer lowered it early", lambda: changes_view.EARLY,
          (), ("force_non_lazy_backward_lowering", "first .backward()", "A warm capture"),
          "capturing/torch_door/config.py CAPTURE_CONFIG; _functorch/_aot_autograd/graph_compile.py"),
    # 2. lowering inlines pointwise values; only realized ones become buffers
    Claim("post-grad graph: inlining and realize", stage("post_grad_graph"),
          ("Each node here becomes one or more buffers",),
          ("inlined into the loop body", "realized", "ReinterpretView", "no buffer at all", "first and biggest fusion"),
          "_inductor/graph.py run_node (realize_hint, mark_reuse); ir.py StorageBox.should_realize_on_reuse, "
          "ReinterpretView; lowering.py make_reduction (result.realize())"),
    Claim("notebook 08: why sin, mul, cos, add have no node", notebook("08_lowering.ipynb"),
          ("each buffer is a `Pointwise` or `Reduction`", "iterate over the same rows, so the intermediate results "
                                                          "never go to memory"),
          ("inlined", "realized", "no node of their own", "ReinterpretView", "sympy", "MemoryDep",
           "realize_reads_threshold"),
          "_inductor/ir.py should_realize_on_reuse (heavy ops on CPU: exp); scheduler.py can_fuse"),
    # 3. scheduler node kinds
    Claim("IR before fusion: every kind of scheduler node", stage("ir_pre_fusion"),
          ("each buffer is a Pointwise or Reduction",),
          ("SchedulerNode", "ExternKernelSchedulerNode", "NopKernelSchedulerNode", "templates"),
          "_inductor/scheduler.py Scheduler.create_scheduler_node"),
    # 4. fusion: legality and score
    Claim("IR after fusion: legality, ranking, what leaves memory", stage("ir_post_fusion"),
          ("buffers computed over the same loops are merged",),
          ("same numel and reduction numel", "dependency cycle", "share data", "memory traffic",
           "nothing outside the fused kernel reads it"),
          "_inductor/scheduler.py _can_fuse, will_fusion_create_cycle, can_buffer_be_removed_through_fusion; "
          "choices.py can_fuse, can_fuse_horizontal, score_fusion; codegen/simd.py can_fuse (numel, rnumel)"),
    Claim("kernels: on CPU one C++ function holds consecutive groups, one loop nest each", stage("kernels"),
          ("Each one is a fused group of loop-level IR nodes",),
          ("one loop nest each", "until a library call ends it"),
          "_inductor/codegen/cpp.py CppScheduling.codegen_node (kernel_group.finalize_kernel), flush; "
          "_inductor/scheduler.py _codegen (flush at an extern kernel, a template, a device change)"),
    Claim("notebook 09: legality, shared data at the same index, the CPU kernel group", notebook("09_fusion.ipynb"),
          ("One fused group, one kernel",),
          ("no dependency cycle", "the same buffer at the same index", "max_fusion_size", "one C++ kernel function",
           "cannot fuse", "nothing outside the fused node reads it"),
          "_inductor/scheduler.py _can_fuse, WhyNoFuse, score_fusion_memory; choices.py can_fuse, score_fusion; "
          "codegen/cpp.py _why_fuse_nodes, can_fuse_horizontal"),
    # 5. guards and the cache loop
    Claim("guards: a failing guard alone does not recompile", stage("guards"),
          ("A failing guard means a recompile",),
          ("other entries", "recompile_limit (8)", "automatic dynamic shapes", "grad mode", "strides",
           "requires_grad", "backend"),
          "torch/csrc/dynamo/extra_state.cpp lookup, backend_match; _dynamo/config.py recompile_limit = 8, "
          "automatic_dynamic_shapes; convert_frame.py (exceeds_recompile_limit -> FrameAction.RUN_ONLY)"),
    Claim("the cache loop: most recently used first, then compile or run eagerly", stage("cache_loop"),
          (), ("most recently used first", "recompile_limit", "eagerly", "resume function", "PEP 523"),
          "torch/csrc/dynamo/eval_frame_cpp.cpp dynamo__custom_eval_frame; extra_state.cpp lookup, move_to_front, "
          "create_cache_entry (emplace_front)"),
    Claim("notebook 03: entries tried in turn, not one failing guard", notebook("03_guards.ipynb"),
          ("if one fails, Dynamo **recompiles**", "would be reused by any compiled `f`",
           "Dynamo tries each one (newest first)"),
          ("most recently used first", "recompile_limit", "same backend", "How the pieces run", "runs eagerly",
           "accumulated_recompile_limit"),
          "torch/csrc/dynamo/extra_state.cpp lookup, backend_match; _dynamo/config.py recompile_limit; "
          "_dynamo/cache_size.py (Note on cache size limit); convert_frame.py (FrameAction.RUN_ONLY)"),
    Claim("notebook 02: the hook is set around the compiled call; the cache lives in co_extra",
          notebook("02_bytecode.ipynb"),
          ("Dynamo tries each one (newest first)", "Dynamo rewrites your function"),
          ("PEP 523", "co_extra", "most recently used first", "Your function is never changed",
           "puts the previous one back when it returns"),
          "_dynamo/eval_frame.py _TorchDynamoContext.__call__ (set_eval_frame on entry, prior restored in finally); "
          "torch/csrc/dynamo/extra_state.cpp create_cache_entry, lookup"),
    # dynamic shapes (the workshop's notebook 04)
    Claim("notebook 04: 0/1 specialization, duck sizing, backed and unbacked", notebook("04_dynamic_shapes.ipynb"),
          ("dynamic=True makes every size a symbol, 1 included", "mark_dynamic always makes a symbol"),
          ("0/1 specialization", "duck sizing", "unbacked", "hint", "[2, ∞)", "never symbols",
           "use_duck_shape"),
          "torch/fx/experimental/symbolic_shapes.py ShapeEnv.create_symbol (val in (0, 1) and specialize_zero_one; "
          "DimDynamic.DUCK reuses val_to_var; _default_value_range lower 2), create_unbacked_symint; "
          "_dynamo/variables/builder.py (mark_dynamic -> RelaxedUnspecConstraint, mark_unbacked -> UNBACKED)"),
    # 6. graph breaks: loops, nested breaks, cost, fullgraph
    Claim("graph break: loops, inlined callees, the cost", stage("graph_break"),
          (), ("Inside a loop", "whole frame eagerly", "nested graph breaks are off", "no fusion across it",
               "fullgraph=True"),
          "_dynamo/symbolic_convert.py raise_loop_graph_break (skip_frame=True), maybe_has_backedge; "
          "_dynamo/config.py nested_graph_breaks = False; types.py ConvertFrameReturn (SKIP, apply_to_code)"),
    Claim("the fix list: a break in a loop skips the frame, on later calls too", source_of(fixlist._with_words),
          (), ("is inside a loop", "on this call and every later", "still compiled, each as a frame of its own"),
          "_dynamo/symbolic_convert.py raise_loop_graph_break; convert_frame.py (default ConvertFrameReturn: SKIP)"),
    Claim("notebook 05: loops, inlined callees, the cost", notebook("05_graph_breaks.ipynb"),
          (), ("inside a loop", "nested graph breaks are off", "no fusion across the break"),
          "_dynamo/symbolic_convert.py; _dynamo/config.py nested_graph_breaks"),
    # 7. the rewritten code: the break's instructions run inline; the code lives in the cache
    Claim("rewritten bytecode: the break runs inline; the code lives in co_extra", stage("rewritten_bytecode"),
          ("calls the original code for the unsupported part",),
          ("copied into it and run inline", "co_extra", "left as it is"),
          "_dynamo/symbolic_convert.py break_graph_if_unsupported (inst_copy added to the output instructions, then "
          "create_call_resume_at); torch/csrc/dynamo/extra_state.cpp create_cache_entry"),
    # 8. functionalization keeps input mutations; the backward is autograd's own
    Claim("AOT joint graph: copy_ epilogue, autograd's formulas, decompositions", stage("aot_joint"),
          ("no in-place mutation left",),
          ("copy_", "autograd formulas", "FakeTensors", "decomposed"),
          "_functorch/_aot_autograd/functional_utils.py _check_if_mutation_can_be_in_graph; "
          "graph_capture_wrappers.py (copy_ under keep_input_mutations, torch.autograd.grad in the joint); "
          "_inductor/decomposition.py select_decomp_table"),
    Claim("notebook 07: functionalization keeps input mutations as copy_", notebook("07_aotautograd.ipynb"),
          ("no in-place op is left",), ("copy_", "autograd formulas", "torch functions and tensor methods"),
          "_functorch/_aot_autograd/functional_utils.py; graph_capture_wrappers.py"),
    # the workshop's block 4
    Claim("notebook 06: a backend is a function from a graph to a callable", notebook("06_backends.ipynb"),
          (), ("backend(gm, example_inputs)", "returns a callable", "once per graph", "exclude_tags=()"),
          "_dynamo/output_graph.py call_user_compiler (compiler_fn(gm, example_inputs)); "
          "_dynamo/backends/registry.py list_backends(exclude_tags=(\"debug\", \"experimental\"))"),
    Claim("notebook 07: the budget's knapsack recomputes the cheapest", notebook("07_aotautograd.ipynb"),
          ("trading a little compute for memory",),
          ("minimises the bytes", "activation_memory_budget", "knapsack", "lowest recompute cost", "FLOPs by default",
           "decomposed"),
          "_functorch/partitioners.py min_cut_rematerialization_partition, get_saved_values_knapsack; "
          "_functorch/config.py activation_memory_budget = 1.0, activation_memory_budget_runtime_estimator = "
          "\"flops\""),
    # the workshop's block 6 and its closing
    Claim("notebook 10: programs, blocks, masks, persistent and looped reductions, autotuning",
          notebook("10_triton.ipynb"),
          ("one program per element",),
          ("tl.program_id", "mask", "persistent", "looped", "splits", "autotuned", "1024", "compile-time constants"),
          "_inductor/codegen/triton.py (xoffset = tl.program_id(0) * XBLOCK), choices.py "
          "should_use_persistent_reduction (INNER: 1024, else 64); config.py split_reductions; "
          "runtime/triton_heuristics.py CachingAutotuner "
          "(configs benchmarked at the first launch)"),
    Claim("notebook 11: the paper's figures, CUDA graphs' conditions, why a laptop differs",
          notebook("11_performance.ipynb"),
          (), ("2.27×", "1.41×", "A100", "geometric means", "reduce-overhead", "launch-bound", "a graph per input size",
               "break-even"),
          "_inductor/cudagraph_utils.py (check_for_mutation, check_multiple_devices_or_any_cpu_nodes, "
          "log_cudagraph_skip_and_bump_counter on the cudagraphs log); config.py triton.cudagraph_skip_dynamic_graphs"),
    Claim("notebook 12: each stage beside its standard log and file", notebook("12_logs.ipynb"),
          (), ("fx_graph_readable.py", "fx_graph_transformed.py", "ir_post_fusion.txt", "output_code.py", "tlparse",
               "TORCHINDUCTOR_FORCE_DISABLE_CACHES", "aot_joint_graph", "set_logs"),
          "_inductor/debug.py DebugFormatter (fx_graph_readable.py, fx_graph_transformed.py, ir_pre_fusion.txt, "
          "ir_post_fusion.txt, output_code.py); _logging/_registrations.py; torch/compiler/config.py "
          "force_disable_caches (TORCHINDUCTOR_FORCE_DISABLE_CACHES)"),
    # 9. the rest of the review's table
    Claim("the Dynamo graph is at the torch API's level", stage("graph"), (), ("torch-API", "not yet ATen"),
          "_dynamo/variables/torch.py TorchInGraphFunctionVariable, output_graph.py create_proxy (nodes call torch "
          "functions and tensor methods; AOTAutograd's make_fx traces them to ATen)"),
    Claim("min-cut: recomputation is often faster, not only smaller", stage("saved_tensors"),
          ("trading a little compute for memory",), ("minimises the bytes", "faster as well as smaller"),
          "_functorch/partitioners.py min_cut_rematerialization_partition"),
    Claim("the wrapper: memory planning, CUDA graphs", stage("output_code"), (), ("# reuse", "CUDA graph"),
          "_inductor/codegen/wrapper.py ReuseLine (\"# reuse\"); cudagraph_trees.py"),
    Claim("the hook hands Dynamo the frame with live values", stage("source"), (), ("live arguments",),
          "torch/csrc/dynamo/eval_frame_cpp.cpp dynamo_call_callback (frame, f_locals)"),
    Claim("ops run on FakeTensors while tracing", stage("original_bytecode"), (), ("FakeTensors",),
          "_dynamo/variables/builder.py wrap_to_fake_tensor_and_record; _dynamo/utils.py get_fake_value"),
    Claim("CPU kernels: at::vec::Vectorized", stage("kernels"), ("vector intrinsics",), ("at::vec::Vectorized",),
          "_inductor/codegen/cpp.py (CppVecKernel)"),
    Claim("AOT inference: no input requires grad, or no output does", stage("aot_inference"),
          ("When nothing requires grad",), ("no output does",),
          "_functorch/aot_autograd.py needs_autograd, output_and_mutation_safe"),
    Claim("a resume function starts after the break; a branch has two", source_of(panes._source),
          ("its code starts at the line of that break",), ("instruction after the break", "one for each side"),
          "_dynamo/symbolic_convert.py create_call_resume_at(self.next_instruction), generic_jump (if_next, "
          "if_jump)"),
    Claim("restarts are the usual path of a graph break", source_of(panes._graph_break),
          (), ("usual path of a graph break",),
          "_dynamo/symbolic_convert.py break_graph_if_unsupported (speculate, fail_and_restart_analysis)"),
    Claim("the bytecode hook is torch's register_bytecode_hook", lambda: _USUALLY["original_bytecode"],
          ("so its bytecode hook never fired",), ("register_bytecode_hook",),
          "_dynamo/convert_frame.py register_bytecode_hook"),
    Claim("CUDA graphs' conditions", source_of(numbers_view.host_block), (),
          ("one CUDA device", "no input the graph mutates", "one graph per size"),
          "_inductor/cudagraph_utils.py check_for_mutation, check_multiple_devices_or_any_cpu_nodes; "
          "config.py cudagraph_skip_dynamic_graphs = False"),
)


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.name for c in CLAIMS])
def test_each_claim_says_what_torch_does(claim):
    text = " ".join(claim.text().split())  # one line: a phrase may wrap in the source
    for wrong in claim.gone:
        assert " ".join(wrong.split()) not in text, f"{claim.name}: the wrong phrasing is back: {wrong!r}"
    for right in claim.present:
        assert " ".join(right.split()) in text, f"{claim.name}: lost {right!r} (checked against {claim.checked})"


def test_every_claim_names_the_torch_source_it_was_checked_against():
    assert all(c.checked and ("torch/" in c.checked or c.checked.startswith("_")) for c in CLAIMS)


def test_every_torch_logs_name_the_workshop_cites_is_one_torch_registers():
    """A `TORCH_LOGS="x,+y"` in a notebook's text names logs torch knows: a renamed artifact fails here."""
    import re

    from torch._logging._internal import log_registry

    cited = set()
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for value in re.findall(r'TORCH_LOGS="([^"]*)"', notebook(path.name)()):
            cited |= {name.strip().lstrip("+-") for name in value.split(",") if name.strip()}
    assert len(cited) >= 15, sorted(cited)  # the workshop's bridge cites most of them
    unknown = sorted(n for n in cited if not (log_registry.is_artifact(n) or log_registry.is_log(n)))
    assert not unknown, f"not a TORCH_LOGS name in this torch: {unknown}"


# ---- claims checked against the installed torch ----

def _double(x):
    return x.sin() * 2


def _in_loop(x):
    y = x.sin()
    for i in range(2):
        y = y + i
        print("step")
    return y.cos()


def test_torch_tries_the_most_recently_used_entry_first_and_only_under_its_backend():
    """The cache loop as the explanations tell it: a new entry goes in front, a hit moves to the front, and a
    call under another backend compiles an entry of its own rather than reuse one."""
    import torch

    from explorer.capturing import torch_door

    torch._dynamo.reset()
    try:
        eager = torch.compile(_double, backend="eager")
        eager(torch.randn(4))
        eager(torch.randn(4, dtype=torch.float64))

        def order():
            return [c.key for c, _, _ in torch_door.dynamo_cache.cache_entry_facts(_double.__code__)]

        assert order() == ["0/1", "0/0"]  # newest first
        eager(torch.randn(4))  # 0/0's guards pass: it moves to the front
        assert order() == ["0/0", "0/1"]
        torch.compile(_double, backend="aot_eager")(torch.randn(4))  # same inputs, another backend: a new entry
        assert order()[0] == "0/2"
        backends = [b for _, _, b in torch_door.dynamo_cache.cache_entry_facts(_double.__code__)]
        assert backends == ["aot_eager", "eager", "eager"]
    finally:
        torch._dynamo.reset()


def test_torch_skips_a_frame_whose_break_is_in_a_loop_and_the_fix_list_says_so():
    import torch

    import explorer

    report = explorer.explore(_in_loop, torch.randn(4), backend="eager")
    (site,) = report.clinic.fix_list
    assert site.in_loop and site.frame_abandoned
    assert "is inside a loop" in site.ran_as_python and "every later one" in site.ran_as_python
    assert report.capture.num_graphs == 0  # the graph traced before the loop was dropped too


def _add_rows(x, y):
    return (x + y).sum(0) * x.shape[0]


def _serve(x):
    return (x * 2).sum(0)


def test_torch_specializes_0_and_1_duck_sizes_equal_sizes_and_unbacked_sizes_take_every_size():
    """Notebook 04 as torch does it: the first size change makes one symbol for both equal sizes (an equality
    guard) with the range guard 2 <= size; a size of 1 then compiles a graph with the number 1; marked unbacked,
    one graph takes sizes 1 to 16."""
    import torch

    import explorer

    torch._dynamo.reset()
    try:
        compiled = torch.compile(_add_rows, backend="eager")
        with explorer.capture() as rep:
            for n in (4, 5, 1):
                compiled(torch.randn(n, 3), torch.randn(n, 3))
        first, symbolic, one = rep.compilations
        guards = [g.code for g in symbolic.guards]
        assert "L['y'].size()[0] == L['x'].size()[0]" in guards and "2 <= L['x'].size()[0]" in guards
        assert "f32[4, 3]" in first.graph.code and "f32[1, 3]" in one.graph.code
        assert "f32[1, 3]" not in symbolic.graph.code

        torch._dynamo.reset()
        served = torch.compile(_serve, backend="eager")
        with explorer.capture() as unbacked:
            for n in (1, 2, 4, 8, 16):
                x = torch.randn(n, 3)
                torch._dynamo.decorators.mark_unbacked(x, 0)
                served(x)
        (only,) = unbacked.compilations
        assert "f32[u0, 3]" in only.graph.code
    finally:
        torch._dynamo.reset()


def test_torch_recomputes_the_cheaper_of_two_equal_activations_under_a_memory_budget():
    """Notebook 07's exercise as torch does it: at activation_memory_budget 0.5 the partitioner recomputes the
    64->256 Linear's output (a quarter of the FLOPs) and keeps the 256->256 one's."""
    import torch
    import torch._functorch.config as functorch_config
    from torch import nn

    import explorer
    from explorer.lineage.saved import saved_tensors

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, 64))

    def loss_fn(x):
        return model(x).pow(2).mean()

    with functorch_config.patch(activation_memory_budget=0.5):
        comp = explorer.explore(loss_fn, torch.randn(128, 64), backend="aot_eager").compilation()
    st = saved_tensors(comp)
    recomputed = {r.name for r in st.recomputed}
    assert "addmm" in recomputed and "addmm_1" not in recomputed
    assert "addmm_1" not in {s.name for s in st.saved}  # tanh is saved in its place
    assert st.activations.known == 160 * 1024


# ---- where the explorer changes what torch does, the view says so, next to the explanation ----

def test_the_backward_panes_say_the_explorer_lowered_it_early():
    import dataclasses

    from explorer.report import Report

    report = Report.from_json((Path(__file__).parent / "data" / "report_v2.json").read_text(encoding="utf-8"))
    comp = report.compilation("0/0")  # a training graph, captured cold

    def first_notes(rep):
        panes = viewmodel.compilation(comp, rep)["panes"]
        return {sid: panes[sid][0].get("r") for sid in ("aot_forward", "aot_backward", "post_grad_graph_backward",
                                                         "output_code", "kernels")}

    cold = first_notes(report)
    assert cold.pop("aot_forward") != changes_view.EARLY
    assert set(cold.values()) == {changes_view.EARLY}
    warm = dataclasses.replace(report, capture=dataclasses.replace(report.capture, cache_mode="warm"))
    assert set(list(first_notes(warm).values())[1:]) == {changes_view.LAZY}
    opened = dataclasses.replace(report, entry="open")
    assert set(list(first_notes(opened).values())[1:]) == {changes_view.AS_THE_JOB}
    said = repr(report.stage("aot_backward", "0/0"))  # the text: the explanation, then what the capture did
    assert said.index(BY_ID["aot_backward"].explanation) < said.index("Lowered early by the explorer")
