"""The GPU story's CPU side (issue 13): what a call really costs, rooflines, the user's own kernels,
the CUDA preview without a GPU, Halide's message. GPU halves: tests/test_gpu_story_gpu.py."""

import dataclasses
import html
import importlib.util
import json
import re

import pytest
import torch

import explorer
from explorer.capturing.gpu_watch import GpuWatch
from explorer.report import Report
from explorer.timing import end_to_end as e2e

TINY = dict(budget_s=0.01, repeats=3)
HAS_TRITON = importlib.util.find_spec("triton") is not None


def _tiny(x):
    return x * 2 + 1


# ---- 1. end to end ----

def test_end_to_end_times_the_users_compiled_call_whole_apart_from_its_compile():
    x = torch.randn(8)
    report = explorer.explore(_tiny, x, time=True)
    e = report.timing.end_to_end
    # the speedup is the median of the per-repeat ratios, eager and compiled interleaved repeat by repeat
    assert e.method == e2e.METHOD_RECALL and e.speedup == e.ratio.value and len(e.ratio.ratios) == e.compiled.repeats
    assert "interleaved" in e.compiled.method and "interleaved" in e.eager.method
    assert e.guards is not None and e.guards.median_s > 0 and len(e.warmup_s) == 3
    assert e.first_call_s > e.compiled.median_s * 100  # the first call compiled: apart from the steady state
    assert e.compile_time_s == report.capture.compile_time_s
    # Dynamo's per-call overhead dominates: the whole call costs clearly more than its graph
    assert e.compiled.median_s > e.graphs_compiled_s and e.overhead_s > 0
    # what is timed is the user's own compiled callable, called whole (guards and frames included),
    # loops x repeats times; how close the figure comes to timeit is a benchmark's question
    # (tests/benchmarks/bench_end_to_end.py), not a timed test's: CI saw interleaved ratios of 1.0-1.9
    compiled = torch.compile(_tiny)
    compiled(x)
    calls = []

    def counted(*args):
        calls.append(1)
        return compiled(*args)

    ours = e2e.time_end_to_end(e2e.call_of(_tiny, counted, (x,), {}), budget_s=0.02, repeats=5).compiled
    assert len(ours.times_s) == 5 and len(calls) >= ours.loops * 5
    assert len(e.compiled.times_s) >= 3 and min(e.compiled.times_s) <= e.compiled.median_s
    assert Report.from_json(report.to_json()) == report


def test_side_effects_are_never_repeated_what_was_timed_is_said():
    seen = []

    def logs(x):
        seen.append(1)  # Dynamo replays this append after the graph
        return x.cos() + 1

    x = torch.randn(8)
    report = explorer.explore(logs, x, time=True, **{})
    assert seen == [1]  # the user's call only: what a re-call appended was taken back
    e = report.timing.end_to_end
    assert e.method == e2e.METHOD_PARTS and e.compiled.median_s > 0 and e.eager.median_s > 0
    [why] = [t for t in e.not_timed if "not re-run" in t]  # one line for the kind of reason, naming the list
    assert "L['seen'] (list, mutated at test_gpu_story.py:" in why
    assert any("guard" in t for t in e.timed)


def test_an_argument_updated_in_place_is_timed_on_private_copies():
    def bump(x):
        x.add_(1)
        return x * 2

    x = torch.zeros(8)
    report = explorer.explore(bump, x, time=True)
    assert torch.equal(x, torch.ones(8))  # the user's one call, and nothing else
    e = report.timing.end_to_end
    assert e.method == e2e.METHOD_RECALL
    assert any("private copies" in n for n in e.notes)


def test_random_state_is_restored_after_timing():
    def noisy(x):
        return x + torch.rand(8)

    torch.manual_seed(0)
    explorer.explore(noisy, torch.ones(8))  # the user's one call, no timing
    untimed = torch.rand(1)
    torch.manual_seed(0)
    explorer.explore(noisy, torch.ones(8), time=True)  # the same call, then timing
    assert torch.equal(untimed, torch.rand(1))  # timing drew no numbers from the user's generator


# ---- 2. and 3.: rooflines, and the kernels shown are the user's ----

@pytest.fixture(scope="module")
def matmul_report():
    a, b = torch.randn(128, 256), torch.randn(256, 64)
    with torch.no_grad():
        return explorer.explore(lambda a, b: (a @ b).relu(), a, b, time=True)


def test_matmul_roofline_against_flops_computed_by_hand(matmul_report):
    g = matmul_report.timing.graphs[0]
    mm = next(k for k in g.kernels if k.kind == "extern" and "mm" in k.name)
    assert mm.flops == 2 * 128 * 256 * 64  # by hand: 2 m n k
    assert mm.bytes == (128 * 256 + 256 * 64 + 128 * 64) * 4  # a and b read, the product written
    assert mm.dtype == "torch.float32"
    assert mm.tflops == pytest.approx(mm.flops / mm.time_s / 1e12)
    peak = next(p for p in matmul_report.timing.peak_compute if p.dtype == "torch.float32")
    assert mm.peak_tflops == peak.tflops > 0 and mm.peak_flops_pct == pytest.approx(100 * mm.tflops / peak.tflops)
    ridge = peak.tflops * 1e12 / (matmul_report.timing.peak.gbs * 1e9)
    assert mm.bound == ("compute" if mm.flops / mm.bytes >= ridge else "memory")
    relu = [k for k in g.kernels if k.kind == "generated"]
    assert relu and all(k.bound == "memory" and k.flops is None for k in relu)


def test_kernels_shown_carry_no_profiling_hooks_while_per_kernel_times_exist(matmul_report):
    shown = [k for k in matmul_report.capture.kernels if k.language == "cpp"]
    assert shown and not any("RECORD_FUNCTION" in k.source for k in shown)
    assert not any("RECORD_FUNCTION" in c.code for comp in matmul_report.capture.compilations
                   for c in comp.output_code or ())
    g = matmul_report.timing.graphs[0]
    generated = [k for k in g.kernels if k.kind == "generated"]
    assert generated and all(k.time_s > 0 for k in generated)
    assert {k.name for k in generated} <= {k.name for k in shown}
    assert "separate profiling build" in g.kernels_build and "enable_kernel_profile" in g.kernels_build
    assert matmul_report.capture.extern_calls and matmul_report.capture.extern_calls[0].name == "extern_kernels.mm"
    assert Report.from_json(matmul_report.to_json()) == matmul_report


def test_a_build_compiled_with_kernel_profiling_is_profiled_as_it_is_not_built_again(monkeypatch):
    """A user who compiles with cpp.enable_kernel_profile (the corpus does: tests/test_model_corpus.py) has C++
    kernels as profiler rows already: their own build's kernels are timed, and no second build is compiled."""
    from explorer.timing import graphs

    builds = []
    monkeypatch.setattr(graphs, "_profiling_build", lambda *a: builds.append(a) or None)
    a, b = torch.randn(128, 256), torch.randn(256, 64)
    with torch.no_grad():
        report = explorer.explore(lambda a, b: (a @ b).sin(), a, b, time=True,
                                  options={"cpp.enable_kernel_profile": True})
    g = report.timing.graphs[0]
    assert builds == []
    assert g.kernels_build.startswith("the user's build") and "enable_kernel_profile" in g.kernels_build
    generated = [k for k in g.kernels if k.kind == "generated"]
    assert generated and all(k.time_s > 0 for k in generated)
    assert {k.name for k in generated} <= {k.name for k in report.capture.kernels}


# ---- 5. and 6.: what the watch makes of torch's autotuning feedback and CUDA-graph logs ----

class _Choice:
    def __init__(self, name, info):
        self.name, self._info = name, info

    def info_dict(self):
        return self._info


class TritonTemplateCaller(_Choice):
    pass


class ExternKernelCaller(_Choice):
    pass


class _Node:
    def get_size(self):
        return [64, 128]

    def get_dtype(self):
        return torch.bfloat16


def test_autotuning_feedback_becomes_a_table_with_the_winner():
    w = GpuWatch()
    a = TritonTemplateCaller("triton_mm_1", {"tile_shape": "(64, 64, 32)", "num_stages": 3, "num_warps": 4})
    b = ExternKernelCaller("mm", {"backend": "extern"})
    w._on_autotune({a: 0.012, b: 0.020}, "mm", [_Node(), _Node()], [a, b])
    (t,) = w.autotuning
    assert t.op == "mm" and t.winner == "triton_mm_1" and t.inputs == ("bfloat16[64, 128]",) * 2
    assert [c.name for c in t.choices] == ["triton_mm_1", "mm"] and t.choices[0].winner
    assert t.choices[0].time_s == pytest.approx(12e-6) and t.choices[0].kind == "template"
    assert "num_warps=4" in t.choices[0].description and t.choices[1].kind == "extern"


def test_cudagraph_logs_count_recordings_rerecordings_and_skips():
    w = GpuWatch(cudagraphs_asked=True)
    w._on_cudagraph_log("[0/0] Recording function=0, mode=FORWARD, cuda_graph_id=0, inputs: ...")
    w._on_cudagraph_log("[0/0] Re-recording function=0, mode=FORWARD, reason=static input data pointer changed")
    w._on_cudagraph_log("skipping cudagraphs due to mutated inputs (1 instances)")
    cg = w.cudagraphs()
    assert cg.used and cg.recordings == 1 and cg.rerecordings == 1
    assert "static input data pointer changed" in cg.rerecord_reasons[0] and "mutated inputs" in cg.skips[0]



def test_the_watch_hears_torchs_cudagraph_loggers_through_the_one_listener_only_while_open():
    """The path a GPU run takes (recorder.listening with the GPU seams), checked on CPU: a line torch logs
    on a CUDA-graph logger reaches the watch while it is open, and nothing is left on the logger after."""
    import logging

    from explorer.capturing import torch_door

    logger = logging.getLogger(torch_door.inductor.CUDAGRAPH_LOGGERS[0])
    handlers, level = list(logger.handlers), logger.level
    with GpuWatch(cudagraphs_asked=True) as w:
        logger.debug("[0/0] Recording function=0, mode=FORWARD, cuda_graph_id=0, inputs: ...")
        logger.debug("[0/0] Re-recording function=0, mode=FORWARD, reason=static input data pointer changed")
    logger.debug("[0/1] Recording function=1, mode=FORWARD, cuda_graph_id=1, inputs: ...")  # after: unheard
    cg = w.cudagraphs()
    assert cg.recordings == 1 and cg.rerecord_reasons == ("static input data pointer changed",), cg
    assert (list(logger.handlers), logger.level) == (handlers, level)


# ---- 7. the CUDA preview ----

def test_the_preview_child_dying_costs_the_preview_only(monkeypatch, tmp_path):
    from explorer import preview

    src = tmp_path / "in.json"
    src.write_text('{"graphs": []}')
    monkeypatch.setenv("EXPLORER_PREVIEW_TEST_ABORT", "1")  # the child aborts as std::terminate would
    err = preview._run_child(str(src), str(tmp_path / "out.json"), timeout_s=120)
    assert "killed by SIGABRT" in err and "nothing else is" in err


NEEDS_TRITON = pytest.mark.skipif(not HAS_TRITON, reason="the preview's Triton kernels need the triton package")


@pytest.mark.slow
@NEEDS_TRITON
def test_a_training_step_previews_its_forward_and_backward_kernels():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32),
                                torch.nn.Linear(32, 4))

    def step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    report = explorer.explore(step, torch.randn(8, 16), target="cuda")
    assert model[0].weight.grad is not None  # the user's step ran, on the CPU, as written
    assert {k.language for k in report.capture.kernels} == {"cpp"}
    p = report.preview
    assert p.error is None, p.error
    (o,) = [o for o in p.outcomes if o.compile_id == report.capture.compilations[0].compile_id]
    assert o.previewed and o.lowered == "forward and backward", o
    assert [c.graph_kind for c in p.capture.compilations[0].output_code] == ["forward", "backward"]
    backward = [k for k in p.capture.kernels if k.graph_kind == "backward"]
    assert backward and all(k.language == "triton" for k in p.capture.kernels)
    assert any("layer_norm_backward" in k.name for k in backward), [k.name for k in backward]
    assert any(k.graph_kind == "forward" for k in p.capture.kernels)
    shown = {k.name: k for k in p.capture.triton_kernels}  # each backward kernel down to PTX, for sm_90
    assert all(".target sm_90" in {ir.stage: ir for ir in shown[k.name].ir}["ptx"].text for k in backward)
    assert any("meta tensors" in n for n in p.notes)  # how the backward was traced, said
    assert "forward and backward" in report.summary()
    assert Report.from_json(report.to_json()) == report


def _previewed_step(model, x):
    """The CUDA preview of ``loss = model(x).pow(2).mean(); loss.backward()``: its wrappers by kind, and its backward
    kernels by name."""
    def step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    p = explorer.explore(step, x, target="cuda").preview
    assert p.error is None, p.error
    wrappers = {oc.graph_kind: oc.code for c in p.capture.compilations for oc in c.output_code}
    return wrappers, {k.name: k.source for k in p.capture.kernels if k.graph_kind == "backward"}


def _calls(wrapper):
    """The kernels a wrapper's ``call`` runs, in order (``extern_kernels.mm``, ``triton_..._1``)."""
    return re.findall(r"^ +(?:buf\d+ = )?((?:extern_kernels|torch\.ops)\.[\w.]+|triton_\w+\.run)\(", wrapper, re.M)


@pytest.mark.slow
@NEEDS_TRITON
def test_a_training_steps_backward_overwrites_its_buffers_in_place_as_the_gpus_does():
    """The backward an H200 compiled for this step (torch 2.11, tests/gpu/test_preview_vs_real.py, case training):
    it takes the second Linear's weight itself (a parameter: free to keep for the backward), sums the layer norm's
    gradient over the batch first, then writes the gelu's gradient over the matmul's output in place
    (``in_out_ptr0``). A preview that forgot which inputs are parameters kept the weight's transpose instead, ran
    the two kernels the other way round and wrote the gradient to a new buffer. Its wrappers name the user's
    variables, as the GPU's do (``loss``, not the op's name ``mean``)."""
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.LayerNorm(128),
                              torch.nn.Linear(128, 64))
    wrappers, kernels = _previewed_step(mlp, torch.randn(32, 64))
    wrapper = wrappers["backward"]
    assert _calls(wrapper) == [  # the H200's backward, call for call
        "triton_per_fused_div_expand_mul_pow_sum_0.run", "extern_kernels.mm",
        "triton_per_fused_gelu_native_layer_norm_native_layer_norm_backward_1.run",
        "triton_per_fused_gelu_gelu_backward_native_layer_norm_native_layer_norm_backward_2.run",
        "triton_per_fused_sum_3.run", "extern_kernels.mm", "extern_kernels.mm"], _calls(wrapper)
    in_place = kernels["triton_per_fused_gelu_gelu_backward_native_layer_norm_native_layer_norm_backward_2"]
    assert "'mutated_arg_names': ['in_out_ptr0']" in in_place
    assert re.search(r"tl\.store\(in_out_ptr0 \+ \(r0_1 \+ 128\*x0\), tmp\d+, xmask\)", in_place), in_place
    mms = re.findall(r"extern_kernels\.mm\(.*", wrapper)
    assert "extern_kernels.mm(buf0, primals_6, out=buf1)" in mms, mms  # the weight, not its transpose saved
    assert "# Topologically Sorted Source Nodes: [pow_1, loss], " in wrappers["forward"]


@pytest.mark.slow
@NEEDS_TRITON
def test_a_convolutions_bias_gradient_is_summed_in_a_triton_kernel_as_on_a_gpu():
    """On a GPU Inductor computes a convolution's bias gradient as a sum fused into its kernels and asks
    ``convolution_backward`` for the input and weight gradients only (``[False, True, False]`` here, the H200's
    call); on a CPU it asks the op for the bias gradient too. The preview traces the backward on a stand-in
    device, which must count as a GPU there."""
    torch.manual_seed(0)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(1024, 10))
    wrappers, _ = _previewed_step(cnn, torch.randn(2, 3, 8, 8))
    (mask,) = re.findall(r"convolution_backward\.default\(.*(\[\w+, \w+, \w+\])\)$", wrappers["backward"], re.M)
    assert mask == "[False, True, False]"


@pytest.mark.slow
@NEEDS_TRITON
def test_a_dynamic_graph_is_previewed_with_the_symbolic_sizes_dynamo_gave_it():
    x = torch.randn(8, 16)
    torch._dynamo.mark_dynamic(x, 0)
    with torch.no_grad():
        report = explorer.explore(lambda x: (x.sin() * 2 + 1).sum(-1), x, target="cuda")
    p = report.preview
    (o,) = p.outcomes
    assert o.previewed and len(o.symbols) == 1, (o, p.notes)
    (sym,) = o.symbols
    assert sym in report.capture.compilations[0].graph.code  # the user's graph names the size the same way
    wrapper = p.capture.compilations[0].output_code[0].code
    assert f"({sym}, 16)" in wrapper and f"empty_strided_cuda(({sym}, )" in wrapper  # every batch size, one code
    (k,) = p.capture.kernels
    assert k.name == "triton_per_fused_add_mul_sin_sum_0"  # named for its ATen ops, as a GPU names it
    assert "xnumel = 8" not in k.source and "r0_numel = 16" in k.source
    assert f"symbolic sizes {sym}" in report.summary()


_RECOMPILES = """
import torch

@torch.compile
def f(x):
    return (x.sin() * 2 + 1).sum(-1)

f(torch.randn(8, 16))
f(torch.randn(9, 16))  # a recompile: Dynamo makes the size dynamic
"""


@pytest.mark.slow
@NEEDS_TRITON
def test_a_recompiled_graph_is_previewed_with_its_dynamic_size(tmp_path):
    from explorer.capturing.torch_door.version import release_of
    from explorer.cli import run_script
    from explorer.options import Options

    script = tmp_path / "recompiles.py"
    script.write_text(_RECOMPILES)
    report = run_script(str(script), options=Options(capture_only=True, target="cuda")).report
    p = report.preview
    assert [o.previewed for o in p.outcomes] == [True, True], p.outcomes
    first, second = p.outcomes
    recompiled = report.capture.compilations[1]
    assert recompiled.recompile_reason and second.compile_id == recompiled.compile_id and first.symbols == ()
    if release_of(torch.__version__) >= (2, 13):  # its repro names the size as a symbol
        assert second.symbols, p.notes
        wrapper = next(c for c in p.capture.compilations if c.compile_id == second.compile_id).output_code[0].code
        assert f"({second.symbols[0]}, 16)" in wrapper
    else:
        assert any("names no symbolic sizes" in n for n in p.notes)
    assert "not previewed" not in " ".join(p.graphs)


_CPU_ONLY_OP = None


def _cpu_only_op():
    """An op the program registers itself: the preview's process does not have it."""
    global _CPU_ONLY_OP
    if _CPU_ONLY_OP is None:
        @torch.library.custom_op("cx_tests::scaled_on_cpu", mutates_args=())
        def scaled_on_cpu(x: torch.Tensor) -> torch.Tensor:
            return x * 3

        @scaled_on_cpu.register_fake
        def _(x):
            return torch.empty_like(x)

        _CPU_ONLY_OP = scaled_on_cpu
    return _CPU_ONLY_OP


@pytest.mark.slow
@NEEDS_TRITON
def test_a_graph_the_preview_cannot_lower_is_named_in_the_summary_with_the_reason():
    from explorer.present import payload
    from explorer.present.html import render_fragment

    op = _cpu_only_op()

    def f(x):
        y = op(x.sin())
        torch._dynamo.graph_break()
        return y.cos() + 1

    with torch.no_grad():
        report = explorer.explore(f, torch.randn(8), target="cuda")
    p = report.preview
    failed, fine = p.outcomes
    assert not failed.previewed and fine.previewed, p.outcomes
    assert "scaled_on_cpu" in failed.reason and "registers itself" in failed.reason
    said = f"Not in the CUDA preview: {failed.label}: "
    summary = report.summary()
    assert said in summary and "scaled_on_cpu" in summary.split(said)[1].split("\n")[0]
    assert "1 of 2 graphs lowered" in summary
    assert said in html.unescape(re.sub(r"<[^>]+>", "", render_fragment(report, pictures=False)))  # the static copy
    header = json.dumps(payload.build(report, pictures="none")[0]["header"])  # the page's and the widget's
    assert "Not in the CUDA preview: " in header and failed.label in header and "scaled_on_cpu" in header


@pytest.mark.slow
@NEEDS_TRITON
def test_preview_shows_wrapper_triton_kernels_and_ptx_labelled_not_run():
    with torch.no_grad():
        report = explorer.explore(lambda x, y: (x.sin() * y + 1).sum(-1), torch.randn(64, 128),
                                  torch.randn(64, 128), target="cuda")
    p = report.preview
    assert p.error is None, p.error
    assert "PREVIEW, NOT RUN" in p.label and "sm_90" in p.target
    assert len(p.graphs) == 1 and p.graphs[0].endswith("previewed (inference)")
    assert report.capture.kernels[0].language == "cpp"  # the user's own run: CPU, untouched
    (comp,) = p.capture.compilations
    assert "triton" in comp.output_code[0].code and "cuda" in comp.output_code[0].code
    (k,) = p.capture.triton_kernels
    assert k.name.startswith("triton_per_fused") and k.heuristic == "persistent_reduction"
    assert k.size_hints == {"x": 64, "r0_": 128} and k.target == "cuda sm_90a"
    assert [a.role for a in k.args] == ["input", "input", "output", "size", "size", "constexpr"]
    assert k.configs and k.grid and k.threads_per_block == k.configs[0].num_warps * 32
    stages = {ir.stage: ir for ir in k.ir}
    assert set(stages) == {"ttir", "ttgir", "llir", "ptx"} and ".target sm_90" in stages["ptx"].text
    assert Report.from_json(report.to_json()) == report


# ---- 8. Halide ----

def test_inductor_backend_reaches_inductor_as_its_own_options():
    from explorer.options import Options

    o = Options(inductor_backend="halide", inductor_options={"epilogue_fusion": False})
    assert o.compile_kwargs()["options"] == {"cpu_backend": "halide", "cuda_backend": "halide",
                                             "epilogue_fusion": False}
    with pytest.raises(ValueError, match="inductor_backend"):
        Options(inductor_backend="tvm")
    with pytest.raises(ValueError, match="target"):
        Options(target="rocm")
    assert dataclasses.replace(o, target="cuda").target == "cuda"
