"""Every difference between the IPython releases the explorer supports (8 and 9), in one place.

IPython is imported lazily by the callers that need a shell; this module only
reads attributes of the shell it is given, so it imports nothing itself.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Optional


def running_cell_number(shell: Any) -> int:
    """The execution count of the cell that is running now: the ``N`` of ``In[N]``.

    IPython 8 increments ``shell.execution_count`` after a cell has run, IPython 9
    before it runs; both record the running cell's number on the ``ExecutionResult``
    the display hook holds while the cell runs, which is read first.
    """
    result = getattr(getattr(shell, "displayhook", None), "exec_result", None)
    number = getattr(result, "execution_count", None)
    if isinstance(number, int):
        return number
    return getattr(shell, "execution_count", 0) or 0


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (where a display shows the widget), not a terminal or a script."""
    import sys

    if "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def request_allows_input() -> Optional[bool]:
    """Whether the request the kernel runs now lets the code ask for input (``allow_stdin`` of its execute
    request): JupyterLab, Notebook 7, VS Code and Colab let it, nbclient (``jupyter nbconvert --execute``,
    papermill, nbval) does not. None outside a kernel's request (a terminal, a comm message, a thread).

    ipykernel 6 and 7 hand the request to ``kernel.get_parent()``; older ones keep it as ``_parent_header``."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    get_parent = getattr(kernel, "get_parent", None)
    parent = get_parent("shell") if get_parent is not None else getattr(kernel, "_parent_header", None)
    if not isinstance(parent, dict) or parent.get("header", {}).get("msg_type") != "execute_request":
        return None
    allow = parent.get("content", {}).get("allow_stdin")
    return allow if isinstance(allow, bool) else None


def cell_name(filename: str) -> Optional[str]:
    """``cell [5]`` for the file IPython registered for the cell ``In[5]`` of the running shell; else None.

    IPython (8 and 9) names the file of each cell it runs, ``%%compile`` cells
    included (``register_source``), in its code cache; ``format_code_name`` is what
    its tracebacks use to print ``Cell In[5]``. Nothing is imported: without a
    running IPython every file is a plain file.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is None or not filename:
        return None
    fmt = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if fmt is None:  # IPython before 8.1 names a cell's file <ipython-input-5-hash> by its number itself
        old = re.match(r"^<ipython-input-(\d+)-[0-9a-f]+>$", filename)
        return f"cell [{old[1]}]" if old else None
    named = fmt(filename)
    m = re.match(r"^In\[(\d+)\]$", named[1]) if isinstance(named, tuple) and len(named) == 2 else None
    return f"cell [{m[1]}]" if m else None
