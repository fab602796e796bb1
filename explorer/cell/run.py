"""Running the cell once so that it ends as a plain run of it would (``run_cell``, ``rerun``)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

from ..capturing.model import Finding
from ..capturing.recorder import CALLBACKS, RESET, TRACE, listening
from .function import TORCH_MARKER, CellFunction
from .is_compiling import IsCompilingSites
from .watch import Watch, reset_finding


@dataclass(frozen=True)
class CellRun:
    """The outcome of one run of the cell: what a plain run would have given, plus findings."""

    value: Any  # the cell's last expression (None when it has none, or it raised)
    error: Optional[BaseException]  # the exception a plain run raises, unchanged; None if none
    findings: tuple[Finding, ...] = ()
    returns_value: bool = False  # whether `value` is the cell's displayed value
    # (filename, lineno, frame name) of the cell code Dynamo was compiling when Ctrl-C came
    interrupted_at: Optional[tuple[str, int, str]] = None


def run_cell(cell: CellFunction, compiled: Callable[[], Any], *, fullgraph: bool = False) -> CellRun:
    """Calls ``compiled`` (``torch.compile(cell.fn, ...)``) once so that the cell ends as a plain run.

    Around the call, all undone in ``finally`` (also on KeyboardInterrupt):

    * ``torch._dynamo.config.suppress_errors`` is on: a frame whose compile raises
      (a shape error or ``tensor + "x"`` seen while tracing, a deep recursion) runs
      as the plain Python it is, so the cell raises the real exception from its own
      line after binding what came before, and its own ``try/except`` catches it.
      Dynamo's warning for such a frame stays off stderr and becomes a finding.
      Not with ``fullgraph`` (which must fail), nor when the user set
      ``fail_on_recompile_limit_hit`` (torch refuses both at once).
    * ``rewrite_assert_with_torch_assert`` is off: a failing ``assert`` on tensor
      data is an AssertionError from its line, not a RuntimeError from a kernel.
    * Names the cell binds later get a placeholder only while Dynamo compiles
      (``NameWindows``); no user code ever sees one.
    * Afterwards the compilations made for the cell are dropped (they cannot run
      again: the cell's code object is new each run), and with them every helper
      global Dynamo put in the namespace.
    """
    findings: list[Finding] = []
    if compiled is cell.fn or cell.plain_reason:  # --capture-only, or a cell torch.compile cannot compile
        if compiled is not cell.fn:
            findings.append(Finding(f"the cell ran as plain Python, not compiled: {cell.plain_reason}. "
                                    "What its own torch.compile calls compiled is shown"))
        value, error = _run_plainly(cell, findings)
        return CellRun(value=value if error is None else None, error=error, findings=tuple(_unique(findings)),
                       returns_value=cell.returns_value)
    value: Any = None
    error: Optional[BaseException] = None
    watch = Watch(cell, findings)
    asking = IsCompilingSites(cell.namespace, skip=cell.filename)  # functions the cell calls: is_compiling()
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(_recursion_headroom())
            watch.user_suppresses = _user_suppresses()
            watch.suppressing = stack.enter_context(_cell_config(fullgraph, findings))
            stack.enter_context(watch)
            stack.enter_context(listening(asking.on_event, seams=(TRACE,)))
            stack.enter_context(_module_state(cell))
            try:
                value = compiled()
            except BaseException as e:  # noqa: BLE001 - handed back in CellRun.error, the caller re-raises it
                error = e
        if error is not None and watch.refused(error):
            # Dynamo refused the cell's own frame before any of it ran: run it as plain Python, with the
            # user's own config (their torch.compile calls behave as in a plain run)
            findings.append(watch.refusal_finding(error))
            value, error = _run_plainly(cell, findings)
    finally:
        watch.forget_compilations()
    findings.extend(watch.conclude(error, fullgraph))
    findings.extend(asking.cell_findings())
    return CellRun(value=value if error is None else None, error=error, findings=tuple(_unique(findings)),
                   returns_value=cell.returns_value, interrupted_at=watch.interrupted_at(error))


def _run_plainly(cell: CellFunction, findings: list[Finding]) -> tuple[Any, Optional[BaseException]]:
    """The cell as plain Python: Dynamo off for its frame and all it calls (the user's own compiled
    functions still compile, as in a plain run); the config is the user's."""
    from ..capturing import torch_door

    resets: list[Any] = []
    value: Any = None
    error: Optional[BaseException] = None
    with listening(resets.append, seams=(CALLBACKS,), keep=(RESET,)) as listen:
        with _recursion_headroom(), _module_state(cell):
            try:
                value = torch_door.dynamo.not_traced(cell.fn)()
            except BaseException as e:  # noqa: BLE001 - handed back in CellRun.error, the caller re-raises it
                error = e
        listen.poll_reset()
    if resets:
        findings.append(reset_finding())
    return value, error


def _user_suppresses() -> bool:
    """The user's own ``torch._dynamo.config.suppress_errors`` (torch.compile then falls back to eager)."""
    from ..capturing import torch_door

    return bool(torch_door.config.dynamo_config_value("suppress_errors"))


@contextlib.contextmanager
def _recursion_headroom() -> Iterator[None]:
    """The recursion limit, raised by the frames the magic itself stands on, for the cell's run.

    A plain cell runs in the ``<module>`` frame IPython executes; under the magic the
    cell runs a dozen frames deeper (IPython's magic call, the magic, ``run_cell``,
    torch.compile's wrapper). Inductor lowers a long chain of pointwise ops by
    recursion, one frame per op (``lowering.py: inner_fn``): a 10,000-op cell that
    just fits under the limit plainly raised ``RecursionError`` under the magic. With
    the headroom the cell's own code has the depth a plain run gives it.
    """
    import sys

    depth, frame = 0, sys._getframe()
    while frame is not None and frame.f_code.co_name != "<module>":
        depth, frame = depth + 1, frame.f_back
    if frame is None:  # not called from a cell (e.g. a script's function): nothing to make up for
        yield
        return
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(before + depth + _TORCH_COMPILE_WRAPPER_FRAMES)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == before + depth + _TORCH_COMPILE_WRAPPER_FRAMES:
            sys.setrecursionlimit(before)  # else someone (Inductor raises it to 2000) set it on purpose: kept


_TORCH_COMPILE_WRAPPER_FRAMES = 4  # the compiled function's call, counted with a margin


@contextlib.contextmanager
def rerun(cell: CellFunction) -> Iterator[None]:
    """For running the cell again (``--timeit``): the same names and clean-up as ``run_cell``."""
    watch = Watch(cell, [])
    try:
        with _cell_config(False, []) as watch.suppressing, watch, _module_state(cell):
            yield
    finally:
        watch.forget_compilations()


def _unique(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        if f.message not in seen:
            seen.add(f.message)
            out.append(f)
    return out


@contextlib.contextmanager
def _cell_config(fullgraph: bool, findings: list[Finding]) -> Iterator[bool]:
    """The config for the cell's run; yields whether compile errors are suppressed."""
    from ..capturing import torch_door

    values: dict[str, Any] = {}
    if not fullgraph:
        # an assert stays Python: a graph break where it reads tensor data (see Watch)
        values["rewrite_assert_with_torch_assert"] = False
        if torch_door.config.dynamo_config_value("fail_on_recompile_limit_hit"):
            findings.append(Finding("torch._dynamo.config.fail_on_recompile_limit_hit is set, so "
                                    "errors while compiling are not turned into plain runs of the frame "
                                    "(torch allows only one of the two)"))
        else:
            values["suppress_errors"] = True
    with torch_door.config.dynamo_config(values):
        yield bool(values.get("suppress_errors"))


@contextlib.contextmanager
def _module_state(cell: CellFunction) -> Iterator[None]:
    """What module code has that the function needs: the torch marker, ``__annotations__``."""
    import torch

    ns = cell.namespace
    added = []
    if TORCH_MARKER not in ns:
        ns[TORCH_MARKER] = torch
        added.append(TORCH_MARKER)
    if cell.annotates and "__annotations__" not in ns:
        ns["__annotations__"] = {}  # module code creates it before the first statement, and keeps it
    try:
        yield
    finally:
        for name in added:
            if ns.get(name) is torch:
                del ns[name]
