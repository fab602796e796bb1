"""Compiles f, resets Dynamo (as PyTorch's tutorials do before a new backend or mode), then compiles g.

torch numbers compilations from 0/0 again after the reset: the report must keep both.
"""
import torch


def f(x):
    return torch.sin(x) + 1


def g(x):
    y = torch.cos(x) * 2
    print("tick")
    return y - 1


print(round(torch.compile(f)(torch.ones(8)).sum().item(), 4))
torch._dynamo.reset()
print(round(torch.compile(g)(torch.ones(8)).sum().item(), 4))
