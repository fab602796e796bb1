"""The devices torch sees and their random state, named as the report names them.

Subsystem: ``torch.cuda`` and ``torch.random`` (public API only; here because the capture and timing layers ask
about devices in one place). No version differences among 2.11-2.14.
"""

from __future__ import annotations

import contextlib
from typing import Iterator


def default_device() -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def describe_devices(devices: list[str]) -> str:
    """"cpu", "cuda:0 (NVIDIA H200)", ...: the devices the captured graphs ran on, named."""
    import torch

    if not devices:
        return default_device()
    named = []
    for dev in devices:
        if dev.startswith("cuda") and torch.cuda.is_available():
            index = int(dev.split(":")[1]) if ":" in dev else 0
            dev = f"{dev} ({torch.cuda.get_device_name(index)})"
        named.append(dev)
    return ", ".join(named)


@contextlib.contextmanager
def preserved_rng() -> Iterator[None]:
    """The global random state (CPU, and CUDA when initialised) as it was: timing draws no user randomness."""
    import torch

    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
