"""torch.distributed: the process group, torchrun, DDPOptimizer's logger, and where DDP and FSDP live.

Subsystem: ``torch.distributed`` (``run``, ``elastic``) and Dynamo's DDPOptimizer
(``torch._dynamo.backends.distributed``). Version differences: none among 2.11-2.14.
"""

from __future__ import annotations

from typing import Optional

# DDPOptimizer's module logger: its INFO line names the bucket cap and the bucket count (also when it
# made one bucket and so wrote no split to the trace)
DDP_OPTIMIZER_LOGGER = "torch._dynamo.backends.distributed"
# where torch's DistributedDataParallel and FSDP2 live: a graph break or frame in them says they were traced
DDP_FILE = "torch/nn/parallel/distributed.py"
FSDP2_DIR = "torch/distributed/fsdp/_fully_shard/"


def process_group_backend() -> Optional[str]:
    """The default process group's backend (gloo, nccl, ...), if one is still initialized; None otherwise."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return str(dist.get_backend())
    except Exception:  # noqa: BLE001 - cosmetic: a report without the backend's name is still whole
        return None
    return None


def launch_ranks(nproc_per_node: int, argv: list[str]) -> dict[int, int]:
    """``python argv...`` as ``nproc_per_node`` ranks on this machine, through torch.distributed.run (torchrun).

    The same path as ``torchrun --standalone --nproc-per-node N argv...`` (its own argument parser and
    ``run``), without torchrun's error summary: returns, for each rank that failed, its exit code as
    torchrun saw it (negative: killed by that signal); {} when every rank ended with 0.
    """
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    args = torchrun.parse_args(["--standalone", f"--nproc-per-node={nproc_per_node}", *argv])
    try:
        torchrun.run(args)
    except ChildFailedError as e:
        return {int(rank): int(f.exitcode) for rank, f in e.failures.items()}
    except SignalException as e:  # torchrun stopped its ranks on SIGINT/SIGTERM: as Ctrl-C to the caller
        raise KeyboardInterrupt(str(e)) from e
    return {}
