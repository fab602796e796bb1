"""A dimension marked dynamic, then specialized by a comparison with a constant (tests/test_dynamic_shapes.py)."""
import torch


def f(x):
    if x.size(0) == 8:  # SPECIALIZES
        return x * 2
    return x + 1


x = torch.randn(8, 3)
torch._dynamo.maybe_mark_dynamic(x, 0)
print(torch.compile(f, backend="eager")(x).sum().item() == (x * 2).sum().item())
