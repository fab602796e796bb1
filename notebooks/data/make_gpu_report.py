"""Writes the saved GPU reports the workshop notebooks read when no GPU is present (notebooks 10 and 11).

Run on a machine with a CUDA GPU, from the repository root:

    python notebooks/data/make_gpu_report.py

Two reports (JSON, loaded with ``explorer.Report.load``) land beside this script, each naming the GPU, torch and
triton that made it:

``gpu_training_step.json``: one training step of a small transformer-style block on CUDA (float32), chosen so that
Inductor writes each kind of Triton kernel the workshop walks through: pointwise kernels (the bias add and GELU,
the residual add), persistent reductions (LayerNorm and the softmax over 256 features: one row fits one block), a
looped reduction (a sum over 32,768 columns: split in chunks, each walked in R0_BLOCK steps), and matmuls left to
cuBLAS as extern kernels, forward and backward; timed (``time=True``), so each kernel has its measured time and
bandwidth, and the autotuned kernels the config that won.

``gpu_cudagraphs.json``: the block's forward in inference, compiled with ``mode="reduce-overhead"`` (CUDA graphs:
recorded once, replayed) and compared with ``default``, timed: what CUDA graphs save on a launch-bound graph.
"""

from __future__ import annotations

import os
import sys

import torch

import explorer

HERE = os.path.dirname(os.path.abspath(__file__))


class Block(torch.nn.Module):
    """LayerNorm -> Linear -> GELU -> Linear, a residual add, then a softmax over the features."""

    def __init__(self, width: int = 256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return torch.softmax(x + h, dim=-1)


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU: this script records what Inductor writes for one, and how fast it runs")
    torch.manual_seed(0)
    block = Block().cuda()
    x = torch.randn(64, 256, device="cuda")
    wide = torch.randn(8, 32768, device="cuda", requires_grad=True)

    def step(x, wide):
        y = block(x)
        loss = y.square().mean() + wide.sum(dim=1).square().mean()  # the wide row sum: a looped reduction
        loss.backward()
        return loss

    out = os.path.join(HERE, "gpu_training_step.json")
    report = explorer.explore(step, x, wide, time=True, json=out)
    print(report.summary())
    print("wrote", out, os.path.getsize(out), "bytes")

    torch._dynamo.reset()
    block.eval()
    out = os.path.join(HERE, "gpu_cudagraphs.json")
    with torch.no_grad():
        report = explorer.explore(block, x, mode="reduce-overhead", time=True,
                                  compare=("default", "reduce-overhead"), json=out)
    print(report.summary())
    print("wrote", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
