"""A model whose ``forward`` decorators wrap, as Hugging Face's are (``@deprecate_kwarg``, ``@can_return_tuple``):
Dynamo compiles the outermost wrapper and inlines the rest. tests/test_inlined.py finds the lines by their text."""
import functools

import torch


def checked(fn):
    """functools.wraps, the module in ``args[0]`` (``deprecate_kwarg``'s ``wrapped_func(*args, **kwargs)``)."""
    @functools.wraps(fn)
    def wrapped_func(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapped_func


def passed_on(fn):
    """No functools.wraps: the wrapper says nothing of what it wraps; the module is its own first argument."""
    def wrapper(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    return wrapper


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.lin(x))


class DecoratedNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(), Block()])
        self.head = torch.nn.Linear(8, 2)

    @checked
    @passed_on
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


class Renamed(DecoratedNet):
    """Its forward is its base class's."""


class OnlyPassedOn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    @passed_on
    def forward(self, x):
        return self.lin(x).relu()


class Chatty(torch.nn.Module):
    """Breaks before any tensor op: the wrappers' frames and its own write no graph."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    @checked
    @passed_on
    def forward(self, x):
        print("decorated.Chatty")  # a graph break
        return self.lin(x).relu()
