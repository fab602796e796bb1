"""A script that exports a small model (no AOTInductor): `run --export` shows the exported program."""
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2


batch = torch.export.Dim("batch", min=1, max=32)
ep = torch.export.export(Net(), (torch.randn(4, 3),), dynamic_shapes={"x": {0: batch}})
print("exported", len(ep.graph.nodes))
