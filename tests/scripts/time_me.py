"""Two Inductor graphs on CPU (split by a print), each pointwise + reduction, called a few times:
for tests/test_cli_time.py (`run --time`)."""
import torch


def f(x):
    y = (x.sin() * 2 + 1).sum(-1)
    print("tick")  # graph break: print
    return (y.cos() - x.mean()).relu()


if __name__ == "__main__":
    g = torch.compile(f)
    x = torch.randn(64, 128)
    for _ in range(3):
        g(x)
