"""Ranks that compile differently: rank 1 alone prints inside the compiled step (a graph break)
and gets a batch of another size (a recompile). The report says both, with the line and the rank."""
import torch
import torch.distributed as dist
from common import setup

args, device, rank, world = setup(__doc__)


@torch.compile(backend=args.backend)
def step(x):
    y = torch.sin(x) * 2
    if rank == 1:
        # rank 1 only: a graph break
        print(f"rank {rank}: looking at the batch")
    return torch.cos(y).sum()


step(torch.randn(8, 4, device=device))
# rank 1's last batch is short: a recompile on rank 1 only, size of x at dim 0: 8 -> 5
batch = 8 if rank != 1 else 5
step(torch.randn(batch, 4, device=device))
dist.barrier()
dist.destroy_process_group()
