"""FSDP2 (fully_shard) on each block and the root, then torch.compile of the model.

    python -m explorer run --nproc-per-node 2 examples/distributed/fsdp2_transformer.py --json fsdp.json

NCCL on GPUs, gloo on CPU. The compiled graphs hold each block's compute; FSDP2's all-gathers and
reduce-scatters run in its hooks, which this torch does not trace (the report says so), so they are
not among the graphs' collectives. ``--mesh-device`` defaults to the device's type.
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--backend", default="inductor", help="torch.compile backend")
parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cuda", "cpu"),
                    help="cuda: NCCL, rank k on cuda:k; cpu: gloo")
parser.add_argument("--dim", type=int, default=128)
parser.add_argument("--blocks", type=int, default=2)
parser.add_argument("--steps", type=int, default=2)
args = parser.parse_args()

if args.device == "cuda":
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
else:
    device = torch.device("cpu")
    dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh(device.type, (world,))


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class Model(nn.Module):
    def __init__(self, dim: int, blocks: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(blocks))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


torch.manual_seed(0)
model = Model(args.dim, args.blocks).to(device)
for block in model.blocks:
    fully_shard(block, mesh=mesh)
fully_shard(model, mesh=mesh)
step = torch.compile(model, backend=args.backend)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for i in range(args.steps):
    torch.manual_seed(rank * 1000 + i)
    loss = step(torch.randn(8, args.dim, device=device)).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print(f"rank {rank}: loss {loss.item():.4f}")
dist.destroy_process_group()
