"""Programs as real code uses torch.compile: compiled regions, disabled and opaque calls, export.

Line numbers matter: tests find them by text (``line_of``).
"""
import torch


def warm_fn(x):
    y = torch.cos(x)
    return y * 3 - 1


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    @torch.compiler.nested_compile_region
    def forward(self, x):
        return torch.relu(self.lin(x)) + 1  # the region's body


class Stack(torch.nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer() for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)  # each call is an invoke_subgraph of one region
        return x.sum()


@torch.compiler.disable
def plain_helper(x):
    return x.cos()


@torch._dynamo.nonstrict_trace
def opaque_scale(x):
    return x * 3


def with_skips(x):
    y = x.sin()
    y = opaque_scale(y)  # called opaquely
    z = plain_helper(y)  # runs as plain Python
    return z + 1


seq = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())


def uses_modules(x):
    return seq(x) * 2


def stance_fn(x):
    return torch.sin(x) + 1


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = self.lin(x)
        return torch.sin(y) * 2  # the exported line followed to its kernel
