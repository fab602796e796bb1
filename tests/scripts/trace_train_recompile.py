"""Training steps of a compiled nn.Module, then a new batch size (a recompile).

Used by tests/test_against_torch_trace.py and tests/benchmarks/bench_cli.py.
"""
import torch


class TinyMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyMLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(model)
    for batch in (4, 4, 8):  # the third step has a new batch size: a recompile
        x, y = torch.randn(batch, 8), torch.randn(batch, 4)
        loss = torch.nn.functional.mse_loss(compiled(x), y)
        # Run the backward: the explorer lowers backward graphs at compile time
        # (force_non_lazy_backward_lowering), plain torch only at .backward(), so
        # only then do both traces hold the same output code.
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"loss {loss.item():.4f}")
