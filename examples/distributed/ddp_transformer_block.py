"""A DDP training step of a small transformer (bf16), compiled: DDPOptimizer splits it at bucket boundaries.

    python -m explorer run --nproc-per-node 2 examples/distributed/ddp_transformer_block.py --json ddp.json

NCCL on GPUs (rank k on cuda:k), gloo on CPU: the backend follows the device. The model's forward is
its own code (torch.compile(DDP(nn.Sequential(...))) would compile nothing of it); ``--bucket-cap-mb``
sets where DDPOptimizer cuts the graph (it requires >= 1). On CPU the defaults are small enough
for a laptop; on a GPU try ``--dim 1024 --blocks 4 --bucket-cap-mb 25``.
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--backend", default="inductor", help="torch.compile backend")
parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cuda", "cpu"),
                    help="cuda: NCCL, rank k on cuda:k; cpu: gloo")
parser.add_argument("--dim", type=int, default=256)
parser.add_argument("--heads", type=int, default=4)
parser.add_argument("--blocks", type=int, default=2)
parser.add_argument("--bucket-cap-mb", type=float, default=1.0)
parser.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float32"))
parser.add_argument("--steps", type=int, default=2)
args = parser.parse_args()

if args.device == "cuda":
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
else:
    device = torch.device("cpu")
    dist.init_process_group("gloo")
rank = dist.get_rank()
dtype = getattr(torch, args.dtype)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, dim: int, heads: int, blocks: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(blocks))
        self.head = nn.Linear(dim, dim)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


torch.manual_seed(0)
model = Transformer(args.dim, args.heads, args.blocks).to(device=device, dtype=dtype)
ddp = DDP(model, bucket_cap_mb=args.bucket_cap_mb)
step = torch.compile(ddp, backend=args.backend)
optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
for i in range(args.steps):
    torch.manual_seed(rank * 1000 + i)  # each rank its own batch
    x = torch.randn(4, 32, args.dim, device=device, dtype=dtype)
    loss = step(x).float().square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
print(f"rank {rank}: loss {loss.item():.4f}")
dist.destroy_process_group()
