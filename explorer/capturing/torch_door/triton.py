"""Inductor's Triton kernels after compile: their autotuners (``CachingAutotuner``) and launch grids.

Subsystem: ``torch._inductor.runtime.triton_heuristics``. The CUDA stand-in the GPU-less preview patches Triton's
driver with is ``cuda_standin``. Version differences: none among 2.11-2.14 (``GridExpr.from_meta``; a grid this
torch names differently reads as unknown).
"""

from __future__ import annotations

from typing import Any, Optional


def triton_autotuners(module: Any) -> dict[str, Any]:
    """{kernel name: Inductor's CachingAutotuner} defined in an output module."""
    try:
        from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    except ImportError:
        return {}
    return {name: v for name, v in vars(module).items() if isinstance(v, CachingAutotuner)}


def grid_for(inductor_meta: dict, config_kwargs: dict, sizes: dict[str, int]) -> Optional[tuple[int, ...]]:
    """The launch grid Inductor computes for a kernel with these meta-parameters and sizes (xnumel, ...)."""
    try:
        from torch._inductor.runtime.triton_heuristics import GridExpr

        grid = GridExpr.from_meta(inductor_meta, dict(config_kwargs))
        return tuple(int(v) for v in grid.eval_slow({**sizes, **config_kwargs}))
    except Exception:  # noqa: BLE001 - a kind of grid this torch names differently
        return None
