"""On a CUDA GPU: Inductor's estimate beside the measured time of each kernel (issue 36). The CPU half, with the
records' reading and the view: tests/test_estimates.py.

Skipped on CPU machines (tests/conftest.py skips everything marked ``gpu``); tests/gpu/device.sh TESTS=1 runs it.
"""

import pytest
import torch

import explorer
from explorer.present.viewmodel import timing_blocks
from explorer.timing import GraphRecorder, time_capture

pytestmark = pytest.mark.gpu
TINY = dict(budget_s=0.02, repeats=3)


def _mlp(x, w1, w2):
    return (torch.nn.functional.gelu(x @ w1) @ w2).softmax(-1)


def test_each_kernel_row_has_inductors_estimate_beside_its_measured_time():
    x, w1, w2 = (torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    rec = GraphRecorder("inductor", kernel_profile=True)
    with explorer.capture() as report:
        with torch.no_grad():
            torch.compile(_mlp, backend=rec)(x, w1, w2)
    assert torch._inductor.config.log_tlparse is False  # turned on for the capture only
    [comp] = [c for c in report.compilations if c.op_estimates]
    ops = comp.op_estimates
    assert all(e.unit.startswith("ms") for e in ops) and any(e.estimate_s > 0 for e in ops)
    kernels = {k.name for k in comp.kernels}
    assert {e.kernel for e in ops if "." not in e.name} <= kernels and all(e.kernel for e in ops), ops
    timing = time_capture(rec, report, **TINY)
    [g] = timing.graphs
    assert g.estimate_s == pytest.approx(sum(e.estimate_s for e in ops))
    for k in g.kernels:
        print(f"{k.name}: measured {k.time_s * 1e6:.1f} us, Inductor's estimate "
              + (f"{k.estimate_s * 1e6:.1f} us ({k.time_s / k.estimate_s:.2f}x)" if k.estimate_s else "none"))
    generated = [k for k in g.kernels if k.kind == "generated"]
    assert generated and all(k.estimate_s for k in generated), generated
    # the estimate is a roofline of the same device: a bandwidth-bound kernel runs within 10x of it either way
    # (read as nanoseconds, torch 2.13's milliseconds would be a million times off)
    assert all(0.1 < k.time_s / k.estimate_s < 10 for k in generated), [(k.name, k.time_s, k.estimate_s)
                                                                         for k in generated]
    blocks = timing_blocks(timing, timing.graphs, (), timeit=False)
    [table] = [b for b in blocks if b.get("cls") == "cx-ktimes"]
    assert table["head"][-2:] == ["Inductor's estimate", "measured / estimate"]
    assert any(b["t"] == "p" and "Inductor's cost model estimated" in b["r"] for b in blocks)
