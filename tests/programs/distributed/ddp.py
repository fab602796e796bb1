"""DDP with a small bucket cap: DDPOptimizer splits the compiled forward at gradient-bucket boundaries.

``--model own`` (default): a module with its own forward, four 512x512 layers (1 MiB each) and
bucket_cap_mb=1: four pieces. ``--model sequential``: the same layers in nn.Sequential, whose forward is
torch's own code: under torch.compile(DDP(model)) Dynamo skips it and nothing of the model compiles.
(DDPOptimizer requires bucket_cap_mb >= 1 MiB, its first bucket's size.)"""
import torch
import torch.distributed as dist
from common import setup
from torch.nn.parallel import DistributedDataParallel as DDP

args, device, rank, world = setup(__doc__, **{"--model": {"default": "own", "choices": ("own", "sequential")},
                                             "--bucket-cap-mb": {"type": float, "default": 1.0},
                                             "--width": {"type": int, "default": 512}})


class Net(torch.nn.Module):
    def __init__(self, width: int, depth: int = 4) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


torch.manual_seed(0)
if args.model == "own":
    model = Net(args.width)
else:
    model = torch.nn.Sequential(*(torch.nn.Linear(args.width, args.width) for _ in range(4)))
ddp = DDP(model.to(device), bucket_cap_mb=args.bucket_cap_mb)
step = torch.compile(ddp, backend=args.backend)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
for _ in range(2):
    loss = step(torch.randn(8, args.width, device=device)).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print(f"rank {rank}: loss {loss.item():.4f}")
dist.destroy_process_group()
