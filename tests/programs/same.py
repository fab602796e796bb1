"""One program for every entry point (tests/test_entry_points.py): a graph break, two graphs, kernels."""
import torch


def f(x):
    y = torch.sin(x) + 1
    print("a graph break")
    return (y * 2).relu().sum()


def make_input():
    torch.manual_seed(0)
    return torch.randn(16)
