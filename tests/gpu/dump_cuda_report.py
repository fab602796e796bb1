"""On the GPU machine: capture a small CUDA training step and write its report (for inspection)."""
import os
import sys

import torch

import explorer


def f(x, w):
    y = torch.relu(x @ w) * 2.0
    return y.softmax(dim=-1) + 1


out = sys.argv[1] if len(sys.argv) > 1 else "."
x = torch.randn(64, 128, device="cuda", requires_grad=True)
w = torch.randn(128, 128, device="cuda")
r = explorer.explore(f, x, w)
r.result.sum().backward()
print(r.summary())
r.save_json(os.path.join(out, "cuda_report.json"))
r.save_html(os.path.join(out, "cuda_report.html"))
