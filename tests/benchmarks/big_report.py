"""Makes (or loads) a big real report: a stack of transformer blocks compiled on CPU.

Used by bench_view.py. Compiling takes a few minutes on 2 cores, so the report is
cached as JSON (default /tmp/cx_big_report.json); pass --fresh to rebuild it.
"""

import argparse
import os
import sys
import time

DEFAULT = "/tmp/cx_big_report.json"


def _block_class():
    import torch

    class Block(torch.nn.Module):
        """Written out op by op (nn.TransformerEncoderLayer takes a fused fast path in eval)."""

        def __init__(self, d: int = 32, heads: int = 4, eps: float = 1e-5):
            super().__init__()
            self.heads = heads
            # a distinct eps per block makes distinct kernels (Inductor reuses identical ones)
            self.ln1, self.ln2 = torch.nn.LayerNorm(d, eps=eps), torch.nn.LayerNorm(d, eps=eps * 3)
            self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
            self.fc1, self.fc2 = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5).softmax(dim=-1)
            x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))

    return Block


def build(layers: int = 40, path: str = DEFAULT) -> str:
    import torch

    import explorer

    torch.manual_seed(0)
    block = _block_class()
    blocks = torch.nn.Sequential(*[block(eps=1e-5 * (i + 1)) for i in range(layers)]).eval()
    x = torch.randn(2, 8, 32)
    t0 = time.perf_counter()
    with torch.no_grad():
        report = explorer.explore(blocks, x)
    c = report.compilations[0]
    print(f"captured {layers} blocks in {time.perf_counter() - t0:.1f}s: graph {c.graph.num_nodes} nodes, "
          f"post-grad {c.post_grad_graph.num_nodes if c.post_grad_graph else 0} nodes, "
          f"{len(report.kernels)} kernels", file=sys.stderr)
    report.save_json(path)
    return path


def load(path: str = DEFAULT):
    from explorer import Report

    if not os.path.exists(path):
        build(path=path)
    with open(path) as fh:
        return Report.from_json(fh.read())


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=40)
    p.add_argument("--out", default=DEFAULT)
    a = p.parse_args()
    build(a.layers, a.out)
