"""Which torch this process runs: its version, its release, its install folder and the compiler's folders in it.

Subsystem: the torch package itself (``torch.__version__``, ``torch.__file__``). Every check of a torch version in
the explorer is made here or by a module of this package with ``release_of``; outside the door no code compares
versions. Version differences: torch's TORCH_TRACE names its version (a ``torch_version`` artifact) from 2.12 on
(``VERSION_RECORD_SINCE``); 2.11 writes none.
"""

from __future__ import annotations

import functools
import re
from typing import Optional


def release_of(version: Optional[str]) -> Optional[tuple[int, int]]:
    """(major, minor) of a torch version string (``2.13.0+cpu`` -> (2, 13)); None when it names none."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


VERSION_RECORD_SINCE = (2, 12)  # torch's trace names its version (a torch_version artifact) since pytorch#178024


def torch_version() -> str:
    import torch

    return torch.__version__


@functools.lru_cache(maxsize=1)
def torch_dir() -> str:
    """The folder of the torch package this process imports, ending in a separator."""
    import os

    import torch

    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


# torch's compiler machinery, by its folders and files under the torch package: frames a plain run would not show
COMPILER_FOLDERS = ("_dynamo", "_inductor", "_functorch", "fx", "_subclasses", "_higher_order_ops",
                    "_logging", "_guards.py", "_compile.py", "_utils_internal.py", "_strobelight")
