"""A graph break by print, compiled with the eager backend (fast): for tests/test_cli.py."""
import torch


def f(x):
    y = x.sin()
    print("tick")  # graph break: print
    return y.cos()


if __name__ == "__main__":
    torch.compile(f, backend="eager")(torch.randn(4))
