"""Imported inside the Jupyter kernels of test_cell_parity.py: what a cell left behind, as JSON.

Nothing here is bound in the user's namespace: the test calls these through
``user_expressions`` (``__import__('cell_probe').snapshot()``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from typing import Any

# IPython's own bookkeeping names, which differ with the execution count
_IPYTHON = re.compile(r"^(_+|_i+|_i?\d+|_ih|_oh|_dh|In|Out|exit|quit|get_ipython|__builtin__|__builtins__|"
                      r"__name__|__doc__|__package__|__loader__|__spec__|__session__)$")
BASELINE = ("torch",)
# Dynamo's helper globals: Dynamo deletes them itself when their compiled code goes (a reset, a redefined
# function); deleting them here first would make that clean-up print a KeyError in either kernel
DYNAMO_HELPER = re.compile(r"^__(compiled_fn_|resume_at_|builtins_dict__|import_)")
CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config",
                  "torch.compiler.config", "torch.fx.experimental._config")


def _shell() -> Any:
    from IPython import get_ipython

    return get_ipython()


def comparable(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return ["tensor", str(value.dtype), list(value.shape), [round(float(v), 5) for v in value.detach().flatten()]]
    if isinstance(value, type):
        return ["class", value.__qualname__, value.__module__, sorted(k for k in vars(value) if not k.startswith("__"))]
    if callable(value) and hasattr(value, "__code__"):
        return ["function", value.__qualname__, value.__module__, value.__code__.co_name]
    if type(value).__name__ == "module":
        return ["module", value.__name__]
    if isinstance(value, (list, tuple, dict, set, frozenset, int, float, str, bool, type(None))):
        return ["value", _repr(value)]
    return ["object", type(value).__qualname__]


def _repr(value: Any) -> str:
    import torch

    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "[" + ", ".join(_repr(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, torch.Tensor):
        return repr(comparable(value))
    if isinstance(value, type):
        return value.__qualname__
    return repr(value)


def names() -> dict[str, Any]:
    ns = _shell().user_ns
    return {k: comparable(v) for k, v in ns.items() if not _IPYTHON.match(k)}


def config() -> dict[str, str]:
    import importlib

    out = {}
    for name in CONFIG_MODULES:
        module = importlib.import_module(name)
        for key, value in module.get_config_copy().items():
            out[f"{name}.{key}"] = repr(sorted(map(repr, value)) if isinstance(value, (set, frozenset)) else value)
    return out


def loggers() -> dict[str, Any]:
    manager = logging.root.manager
    out = {"<root>": _logger_state(logging.root)}
    for name, logger in sorted(manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and (name == "torch" or name.startswith("torch.")):
            out[name] = _logger_state(logger)
    return out


def _logger_state(logger: logging.Logger) -> list:
    # torch's LazyTraceHandler leaves the trace logger at the first compile of the process, with or without
    # the explorer: not a difference the explorer makes
    handlers = [type(h).__name__ for h in logger.handlers if type(h).__name__ != "LazyTraceHandler"]
    return [logger.level, logger.propagate, handlers,
            [type(f).__name__ for f in logger.filters], getattr(logger, "disabled", False)]


def temp_dirs() -> list[str]:
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    root = cache_dir()
    return sorted(n for n in os.listdir(root) if n.startswith("tmp")) if os.path.isdir(root) else []


def graphs() -> int:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def snapshot() -> str:
    return json.dumps({"names": names(), "config": config(), "loggers": loggers(), "temp_dirs": temp_dirs(),
                       "graphs": graphs(), "hooks": _bytecode_hooks(),
                       "warning_filters": sorted({_filter_text(f) for f in _filters()})})


def _bytecode_hooks() -> int:
    from torch._dynamo import convert_frame

    return len(getattr(convert_frame, "_bytecode_hooks", {}))


def _filters() -> list:
    import warnings

    return list(warnings.filters)


def _filter_text(f: tuple) -> str:
    """A warnings filter as text (action, message, category, module, line), comparable across kernels."""
    action, message, category, module, line = f
    return repr((action, getattr(message, "pattern", message), getattr(category, "__qualname__", category),
                 getattr(module, "pattern", module), line))


def reset() -> str:
    """Back to the baseline namespace (torch imported) between cells."""
    ns = _shell().user_ns
    for key in [k for k in ns if not _IPYTHON.match(k) and k not in BASELINE and not DYNAMO_HELPER.match(k)]:
        del ns[key]
    sys.last_type = sys.last_value = sys.last_traceback = None  # nothing of the last error keeps frames alive
    import gc

    gc.collect()
    return "ok"
