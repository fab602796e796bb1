"""The 10,000-node cell in a real Jupyter kernel, at the kernel's own recursion limit (issue 23, item 6).

``for i in range(5000): x = x * 1.0001 + 0.1`` (two FX nodes per iteration) under ``%%compile``:
Inductor lowers the chain by recursion, and the cell must compile as plain ``torch.compile`` of the
same loop does, without the user raising the recursion limit (the benchmark
tests/benchmarks/bench_big_cell.py raises it to time larger cells). The cell's value must be the
plain loop's.

It costs minutes (README "Figures"): opt-in, ``CX_BIG_CELL=1 python -m pytest tests/test_big_cell_kernel.py``.
"""

import os

import pytest

pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("CX_BIG_CELL") != "1",
                       reason="the 10,000-node cell compiles for minutes: opt-in with CX_BIG_CELL=1"),
]

N = 5000


@pytest.mark.parametrize("flags", ["-q --no-time", "-q"], ids=["no timing", "timing"])
def test_the_10000_node_cell_compiles_at_the_kernels_recursion_limit(flags):
    import test_cell_parity as parity
    import torch

    x = torch.ones(8)
    for _ in range(N):
        x = x * 1.0001 + 0.1
    expected = round(float(x.sum()), 2)

    parity.TIMEOUT = 1500
    kernel = parity.Kernel("big")
    try:
        kernel.execute("import sys\nimport torch\ntorch.set_num_threads(1)\n%load_ext explorer\nx = torch.ones(8)",
                       silent=True, probe=False)
        limit = kernel.execute("sys.getrecursionlimit()", probe=False)["result"]
        assert int(limit) <= 3000  # the kernel's own limit, not raised by the test
        out = kernel.execute(f"%%compile {flags}\nfor i in range({N}):\n    x = x * 1.0001 + 0.1", probe=False)
        assert out["error"] is None, "\n".join(out["error"][2])[-3000:]
        assert "RecursionError" not in out["stderr"], out["stderr"][-3000:]
        value = kernel.execute("round(float(x.sum()), 2)", probe=False)["result"]
        assert float(value) == expected
    finally:
        kernel.exit_stderr()
