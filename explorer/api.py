"""Python entry points: ``capture()`` around any code, ``explore(fn, *args)`` for one call.

Both go through ``explorer.pipeline``, as the magic and the CLI do; this
module only turns keyword arguments into ``Options`` and the outcome into a
return value or the user's own exception.
"""

from __future__ import annotations

import os
from typing import Any, Callable, ContextManager, Optional, Sequence, Union

from . import pipeline
from .options import REPEATS, TIME_BUDGET_S, Options
from .report import Report


def capture(*, warm: bool = False, export: bool = False, fresh: bool = False) -> ContextManager[Report]:
    """Records every torch.compile compilation that happens inside the block.

    Every stage is shown: a graph an earlier capture lowered comes from torch's
    graph caches, with its loop-level IR from the explorer's store (``fresh=True``:
    the graph caches off, every graph lowered again; ``warm=True``: every cache
    as it is, as a second run of the program would find it); ``export=True`` also
    records the programs ``torch.export.export`` makes. The report (capture and
    clinic) is filled in when the block ends, also when the code raises.
    """
    return pipeline.capture(Options(capture_only=True, warm=warm, export=export, fresh=fresh))


def explore(fn: Callable[..., Any], *args: Any, backend: Any = "inductor", mode: Optional[str] = None,
            dynamic: Optional[bool] = None, fullgraph: bool = False, options: Optional[dict] = None,
            time: bool = False, timeit: bool = False, compare: Sequence[str] = (), target: Optional[str] = None,
            inductor_backend: Optional[str] = None, html: Optional[str] = None, json: Optional[str] = None,
            warm: bool = False, guard_filter: Any = None, fresh: bool = False, repeats: int = REPEATS,
            time_budget_s: float = TIME_BUDGET_S, why_slow: bool = False, **kwargs: Any) -> Report:
    """Compiles ``fn``, calls it once with ``args``/``kwargs``, returns the report with ``.result``.

    Always a fresh compile: Dynamo's cached compilations of ``fn`` are dropped first
    (``fn`` compiles again at its next compiled call). ``time=True`` times each
    captured graph compiled vs eager on copies of its inputs (``report.timing``);
    ``timeit=True`` also re-runs the whole call; ``repeats=`` and ``time_budget_s=`` (seconds each repeat
    runs at least) measure again where the view said the machine was too noisy to tell; ``compare=("default",
    "max-autotune")`` compiles the graphs in each mode (``report.comparisons``).
    ``target="cuda"`` adds a preview of the wrapper and Triton kernels a CUDA GPU
    would get (``report.preview``; lowered in a child process, nothing run);
    ``inductor_backend="halide"`` makes Inductor generate Halide kernels.
    ``html=``/``json=`` also save the report there. ``warm=True`` compiles with the
    compile caches as they are (``report.capture.compilations[i].caches`` says what
    each cache did); ``fresh=True`` with the graph caches off, every graph lowered
    again (by default a graph an earlier capture lowered comes from torch's graph
    caches, its loop-level IR from the explorer's store). ``guard_filter=`` (a ``guard_filter_fn``, or the name
    of one of torch.compiler's, also accepted as ``options={"guard_filter_fn": f}``)
    compiles with it and lists the guards it kept and dropped. ``why_slow=True`` says where the call's time
    went (``report.why_slow``: the measured parts, the costliest phases of the compile, the cache misses), first in
    the summary.

    If the call raises, the exception propagates unchanged, carrying the partial
    report as ``exc.explorer_report``.
    """
    backend_fn = None if isinstance(backend, str) else backend
    inductor_options = dict(options or {})
    guard_filter = inductor_options.pop("guard_filter_fn", guard_filter)
    filter_fn = None if guard_filter is None or isinstance(guard_filter, str) else guard_filter
    filter_name = guard_filter if isinstance(guard_filter, str) else getattr(filter_fn, "__name__", None)
    opts = Options(backend=backend if isinstance(backend, str) else "inductor", mode=mode, dynamic=dynamic,
                   fullgraph=fullgraph, inductor_options=inductor_options, time=time,
                   timeit=timeit, compare=tuple(compare), target=target, inductor_backend=inductor_backend,
                   html=html, json=json, warm=warm, guard_filter=filter_name, fresh=fresh, repeats=repeats,
                   time_budget_s=time_budget_s, why_slow=why_slow)
    outcome = pipeline.run(pipeline.CallTarget(fn, args, kwargs), opts, backend_fn=backend_fn,
                           guard_filter_fn=filter_fn)
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


def explore_export(model: Any, args: Sequence[Any], kwargs: Optional[dict] = None, *, dynamic_shapes: Any = None,
                   strict: bool = False, aoti: bool = True, package_path: Optional[str] = None, warm: bool = False,
                   html: Optional[str] = None, json: Optional[str] = None) -> Report:
    """``torch.export.export(model, args)`` and AOTInductor's compile of the program, captured.

    ``report.capture.exports[0]`` is the exported program (graph, input specs,
    range constraints, the decompositions AOTInductor applied, the package's
    files); its ``compile_id`` names the AOTInductor compilation (``aoti/0``:
    post-grad graph, loop IR, the C++ wrapper and kernels, linked to user
    lines like any compilation). ``report.result`` is the package run on
    ``args``. ``aoti=False`` stops after export. The package is written to
    ``package_path`` (kept) or to a temporary file (removed).
    If export or the compile raises, the exception propagates with the partial report.
    """
    opts = Options(capture_only=True, export=True, warm=warm, html=html, json=json)
    target = pipeline.ExportTarget(model, tuple(args), kwargs, dynamic_shapes, strict, aoti, package_path)
    outcome = pipeline.run(target, opts)
    if outcome.error is not None:
        attach_report(outcome.error, outcome.report)
        raise outcome.error
    return outcome.report


def show(report: Union[str, os.PathLike, Report], *, rank: Optional[int] = None) -> None:
    """Shows a report (a Report, or a path to its saved JSON): the interactive view in a notebook, text elsewhere.

    In Jupyter (JupyterLab, Notebook 7, VS Code, Colab) and marimo the view is displayed in the running cell's
    output (the widget, with its static HTML and text copies); in a terminal or a script the summary is printed.
    ``rank``: one rank of a merged multi-rank report (``python -m explorer run --nproc-per-node N``,
    ``python -m explorer merge``); the merged report's own view shows every rank compared, then its lowest rank,
    with a rank picker for the others.
    """
    if not isinstance(report, Report):
        report = Report.load(report)
    if rank is not None:
        report = report.rank(rank)
    from . import hosts

    if not (hosts.widgets_live() and hosts.display(report._notebook_view())):
        print(report.summary())
