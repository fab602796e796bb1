"""What a run must leave in torch as it found it, read for the tests that check nothing leaked."""

from __future__ import annotations

import importlib
from typing import Any

from explorer.capturing import torch_door

ABSENT = "<absent in this torch>"


def config_snapshot() -> dict[str, Any]:
    """The values ``torch_door.config.CAPTURE_CONFIG`` (and its ``FALLBACK_CONFIG``) set during a capture (``ABSENT``
    where this torch lacks one)."""
    out = {}
    for module_path, attr_path, _, _ in torch_door.config.CAPTURE_CONFIG + (torch_door.config.FALLBACK_CONFIG,):
        try:
            value: Any = importlib.import_module(module_path)
            for name in attr_path.split("."):
                value = getattr(value, name)
        except (ImportError, AttributeError):
            value = ABSENT
        out[f"{module_path}.{attr_path}"] = value
    return out


def bytecode_hook_count() -> int:
    """How many Dynamo bytecode hooks are registered."""
    from torch._dynamo import convert_frame

    return len(getattr(convert_frame, "_bytecode_hooks", {}))
