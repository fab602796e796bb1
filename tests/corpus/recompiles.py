"""Programs that recompile, one per cause; each is compiled by one test fixture only, so
no test sees another's cached entries. Line numbers are found by the ``# GUARD`` markers."""
import torch


def scaled(x):
    return x.sin() * 2  # GUARD: x


def offset(x, n):
    return x + n  # GUARD: n


def repeat(x, n):
    for _ in range(n):  # GUARD: n (range keeps it specialised)
        x = x + 1
    return x


def shifted(x, n):
    return x - n


def why_target(x):
    return x.cos() + 1


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(4))

    def forward(self, x):
        return x * self.w


def line_of(fn, marker: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if marker in text)


def carried(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1  # GUARD: y


class DropNet(torch.nn.Module):
    """train() -> eval() recompiles on dropout's `self.training`, read inside torch."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.lin(x))  # MODE: dropout


class NormNet(torch.nn.Module):
    """A new batch size recompiles on x's size: torch places that guard inside F.layer_norm."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        scale = 2.0
        return self.lin(self.norm(x)) * scale  # SIZE: the frame hands x on here
