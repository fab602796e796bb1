"""A size recompile that follows from a specialization, and one that follows from a guard added on a size
(tests/test_dynamic_shapes.py, tests/test_browser.py)."""
import torch


def f(x):
    if x.size(0) == 8:  # SPECIALIZES
        return x * 2
    return x + 1


def g(x):
    if x.size(0) > 4:  # GUARDS
        return x * 2
    return x + 1


cf = torch.compile(f, backend="eager")
x = torch.randn(8, 3)
torch._dynamo.maybe_mark_dynamic(x, 0)
print(cf(x).sum().item() == (x * 2).sum().item())
y = torch.randn(16, 3)
print(cf(y).sum().item() == (y + 1).sum().item())  # RECOMPILES
cg = torch.compile(g, backend="eager")
x = torch.randn(8, 3)
torch._dynamo.mark_dynamic(x, 0)
print(cg(x).sum().item() == (x * 2).sum().item())
y = torch.randn(3, 3)
print(cg(y).sum().item() == (y + 1).sum().item())  # RECOMPILES_ON_GUARD
