"""How long turning a capture's raw records into data takes (decode + fold), and that it grows linearly.

The issue's program: N blocks of pointwise ops, a reduction and a matmul, each
block with its own constant so Inductor's kernels differ (100 blocks: a
2,300-node graph, 100 kernels). Each size is compiled once under the recorder
and its raw records cached (``/tmp/cx_bench_raw_<N>.pkl``; ``--fresh`` recompiles);
then they are read (``explorer.capturing.session.read``) and rendered
(``Report.to_html``) five times each. The fastest run of each is printed (on
shared cores the fastest is the one least disturbed).

    PYTHONPATH=. python tests/benchmarks/bench_assemble.py [--fresh] [blocks ...]   # default: 25 50 100
"""

from __future__ import annotations

import marshal
import os
import pickle
import sys
import time

CACHE = "/tmp/cx_bench_raw_{}.pkl"


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

    from explorer.capturing import torch_door
    from explorer.capturing.recorder import Recorder

    rec = Recorder()
    x, w = torch.randn(16, 32), torch.randn(32, 32) / 6
    with torch_door.config.capture_config([], fresh=True), torch.no_grad():
        rec.open()
        try:
            torch.compile(program(blocks))(x, w)
        finally:
            rec.close()
    return rec.raw


def cached(blocks: int, fresh: bool):
    """The raw capture of ``blocks`` blocks; code objects travel through the cache as marshal bytes."""
    from dataclasses import replace

    path = CACHE.format(blocks)
    if fresh or not os.path.exists(path):
        t0 = time.perf_counter()
        raw = record(blocks)
        print(f"{blocks} blocks compiled in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        events = [replace(e, payload=tuple(marshal.dumps(c) for c in e.payload)) if e.name == "bytecode_hook" else e
                  for e in raw.events]
        with open(path, "wb") as fh:
            pickle.dump((events, raw.strings), fh)
    from explorer.capturing.raw import RawCapture

    with open(path, "rb") as fh:
        events, strings = pickle.load(fh)
    events = [replace(e, payload=tuple(marshal.loads(c) for c in e.payload)) if e.name == "bytecode_hook" else e
              for e in events]
    return RawCapture(events=events, strings=strings)


def fastest_s(fn, n: int = 5):
    runs, out = [], None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), out


def main(args: list[str]) -> None:
    from explorer.capturing.session import read
    from explorer.report import Report

    fresh = "--fresh" in args
    sizes = [int(a) for a in args if a != "--fresh"] or [25, 50, 100]
    base = None
    for blocks in sizes:
        raw = cached(blocks, fresh)
        read_s, data = fastest_s(lambda raw=raw: read(raw, notes=[], wall_time_s=None, error=None))
        html_s, html = fastest_s(lambda data=data: Report.of(data).to_html())
        base = base or (read_s, html_s, blocks)
        c = max(data.compilations, key=lambda c: c.graph.num_nodes if c.graph else 0)
        print(f"{blocks:4d} blocks ({blocks / base[2]:.0f}x): graph {c.graph.num_nodes} nodes, post-grad "
              f"{c.post_grad_graph.num_nodes} nodes, {len(data.kernels)} kernels, {len(data.problems)} problems | "
              f"read {read_s * 1e3:4.0f} ms ({read_s / base[0]:.2f}x) | "
              f"to_html {html_s * 1e3:4.0f} ms ({html_s / base[1]:.2f}x, {len(html) / 1e6:.1f} MB)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
