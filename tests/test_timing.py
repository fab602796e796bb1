"""Timing on CPU: the method, what it tells the user, and that it never touches user state.

Budgets are tiny (a few ms per repeat): these tests check fields and behaviour,
not speed. One Inductor compile (session fixture) covers the kernel profile.
"""

import dataclasses
import json
import xml.etree.ElementTree as ET

import pytest
import torch
from html_parts import timing_html as html_fragment
from kernel_bytes import cpp_bytes_estimate, kernel_bytes

import explorer
from explorer.capturing.model import Kernel
from explorer.present.plots import graphs_chart, kernels_chart
from explorer.present.text import timing_text
from explorer.timing import (
    GraphRecorder,
    TimingReport,
    bench,
    break_even_calls,
    compare_modes,
    measure,
    peak_bandwidth,
    time_calls,
    time_capture,
    time_graphs,
    warnings_for,
)

TINY = dict(budget_s=0.005, repeats=3)


def _m(*times, loops=10):
    return bench.summarize(times, loops, "hand-made")


# ---- the method ----

def test_measure_reports_median_spread_and_calibrated_loops():
    x = torch.randn(64)
    m = measure(lambda: x.sin(), budget_s=0.01, repeats=4)
    assert m.median_s > 0
    assert len(m.times_s) == m.repeats == 4
    assert m.loops > 1  # a sin of 64 floats is far below 10 ms: the loop count grew
    assert m.iqr_pct >= 0 and m.range_pct >= m.iqr_pct
    assert m.min_s <= m.median_s <= m.max_s
    assert m.method == "torch.utils.benchmark.Timer"


def test_calibrate_grows_loops_until_a_repeat_fills_the_budget():
    seen = []

    def run(loops):  # a fake clock: every call costs 1 ms
        seen.append(loops)
        return loops * 1e-3

    loops, took = bench.calibrate(run, budget_s=0.2)
    assert took >= 0.2 and loops >= 200
    assert all(b <= 10 * a for a, b in zip(seen, seen[1:]))  # like %timeit: at most 10x a step


def test_summarize_median_iqr_and_range():
    m = _m(1.0, 2.0, 3.0, 4.0, 5.0)
    assert m.median_s == 3.0
    assert m.iqr_pct == pytest.approx(200 / 3)  # quartiles 2 and 4
    assert m.range_pct == pytest.approx(400 / 3)
    assert m.to_dict()["min_s"] == 1.0 and m.to_dict()["repeats"] == 5


def test_break_even_is_compile_time_over_time_saved():
    assert break_even_calls(10.0, 2e-3, 1e-3) == pytest.approx(10_000)
    assert break_even_calls(10.0, 1e-3, 2e-3) is None  # compiled slower: never pays off
    assert break_even_calls(None, 2e-3, 1e-3) is None


def test_no_warning_for_a_quiet_win():
    assert warnings_for(_m(2.0, 2.01, 2.02, 2.0, 2.01), _m(1.0, 1.01, 1.0, 1.0, 1.01), device="cpu") == []


def test_a_noisy_measurement_gives_no_verdict_and_says_how_to_measure_again():
    w = warnings_for(_m(1.0, 1.5, 2.0, 1.0, 1.8), _m(0.5, 0.5, 1.1, 0.5, 0.5), device="cpu")
    assert len(w) == 1 and w[0].startswith("too noisy to tell whether compiled is faster") and "--repeat" in w[0]


def test_compiled_slower_on_tiny_cpu_work_blames_call_overhead():
    w = warnings_for(_m(20e-6, 20e-6, 20e-6, 20e-6, 20e-6), _m(50e-6, 50e-6, 50e-6, 50e-6, 50e-6), device="cpu")
    assert len(w) == 1 and "slower than eager: speedup 0.40x (2.50x the time)" in w[0] and "call overhead" in w[0]


def test_compiled_slower_on_gpu_small_graph_suggests_reduce_overhead():
    w = warnings_for(_m(20e-6, 20e-6, 20e-6, 20e-6, 20e-6), _m(30e-6, 30e-6, 30e-6, 30e-6, 30e-6), device="cuda:0")
    assert "launch-bound" in w[0] and "reduce-overhead" in w[0]


def test_compiled_slower_on_big_work_points_at_the_kernels():
    w = warnings_for(_m(0.5, 0.5, 0.5, 0.5, 0.5), _m(0.6, 0.6, 0.6, 0.6, 0.6), device="cpu")
    assert "kernel profile" in w[0]


# ---- user state is never touched ----

def _snapshot(model, opt):
    return {"params": [p.detach().clone() for p in model.parameters()],
            "grads": [None if p.grad is None else p.grad.clone() for p in model.parameters()],
            "state": {i: {k: v.clone() if torch.is_tensor(v) else v for k, v in s.items()}
                      for i, s in enumerate(opt.state.values())}}


def _same(a, b):
    if torch.is_tensor(a):
        return torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_default_timing_of_a_training_step_leaves_weights_grads_and_optimizer_state_alone():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        return loss

    rec = GraphRecorder("aot_eager")
    f = torch.compile(step, backend=rec)
    x, y = torch.randn(8, 4), torch.randn(8, 3)
    for _ in range(3):
        f(x, y)
    n_graphs = len(rec.graphs)
    before = _snapshot(model, opt)
    assert before["state"] and all("momentum_buffer" in s for s in before["state"].values())

    timings = time_graphs(rec, **TINY)

    assert _same(before, _snapshot(model, opt))
    assert len(rec.graphs) == n_graphs  # timing never re-entered Dynamo
    assert len(timings) == n_graphs >= 2
    assert timings[0].grad_enabled  # the forward graph trains: timed with autograd on
    # ... and also as forward+backward (its compiled backward runs), still touching nothing of the user's
    assert timings[0].train_eager.median_s > 0 and timings[0].train_compiled.median_s > 0
    assert timings[0].train_speedup > 0
    assert all(t.train_eager is None for t in timings if not t.grad_enabled)
    for t in timings:
        assert t.eager.median_s > 0 and t.compiled.median_s > 0
        assert t.compile_time_source == "backend" and t.compile_time_s > 0
        assert t.kernels == () and "generates no kernels" in t.kernels_note
    # the optimizer graph holds the parameters as attributes: timed on a private copy
    assert any("private copy" in n for t in timings for n in t.notes)


def test_a_graph_given_a_strided_view_is_timed_on_a_copy_with_the_same_strides():
    """A graph's input that is a view into a bigger buffer (every other column; in Longformer, what the graph
    before a break left): the compiled graph checks its inputs' strides, so the private copy keeps them, and the
    graph is timed and profiled (before: 'compiled run failed: AssertionError: expected size 4==4, stride 8==16')."""
    import explorer

    columns = torch.randn(4, 16)[:, ::2]
    with torch.no_grad():
        report = explorer.explore(lambda t: t.sin() + 1, columns, time=True,
                                  options={"cpp.enable_kernel_profile": True})
    (g,) = report.timing.graphs
    assert g.compiled is not None and g.compiled.median_s > 0, g.notes
    assert not [n for n in (g.kernels_note or "", *g.notes) if "failed" in n], (g.kernels_note, g.notes)
    assert [k for k in g.kernels if k.kind == "generated"]


def test_recorder_forwards_mode_and_options_to_inductor_as_torch_compile_does():
    from torch._inductor import list_mode_options

    rec = GraphRecorder("inductor", mode="max-autotune-no-cudagraphs", options={"epilogue_fusion": False})
    assert rec._inner.config == {**list_mode_options("max-autotune-no-cudagraphs"), "epilogue_fusion": False}
    with pytest.raises(ValueError, match="Inductor settings"):
        GraphRecorder("aot_eager", mode="max-autotune")


# ---- Inductor: compile time apart, per-kernel profile, bandwidth ----

def _pointwise_reduction(x):
    return (x.sin() + 1).sum(1)


@pytest.fixture(scope="session")
def inductor_timing():
    rec = GraphRecorder("inductor", kernel_profile=True)
    x = torch.randn(256, 64)
    with explorer.capture() as report:
        with torch.no_grad():
            torch.compile(_pointwise_reduction, backend=rec)(x)
    peak = peak_bandwidth("cpu", nbytes=32 * 1024 * 1024, budget_s=0.01, repeats=3, refresh=True)
    return rec, report, time_capture(rec, report, peak=peak, **TINY)


def test_inductor_graph_timing_is_sane_and_compile_time_is_apart(inductor_timing):
    rec, report, timing = inductor_timing
    assert len(timing.graphs) == 1
    t = timing.graphs[0]
    assert t.compile_id == report.compilations[0].compile_id
    assert t.compile_time_source == "capture" and t.compile_time_s == report.compilations[0].compile_time_s
    assert t.compile_time_s > 10 * t.compiled.median_s  # compiling is not in the steady-state figure
    assert t.eager.median_s > 0 and t.compiled.median_s > 0 and t.speedup > 0
    assert t.eager.repeats == 3 and t.compiled.iqr_pct >= 0
    assert not t.grad_enabled  # inference: timed under no_grad
    # the speedup is the median of per-repeat ratios (eager and compiled interleaved), break-even follows it
    assert t.ratio is not None and t.speedup == t.ratio.value and len(t.ratio.ratios) == 3
    # three repeats bound no speedup: no verdict, so no break-even drawn from it
    assert t.verdict.kind == "too few repeats" and t.break_even_calls is None
    assert any(w.startswith("too few repeats to tell") for w in t.warnings)


def test_kernel_profile_names_the_captured_cpp_kernel_with_bytes_and_bandwidth(inductor_timing):
    rec, report, timing = inductor_timing
    t = timing.graphs[0]
    captured = {k.name for k in report.kernels}
    generated = [k for k in t.kernels if k.kind == "generated"]
    assert generated and {k.name for k in generated} <= captured
    k = generated[0]
    assert k.time_s > 0 and 0 < k.share_pct <= 100 and k.calls == 1
    assert k.bytes == 256 * 64 * 4 + 256 * 4  # reads x once, writes the row sums
    assert k.bandwidth_gbs == pytest.approx(k.bytes / k.time_s / 1e9)
    assert k.peak_pct == pytest.approx(100 * k.bandwidth_gbs / timing.peak.gbs)
    assert timing.peak.gbs > 0 and timing.peak.device == "cpu"
    # profiling options reached this compile only, not the global config
    assert torch._inductor.config.cpp.enable_kernel_profile is False


_RELU = """
@triton_heuristics.pointwise(size_hints={'x': 8388608}, triton_meta={'signature': {'in_out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': None})
@triton.jit
def triton_poi_fused_relu_view_5(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 8388608
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (x0), None).to(tl.float32)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tl.store(in_out_ptr0 + (x0), tmp2, None)
"""  # noqa: E501 - a real Triton kernel, as Inductor writes it
_RELU_WRAPPER = """
def call(args):
        arg0_1, arg1_1 = args
        assert_size_stride(arg0_1, (4096, 512), (512, 1))
        assert_size_stride(arg1_1, (512, 2048), (2048, 1))
        buf0 = empty_strided_cuda((4096, 2048), (2048, 1), torch.bfloat16)
        extern_kernels.mm(arg0_1, arg1_1, out=buf0)
        buf1 = reinterpret_tensor(buf0, (16, 256, 2048), (524288, 2048, 1), 0); del buf0  # reuse
        triton_poi_fused_relu_view_5.run(buf1, 8388608, stream=stream0)
        buf2 = empty_strided_cuda((16, 256, 2048), (524288, 2048, 1), torch.bfloat16)
        triton_per_fused_layer_norm_4.run(arg2_1, buf2, 4096, 2048, stream=stream0)
"""


def test_a_kernel_above_the_copy_ceiling_is_explained_only_with_evidence_in_every_view():
    # the H200 case: a 16 MB bf16 ReLU in place, read + written (32 MB) in 6.8 us against a 4,250 GB/s copy,
    # right after the matmul that wrote its input; and a kernel above the ceiling whose bytes exceed the L2
    from explorer.timing.ceiling import check_ceiling
    from explorer.timing.model import GraphTiming, KernelTiming, PeakBandwidth

    peak = PeakBandwidth(device="cuda:0", gbs=4250.0, bytes_per_copy=1 << 31, measurement=_m(1e-3, 1e-3),
                         cache_bytes=50 * 1024 * 1024, cache_name="L2")
    nbytes, how = kernel_bytes("triton_poi_fused_relu_view_5", Kernel("triton_poi_fused_relu_view_5", "triton", _RELU),
                               _RELU_WRAPPER)
    assert nbytes == 2 * 8388608 * 2 and "loads and stores" in how  # read and written in place, once each
    relu = KernelTiming(name="triton_poi_fused_relu_view_5", kind="generated", time_s=6.8e-6, share_pct=7.6,
                        calls=1, bytes=nbytes, bytes_source=how, bandwidth_gbs=4934.5, peak_pct=116.1)
    ln = KernelTiming(name="triton_per_fused_layer_norm_4", kind="generated", time_s=3.7e-6, share_pct=4.2,
                      calls=1, bytes=12584960, bandwidth_gbs=3399.1, peak_pct=79.9)
    kernels = {"triton_poi_fused_relu_view_5": Kernel("triton_poi_fused_relu_view_5", "triton", _RELU)}
    assert check_ceiling([ln], _RELU_WRAPPER, kernels, peak) == ([ln], [])
    rows, [note] = check_ceiling([relu, ln], _RELU_WRAPPER, kernels, peak)
    c = rows[0].ceiling
    assert c.explained and c.fits_cache and c.producer == "extern_kernels.mm" and c.buffers == ("buf1",)
    assert c.cache_bytes == peak.cache_bytes and rows[1].ceiling is None
    assert "1 kernel(s) above" in note and "triton_poi_fused_relu_view_5 (116%)" in note
    assert "fit in the 52.4 MB L2" in note and "written by extern_kernels.mm just before it" in note
    # without the evidence it is not called cache: more bytes than the L2 holds, or no producer just before
    big = dataclasses.replace(relu, bytes=80_000_000, peak_pct=130.0)
    [c] = [r.ceiling for r in check_ceiling([big], _RELU_WRAPPER, kernels, peak)[0]]
    assert not c.explained and c.fits_cache is False and "exceed the 52.4 MB L2" in c.text
    assert "byte count may be wrong" in c.text and "cache" not in c.text.split("(")[0]
    lone = dataclasses.replace(ln, peak_pct=140.0)
    [c] = [r.ceiling for r in check_ceiling([lone], _RELU_WRAPPER, kernels, peak)[0]]
    assert not c.explained and "no call just before it in the wrapper wrote its inputs" in c.text
    g = GraphTiming(index=0, compile_id="0/0", label="graph 0", device="cuda:0", grad_enabled=False,
                    eager=_m(2e-4, 2e-4), compiled=_m(1e-4, 1e-4), speedup=2.0, compile_time_s=1.0,
                    compile_time_source="capture", break_even_calls=None, kernels=tuple(rows), kernels_note=note)
    report = TimingReport(device="cuda:0", graphs=(g,))
    assert "116%" in html_fragment(report) and "served from cache" in html_fragment(report)
    assert "served from cache" in "\n".join(timing_text(report))


def test_peak_bandwidth_is_cached_per_device():
    a = peak_bandwidth("cpu", nbytes=8 * 1024 * 1024, budget_s=0.005, repeats=2, refresh=True)
    assert peak_bandwidth("cpu") is a
    assert a.bytes_per_copy == 2 * 8 * 1024 * 1024 and a.gbs > 0


def test_timing_report_is_json_with_documented_keys(inductor_timing):
    _, _, timing = inductor_timing
    d = json.loads(json.dumps(timing.to_dict()))
    assert {"device", "graphs", "peak", "warnings", "notes", "eager_s", "compiled_s"} <= d.keys()
    g = d["graphs"][0]
    assert {"index", "compile_id", "label", "eager", "compiled", "speedup", "compile_time_s",
            "compile_time_source", "break_even_calls", "kernels", "warnings"} <= g.keys()
    assert {"median_s", "times_s", "loops", "iqr_pct", "range_pct", "repeats"} <= g["compiled"].keys()
    assert {"name", "kind", "time_s", "share_pct", "bytes", "bandwidth_gbs", "peak_pct"} <= g["kernels"][0].keys()


@pytest.mark.slow
def test_compare_modes_tabulates_each_mode_from_the_recorded_graphs(inductor_timing):
    rec, _, _ = inductor_timing
    rows = compare_modes(rec, modes=["default", "reduce-overhead", "no-such-mode"], **TINY)
    assert [r.mode for r in rows] == ["default", "reduce-overhead", "no-such-mode"]
    for r in rows[:2]:
        assert r.error is None and r.compile_time_s > 0 and r.compiled_s > 0 and r.speedup > 0
        # each mode is timed against eager in interleaved repeats: its own eager figure, its speedup the
        # median of the per-repeat ratios (not the ratio of two medians taken apart)
        assert r.eager_s > 0 and r.spread_pct is not None
    assert any("behaves like default" in n for n in rows[1].notes)
    assert rows[2].error and rows[2].compile_time_s is None


# ---- bytes, from generated code ----

_CPP = '''extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const int64_t* in_ptr1,
                       c10::BFloat16* out_ptr0)
{ }'''
_WRAPPER = '''
        assert_size_stride(arg0_1, (64, 32), (32, 1), 'input')
        assert_size_stride(arg1_1, (8, ), (1, ))
        buf0 = empty_strided_cpu((64, 32), (32, 1), torch.float32)
        buf1 = empty_strided_cpu((64, ), (1, ), torch.float32)
        buf3 = buf1; del buf1  # reuse
        cpp_fused_x_0(buf3, reinterpret_tensor(buf0, (16, 4), (4, 1), 0), arg1_1, arg0_1)
'''


def test_cpp_bytes_estimate_reads_buffer_arguments_from_the_wrapper():
    # in_out buf3 (64 floats, read and written) + a 16x4 float view + 8 int64 + 64x32 bf16
    assert cpp_bytes_estimate("cpp_fused_x_0", _CPP, _WRAPPER) == 64 * 4 * 2 + 64 * 4 + 8 * 8 + 2048 * 2
    assert cpp_bytes_estimate("cpp_fused_x_0", _CPP, _WRAPPER.replace("(8, )", "(s0, )")) is None


def test_triton_bytes_come_from_inductor_metadata():
    src = "@triton_heuristics.pointwise(inductor_meta={'kernel_name': 'k', 'kernel_num_gb': 0.004096})"
    kernel = Kernel(name="triton_poi_fused_0", language="triton", source=src)
    nbytes, how = kernel_bytes("triton_poi_fused_0", kernel, None)
    assert nbytes == 4_096_000 and "kernel_num_gb" in how
    nbytes, how = kernel_bytes("triton_poi_fused_0", Kernel(name="k", language="triton", source="..."), None)
    assert nbytes is None and "wrapper" in how


_TRITON = """
@triton_heuristics.pointwise(size_hints={'x': 2048}, triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*bf16', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': None})
@triton.jit
def triton_poi_fused_add_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
"""  # noqa: E501 - a real Triton kernel header, as Inductor writes it
_TRITON_WRAPPER = """
        assert_size_stride(arg0_1, (64, 32), (32, 1))
        assert_size_stride(arg1_1, (32, ), (1, ))
        buf0 = empty_strided_cuda((64, 32), (32, 1), torch.float32)
        triton_poi_fused_add_0.run(arg0_1, arg1_1, buf0, 2048, stream=stream0)
"""


_TRITON_VIEW = """
@triton_heuristics.persistent_reduction(size_hints={'x': 4096, 'r0_': 512}, triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr2': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': None})
@triton.jit
def triton_per_fused_add_native_layer_norm_4(in_ptr0, in_ptr1, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    pass
"""  # noqa: E501 - a real Triton kernel header, as Inductor writes it
# lines of the wrapper an H200 run gave a transformer block (torch 2.11): buffers reused as views of other sizes
_TRITON_VIEW_WRAPPER = """
        assert_size_stride(arg0_1, (16, 256, 512), (131072, 512, 1))
        buf4 = empty_strided_cuda((16, 8, 256, 64), (512, 64, 8192, 1), torch.bfloat16)
        buf6 = buf5[0]
        assert_size_stride(buf6, (16, 8, 256, 64), (512, 64, 8192, 1), 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
        buf10 = reinterpret_tensor(buf4, (4096, 512), (512, 1), 0); del buf4  # reuse
        buf14 = reinterpret_tensor(buf6, (16, 256, 512), (131072, 512, 1), 0); del buf6  # reuse
        buf21 = buf14; del buf14  # reuse
            triton_per_fused_add_native_layer_norm_4.run(arg0_1, buf10, buf21, 4096, 512, stream=stream0)
"""  # noqa: E501


def triton_bytes_estimate(name, kernel_source, wrapper_code):
    """Bytes a Triton kernel moves per launch, as the kernels' timing table counts them."""
    from kernel_bytes import kernel_bytes

    from explorer.capturing.model import Kernel

    return kernel_bytes(name, Kernel(name, "triton", kernel_source), wrapper_code)[0]


def test_triton_bytes_of_buffers_reused_as_views_of_another_size():

    # three bf16 tensors of 16x256x512 (4096x512) elements: two read, one written
    assert triton_bytes_estimate("triton_per_fused_add_native_layer_norm_4", _TRITON_VIEW,
                                 _TRITON_VIEW_WRAPPER) == 3 * 4096 * 512 * 2


# the q third of a packed qkv projection, as Inductor wrote it for a transformer block on the H200 (torch 2.11)
_TRITON_PART = """
@triton_heuristics.pointwise(size_hints={'x': 2097152}, triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': None})
@triton.jit
def triton_poi_fused_view_1(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2097152
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    x0 = (xindex % 512)
    x1 = ((xindex // 512) % 16)
    x2 = xindex // 8192
    x3 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 1536*x1 + 24576*x2 + 24576*((x0 + 512*x1) // 8192)), None).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x3), tmp2, None)
"""  # noqa: E501
_TRITON_PART_WRAPPER = """
        assert_size_stride(arg1_1, (1536, ), (1, ))
        buf1 = empty_strided_cuda((4096, 1536), (1536, 1), torch.bfloat16)
        buf0 = empty_strided_cuda((256, 16, 512), (8192, 512, 1), torch.bfloat16)
        buf2 = reinterpret_tensor(buf0, (16, 8, 256, 64), (512, 64, 8192, 1), 0); del buf0  # reuse
            triton_poi_fused_view_1.run(buf1, arg1_1, buf2, 2097152, stream=stream0)
"""


def test_triton_bytes_count_no_more_of_a_buffer_than_the_kernel_touches():

    # one load per element of 2,097,152 from a 4096x1536 buffer: a third of it, not all (which read 138 % of
    # the H200's copy bandwidth); of the 1536-element bias, the 512 its offset x0 = xindex % 512 reaches (q's
    # third); the output once
    assert triton_bytes_estimate("triton_poi_fused_view_1", _TRITON_PART, _TRITON_PART_WRAPPER) == \
        2097152 * 2 + 512 * 2 + 2097152 * 2


def test_triton_bytes_estimate_reads_pointer_arguments_from_signature_and_wrapper():

    # reads 64x32 fp32 and 32 bf16, writes 64x32 fp32; the size argument is no buffer
    assert triton_bytes_estimate("triton_poi_fused_add_0", _TRITON, _TRITON_WRAPPER) == 2048 * 4 * 2 + 32 * 2
    nbytes, how = kernel_bytes("triton_poi_fused_add_0", Kernel("triton_poi_fused_add_0", "triton", _TRITON),
                               _TRITON_WRAPPER)
    assert nbytes == 2048 * 4 * 2 + 32 * 2 and "estimate" in how


# ---- plots ----

def test_charts_escape_every_label_and_are_well_formed_svg(inductor_timing):
    _, _, timing = inductor_timing
    evil = '<script>alert("x")</script>&'
    g = timing.graphs[0]
    import dataclasses

    g2 = dataclasses.replace(g, label=evil, kernels=tuple(dataclasses.replace(k, name=evil) for k in g.kernels))
    for svg in (graphs_chart([g2]), kernels_chart(g2)):
        assert "<script>" not in svg and "&lt;script&gt;" in svg
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag.endswith("svg")
    assert graphs_chart([g]).count("<rect") == 2  # eager and compiled bars


def test_charts_and_html_fragment_escape_user_strings(inductor_timing):
    _, _, timing = inductor_timing
    import dataclasses

    evil = '<img src=x onerror="alert(1)">'
    g = dataclasses.replace(timing.graphs[0], label=evil, notes=(evil,))
    page = html_fragment(dataclasses.replace(timing, graphs=(g,), warnings=(evil,)))
    assert "<img" not in page and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page
    assert "kernel" in page and "<svg" in page


def test_text_summary_shows_times_speedup_compile_and_kernels(inductor_timing):
    _, _, timing = inductor_timing
    text = "\n".join(timing_text(timing))
    g = timing.graphs[0]
    assert g.label in text and "speedup" in text and "break-even" in text and "compile" in text
    assert g.kernels[0].name in text


# ---- --timeit and --compare entry points ----

def test_time_calls_reruns_the_whole_call_and_says_side_effects_repeat():
    calls = []
    x = torch.randn(16)
    t = time_calls(lambda: calls.append(x.sin()), lambda: calls.append(x.cos()), compile_time_s=1.0, **TINY)
    assert len(calls) >= 2 * 3  # both sides ran, every repeat
    assert t.eager.median_s > 0 and t.compiled.median_s > 0 and t.index == -1
    assert "side effects repeated" in t.notes[0]
    report = TimingReport(device="cpu", timeit=t)
    assert report.to_dict()["timeit"]["label"] == "whole call"
    assert "whole call" in "\n".join(timing_text(report))


def test_compare_modes_records_a_function_once_and_reports_a_failing_mode():
    runs = []

    def fn(x):
        runs.append(1)
        return x.sin() + 1

    rows = compare_modes(fn, (torch.randn(8),), modes=["no-such-mode"], **TINY)
    assert len(runs) == 1  # recorded once under Dynamo; modes compile the graphs, not the function
    assert rows[0].mode == "no-such-mode" and rows[0].error and rows[0].speedup is None
    assert any("ran once" in n for n in rows[0].notes)


def test_inductor_module_path_line_is_dropped_from_stderr_and_nothing_else(capsys):
    import sys

    from explorer.timing.graphs import _quiet_module_path

    def noisy_compile(gm, inputs):
        print("Compiled module path: /tmp/x.py", file=sys.stderr)
        print("a real warning", file=sys.stderr)
        return "compiled"

    real = sys.stderr
    assert _quiet_module_path(noisy_compile, None, []) == "compiled"
    assert sys.stderr is real
    assert capsys.readouterr().err == "a real warning\n"
