"""Timing on a CUDA GPU: Triton kernels profiled with bytes, bandwidth and % of peak.

Skipped on CPU machines (tests/conftest.py skips everything marked ``gpu``).
Run on the device: ``python -m pytest -q tests/test_timing_gpu.py``.
"""

import pytest
import torch

import explorer
from explorer.timing import GraphRecorder, measure, peak_bandwidth, time_capture
from explorer.timing.traffic import TOUCHED

pytestmark = pytest.mark.gpu
TINY = dict(budget_s=0.02, repeats=3)


def _pointwise_reduction(x):
    return (x.sin() * 2 + 1).sum(-1)


@pytest.fixture(scope="module")
def gpu_timing():
    rec = GraphRecorder("inductor", kernel_profile=True)
    x = torch.randn(4096, 4096, device="cuda")  # 64 MiB: well past L2, so bandwidth-bound
    with explorer.capture() as report:
        with torch.no_grad():
            torch.compile(_pointwise_reduction, backend=rec)(x)
    return rec, report, time_capture(rec, report, **TINY)


def test_peak_bandwidth_is_a_plausible_device_copy():
    peak = peak_bandwidth("cuda")
    assert peak.device.startswith("cuda:")
    assert 100 < peak.gbs < 20_000  # GB/s; an H200 copies at about 4,300
    assert peak_bandwidth(peak.device) is peak  # measured once per device, then cached


def test_cuda_measurement_uses_events_and_is_sane():
    x = torch.randn(1 << 20, device="cuda")
    m = measure(lambda: x.mul_(1.0), device="cuda", **TINY)
    assert "cuda events" in m.method and m.median_s > 0 and m.loops >= 1 and m.repeats == 3


def test_triton_kernels_have_times_bytes_bandwidth_and_share_of_peak(gpu_timing):
    rec, report, timing = gpu_timing
    t = timing.graphs[0]
    assert t.device.startswith("cuda")
    assert t.eager.median_s > 0 and t.compiled.median_s > 0 and t.compile_time_source == "capture"
    triton = [k for k in t.kernels if k.kind == "generated"]
    assert triton, f"no Triton kernel in the profile: {t.kernels} {t.kernels_note}"
    captured = {k.name for k in report.kernels}
    for k in triton:
        assert k.name.startswith("triton_") and k.name in captured
        assert k.time_s > 0 and 0 < k.share_pct <= 100
        assert k.bytes and k.bytes >= 4096 * 4096 * 4  # reads x at least once
        assert k.bytes_source.startswith(TOUCHED), k.bytes_source  # read from its loads and stores
        assert 0 < k.peak_pct < 150, k  # achieved bandwidth is a sane share of the measured copy
    assert sum(k.share_pct for k in t.kernels) == pytest.approx(100, abs=1)
    # the bytes option did not leak into the global config
    assert torch._inductor.config.benchmark_kernel is False


def test_default_timing_leaves_a_cuda_training_step_alone():
    model = torch.nn.Linear(64, 64, device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x):
        model(x).square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    rec = GraphRecorder("aot_eager")
    f = torch.compile(step, backend=rec)
    x = torch.randn(32, 64, device="cuda")
    for _ in range(2):
        f(x)
    before = [p.detach().clone() for p in model.parameters()] + \
        [s["momentum_buffer"].clone() for s in opt.state.values()]
    time_capture(rec, kernel_profile=False, **TINY)
    after = [p.detach() for p in model.parameters()] + [s["momentum_buffer"] for s in opt.state.values()]
    assert all(torch.equal(a, b) for a, b in zip(before, after))
