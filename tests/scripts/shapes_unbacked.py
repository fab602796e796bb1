"""An unbacked symbol from .item() meets a data-dependent check (tests/test_dynamic_shapes.py)."""
import torch

torch._dynamo.config.capture_scalar_outputs = True


def g(x):
    k = (x > 0).sum().item()  # UNBACKED
    torch._check(k >= 2)  # CHECKED
    return x.new_zeros(k) + 1


print(torch.compile(g, backend="eager")(torch.arange(-3.0, 7.0)).shape)
