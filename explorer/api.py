"""Python entry points: ``capture()`` around any code, ``explore(fn, *args)`` for one call.

Both go through ``explorer.pipeline``, as the magic and the CLI do; this
module only turns keyword arguments into ``Options`` and the outcome into a
return value or the user's own exception.
"""

from __future__ import annotations

import os
from typing import Any, Callable, ContextManager, Optional, Sequence, Union

from . import pipeline
from .options import Options
from .report import Report


def capture() -> ContextManager[Report]:
    """Records every torch.compile compilation that happens inside the block.

    Caches that would skip lowering are off inside the block and restored after;
    the report (capture and clinic) is filled in when the block ends, also when
    the code raises.
    """
    return pipeline.capture()


def explore(fn: Callable[..., Any], *args: Any, backend: Any = "inductor", mode: Optional[str] = None,
            dynamic: Optional[bool] = None, fullgraph: bool = False, options: Optional[dict] = None,
            time: bool = False, timeit: bool = False, compare: Sequence[str] = (), target: Optional[str] = None,
            inductor_backend: Optional[str] = None, html: Optional[str] = None, json: Optional[str] = None,
            **kwargs: Any) -> Report:
    """Compiles ``fn``, calls it once with ``args``/``kwargs``, returns the report with ``.result``.

    Always a fresh compile: Dynamo's cached compilations of ``fn`` are dropped first
    (``fn`` compiles again at its next compiled call). ``time=True`` times each
    captured graph compiled vs eager on copies of its inputs (``report.timing``);
    ``timeit=True`` also re-runs the whole call; ``compare=("default",
    "max-autotune")`` compiles the graphs in each mode (``report.comparisons``).
    ``target="cuda"`` adds a preview of the wrapper and Triton kernels a CUDA GPU
    would get (``report.preview``; lowered in a child process, nothing run);
    ``inductor_backend="halide"`` makes Inductor generate Halide kernels.
    ``html=``/``json=`` also save the report there.

    If the call raises, the exception propagates unchanged, carrying the partial
    report as ``exc.explorer_report``.
    """
    backend_fn = None if isinstance(backend, str) else backend
    opts = Options(backend=backend if isinstance(backend, str) else "inductor", mode=mode, dynamic=dynamic,
                   fullgraph=fullgraph, inductor_options=dict(options or {}), time=time,
                   timeit=timeit, compare=tuple(compare), target=target, inductor_backend=inductor_backend,
                   html=html, json=json)
    outcome = pipeline.run(pipeline.CallTarget(fn, args, kwargs), opts, backend_fn=backend_fn)
    if outcome.error is not None:
        attach_report(outcome.error, outcome.report)
        raise outcome.error
    return outcome.report


def attach_report(exc: BaseException, report: Report) -> None:
    """The partial report travels with the exception; a note says where (Python 3.11+ shows notes)."""
    where = ""
    if report.capture is not None and report.capture.graph_breaks:
        _, brk = report.capture.graph_breaks[-1]
        where = f" ({brk.filename}:{brk.lineno}: {brk.reason})"
    try:
        exc.explorer_report = report  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        return  # an exception type without __dict__: it stays exactly as raised
    if hasattr(exc, "add_note"):
        exc.add_note(f"compile-explorer: the partial report is on this exception as .explorer_report{where}")


def show(report: Union[str, os.PathLike, Report], *, rank: Optional[int] = None) -> None:
    """Shows a saved report (a path to its JSON, or a Report): the explorer's view in a notebook, text elsewhere.

    In a Jupyter kernel the view is displayed (the widget, with its static HTML and text copies);
    in a terminal or a script the summary is printed. ``rank``: one rank of a merged multi-rank
    report (``python -m explorer run --nproc-per-node N``, ``python -m explorer merge``); the merged
    report's own view shows every rank compared, then its lowest rank, with a rank picker for the others.
    """
    if not isinstance(report, Report):
        report = Report.load(report)
    if rank is not None:
        report = report.rank(rank)
    from .ipython_compat import in_kernel

    if in_kernel():
        from IPython.display import display

        from .widget import ExplorerView

        display(ExplorerView(report))
    else:
        print(report.summary())
