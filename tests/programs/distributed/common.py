"""What every distributed test program does first: the process group on the device this machine has.

NCCL on GPUs (each rank its own ``cuda:LOCAL_RANK``), gloo on CPU: the backend is a matter of the
device, nothing else changes. Run under torchrun or ``python -m explorer run --nproc-per-node N``.
``--device cpu`` keeps a GPU machine on CPU and gloo (the tests do: they are CPU tests).
"""
import argparse
import os

import torch
import torch.distributed as dist


def setup(description: str, **extra: dict) -> tuple[argparse.Namespace, torch.device, int, int]:
    """Parses ``--backend`` (torch.compile's, default inductor) and ``extra`` options; starts the process group."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--backend", default="inductor", help="torch.compile backend (tests use aot_eager)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cuda", "cpu"))
    for name, kwargs in extra.items():
        parser.add_argument(name, **kwargs)
    args = parser.parse_args()
    if args.device == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    return args, device, dist.get_rank(), dist.get_world_size()
