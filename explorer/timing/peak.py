"""The device's achievable memory bandwidth, measured once per device per process.

A kernel's GB/s only means something beside what the device can do. Vendor
figures overstate what a kernel reaches, so the explorer measures a large
device-to-device copy (read + write both counted), like STREAM's copy test.
"""

from __future__ import annotations

from typing import Optional

from . import bench
from .model import PeakBandwidth

_CACHE: dict[str, PeakBandwidth] = {}
DEFAULT_BYTES = {"cpu": 256 * 1024 * 1024, "cuda": 1024 * 1024 * 1024}  # far beyond any cache


def peak_bandwidth(device: str = "cpu", *, nbytes: Optional[int] = None, budget_s: float = 0.1,
                   repeats: int = 5, refresh: bool = False) -> PeakBandwidth:
    """GB/s of ``dst.copy_(src)`` on ``device``; cached per device unless ``refresh``."""
    import torch

    dev = torch.device(device)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    key = str(dev)
    if key in _CACHE and not refresh:
        return _CACHE[key]
    size = nbytes or DEFAULT_BYTES["cuda" if key.startswith("cuda") else "cpu"]
    src = torch.empty(size // 4, dtype=torch.float32, device=key).fill_(1.0)
    dst = torch.empty_like(src)
    m = bench.measure(lambda: dst.copy_(src), device=key, budget_s=budget_s, repeats=repeats, flush_l2=False)
    moved = 2 * src.numel() * src.element_size()
    src = dst = None  # the two buffers go now, not when the cache entry dies
    cache, cache_name = last_level_cache(key)
    result = PeakBandwidth(device=key, gbs=moved / m.median_s / 1e9, bytes_per_copy=moved, measurement=m,
                           cache_bytes=cache, cache_name=cache_name)
    _CACHE[key] = result
    return result


def last_level_cache(device: str) -> tuple[Optional[int], Optional[str]]:
    """(bytes, name) of the device's last-level cache: a GPU's L2 (as CUDA reports it), a CPU's L3 (or L2)."""
    import os

    if device.startswith("cuda"):
        import torch

        size = getattr(torch.cuda.get_device_properties(torch.device(device)), "L2_cache_size", None)
        return (int(size), "L2") if size else (None, None)
    for name, key in (("L3", "SC_LEVEL3_CACHE_SIZE"), ("L2", "SC_LEVEL2_CACHE_SIZE")):
        try:
            size = os.sysconf(key)
        except (ValueError, OSError, AttributeError):
            continue
        if size and size > 0:
            return int(size), name
    return None, None
