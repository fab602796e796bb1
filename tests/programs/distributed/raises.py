"""Rank ``--fail-on`` (default 1) raises after its first compiled step; the others wait at a barrier
and are stopped by torchrun (or see the failed peer). The report must hold every rank and name the failure.
``--kill-on R``: rank R is killed outright instead (SIGKILL): it writes nothing and is named as missing."""
import os
import signal

import torch
import torch.distributed as dist
from common import setup

args, device, rank, world = setup(__doc__, **{"--fail-on": {"type": int, "default": 1},
                                             "--kill-on": {"type": int, "default": -1}})


@torch.compile(backend=args.backend)
def step(x):
    return (x.sin() + 1).sum()


step(torch.randn(4, device=device))
if rank == args.kill_on:
    os.kill(os.getpid(), signal.SIGKILL)
if rank == args.fail_on:
    raise RuntimeError(f"rank {rank} ran out of data")
dist.barrier()
dist.destroy_process_group()
