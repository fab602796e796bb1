"""On a CUDA GPU: a launch-bound graph is marked host-bound, a big matmul is not, and CUDA graphs cut the host's
issue time (issue 36). The CPU half: tests/test_host_time.py.

Skipped on CPU machines (tests/conftest.py skips everything marked ``gpu``); tests/gpu/device.sh TESTS=1 runs it.
"""

import pytest
import torch

import explorer
from explorer.present.viewmodel import timing_blocks
from explorer.timing import GraphRecorder, time_capture
from explorer.timing.host import HOST_BOUND_RATIO

pytestmark = pytest.mark.gpu
TINY = dict(budget_s=0.02, repeats=3)


def _timed(fn, *args, mode=None):
    rec = GraphRecorder("inductor", mode=mode, kernel_profile=True)
    with explorer.capture() as report:
        with torch.no_grad():
            compiled = torch.compile(fn, backend=rec)
            for _ in range(3 if mode else 1):  # reduce-overhead records its CUDA graph on a later call
                compiled(*args)
    timing = time_capture(rec, report, peak=False, **TINY)
    return timing, timing.graphs[0]


def _tiny_steps(x, w):
    for _ in range(8):  # eight 16 x 16 matmuls, each with a fused add + relu: a few microseconds of work apiece
        x = torch.relu(x @ w) + 1
    return x


def _one_big_matmul(a, b):
    return (a @ b).relu()


@pytest.fixture(scope="module")
def tiny():
    return _timed(_tiny_steps, torch.randn(16, 16, device="cuda"), torch.randn(16, 16, device="cuda"))


def test_a_launch_bound_graph_is_host_bound_with_the_hosts_issue_time_beside_the_devices(tiny):
    timing, g = tiny
    h = g.host
    assert h is not None, (g.kernels_note, g.notes)
    print(f"tiny: host issues a call in {h.host_s * 1e6:.1f} us, the device runs it in {h.device_s * 1e6:.1f} us")
    assert h.bound and h.host_s >= HOST_BOUND_RATIO * h.device_s
    assert h.host is not None and "host clock" in h.host.method and h.host.median_s == h.host_s
    assert h.device_s == pytest.approx(sum(k.time_s for k in g.kernels))
    blocks = timing_blocks(timing, timing.graphs, (), timeit=False)
    [row] = next(b for b in blocks if b.get("cls") == "cx-timing")["rows"]
    assert {"chip": "host-bound"} in row["c"][0]
    assert any(b["t"] == "note" and "reduce-overhead" in b["r"] for b in blocks)


def test_a_big_matmul_keeps_the_device_busy():
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    _, g = _timed(_one_big_matmul, a, a)
    h = g.host
    assert h is not None, (g.kernels_note, g.notes)
    print(f"big: host issues a call in {h.host_s * 1e6:.1f} us, the device runs it in {h.device_s * 1e6:.1f} us")
    assert not h.bound and h.host_s < 0.1 * h.device_s


def test_cuda_graphs_cut_the_hosts_issue_time(tiny):
    _, default = tiny
    _, graphed = _timed(_tiny_steps, torch.randn(16, 16, device="cuda"), torch.randn(16, 16, device="cuda"),
                        mode="reduce-overhead")
    assert graphed.host is not None, (graphed.kernels_note, graphed.notes)
    print(f"issue time: default {default.host.host_s * 1e6:.1f} us, "
          f"reduce-overhead {graphed.host.host_s * 1e6:.1f} us")
    assert graphed.host.host_s < default.host.host_s
