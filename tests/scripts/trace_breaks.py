"""A graph break by print and one by a data-dependent `if`, in a training step.

Used by tests/test_against_torch_trace.py: line numbers are compared with torch's trace.
"""
import torch


def step(x, n):
    y = x.sin() + 1
    print("tick")  # graph break: print
    if y.sum() > 0:  # graph break: data-dependent branch
        y = y * 2
    return y.cos() * n


if __name__ == "__main__":
    f = torch.compile(step)
    x = torch.randn(8, requires_grad=True)
    # .backward() on every compiled graph: the explorer lowers backward graphs at
    # compile time (force_non_lazy_backward_lowering), plain torch only when
    # .backward() runs; calling it makes both traces hold the same output code.
    f(x, 3).sum().backward()
