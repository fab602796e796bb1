"""Functions that branch on whether torch.compile is tracing them (tests/test_is_compiling.py): line numbers matter."""
import torch


def branches(x):
    if torch.compiler.is_compiling():
        return x + 1
    return x - 1


def _tracing():
    return torch.compiler.is_dynamo_compiling()


def through_a_helper(x):
    y = x * 2
    return y + 1 if _tracing() else y - 1


@torch.compile(backend="eager")
def compiled_by_its_author(x):
    if torch.compiler.is_compiling():
        return x + 1
    return x - 1


def calls_a_compiled_function(x):
    y = compiled_by_its_author(x) * 2
    return branches(y)


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        scale = 2.0 if torch.compiler.is_compiling() else 1.0
        return torch.relu(self.linear(x)) * scale
