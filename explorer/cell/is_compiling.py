"""Lines that ask ``torch.compiler.is_compiling()`` in code Dynamo traced for the explorer's own compile.

Dynamo folds the call to True while it traces, so the FX graph keeps no trace of it:
a function the compiled cell (or ``explore``'s function) calls takes its branch for
compiled code, where a plain run, which calls it uncompiled, gets False and takes the
other (the set_stance tutorial's ``foo`` prints ``tensor([1., 1., 1.])`` under
``%%compile``, ``tensor([-1., -1., -1.])`` plainly). The code Dynamo traced is read
live, as each record of a compile arrives (``torch_door.dynamo.traced_code``: the compile's
frame and every function it inlined); when the compile ends, each of those code objects
is scanned for a load of ``is_compiling`` (or ``is_dynamo_compiling``), and each line
with one becomes a finding that names it. Left out: torch's own files and installed
libraries (their branches are torch's business), functions a torch.compile of the
user's own wraps (a plain run compiles them too, and takes the same branch), a compile
that failed (its frame ran as plain Python) and the file ``skip`` names (the cell's
own, which ``cell.watch`` covers from its source).
"""

from __future__ import annotations

import linecache
import os
import re
from dataclasses import dataclass
from typing import Any, Optional

from ..capturing import torch_door
from ..capturing.bytecode import instruction_rows
from ..capturing.model import Finding
from ..capturing.raw import RawEvent
from ..ipython_compat import cell_name

_ASKS = re.compile(r"\b(?:" + "|".join(torch_door.dynamo.IS_COMPILING_NAMES) + r")\b")
_LIBRARIES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


@dataclass(frozen=True)
class Site:
    """A line of traced user code that asks is_compiling(), in the compile that traced it first."""

    filename: str
    lineno: int
    function: str
    compile_id: Optional[str]

    @property
    def where(self) -> str:
        """``cell [3], line 4 (in foo)`` for a notebook cell, else ``file.py:4 (in foo)``."""
        cell = cell_name(self.filename)
        at = f"{cell}, line {self.lineno}" if cell else f"{os.path.basename(self.filename)}:{self.lineno}"
        return f"{at} (in {self.function})"

    @property
    def source(self) -> str:
        return linecache.getline(self.filename, self.lineno).strip()


class IsCompilingSites:
    """A subscriber to the structured trace (``capturing.recorder.listening``): ``sites`` fills as compiles end."""

    def __init__(self, namespace: dict, skip: Optional[str] = None) -> None:
        self._namespace = namespace  # where the user's own torch.compile wrappers are looked for
        self._skip = skip
        self._traced: dict[str, list[Any]] = {}  # compile id -> the code its latest record saw traced
        self.sites: dict[tuple[str, int], Site] = {}

    def on_event(self, event: RawEvent) -> None:
        cid = event.compile_id.key if event.compile_id is not None else None
        if cid is None:
            return
        metrics = event.metadata.get("compilation_metrics")
        if isinstance(metrics, dict):  # the compile ended
            codes = self._traced.pop(cid, [])
            if not metrics.get("fail_type"):
                self._scan(codes, cid)
            return
        codes = torch_door.dynamo.traced_code()
        if codes:
            self._traced[cid] = list(codes)  # a restarted attempt brings a new list: the last one is what ran

    def _scan(self, codes: list[Any], compile_id: str) -> None:
        user = [c for c in codes if _user_file(c.co_filename) and c.co_filename != self._skip]
        if not user:
            return
        compiled = torch_door.dynamo.compiled_codes(self._namespace)
        for code in user:
            if code in compiled:
                continue
            for line in lines_asking(code):
                self.sites.setdefault((code.co_filename, line), Site(code.co_filename, line, _function(code),
                                                                     compile_id))

    def cell_findings(self) -> list[Finding]:
        """For ``%%compile``: a plain run of the cell compiles nothing, so each site takes the other branch there."""
        return [Finding(f"{s.where}: `{s.source}` asks torch.compiler.is_compiling(). Compiling the cell, Dynamo "
                        f"traced {s.function} as part of it and folded the call to True (the FX graph keeps no trace "
                        f"of it), so the cell took the branch for compiled code; a plain run of the cell calls "
                        f"{s.function} uncompiled, where the call returns False, and takes the other branch (unless "
                        f"{s.function} runs inside a torch.compile of your own)", "graph", s.compile_id,
                        hint="%%compile --capture-only runs the cell as it is, compiling only what your own "
                             "torch.compile calls compile, as a plain run does")
                for s in self.sites.values()]

    def call_findings(self, fn: Any) -> list[Finding]:
        """For ``explore(fn)``: the compiled call takes the branch torch.compile(fn) takes; an eager call the other."""
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        return [Finding(f"{s.where}: `{s.source}` asks torch.compiler.is_compiling(). Dynamo folded the call to "
                        f"True while it traced {name} (the FX graph keeps no trace of it), so the compiled call took "
                        f"the branch for compiled code, as torch.compile({name}) always does; called without "
                        f"torch.compile, the call returns False there and takes the other branch", "graph",
                        s.compile_id)
                for s in self.sites.values()]


def lines_asking(code: Any) -> list[int]:
    """The lines of ``code`` (its own body, not nested functions') that load an is_compiling function."""
    return sorted({line for _, op, arg, line, _ in instruction_rows(code)
                   if line and op.startswith(("LOAD_", "IMPORT_FROM")) and _ASKS.search(arg)})


def _user_file(path: str) -> bool:
    if not path or path.startswith("<frozen") or any(lib in path for lib in _LIBRARIES):
        return False
    return not os.path.abspath(path).startswith(torch_door.version.torch_dir())


def _function(code: Any) -> str:
    """The function's name; a resume function Dynamo made after a graph break is named for the one it resumes."""
    resumed = torch_door.dynamo.resumed(code.co_name)
    return resumed[0] if resumed else getattr(code, "co_qualname", code.co_name)
