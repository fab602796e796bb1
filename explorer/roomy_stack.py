"""Runs the target on a roomy Python frame stack: a compile's speed must not depend on how deep it started.

CPython (3.11 and later) keeps frames in per-thread chunks of 16 KB and frees a
chunk as soon as the stack pops back below its first frame. A hot loop of calls
that straddles a chunk boundary therefore maps and unmaps memory on every call
and return. Where the boundaries fall depends on how deep the compile starts:
under ``%%compile`` (IPython's magic dispatch, then the explorer's own frames)
Inductor's post-grad pattern matching on a 4,000-node graph made 112,000 extra
mmap/munmap pairs and ran 4-7x slower than the same compile started from a
plain cell (0.55 s against 0.07 s at 600 nodes, 5.4 s against 1.8 s at 10,000).

The cure: call the target from a frame that reserves most of a 1 MB chunk for
its value stack. CPython allocates the chunk for that frame, and every frame the
target pushes lands in the rest of it, far from any boundary, until the call
returns. The frame's code is a copy of a two-line function with a larger
``co_stacksize`` (a reservation, never used); nothing else about the call changes.
"""

from __future__ import annotations

import types
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_RESERVED_SLOTS = 66_000  # 528 KB of value stack: CPython allocates a 1 MB chunk for the frame, ~490 KB stay free


def _call(fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    return fn(*args, **kwargs)


_roomy_call = types.FunctionType(_call.__code__.replace(co_stacksize=_RESERVED_SLOTS), _call.__globals__,
                                 "_roomy_call")


def call_on_roomy_stack(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, with the frames it pushes kept clear of the stack's chunk boundaries."""
    return _roomy_call(fn, args, kwargs)
