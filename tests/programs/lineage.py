"""Programs the line-level chain is checked on. Line numbers matter: tests assert on them."""
import torch


def pointwise(x):
    a = torch.sin(x)
    b = a * 2 + x.cos()
    return torch.relu(b)


def reduction(x):
    y = torch.sin(x)
    return y.softmax(dim=-1).sum(dim=0)


def matmul_act(x, w, b):
    h = x @ w + b
    return torch.nn.functional.gelu(torch.sin(h))


def with_break(x):
    y = torch.sin(x) + 1
    print("break")
    return y.cos() * 2


def train(x, w):
    h = torch.sin(x @ w)
    return (h * h).mean()
