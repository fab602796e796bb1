"""How long turning a capture's raw records into data takes (decode + fold), and that it grows linearly.

The issue's program: N blocks of pointwise ops, a reduction and a matmul, each
block with its own constant so Inductor's kernels differ (100 blocks: a
~2,300-node graph, ~100 kernels). Each size is compiled once under the
recorder, then its raw records are read (``explorer.capturing.session.read``)
several times; the median is printed with the record count and the result.

    PYTHONPATH=. python tests/benchmarks/bench_assemble.py [blocks ...]   # default: 100 200 400
"""

from __future__ import annotations

import statistics
import sys
import time


def program(blocks: int):
    import torch

    def f(x, w):
        for i in range(blocks):
            c = 1.0 + i / 1000  # a per-block constant: distinct kernels
            y = x * c
            y = y.sin() + c
            y = torch.relu(y) * y - c
            y = torch.tanh(y) + y.exp() * 0.01
            y = y / (1.0 + y.abs())
            y = y - y.mean(dim=-1, keepdim=True)  # a reduction
            x = y @ w  # a matmul
        return x

    return f


def record(blocks: int):
    import torch

    from explorer.capturing import torch_compat
    from explorer.capturing.recorder import Recorder

    rec = Recorder()
    x, w = torch.randn(16, 32), torch.randn(32, 32) / 6
    t0 = time.perf_counter()
    with torch_compat.capture_config([]), torch.no_grad():
        rec.open()
        try:
            torch.compile(program(blocks))(x, w)
        finally:
            rec.close()
    return rec.raw, time.perf_counter() - t0


def main(sizes: list[int]) -> None:
    from explorer.capturing.session import read

    base = None
    for blocks in sizes:
        raw, compile_s = record(blocks)
        runs, data = [], None
        for _ in range(3):
            t0 = time.perf_counter()
            data = read(raw, notes=[], wall_time_s=None, error=None)
            runs.append(time.perf_counter() - t0)
        median = statistics.median(runs)
        base = base or (median, blocks)
        c = max(data.compilations, key=lambda c: c.graph.num_nodes if c.graph else 0)
        print(f"{blocks:4d} blocks: {len(raw.events):5d} records, graph {c.graph.num_nodes} nodes, post-grad "
              f"{c.post_grad_graph.num_nodes} nodes, {len(data.kernels)} kernels, {len(data.problems)} problems | "
              f"read {median * 1e3:6.0f} ms ({median / base[0]:.2f}x for {blocks / base[1]:.0f}x) | "
              f"compile {compile_s:.0f} s", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 200, 400])
