"""Every difference between the IPython releases the explorer supports (8 and 9), in one place.

IPython is imported lazily by the callers that need a shell; this module only
reads attributes of the shell it is given, so it imports nothing itself.
"""

from __future__ import annotations

from typing import Any


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
