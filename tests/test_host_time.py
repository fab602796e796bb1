"""A measurement the host bound is marked (issue 36): the host's time per call beside the device's work.

On CPU the host is the device: the Python the compiled graph runs around its kernels per call (its measured
time less its kernels' own, from the profile) against the kernels' own time. The GPU half (the host's issue
time against the device's kernels): tests/test_host_time_gpu.py.
"""

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import explorer
from explorer.present.viewmodel import timing_blocks
from explorer.timing import GraphRecorder, bench, time_capture
from explorer.timing.host import HOST_BOUND_RATIO, host_time
from explorer.timing.model import GraphTiming, HostTime, KernelTiming, TimingReport

TINY = dict(budget_s=0.01, repeats=3)


def _timed(fn, *args):
    rec = GraphRecorder("inductor", kernel_profile=True)
    with explorer.capture() as report:
        with torch.no_grad():
            torch.compile(fn, backend=rec)(*args)
    [g] = time_capture(rec, report, peak=False, **TINY).graphs
    return g


_W = torch.randn(4, 4)


def _tiny_steps(x):
    for _ in range(4):  # four 4 x 4 matmuls with a fused add + relu after each: microseconds of work
        x = torch.relu(x @ _W) + 1
    return x


def _one_big_matmul(a, b):
    return (a @ b).relu()


def test_a_graph_of_tiny_ops_is_marked_overhead_bound_and_a_matmul_is_not():
    tiny = _timed(_tiny_steps, torch.randn(4, 4))
    h = tiny.host
    assert h is not None and h.bound, h
    # both sides from the one profiled run: its calls' host-clock time less their kernels' own, and the kernels
    assert h.device_s == pytest.approx(sum(k.time_s for k in tiny.kernels)) and h.host_s > 0
    assert h.host_s >= HOST_BOUND_RATIO * h.device_s
    # the capture turned Inductor's runtime estimates on and back off; off the GPU it estimates 0 for every op
    assert torch._inductor.config.log_tlparse is False and tiny.estimate_s == 0.0
    a, b = torch.randn(384, 384), torch.randn(384, 384)
    big = _timed(_one_big_matmul, a, b)
    assert big.host is not None and not big.host.bound, big.host
    assert big.host.host_s < HOST_BOUND_RATIO * big.host.device_s
    # the kernels' FLOPs still add up to torch's own count of the same call
    with FlopCounterMode(display=False) as fc:
        _one_big_matmul(a, b)
    assert big.flops == sum(k.flops or 0 for k in big.kernels) == fc.get_total_flops() == 2 * 384 ** 3


def test_the_timing_view_marks_the_bound_row_and_says_what_would_help():
    def graph(device, host):
        k = KernelTiming(name="k", kind="generated", time_s=host.device_s, share_pct=100.0, calls=1)
        m = bench.summarize([host.host_s + host.device_s] * 3, 10, "hand-made")
        return GraphTiming(index=0, compile_id="0/0", label="graph 0 (0/0)", device=device, grad_enabled=False,
                           eager=m, compiled=m, speedup=1.0, compile_time_s=1.0, compile_time_source="capture",
                           break_even_calls=None, kernels=(k,), host=host)

    def blocks(g):
        return timing_blocks(TimingReport(device=g.device, graphs=(g,)), (g,), (), timeit=False)

    gpu = blocks(graph("cuda:0", HostTime(310e-6, 260e-6, True, "hand-made")))
    [row] = next(b for b in gpu if b.get("cls") == "cx-timing")["rows"]
    assert {"chip": "host-bound"} in row["c"][0]
    [said] = [b["r"] for b in gpu if b["t"] == "note" and "host-bound" in b["r"]]
    assert "310 us" in said.replace("µ", "u") and "260 us" in said.replace("µ", "u") and "(1.19x)" in said
    assert 'mode="reduce-overhead"' in said and "bigger batch" in said
    cpu = blocks(graph("cpu", HostTime(30e-6, 9e-6, True, "hand-made")))
    [said] = [b["r"] for b in cpu if b["t"] == "note" and "overhead-bound" in b["r"]]
    assert "cpp_wrapper" in said and "bigger inputs" in said
    kept_up = blocks(graph("cpu", HostTime(20e-6, 2e-3, False, "hand-made")))
    assert not any(isinstance(r["c"][0], list) for b in kept_up if b.get("cls") == "cx-timing" for r in b["rows"])
    assert any(b["t"] == "p" and "most of the call is the kernels' work" in b["r"] for b in kept_up)


def test_no_host_time_without_a_kernel_profile():
    assert host_time(lambda: None, "cpu", 1e-3, ()) is None
    assert host_time(lambda: None, "cpu", None, (KernelTiming("k", "generated", 1e-3, 100.0, 1),)) is None
