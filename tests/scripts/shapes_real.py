"""A branch on an unbacked symbol that torch answers from the real tensors (propagate_real_tensors), kept as a
runtime assertion (tests/test_dynamic_shapes.py)."""
import torch

torch._dynamo.config.capture_scalar_outputs = True
torch._functorch.config.fake_tensor_propagate_real_tensors = True


def g(x):
    k = (x > 0).sum().item()  # UNBACKED
    if k > 3:  # BRANCH
        return x * 2
    return x + 1


x = torch.arange(-3.0, 7.0)
print(torch.compile(g, backend="eager")(x).sum().item() == (x * 2).sum().item())
