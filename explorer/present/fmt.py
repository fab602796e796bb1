"""How numbers, times and places read, written once for every output (view model, text, charts)."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any, Mapping, Optional

from ..cell.rewrite import OUTER
from ..hosts import CELL_FUNCTION_NAME, cell_frame_name
from .blocks import Origin


def short_path(path: Optional[str]) -> str:
    """Paths under the working directory are shown relative: shorter, same meaning."""
    if not path:
        return "?"
    if not os.path.isabs(path):
        return path
    return _relative(path, os.getcwd())


@lru_cache(maxsize=4096)
def _relative(path: str, cwd: str) -> str:
    """A report names a few files thousands of times (every kernel's user lines): computed once each."""
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


# the notebook cells' files as their notebook names them ({file: "cell [5]"}: ``Clinic.cells``), from every report
# whose view was built in this process: a cell's file (a temporary file, ``/tmp/ipykernel_1/2871.py``) names one
# cell wherever it appears, so the names of one report hold for any other
_CELLS: dict[str, str] = {}


def name_cells(cells: Mapping[str, str]) -> None:
    """Names these notebook cells' files by their cells in every place a view writes (``loc_text``)."""
    _CELLS.update(cells)


def place_text(filename: Optional[str], lineno: Optional[int]) -> str:
    """``cell [5], line 3`` for a notebook cell's file, ``file.py:3`` (its base name) for any other."""
    cell = _CELLS.get(filename or "")
    if cell is not None:
        return f"{cell}, line {lineno}" if lineno else cell
    return (filename or "?").rsplit("/", 1)[-1] + (f":{lineno}" if lineno else "")


_CELL_QUALNAME = f"{OUTER}.<locals>."  # the function the explorer runs a cell's code in, as Dynamo names its frames


def comp_name(comp: Any) -> str:
    """What a compilation compiled, by name; a notebook cell's frames by their cell: ``cell [5]`` for the cell's own
    code, ``cell [5], resumed after line 3`` for the resume function Dynamo made at a graph break in it (torch names
    them ``compiled_cell`` and ``torch_dynamo_resume_in_compiled_cell_at_3``, after the function that holds the
    cell's code while it runs), a function the cell defines by its own name."""
    named_by_entry = comp.entry is not None and (comp.entry.wrapper or comp.entry.decorated)  # a module's forward
    cell = None if named_by_entry else _CELLS.get(comp.frame.filename or "")
    if cell is None:
        return comp.name
    return cell_frame_name(cell, comp.name.removeprefix(_CELL_QUALNAME))


def comp_label(comp: Any) -> str:
    """``0/0 Model.forward (model.py:12)``; in a notebook, ``0/0 cell [5]``, ``1/0 cell [5], resumed after line 3``,
    ``2/0 f (cell [5], line 2)``."""
    name = comp_name(comp)
    if name == comp.name:
        return comp.label_at(place_text)
    if name.startswith("cell ["):
        return f"{comp.compile_id} {name}"
    return f"{comp.compile_id} {name} ({place_text(comp.frame.filename, comp.frame.lineno)})"


def loc_text(filename: Optional[str], lineno: Optional[int], function: Optional[str] = None) -> str:
    """``path:3 in f`` (a path under the working directory relative), ``cell [5], line 3 in f`` for a notebook
    cell's file."""
    cell = _CELLS.get(filename or "")
    if cell is not None:
        if function and function.removeprefix(_CELL_QUALNAME) == CELL_FUNCTION_NAME:
            function = None  # the cell's own code, not a function of the user's
        return (f"{cell}, line {lineno}" if lineno else cell) + (f" in {function}" if function else "")
    return _loc_text(filename, lineno, function, os.getcwd())


@lru_cache(maxsize=16384)
def _loc_text(filename: Optional[str], lineno: Optional[int], function: Optional[str], cwd: str) -> str:
    where = short_path(filename) + (f":{lineno}" if lineno else "")
    return where + (f" in {function}" if function else "")


def origin_of(filename: Optional[str], lineno: Optional[int]) -> Optional[Origin]:
    """``{"file", "line"}``: the user line an element came from, as the view model names it (the chain's
    ``lineage.Origin`` as JSON); None when there is none."""
    return {"file": filename, "line": lineno} if filename and lineno else None


def stage_anchor(cid: str, stage: str) -> str:
    """The element id of one compilation's stage in the static copy: a link to another compilation's pane leads
    there (``[0/1]`` -> ``cx-s-0_1-graph_break``)."""
    return "cx-s-" + re.sub(r"[^A-Za-z0-9_-]", "_", cid) + "-" + stage


def origin_key(origin: Optional[Origin]) -> str:
    """An origin as the views' ``data-origin`` attribute writes it, ``FILE:LINE`` (the front end's ``originKey``
    builds the same): written from the object, never read back."""
    return f"{origin['file']}:{origin['line']}" if origin else ""


def flat(r: Any) -> str:
    """Inline runs (the view model's) as one string: the text summary's line, what a diff compares."""
    if r is None:
        return ""
    if isinstance(r, (str, int, float)):
        return str(r)
    if isinstance(r, list):
        return "".join(flat(x) for x in r)
    for key in ("b", "muted", "a", "chip", "code"):
        if key in r:
            return flat(r[key]) + (" " if key == "chip" else "")
    if "origin" in r:
        return origin_key(r["origin"])
    return "; " if "br" in r else ""


def headline(text: str) -> str:
    """First line, plus the next one when the first only introduces it ("backend='x' raised:")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return f"{lines[0]} {lines[1]}"
    return lines[0] if lines else ""


def format_time(seconds: Optional[float]) -> str:
    """1.23 ms, 45.6 µs, 2.00 s: what the charts and tables print."""
    if seconds is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def measurement_text(m) -> str:
    return "n/a" if m is None else f"{format_time(m.median_s)} ±{m.iqr_pct:.0f}%"


def speedup_text(v: Optional[float]) -> str:
    return "n/a" if v is None else f"{v:.2f}x"


def ratio_text(v: Optional[float], ratio=None) -> str:
    """The speedup, with the spread of its per-repeat ratios when eager and compiled were interleaved."""
    return speedup_text(v) + ("" if ratio is None else f" ±{ratio.iqr_pct:.0f}%")


def launched_by_text(k) -> str:
    """``aten::convolution x18`` for each op whose calls launched the kernel (per graph call)."""
    return ", ".join(f"{o.op} x{o.launches:g}" for o in getattr(k, "launched_by", ()) or ())


def flops_line(t) -> Optional[str]:
    """The graph's counted FLOPs per call against what its kernel rows were given: they add up, or say so."""
    if not getattr(t, "flops", None):
        return None
    given = sum(k.flops or 0 for k in t.kernels)
    return (f"FLOPs per call: {t.flops / 1e9:,.3g} GFLOP in its op calls, {given / 1e9:,.3g} GFLOP given to "
            f"kernel rows ({100.0 * given / t.flops:.1f}%)")


def calls_text(v: Optional[float]) -> str:
    return "never" if v is None else f"{v:,.0f} calls"
