"""Functional collectives in compiled code: ``same`` issues all_reduce then all_gather on every rank;
``swapped`` does so too, except on rank ``--swap-on`` (default 1), which issues them the other way round.
On one process group that order mismatch can hang a real job (each rank blocks in a collective the
other never joins), so ``swapped`` is only traced: its backend captures the graph and runs nothing.
``mixed`` all-reduces ``a`` then ``b``, except on rank ``--swap-on``, which reduces its ``b`` first: the
same two collectives of the same size, so it runs to the end, and sums one rank's ``a`` with the other's ``b``.
The report must flag ``swapped`` as a possible hang, ``mixed`` as mixed values, and leave ``same`` alone."""
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as fc
from common import setup

args, device, rank, world = setup(__doc__, **{"--swap-on": {"type": int, "default": 1}})
group = dist.group.WORLD


def same(x):
    a = fc.all_reduce(x * 2, "sum", group)
    b = fc.all_gather_tensor(x + 1, 0, group)
    return a.sum() + b.sum()


def swapped(x):
    if rank == args.swap_on:
        b = fc.all_gather_tensor(x + 1, 0, group)
        a = fc.all_reduce(x * 2, "sum", group)
    else:
        a = fc.all_reduce(x * 2, "sum", group)
        b = fc.all_gather_tensor(x + 1, 0, group)
    return a.sum() + b.sum()


def mixed(a, b):
    if rank == args.swap_on:
        dist.all_reduce(b)  # the swapped rank's first
        dist.all_reduce(a)  # the swapped rank's second
    else:
        dist.all_reduce(a)  # the other ranks' first
        dist.all_reduce(b)  # the other ranks' second
    return a + b


def trace_only(gm, example_inputs):
    """A backend that keeps Dynamo's graph and runs none of it: zeros of the outputs' shapes instead."""
    (outputs,) = [n.args[0] for n in gm.graph.nodes if n.op == "output"]
    shapes = [(o.meta["example_value"].shape, o.meta["example_value"].dtype) for o in outputs]
    return lambda *inputs: [torch.zeros(s, dtype=d, device=device) for s, d in shapes]


x = torch.ones(4, 4, device=device)
print(f"rank {rank}: same -> {torch.compile(same, backend=args.backend)(x).item()}")
torch.compile(swapped, backend=trace_only)(x)
torch.compile(mixed, backend=args.backend)(torch.ones(64, device=device), torch.full((64,), 2.0, device=device))
dist.destroy_process_group()
