"""Which notebook host runs this process, told in one place: what a report's display, ``show`` and the
view's kernel actions ask.

- ``jupyter``: an IPython kernel (JupyterLab, Notebook 7, VS Code, Colab, nbclient/nbconvert ``--execute``), whose
  comm manager takes a widget's comm to the front end (nbclient keeps the widget's state in the notebook).
- ``marimo``: a cell running in a marimo kernel (``marimo edit``, ``marimo run``, ``marimo export``); marimo puts
  its own ``comm.create_comm`` in place for anywidget widgets, and draws them as ``mo.ui.anywidget`` does.
- ``None``: a script, a terminal, IPython without a kernel: a widget would reach nothing, so a report shows as text.

Nothing is imported here at module level: a host's modules are read from ``sys.modules`` (a host has imported
them before any user code runs), so asking costs nothing where there is no host.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from typing import Any, Optional

JUPYTER = "jupyter"
MARIMO = "marimo"


def name() -> Optional[str]:
    """``"jupyter"``, ``"marimo"`` or None (see the module docstring)."""
    if _marimo_context() is not None:
        return MARIMO
    from .ipython_compat import in_kernel

    return JUPYTER if in_kernel() else None


def widgets_live() -> bool:
    """Whether a widget made now has a front end to talk to (the host put its comm in place), so a report can
    display as the interactive view; else the static HTML copy and the text are all there is to show."""
    host = name()
    if host == JUPYTER:  # an IPython kernel opens widgets' comms itself (ipykernel 6 and 7, old and new comms)
        return True
    if host != MARIMO:
        return False
    comm = sys.modules.get("comm")  # marimo opens anywidget's comms by putting its own comm.create_comm in place
    default = getattr(comm, "_create_comm", None)
    return comm is not None and getattr(comm, "create_comm", default) is not default


def headless() -> bool:
    """Whether the Jupyter client running this cell executes the notebook to save it and draws nothing itself
    (nbclient: ``jupyter nbconvert --execute``, papermill, nbval), which it tells by allowing the code no input.
    The pages made from such a notebook (nbconvert's HTML) draw a widget only with a widget manager they load from
    a CDN, and never show the HTML beside a widget in its output: a view then carries its static copy as an output
    of its own (``widget.OfflineCopy``)."""
    if name() != JUPYTER:
        return False
    from .ipython_compat import request_allows_input

    return request_allows_input() is False


def display(obj: Any) -> bool:
    """Shows ``obj`` in the host's output area (the running cell's); False where there is no host."""
    host = name()
    if host == MARIMO:
        sys.modules["marimo"].output.append(obj)
        return True
    if host == JUPYTER:
        from IPython.display import display as ipython_display

        ipython_display(obj)
        return True
    return False


def namespace() -> Optional[dict]:
    """The notebook's own variables (where "why would this call recompile?" evaluates a call), or None."""
    context = _marimo_context()
    if context is not None:
        return context.globals
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return getattr(shell, "user_ns", None)


# The function the explorer runs a cell's code in (``cell.function``): Dynamo names the cell's frame after it, and the
# resume functions it makes at a graph break in the cell ``torch_dynamo_resume_in_compiled_cell_at_<line>``.
CELL_FUNCTION_NAME = "compiled_cell"
_RESUMED_CELL = re.compile(rf"(?:.*\.<locals>\.)?torch_dynamo_resume_in_{CELL_FUNCTION_NAME}_at_(\d+)")


def cell_frame_name(cell: str, name: str) -> str:
    """How the user names a frame of notebook ``cell``'s file: ``cell [5]`` for the cell's own code, ``cell [5],
    resumed after line 3`` for the resume function Dynamo made at a graph break in it, and a function the cell
    defines by its own name (``name`` is the frame's name or qualified name)."""
    if name.rsplit(".", 1)[-1] == CELL_FUNCTION_NAME:
        return cell
    resumed = _RESUMED_CELL.fullmatch(name)
    return f"{cell}, resumed after line {resumed.group(1)}" if resumed else name


def cell_id(shell: Any) -> Optional[str]:
    """The id the notebook front end gives the cell being run (``cellId`` in the execute request's metadata: JupyterLab,
    Notebook 7, VS Code), which stays the same while the cell is edited and re-run; None where the request carries
    none (a terminal, a front end that sends no id)."""
    kernel = getattr(shell, "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    if get_parent is None:
        return None
    parent = get_parent()  # ipykernel: the request being handled, header, metadata and content
    metadata = parent.get("metadata") if isinstance(parent, dict) else None
    found = metadata.get("cellId") if isinstance(metadata, dict) else None
    return str(found) if found else None


def cell_name(filename: str) -> Optional[str]:
    """How the user names the notebook cell whose code ``filename`` holds: ``cell [5]`` (Jupyter's ``In[5]``),
    ``cell train_step`` or ``cell 3`` (a marimo cell, by its name, else its position); None for any other file."""
    if not filename:
        return None
    if _MARIMO_FILE.search(filename):
        return marimo_cell_name(filename)
    from .ipython_compat import cell_name as ipython_cell_name

    return ipython_cell_name(filename)


# marimo compiles each cell under a file of its own, named for the cell's id: /tmp/marimo_123/__marimo__cell_Hbol_.py
_MARIMO_FILE = re.compile(r"__marimo__cell_([A-Za-z0-9]+)_[^/\\]*\.py$")


def marimo_cell_name(filename: str) -> Optional[str]:
    """A marimo cell's file as its notebook names the cell: ``cell NAME`` for a named cell (``def NAME():`` in the
    notebook's file), else ``cell N`` (its position, from 1), else ``cell ID`` (marimo's own id for it)."""
    m = _MARIMO_FILE.search(filename)
    if m is None:
        return None
    cell_id = m.group(1)
    context = _marimo_context()
    notebook = getattr(context, "filename", None) if context is not None else None
    named = _marimo_cells(notebook) if notebook else {}
    if cell_id in named:
        return f"cell {named[cell_id]}"
    order = list(getattr(getattr(context, "_kernel", None), "cell_metadata", None) or ())
    if cell_id in order:  # a cell made in the editor and not saved yet: its place among the kernel's cells
        return f"cell {order.index(cell_id) + 1}"
    return f"cell {cell_id}"


def _marimo_cells(notebook: str) -> dict[str, str]:
    """{cell id: its name, or its position from 1 where it has none} for the cells of the notebook's file.

    marimo gives the cells of a file the same ids each time it loads it (they come from a seeded generator, in
    file order), so the ids the kernel runs are the file's. An unreadable file names nothing (``cell ID`` then).
    """
    try:
        stamp = os.stat(notebook).st_mtime_ns
    except OSError:
        return {}
    return dict(_read_marimo_cells(notebook, stamp))


@lru_cache(maxsize=8)
def _read_marimo_cells(notebook: str, stamp: int) -> tuple[tuple[str, str], ...]:
    try:
        from marimo._ast.load import load_app  # marimo's own reader of a notebook's file

        app = load_app(notebook)
        manager = app._cell_manager if app is not None else None
        if manager is None:
            return ()
        # read inside a running notebook, marimo prefixes the ids it gives (so they differ from the notebook's own)
        prefix = getattr(manager, "prefix", "") or ""
        ids = [cid[len(prefix):] if prefix and cid.startswith(prefix) else cid for cid in manager.cell_ids()]
        names = list(manager.names())
    except Exception:  # noqa: BLE001 - another marimo's API, a file being written: cells are named by id instead
        return ()
    return tuple((cid, n if n and n != "_" else str(i + 1)) for i, (cid, n) in enumerate(zip(ids, names)))


def _marimo_context() -> Any:
    """marimo's runtime context when a marimo kernel runs this code (a cell, or a widget's message), else None."""
    if "marimo" not in sys.modules:
        return None
    try:
        from marimo._runtime.context import get_context

        return get_context()
    except Exception:  # noqa: BLE001 - ContextNotInitializedError: marimo imported outside a notebook
        return None
