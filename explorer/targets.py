"""What the explorer runs: one call of a function, a notebook cell, or a whole script.

Each target knows how to run itself once under the capture and what its
"plain" and "compiled" calls are (for ``--timeit``); ``explorer.pipeline``
does everything else the same way for all three. A target never decides what
to show: the entry points display the outcome.
"""

from __future__ import annotations

import io
import os
import runpy
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Optional

from .capturing.model import Finding


@dataclass
class RunResult:
    """How one run of a target ended: its value or its exception, and what torch.compile did differently."""

    value: Any = None
    error: Optional[BaseException] = None
    findings: tuple[Finding, ...] = ()


@dataclass
class CallTarget:
    """``explore(fn, *args, **kwargs)``: compile ``fn`` afresh, call it once."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    entry: str = "explore"

    def prepare(self) -> None:
        """Dynamo reuses cached compilations whose guards pass: forget them so this one compiles."""
        from .capturing.torch_door.dynamo_cache import forget_compilations

        forget_compilations(self.fn)

    @property
    def function(self) -> Callable[..., Any]:
        return self.fn

    def run(self, compiled: Callable[..., Any]) -> RunResult:
        from .capturing.recorder import TRACE, listening
        from .cell.is_compiling import IsCompilingSites

        asking = IsCompilingSites(_globals_of(self.fn))  # a line asking is_compiling(): eager takes the other branch
        try:
            with listening(asking.on_event, seams=(TRACE,)):
                value = compiled(*self.args, **self.kwargs)
        except BaseException as e:  # noqa: BLE001 - handed to the entry point, which re-raises it unchanged
            return RunResult(error=e, findings=tuple(asking.call_findings(self.fn)))
        return RunResult(value=value, findings=tuple(asking.call_findings(self.fn)))

    def timeit_calls(self, compiled: Callable[..., Any]) -> tuple[Callable[[], Any], Callable[[], Any]]:
        return (lambda: self.fn(*self.args, **self.kwargs)), (lambda: compiled(*self.args, **self.kwargs))

    def end_to_end_call(self, compiled: Callable[..., Any]) -> Any:
        """The call as the user made it, for end-to-end timing (``timing.end_to_end``)."""
        from .timing.end_to_end import call_of

        return call_of(self.fn, compiled, self.args, self.kwargs, label="the explored call")


def _globals_of(fn: Any) -> dict:
    """The module namespace ``fn``'s code reads (a module's: its class's ``forward``'s); {} when none is found."""
    for f in (fn, getattr(type(fn), "forward", None)):
        namespace = getattr(f, "__globals__", None)
        if isinstance(namespace, dict):
            return namespace
    return {}


@dataclass
class CellTarget:
    """``%%compile``: the cell's own code as one function (``explorer.cell``), run once by ``run_cell``.

    ``run_cell`` makes the cell end as a plain run would (names, exceptions,
    tracebacks); what torch.compile did differently comes back as findings.
    """

    cell_fn: Any  # cell.CellFunction
    fullgraph: bool = False
    entry: str = "magic"
    interrupted_at: Optional[tuple[str, int, str]] = None  # where Dynamo was compiling when Ctrl-C came
    place: Optional[str] = None  # the cell's id in its notebook (hosts.cell_id): "the same lines" across edits

    @property
    def places(self) -> dict[str, str]:
        """The cell's file by the name that outlives its edits (IPython names the file by a digest of the text):
        what a cache miss is compared with (``capturing.cache_keys.identity``)."""
        return {self.cell_fn.filename: f"notebook cell {self.place}"} if self.place else {}

    def prepare(self) -> None:
        return None

    @property
    def function(self) -> Callable[..., Any]:
        return self.cell_fn.fn

    def run(self, compiled: Callable[..., Any]) -> RunResult:
        from .cell import run_cell

        run = run_cell(self.cell_fn, compiled, fullgraph=self.fullgraph)
        self.interrupted_at = run.interrupted_at
        return RunResult(value=run.value, error=run.error, findings=run.findings)

    def timeit_calls(self, compiled: Callable[..., Any]) -> tuple[Callable[[], Any], Callable[[], Any]]:
        def quiet(fn: Callable[[], Any]) -> Callable[[], Any]:  # the cell's prints would repeat per loop
            def run() -> Any:
                with redirect_stdout(io.StringIO()):
                    return fn()
            return run

        return quiet(self.cell_fn.fn), quiet(compiled)

    def end_to_end_call(self, compiled: Callable[..., Any]) -> Any:
        """The cell as one call: no arguments, its names read from the notebook (which stays untouched)."""
        from .cell import rerun
        from .timing.end_to_end import Call

        fn = self.cell_fn.fn
        return Call(label="the cell", eager=fn, compiled=compiled, code=fn.__code__,
                    frame_locals=lambda args, kwargs: {}, around=lambda: rerun(self.cell_fn))

    def timeit_scope(self) -> ContextManager[None]:
        """Around all the --timeit loops at once: the cell's names and clean-up, as for its run."""
        from .cell import rerun

        return rerun(self.cell_fn)


@dataclass
class ScriptTarget:
    """``python -m explorer run SCRIPT ARGS``: the script runs as ``python SCRIPT ARGS`` would.

    Same ``sys.argv``, ``__name__ == "__main__"``, its folder first on
    ``sys.path`` (both restored afterwards). Nothing is compiled by the explorer:
    the script's own torch.compile calls are captured. ``value`` is the exit
    code a ``sys.exit()`` asked for (0 for a normal end).
    """

    path: str
    argv: tuple[str, ...] = ()
    entry: str = "cli"

    def prepare(self) -> None:
        return None

    function = None  # nothing of ours to compile

    def run(self, compiled: Any = None) -> RunResult:
        saved_argv, saved_path = sys.argv, list(sys.path)
        sys.argv = [self.path, *self.argv]
        sys.path.insert(0, os.path.dirname(os.path.abspath(self.path)))
        try:
            runpy.run_path(self.path, run_name="__main__")
            return RunResult(value=0)
        except SystemExit as e:
            if e.code in (None, 0):
                return RunResult(value=0)  # a normal end: the report shows no error
            return RunResult(value=e.code, error=e)
        except BaseException as e:  # noqa: BLE001 - the CLI prints it as python would, exits 1 (130 for Ctrl-C)
            return RunResult(error=e)
        finally:
            sys.argv = saved_argv
            sys.path[:] = saved_path

    def timeit_calls(self, compiled: Any) -> None:
        return None

    def end_to_end_call(self, compiled: Any) -> None:
        return None  # the script's own calls cannot be repeated from outside


@dataclass
class ExportTarget:
    """``explore_export(model, args)``: ``torch.export.export`` the model, then (``aoti``) AOTInductor's
    compile of the program into a package, loaded and run once on ``args``: the run's value.

    Nothing is compiled with torch.compile: the capture sees export's program and AOTInductor's
    lowering (``capturing.outside``). ``annotate`` adds what only this target knows: the package's
    files and the model's own frame.
    """

    model: Any
    args: tuple[Any, ...] = ()
    kwargs: Optional[dict[str, Any]] = None
    dynamic_shapes: Any = None
    strict: bool = False
    aoti: bool = True
    package_path: Optional[str] = None
    entry: str = "explore"
    _package: Optional[str] = None
    _temp_dir: Optional[str] = None

    def prepare(self) -> None:
        return None

    function = None  # the explorer compiles nothing with torch.compile here

    def run(self, compiled: Any = None) -> RunResult:
        from .capturing import torch_door

        try:
            program = torch_door.export.export_program(self.model, self.args, self.kwargs, self.dynamic_shapes,
                                                  self.strict)
            if not self.aoti:
                return RunResult(value=torch_door.export.exported_module(program)(*self.args, **(self.kwargs or {})))
            path = self.package_path or self._temp_package()
            self._package = torch_door.export.aoti_package(program, path)
            runner = torch_door.export.aoti_load(self._package)
            return RunResult(value=runner(*self.args, **(self.kwargs or {})))
        except BaseException as e:  # noqa: BLE001 - handed to the entry point, which re-raises it unchanged
            return RunResult(error=e)

    def _temp_package(self) -> str:
        import tempfile

        self._temp_dir = tempfile.mkdtemp(prefix="explorer-aoti-")
        return os.path.join(self._temp_dir, "model.pt2")

    def annotate(self, data: Any) -> Any:
        """The package's files and sizes, its kernel_information.json, the model's frame (a temporary
        package is removed after)."""
        from .capturing.export_package import with_package

        try:
            return with_package(data, self._package, self.model, kept=self._temp_dir is None)
        finally:
            if self._temp_dir is not None:
                import shutil

                shutil.rmtree(self._temp_dir, ignore_errors=True)

    def timeit_calls(self, compiled: Any) -> None:
        return None

    def end_to_end_call(self, compiled: Any) -> None:
        return None
