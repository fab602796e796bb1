"""How long turning a capture's raw records into data takes (decode + fold), and that it grows linearly.

The issue's program: N blocks of pointwise ops, a reduction and a matmul, each
block with its own constant so Inductor's kernels differ (100 blocks: a
2,300-node graph, 100 kernels). Each size is compiled once under the
recorder; then its raw records are read (``explorer.capturing.session.read``)
and rendered (``Report.to_html``) three times each, and the medians printed.

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
            y = y * torch.sigmoid(y) + torch.cos(y) * 0.5 - y.square()
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


def _median_s(fn, n: int = 3):
    runs, out = [], None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), out


def main(sizes: list[int]) -> None:
    from explorer.capturing.session import read
    from explorer.report import Report

    base = None
    for blocks in sizes:
        raw, compile_s = record(blocks)
        read_s, data = _median_s(lambda raw=raw: read(raw, notes=[], wall_time_s=None, error=None))
        html_s, html = _median_s(lambda data=data: Report.of(data).to_html())
        base = base or (read_s, blocks)
        c = max(data.compilations, key=lambda c: c.graph.num_nodes if c.graph else 0)
        print(f"{blocks:4d} blocks: {len(raw.events):4d} records, graph {c.graph.num_nodes} nodes, post-grad "
              f"{c.post_grad_graph.num_nodes} nodes, {len(data.kernels)} kernels, {len(data.problems)} problems | "
              f"read {read_s * 1e3:5.0f} ms ({read_s / base[0]:.2f}x for {blocks / base[1]:.0f}x) | "
              f"to_html {html_s * 1e3:5.0f} ms ({len(html) / 1e6:.1f} MB) | compile {compile_s:.0f} s", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 200, 400])
