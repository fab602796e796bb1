"""torch's dispatcher: Python dispatch modes and calling an op below them.

Subsystem: ``torch.utils._python_dispatch`` (``TorchDispatchMode``) and the dispatch keys of ``torch._C``.
Version differences: none among 2.11-2.14.
"""

from __future__ import annotations

from typing import Any


def call_below_python_modes(func: Any, args: Any, kwargs: dict) -> Any:
    """Runs an op's own kernel, past the Python dispatch key where torch's dispatch modes sit (its arguments'
    dispatch keys below ``DispatchKey.Python``, 2.11-2.14): a mode that re-enters itself around this call sees the
    ops the kernel calls inside, and not this op again. An op without tensor arguments is called as it is."""
    import torch
    from torch.utils._pytree import tree_leaves

    below = torch._C._dispatch_keyset_full_after(torch._C.DispatchKey.Python)
    keys = None
    for t in tree_leaves((args, kwargs)):
        if isinstance(t, torch.Tensor):
            k = torch._C._dispatch_keys(t)
            keys = k if keys is None else keys | k
    if keys is None:
        return func(*args, **kwargs)
    return func.redispatch(keys & below, *args, **kwargs)


def dispatch_mode() -> type:
    """torch's base class of a Python dispatch mode (``TorchDispatchMode``): a subclass's ``__torch_dispatch__`` sees
    every op called while it is active."""
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode
