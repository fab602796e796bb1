"""One graph, no break, eager backend: for tests/test_cli.py."""
import torch


def f(x):
    return (x * 2).relu() + 1


if __name__ == "__main__":
    print(torch.compile(f, backend="eager")(torch.ones(3)).tolist())
