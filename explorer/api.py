"""Python entry points: ``capture()`` around any code, ``explore(fn, *args)`` for one call."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, Callable, Iterator, Optional

from .capturing.model import CaptureData, GraphBreak
from .capturing.session import CaptureSession
from .report import Report


@contextlib.contextmanager
def capture() -> Iterator[Report]:
    """Records every torch.compile compilation that happens inside the block.

    Caches that would skip lowering are off inside the block and restored after;
    the report is filled in when the block ends, also when the code raises.
    """
    report = Report()
    session = CaptureSession()
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: setattr(report, "data", session.data))
        stack.enter_context(session)
        yield report


def explore(fn: Callable[..., Any], *args: Any, backend: Any = "inductor", mode: Optional[str] = None,
            dynamic: Optional[bool] = None, fullgraph: bool = False, options: Optional[dict] = None,
            time: bool = False, **kwargs: Any) -> Report:
    """Compiles ``fn``, calls it once with ``args``/``kwargs``, returns the report with ``.result``.

    Always a fresh compile: Dynamo's cached compilations of ``fn`` are dropped first
    (``fn`` compiles again at its next compiled call).

    If the call raises, the exception propagates unchanged, carrying the partial
    report as ``exc.explorer_report``. ``time=True`` then times each captured graph
    compiled vs eager on copies of its inputs (``report.timing``).
    """
    import torch

    from .capturing.torch_compat import forget_compilations

    forget_compilations(fn)
    recorder = None
    if time:
        from .timing import GraphRecorder

        recorder = GraphRecorder(backend, mode=mode, options=options, dynamic=dynamic, kernel_profile=True)
        compiled = torch.compile(fn, backend=recorder, dynamic=dynamic, fullgraph=fullgraph)
    else:
        compiled = torch.compile(fn, backend=backend, mode=mode, dynamic=dynamic, fullgraph=fullgraph,
                                 options=options)
    report = Report()
    try:
        with capture() as report:
            report.result = compiled(*args, **kwargs)
    except BaseException as e:
        _explain_failure(e, report)
        raise
    if recorder is not None:
        from .timing import time_capture

        report.timing = time_capture(recorder, report.data)
    return report


def _explain_failure(exc: BaseException, report: Report) -> None:
    """Puts a fullgraph failure into the report as a graph break, and the report on the exception."""
    from .clinic import explain_exception

    brk = explain_exception(exc)
    if brk is not None and report.data is not None:
        report.data = with_failure_break(report.data, brk)
    try:
        exc.explorer_report = report  # type: ignore[attr-defined]
        if hasattr(exc, "add_note"):
            where = f" ({brk.filename}:{brk.lineno}: {brk.reason})" if brk is not None else ""
            exc.add_note(f"compile-explorer: the partial report is on this exception as .explorer_report{where}")
    except Exception:  # noqa: BLE001 - some exception types refuse attributes
        pass


def with_failure_break(data: CaptureData, brk: GraphBreak) -> CaptureData:
    """The failed compilation (the last one without a break) gets the break that failed it."""
    comps = list(data.compilations)
    for i in range(len(comps) - 1, -1, -1):
        if comps[i].status == "failed" and comps[i].graph_break is None:
            comps[i] = dataclasses.replace(comps[i], graph_break=brk)
            return dataclasses.replace(data, compilations=tuple(comps))
    return data
