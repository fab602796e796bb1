"""A tiny model that shows every stage: a graph break, a recompile, a training step.

    python -m explorer run examples/demo.py --html demo.html --json demo.json
"""

import torch


class Block(torch.nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))
        if h.mean() > 0:  # data-dependent branch: Dynamo breaks the graph here
            h = h * 0.5
        return x + h


def main() -> None:
    torch.manual_seed(0)
    model = Block()
    step = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in (8, 8, 12):  # the new batch size recompiles
        x = torch.randn(batch, 16)
        loss = step(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
