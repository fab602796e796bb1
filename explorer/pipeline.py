"""One path from code to report, behind ``explore()``, ``%%compile`` and ``python -m explorer run``.

    compile (unless capture-only) -> capture while the target runs -> ``STEPS`` -> outputs -> Report

``run`` compiles and runs the target under a capture, then hands a ``RunContext``
to ``finish``, which runs ``STEPS``: an ordered table whose rows complete the
capture (the exception, export package, kernel details, why stages are empty),
then the analyses (findings, clinic, lineage), then timing, comparisons, what the
GPU watch saw and the preview. A row says what it writes and what it reads: the
capture is complete before anything reads it, and no row rewrites what an earlier
row read (``tests/test_pipeline.py`` checks the table). The report's parts are set
once, from the context, when the table is done; then the outputs are written.

The entry points parse their own arguments into ``Options``, call ``run``,
and display the ``Outcome``; everything one of them can do the others can
(where it makes sense), under the same names. Each step that fails becomes a
``Problem`` in the report, shown in every output: the user's own result or
exception is never replaced by ours. A new step is one row of ``STEPS``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Iterator, Optional, Protocol

from .capturing.gpu_watch import GpuWatch
from .capturing.model import CaptureData, Finding, Problem
from .capturing.session import CaptureSession
from .capturing.triton_asm import with_kernel_details
from .clinic.slow import answer as slow_answer
from .hosts import cell_name
from .lineage import lineage_of
from .options import Options
from .report import Clinic, Report, StepTime
from .roomy_stack import call_on_roomy_stack
from .stages import with_missing
from .structure import structure_of
from .targets import CallTarget, CellTarget, ExportTarget, RunResult, ScriptTarget

__all__ = ["STEPS", "CallTarget", "CellTarget", "ExportTarget", "Outcome", "RunContext", "ScriptTarget", "Step",
           "capture", "finish", "run", "write_outputs"]


class Stages(Protocol):
    """What shows progress (the magic's status line): told the explorer's own steps."""

    def set_stage(self, stage: str) -> None: ...


@dataclass
class Outcome:
    report: Report
    value: Any = None
    error: Optional[BaseException] = None


@dataclass
class RunContext:
    """What the steps after the capture share: what the run left, and the report's parts as steps make them.

    ``parts`` holds each part under the report attribute it becomes (``capture``,
    ``clinic``, ``timing``, ...); ``finish`` sets them on the report once, at the end.
    """

    options: Options
    capture: Optional[CaptureData]
    error: Optional[BaseException] = None  # the target's own exception (never replaced by ours)
    findings: tuple[Finding, ...] = ()  # what the target saw torch.compile do differently (a cell's run)
    target: Any = None  # what only the target knows (an export's package: ``annotate``)
    recorder: Any = None  # timing.GraphRecorder, when the backend was wrapped
    repros: Optional[list] = None  # a script's torch repro artifacts, when timing or previewing one
    progress: Optional[Stages] = None
    calls: Optional[tuple[Callable[[], Any], Callable[[], Any]]] = None  # --timeit: eager and compiled call
    calls_scope: Callable[[], ContextManager[Any]] = contextlib.nullcontext
    end_to_end: Any = None  # timing.end_to_end.Call
    first_call_s: Optional[float] = None
    watch: Optional[GpuWatch] = None  # open around the run and the timing
    problems: tuple[Problem, ...] = ()
    parts: dict[str, Any] = field(default_factory=dict)
    live: bool = True  # the compiled program ran in this process (False: a trace read from a file)
    step_times: list[StepTime] = field(default_factory=list)  # the steps so far, each timed

    @property
    def data(self) -> CaptureData:
        """The capture as the steps so far made it."""
        return self.parts["capture"]

    def with_problem(self, where: str, error: BaseException | str) -> None:
        self.problems = self.problems + (Problem.of(where, error),)


# what a row reads or writes: a report part, or a field of the capture ("capture.compilations")
CAPTURE = "capture"
COMPILATIONS, ERROR, PROBLEMS = "capture.compilations", "capture.error", "capture.problems"
GPU = ("capture.autotuning", "capture.cudagraphs")


@dataclass(frozen=True)
class Step:
    """One row of the pipeline: ``run(ctx)`` makes the report's part ``part``, when ``when(ctx)``.

    A failure (or Ctrl-C) is a problem named ``name``, and the part is ``fallback``
    (the capture as it was). ``reads`` and ``writes`` list what the step reads and
    changes (``writes``: the whole part unless it names fields of it); ``progress``
    is what the status line says while it runs, if anything.
    """

    name: str
    part: str
    run: Callable[[RunContext], Any]
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    when: Callable[[RunContext], bool] = lambda ctx: True
    fallback: Callable[[RunContext], Any] = lambda ctx: ctx.parts.get("capture")
    progress: Optional[Callable[[RunContext], str]] = None

    @property
    def written(self) -> tuple[str, ...]:
        return self.writes or (self.part,)


def _timed(ctx: RunContext) -> bool:
    return ctx.error is None and ctx.options.time and (ctx.recorder is not None or ctx.repros is not None)


STEPS: tuple[Step, ...] = (
    # complete the capture: nothing reads it before the last of these
    Step("export package", CAPTURE, lambda ctx: ctx.target.annotate(ctx.data),
         when=lambda ctx: hasattr(ctx.target, "annotate")),
    Step("reading the exception", CAPTURE, lambda ctx: _with_error(ctx.data, ctx.error),
         when=lambda ctx: ctx.error is not None),
    Step("kernel details", CAPTURE, lambda ctx: with_kernel_details(ctx.data, live=ctx.live)),
    Step("why stages are empty", CAPTURE, lambda ctx: _explained(ctx.data)),
    # analyses
    Step("findings", "findings", lambda ctx: _named(ctx.findings, ctx.data), reads=(COMPILATIONS,),
         fallback=lambda ctx: ctx.findings),
    Step("clinic", "clinic", lambda ctx: Clinic.of(ctx.data, cell_name), reads=(COMPILATIONS, ERROR),
         fallback=lambda ctx: Clinic()),
    Step("lineage", "lineage", lambda ctx: lineage_of(ctx.data), reads=(COMPILATIONS,), fallback=lambda ctx: ()),
    Step("modules and repeats", "structure", lambda ctx: structure_of(ctx.data), reads=(COMPILATIONS,),
         fallback=lambda ctx: ()),
    # timing
    Step("timing", "timing", lambda ctx: _time(ctx), reads=(COMPILATIONS, PROBLEMS), when=_timed,
         fallback=lambda ctx: None, progress=lambda ctx: "timing eager vs compiled"),
    # comparisons
    Step("compare", "comparisons", lambda ctx: _compare(ctx.recorder, ctx.options),
         when=lambda ctx: ctx.error is None and ctx.recorder is not None and bool(ctx.options.compare),
         fallback=lambda ctx: (), progress=lambda ctx: f"comparing modes: {', '.join(ctx.options.compare)}"),
    # after the timing: CUDA-graph re-recordings made while timing are counted; only its own fields of the capture
    Step("autotuning and CUDA graphs", CAPTURE, lambda ctx: ctx.watch.apply(ctx.data) if ctx.watch else ctx.data,
         writes=GPU, when=lambda ctx: ctx.watch is not None),
    Step("preview", "preview", lambda ctx: _preview(ctx.recorder, ctx.repros, ctx.options),
         when=lambda ctx: ctx.options.target is not None and (ctx.recorder is not None or ctx.repros is not None),
         fallback=lambda ctx: None,
         progress=lambda ctx: f"previewing for {ctx.options.target} (a child process)"),
    # last: the time of every step before it is known
    Step("why slow", "why_slow", lambda ctx: slow_answer(ctx.data, sum(t.seconds for t in ctx.step_times)),
         reads=(COMPILATIONS,), when=lambda ctx: ctx.options.why_slow, fallback=lambda ctx: None),
)


def run(target: Any, options: Options, *, backend_fn: Optional[Callable[..., Any]] = None,
        progress: Optional[Stages] = None, guard_filter_fn: Optional[Callable[..., Any]] = None) -> Outcome:
    """Runs ``target`` once under capture with ``options``; never raises the target's exception.

    Errors of the setup itself (an unknown backend, a mode the backend does not
    take, a missing halide package) are raised before anything runs, as
    ``torch.compile`` raises them. ``guard_filter_fn`` (named in ``options.guard_filter``)
    is compiled with, and its decisions recorded (``capturing.guard_filter``).
    """
    _check_setup(options)
    target.prepare()
    filters = _guard_filter(options, guard_filter_fn)
    compiled, recorder = _compiled(target, options, backend_fn, filters)
    report = Report(entry=target.entry, options=_recorded(options, backend_fn))
    watch = GpuWatch(cudagraphs_asked=options.mode == "reduce-overhead")
    with watch:  # also around the timing: CUDA-graph re-recordings there are counted
        with _timing_source(target, options) as repros, _script_backend(target, options):
            session = CaptureSession(warm=options.warm, export=options.export, fresh=options.fresh,
                                     places=getattr(target, "places", None))
            with session:
                t0 = time.perf_counter()
                # on a roomy frame stack: how deep the entry point starts must not slow the compile (see roomy_stack)
                result: RunResult = call_on_roomy_stack(target.run, compiled)
                first_call_s = time.perf_counter() - t0
        report.result = result.value
        ctx = RunContext(
            options, session.data if filters is None else filters.apply(session.data), error=result.error,
            findings=tuple(result.findings), target=target, recorder=recorder, repros=repros, progress=progress,
            calls=target.timeit_calls(compiled) if options.timeit and compiled is not None else None,
            calls_scope=getattr(target, "timeit_scope", contextlib.nullcontext),
            end_to_end=target.end_to_end_call(compiled) if options.time and compiled is not None else None,
            first_call_s=first_call_s, watch=watch)
        finish(report, ctx)
    return Outcome(report, result.value, result.error)


@contextlib.contextmanager
def capture(options: Optional[Options] = None) -> Iterator[Report]:
    """``explorer.capture()``: every torch.compile call inside the block, whatever compiles it."""
    options = options or Options(capture_only=True)
    report = Report(entry="capture", options=options)
    session = CaptureSession(warm=options.warm, export=options.export, fresh=options.fresh)
    error: Optional[BaseException] = None
    try:
        with session:
            yield report
    except BaseException as e:
        error = e
        raise
    finally:
        finish(report, RunContext(options, session.data, error=error))


def finish(report: Report, ctx: RunContext) -> Report:
    """Everything after the capture, for every entry point: ``STEPS`` in order, the report's parts set once, then
    the outputs written."""
    if ctx.capture is None:
        return report.freeze()
    ctx.parts["capture"] = ctx.capture
    ctx.problems = report.problems
    for step in STEPS:
        if not step.when(ctx):
            continue
        if ctx.progress is not None and step.progress is not None:
            ctx.progress.set_stage(step.progress(ctx))
        t0 = time.perf_counter()
        ctx.parts[step.part] = _step(ctx, step)
        ctx.step_times.append(StepTime(step.name, round(time.perf_counter() - t0, 6)))
    ctx.parts["step_times"] = tuple(ctx.step_times)
    for name, value in ctx.parts.items():
        setattr(report, name, value)
    report.problems = ctx.problems
    write_outputs(report, ctx.options)
    return report.freeze()


# ---- steps ----

def _compiled(target: Any, options: Options, backend_fn: Optional[Callable[..., Any]],
              filters: Any = None) -> tuple[Any, Any]:
    """The target's function under torch.compile with ``options``, and the timing recorder if timing.

    With timing on, the backend is wrapped in ``timing.GraphRecorder`` (the
    backend-wrapping seam): it keeps each graph and private copies of its
    inputs, so graphs can be timed afterwards without touching the user's tensors.
    A guard filter goes in ``options=`` (torch.compile takes it from there for any backend).
    """
    fn = target.function
    if fn is None or options.capture_only:
        return fn, None
    import torch

    backend = backend_fn if backend_fn is not None else options.backend
    guard_filter = {"guard_filter_fn": filters.filter} if filters is not None else {}
    if options.time or options.compare or options.target:
        from .timing import GraphRecorder

        inductor_options = options.all_inductor_options() if backend == "inductor" else options.inductor_options
        recorder = GraphRecorder(backend, mode=options.mode, options=inductor_options or None,
                                 dynamic=options.dynamic, kernel_profile=True)
        return torch.compile(fn, backend=recorder, dynamic=options.dynamic, fullgraph=options.fullgraph,
                             **({"options": guard_filter} if guard_filter else {})), recorder
    kwargs = options.compile_kwargs()
    kwargs["backend"] = backend
    if guard_filter:
        kwargs["options"] = {**kwargs.get("options", {}), **guard_filter}
    return torch.compile(fn, **kwargs), None


def _guard_filter(options: Options, fn: Optional[Callable[..., Any]]) -> Any:
    """The recorder of the guard filter asked for (a callable given, or one of torch.compiler's by name)."""
    if options.guard_filter is None and fn is None:
        return None
    from .capturing.guard_filter import GuardFilterRecorder
    from .capturing.torch_door.dynamo_cache import guard_filter_by_name

    if fn is None:
        fn = guard_filter_by_name(options.guard_filter or "")
        if fn is None:
            raise ValueError(f"guard filter {options.guard_filter!r}: not a function of the notebook nor one of "
                             f"torch.compiler's guard filters (e.g. skip_guard_on_inbuilt_nn_modules_unsafe)")
    return GuardFilterRecorder(fn, options.guard_filter)


def _recorded(options: Options, backend_fn: Optional[Callable[..., Any]]) -> Options:
    """The options as the report keeps them: a backend callable by its name."""
    if backend_fn is None:
        return options
    name = getattr(backend_fn, "__name__", type(backend_fn).__name__)
    return dataclasses.replace(options, backend=name)


@contextlib.contextmanager
def _timing_source(target: Any, options: Options) -> Iterator[Optional[list]]:
    """A script's graphs cannot be wrapped: with timing (or a preview) on, torch's repro of each one is kept."""
    if not ((options.time or options.target) and isinstance(target, ScriptTarget)):
        yield None
        return
    from .timing.repro import collect_repros

    with collect_repros() as repros:
        yield repros


def _named(findings: tuple[Finding, ...], data: CaptureData) -> tuple[Finding, ...]:
    """Findings name compilations by the report's key, and only compilations the capture has (a record of a
    compile that left no compilation, or none at all, puts the finding in the header instead of a pane)."""
    return tuple(dataclasses.replace(f, compile_id=data.compilation_key(f.compile_id)) for f in findings)


def _explained(data: CaptureData) -> CaptureData:
    """Every empty stage of every compilation gets its reason (``stages.with_missing``)."""
    return dataclasses.replace(data, compilations=tuple(with_missing(c) for c in data.compilations))


def _with_error(data: CaptureData, error: BaseException) -> CaptureData:
    """The exception in words, and a fullgraph refusal put in as the graph break that caused it."""
    from .clinic.fullgraph import explain_exception, with_failure_break

    if isinstance(error, SystemExit):
        text = f"SystemExit: {error.code}"
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    data = dataclasses.replace(data, error=text)
    brk = explain_exception(error)
    return with_failure_break(data, brk) if brk is not None else data


def _check_setup(options: Options) -> None:
    """Setup errors in words, before anything runs."""
    if options.inductor_backend == "halide":
        from .capturing.torch_door.inductor import halide_missing

        why = halide_missing()
        if why:
            raise RuntimeError(f"--inductor-backend halide: {why}")


@contextlib.contextmanager
def _script_backend(target: Any, options: Options) -> Iterator[None]:
    """A script's own torch.compile calls get the asked-for code generator through Inductor's config."""
    if not (options.inductor_backend and isinstance(target, ScriptTarget)):
        yield
        return
    from .capturing import torch_door

    wanted = {k: v for k, v in options.all_inductor_options().items() if k in ("cpu_backend", "cuda_backend")}
    with torch_door.config.inductor_config(wanted):
        yield


def _preview(recorder: Any, repros: Optional[list], options: Options) -> Any:
    from . import preview

    if recorder is not None:
        graphs = preview.graphs_from_recorder(recorder)
        notes = []
    else:
        graphs = preview.graphs_from_repros(repros or [])
        notes = ["a script's graphs are previewed as Inductor received them, after AOTAutograd ran for the CPU: "
                 "device-specific choices made there (e.g. the attention kernel) stay the CPU's"]
    return preview.preview(graphs, mode=options.mode, options=options.all_inductor_options(), notes=notes)


def _time(ctx: RunContext) -> Any:
    options, data, recorder = ctx.options, ctx.data, ctx.recorder
    if ctx.repros is not None:
        from .timing.repro import time_script_capture

        timing = time_script_capture(ctx.repros, data, budget_s=options.time_budget_s,
                                     repeats=options.repeats)
        return dataclasses.replace(timing, notes=timing.notes + (
            "no end-to-end figure under `run --time`: the script's own calls cannot be repeated from outside",))
    from .timing import time_calls, time_capture, time_end_to_end

    timing = time_capture(recorder, data, budget_s=options.time_budget_s, repeats=options.repeats)
    if ctx.end_to_end is not None:
        e2e = time_end_to_end(ctx.end_to_end, capture=data, graphs=recorder.graphs,
                              graph_timings=timing.graphs, device=timing.device, first_call_s=ctx.first_call_s,
                              compile_time_s=data.compile_time_s, budget_s=options.time_budget_s,
                              repeats=options.repeats, recorder=recorder)
        timing = dataclasses.replace(timing, end_to_end=e2e,
                                     warnings=timing.warnings + tuple(f"end to end: {w}" for w in e2e.warnings))
    if ctx.calls is not None:
        with ctx.calls_scope():  # once around all the loops: a cell stays compiled between them
            whole = time_calls(*ctx.calls, label="whole call", compile_time_s=data.compile_time_s,
                               budget_s=options.time_budget_s, repeats=options.repeats)
        timing = dataclasses.replace(timing, timeit=whole)
    return timing


def _compare(recorder: Any, options: Options) -> tuple:
    from .timing import compare_modes

    return tuple(compare_modes(recorder, modes=list(options.compare), budget_s=options.time_budget_s,
                               repeats=options.repeats))


def _step(ctx: RunContext, step: Step) -> Any:
    """One step; its failure is a problem in the report, never the user's exception."""
    try:
        return step.run(ctx)
    except KeyboardInterrupt:  # Ctrl-C during an extra step stops that step, not the report
        ctx.with_problem(step.name, "interrupted (Ctrl-C): this step was not finished")
        return step.fallback(ctx)
    except Exception as e:  # noqa: BLE001 - shown in every output as a problem; the user's result stands
        ctx.with_problem(step.name, e)
        return step.fallback(ctx)


def write_outputs(report: Report, options: Options) -> None:
    # the JSON last: the page then lists a failed JSON write only if it came first, never the reverse
    for where, path, save in (("html", options.html, report.save_html), ("json", options.json, report.save_json)):
        if not path:
            continue
        try:
            save(os.path.expanduser(path))
        except Exception as e:  # noqa: BLE001 - a bad path must not turn the user's run into an error
            report.with_problem(f"{where} output",
                                f"could not write the {where.upper()} report {path!r}: {type(e).__name__}: {e}")
