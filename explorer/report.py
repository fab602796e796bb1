"""The Report users hold: what was captured, what the analyses found, and how it was made.

A report is data. ``to_json()`` writes all of it (the capture, the clinic's
fix list and explained recompiles, timing, the mode comparisons, findings and
problems, the options it was made with) under a ``schema_version``; the JSON
Schema ``explorer/report.schema.json`` ships with the package, and
``Report.from_json(text)`` gives back a report equal to the original, field by
field. A report of an earlier version is upgraded as it loads (``upgrade``).
Views (``explorer.present``) read a report and never change it; nothing
here builds HTML, and nothing here imports a view: the presentation layer sits
above the report and hands it its renderers when it is imported (``use_views``;
``import explorer`` does that), so ``save_html()``, ``summary()`` and a
notebook's display work on every report. Reading and rendering a saved report
needs no torch. A merged distributed job holds each rank's report whole
(``Distributed.ranks``, ``RankRun``): ``report.rank(k)`` is rank k's part as it
was, so a rank shows in every view as its part alone, and nothing can be left
behind in a copy.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional

from .capturing.model import CaptureData, Finding, Preview, Problem
from .clinic.fixlist import BreakSite
from .clinic.recompiles import RecompileExplanation
from .clinic.slow import SlowAnswer
from .distributed.model import (
    Difference,
    GraphCollectives,
    MatchedCompilation,
    RankCounts,
    RankFailure,
    RankGroup,
    RankInfo,
)
from .lineage import Lineage
from .options import Options
from .serial import from_jsonable, to_jsonable
from .structure import Structure
from .timing.model import ModeResult, TimingReport

# 3: compile keys, {file, line} origins, a problem's attempt beside its key; 4: a merged job's rank holds its whole
# report (upgrade.py: 2, 3)
SCHEMA_VERSION = 5
_VIEWS: Any = None  # explorer.present.views: page, fragment, summary, mimebundle (of a report), stage_text, stage_html
_NOTEBOOK: Any = None  # explorer.widget's notebook view, handed over by ``import explorer`` (``use_notebook_view``)


def use_views(views: Any) -> None:
    """Called by ``explorer.present`` when it is imported: the renderers a report displays itself with."""
    global _VIEWS
    _VIEWS = views


def use_notebook_view(notebook: Any) -> None:
    """Called by ``import explorer``: ``notebook.view(report)`` makes the interactive view a notebook displays
    (``ExplorerView``), ``notebook.live()`` says whether a widget made here would reach a front end."""
    global _NOTEBOOK
    _NOTEBOOK = notebook


def _views() -> Any:
    if _VIEWS is None:
        raise RuntimeError("no views are loaded: `import explorer.present` (`import explorer` does it)")
    return _VIEWS


@dataclass(frozen=True)
class Clinic:
    """The graph-break and recompile clinic's results for one capture."""

    fix_list: tuple[BreakSite, ...] = ()  # one row per break site, most costly first
    """One break site per row, most costly first."""
    recompiles: tuple[RecompileExplanation, ...] = ()  # in compile order
    """Each recompile, explained."""
    # the notebook cells among the capture's files, as the user names them: {file: "cell [5]"}
    cells: dict[str, str] = field(default_factory=dict)
    """Each notebook cell's file as the user names it, `{file: "cell [5]"}`."""

    @classmethod
    def of(cls, data: CaptureData, name_file: Any = None) -> Clinic:
        """``name_file`` names a notebook cell's file as the user knows it (``cell [5]``): see ``fix_list``."""
        from .clinic import explain_recompiles, fix_list

        cells = {f: name for f in sorted(_files(data)) if name_file and (name := name_file(f))}
        return cls(tuple(fix_list(data, name_file)), tuple(explain_recompiles(data)), cells)

    def where(self, filename: str, lineno: Optional[int] = None) -> str:
        """``cell [5], line 3`` for a notebook cell's file, ``path:3`` for any other."""
        cell = self.cells.get(filename)
        if cell:
            return f"{cell}, line {lineno}" if lineno else cell
        from .clinic.locate import rel

        return f"{rel(filename)}:{lineno}" if lineno else rel(filename)


def _files(data: CaptureData) -> set[str]:
    """Every file a view names a line of: the compiled frames', what they called and inlined, the graphs' user
    lines, the graph breaks' (a notebook's cells among them: a function defined in one cell, compiled in another)."""
    files: set[str] = set()
    for c in data.compilations:
        files.add(c.frame.filename)
        if c.entry is not None:
            files.update([c.entry.filename] + ([c.entry.called_at.filename] if c.entry.called_at else []))
        files.update(f.filename for f in c.inlined)
        files.update(n.loc.filename for n in (c.graph.nodes if c.graph else ()) if n.loc is not None)
        for gb in (c.graph_break, *c.more_breaks):
            if gb is not None:
                files.update([gb.filename or ""] + [loc.filename for loc in gb.user_traceback])
    files.discard("")
    files.discard(None)  # type: ignore[arg-type]
    return files


@dataclass(frozen=True)
class StepTime:
    """One step the explorer ran after the capture (``pipeline.STEPS``), timed by its own clock."""

    name: str
    """The step (`timing`, `lineage`, `clinic`, ...)."""
    seconds: float
    """How long it took."""


@dataclass(eq=True)
class Report:
    """One report: what torch.compile did (`capture`), what to fix (`clinic`), timing, the line-level chain and how
    the report was made. Every key is always present; a stage that could not be captured is `null`, and the
    compilation's `missing` says why.

    ``report.capture`` (also ``report.data``) is the captured stages; ``report.result`` the call's value.

    Attributes of the capture (``compilations``, ``graph_breaks``, ``kernels``, ...)
    are readable on the report itself.
    """

    capture: Optional[CaptureData] = None
    """What torch.compile did."""
    clinic: Clinic = field(default_factory=Clinic)
    """What to fix: the graph-break sites and the recompiles, explained."""
    timing: Optional[TimingReport] = None
    """`null` unless timing was asked for (`explore(..., time=True)`, the magic's default, the CLI's `--time`)."""
    comparisons: tuple[ModeResult, ...] = ()  # --compare: the graphs compiled in each mode
    """The `--compare` table, one row per mode."""
    lineage: tuple[Lineage, ...] = ()  # per compilation: the user line of each line of every stage
    """The line-level chain, one object per compilation: every line of every stage's text linked to the user lines it
    came from."""
    structure: tuple[Structure, ...] = ()  # per compilation: each node's, guard's, launch's module; what repeats
    """The model's modules, one object per compilation with a graph: which module each graph node, guard and kernel
    launch came from, and the repeated modules (`layers.0` … `layers.79`) the views fold to one entry, with the
    members that differ and how."""
    findings: tuple[Finding, ...] = ()
    """Where torch.compile behaved differently from a plain run."""
    problems: tuple[Problem, ...] = ()  # steps after the capture that failed (timing, outputs)
    """Steps after the capture that failed."""
    preview: Optional[Preview] = None  # target="cuda": what a CUDA GPU would get, lowered here without one
    """`null` unless `--target cuda`: the Triton kernels a CUDA GPU would get, lowered in a child process without a
    GPU and never run."""
    step_times: tuple[StepTime, ...] = ()  # the explorer's steps after the capture, measured
    """The explorer's steps after the capture (reading kernels, the clinic, timing, ...), each timed: its own cost
    beside torch's compile time."""
    why_slow: Optional[SlowAnswer] = None  # --why-slow: where the run's time went
    """`null` unless `--why-slow` (`why_slow=True`): the run's measured time, the phases that cost the most and the
    cache lookups that missed."""
    entry: str = "capture"  # which entry point made the report: capture, explore, magic, cli or open
    """Which entry point made it: `explore`, `magic`, `cli` or `capture`."""
    options: Optional[Options] = None
    """How it was made, with the same names in every entry point."""
    distributed: Optional[Distributed] = None  # a rank's part, or every rank of a job (explorer.distributed)
    """`null` for one process; a rank's part says which rank made it, a merged report holds every rank, compared."""
    schema_version: int = SCHEMA_VERSION
    """The schema's version (3 since compile keys, `{file, line}` user lines and a problem's `attempt`; 4 since a
    merged job's rank holds its whole report); `Report.from_json` upgrades a report of version 2 or 3 as it loads it
    and refuses any other."""
    result: Any = field(default=None, compare=False, repr=False)  # what the explored call returned; not saved
    frozen: bool = field(default=False, init=False, compare=False, repr=False)  # set once the pipeline has run

    def __setattr__(self, name: str, value: Any) -> None:
        # every step, view and file read the report once it is finished: a later change would show in one and
        # not the others, so a changed report is a new one
        if self.__dict__.get("frozen"):
            raise dataclasses.FrozenInstanceError(
                f"cannot assign to {name!r}: the report is finished (the pipeline has run); "
                f"make a changed copy with dataclasses.replace(report, {name}=...)")
        object.__setattr__(self, name, value)

    def freeze(self) -> Report:
        """No attribute can be set from now on (``dataclasses.replace`` makes a changed, unfrozen copy)."""
        object.__setattr__(self, "frozen", True)
        return self

    @classmethod
    def of(cls, obj: Report | CaptureData) -> Report:
        """A Report as is; bare capture data gets the clinic's reading, so it shows the same way."""
        if isinstance(obj, CaptureData):
            return cls(capture=obj, clinic=Clinic.of(obj))
        return obj

    # ---- the capture, under its old name ----
    @property
    def data(self) -> Optional[CaptureData]:
        return self.capture

    @data.setter
    def data(self, value: Optional[CaptureData]) -> None:
        self.capture = value

    def __getattr__(self, name: str) -> Any:
        # compilations, graph_breaks, kernels, ... come from the capture (only called for missing names)
        if name.startswith("__"):
            raise AttributeError(name)
        data = self.__dict__.get("capture")
        if data is None:
            raise AttributeError(f"{name!r}: the capture is still running (the report is filled when the block ends)")
        return getattr(data, name)

    @property
    def all_problems(self) -> tuple[Problem, ...]:
        """The capture's problems (records that could not be read) and the later steps' ones."""
        return (self.capture.problems if self.capture is not None else ()) + self.problems

    def with_problem(self, where: str, error: BaseException | str) -> None:
        self.problems = self.problems + (Problem.of(where, error),)

    # ---- files ----
    def to_dict(self) -> dict[str, Any]:
        doc = {f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self) if f.compare}
        doc["capture"] = to_jsonable(self._ready())
        return doc

    def to_json(self, indent: Optional[int] = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def save_json(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_json())

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Report:
        """A report from its parsed JSON; one of an earlier schema version is upgraded first (``upgrade``)."""
        if doc.get("schema_version") != SCHEMA_VERSION:
            from .upgrade import upgrade

            doc = upgrade(doc, SCHEMA_VERSION)
        return from_jsonable(cls, doc)

    @classmethod
    def from_json(cls, text: str) -> Report:
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Report:
        with open(path, encoding="utf-8") as fh:
            return cls.from_json(fh.read())

    def to_html(self) -> str:
        return _views().page(self)

    def save_html(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_html())

    # ---- one rank of a distributed job ----
    def rank(self, rank: int) -> Report:
        """Rank ``rank``'s own report, from a merged multi-rank report (``run --nproc-per-node``, ``merge``): the
        report its part held, the same object (the merged report's top level is the lowest rank's, with the job's
        ``distributed``, its options and the merge's problems)."""
        dist = self.distributed
        if dist is None or not dist.merged:
            raise LookupError("not a merged multi-rank report")
        run = dist.rank_run(rank)
        if run.report is None:
            raise LookupError(f"rank {rank} {run.failure.message if run.failure else 'wrote no part'}")
        return run.report  # its part, as it was: every view shows the rank as the part alone

    # ---- one stage at a time (notebooks that teach, scripts that print one thing) ----
    def compilation(self, compile_id: Optional[str] = None) -> Any:
        """The compilation with this id (``"0/1"`` or ``"[0/1]"``), or the first one."""
        comps = self._ready().compilations
        if not comps:
            raise LookupError("no compilation was captured")
        if compile_id is None:
            return comps[0]
        key = self._ready().compilation_key(compile_id)  # "[0/1]", "0/1_2": the compilation's key
        for comp in comps:
            if comp.compile_id == key:
                return comp
        raise LookupError(f"no compilation {compile_id!r}; there are {', '.join(c.compile_id for c in comps)}")

    def stage(self, stage_id: str, compile_id: Optional[str] = None) -> StageView:
        """One stage of one compilation, displayable (HTML in a notebook, text in a terminal).

        ``report.stage("graph")``, ``report.stage("kernels", "1/0")``; ``.content`` is the data.
        """
        from .stages import BY_ID

        if stage_id not in BY_ID:
            raise KeyError(f"unknown stage {stage_id!r}; stages: {', '.join(BY_ID)}")
        return StageView(self, BY_ID[stage_id], self.compilation(compile_id))

    # ---- display ----
    def summary(self) -> str:
        return _views().summary(self)

    def __repr__(self) -> str:
        return self.summary() if self.capture is not None else "<Report: capture still running>"

    def widget(self) -> Any:
        """The interactive view as a widget (an anywidget ``AnyWidget``): what a notebook displays for this report.

        Jupyter shows it when the report is displayed; marimo takes it as ``mo.ui.anywidget(report.widget())``.
        One widget per report: asking again gives the same one."""
        return self._notebook_view().widget()

    def __getstate__(self) -> dict[str, Any]:
        # a pickled (or deep-copied) report leaves its view behind: a widget belongs to this kernel's front end
        return {k: v for k, v in self.__dict__.items() if k != "_view"}

    def _notebook_view(self) -> Any:
        view = self.__dict__.get("_view")
        if view is None:
            if _NOTEBOOK is None:
                raise RuntimeError("no notebook view is loaded: `import explorer`")
            self._ready()
            view = _NOTEBOOK.view(self)
            self.__dict__["_view"] = view  # not a field: a view is how the report shows, not what it holds
        return view

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """The interactive view where the host draws widgets (a Jupyter kernel, marimo), with the static HTML copy
        and the text in the same bundle (saved notebooks, GitHub, hosts without JavaScript); else those two."""
        if self.capture is None:
            return {"text/plain": repr(self)}
        if _NOTEBOOK is not None and _NOTEBOOK.live():
            return self._notebook_view()._repr_mimebundle_(include, exclude)
        return _views().mimebundle(self)

    def _ready(self) -> CaptureData:
        if self.capture is None:
            raise RuntimeError("the capture is still running: use the report after the `with` block")
        return self.capture


# ---- a distributed job: the report of each rank ----

@dataclass(frozen=True)
class RankRun:
    """One rank of a merged report: the report its part held, or why it has none.

    The report is whole (``Report.rank`` gives it back, so every view shows a rank of a job as it shows that rank's
    part alone). What the comparison and the rank picker read of it (``distributed.model.ComparedRank``) comes from
    that report, never from a copy."""

    rank: int
    """The rank."""
    report: Optional[Report] = None  # None: the rank wrote no part (``missing`` says why)
    """The report its part held, whole (a report like this one: `Report.rank(k)` gives it back); its
    `distributed.info` is the rank's process and how it ended. `null`: it left no part."""
    part: Optional[str] = None  # the file the part was read from
    """The file read."""
    missing: Optional[RankFailure] = None  # kind "missing": why there is no report, with what the launcher saw
    """`null` unless it left no part: why (kind `missing`), with how the launcher saw it end."""

    @property
    def info(self) -> Optional[RankInfo]:
        """The process that wrote the part (its place in the job, its end), as the part says."""
        dist = self.report.distributed if self.report is not None else None
        return dist.info if dist is not None else None

    @property
    def failure(self) -> Optional[RankFailure]:
        """How the rank ended other than normally: its part's words, or why it left none."""
        if self.report is None:
            return self.missing
        return self.info.failure if self.info is not None else None

    @property
    def status(self) -> str:
        """ok | failed | missing"""
        if self.report is None:
            return "missing"
        return "failed" if self.failure is not None else "ok"

    @property
    def capture(self) -> Optional[CaptureData]:
        return self.report.capture if self.report is not None else None

    @property
    def fix_list(self) -> tuple[BreakSite, ...]:
        return self.report.clinic.fix_list if self.report is not None else ()

    @property
    def recompiles(self) -> tuple[RecompileExplanation, ...]:
        return self.report.clinic.recompiles if self.report is not None else ()

    @property
    def lineage(self) -> tuple[Lineage, ...]:
        return self.report.lineage if self.report is not None else ()


@dataclass(frozen=True)
class Distributed:
    """On a part: which rank made it. On a merged report: every rank, compared."""

    world_size: int
    """How many ranks."""
    rank: int  # the rank whose report the top-level fields hold
    """A part: its rank."""
    info: Optional[RankInfo] = None  # that rank's process
    """A part: the rank's process."""
    ranks: tuple[RankRun, ...] = ()  # merged only: ranks 0 .. world_size-1, missing ones included
    """A merged report: every rank `0` .. `world_size`-1."""
    counts: tuple[RankCounts, ...] = ()
    """Per rank, in numbers."""
    groups: tuple[RankGroup, ...] = ()
    """The ranks that compiled the same."""
    differences: tuple[Difference, ...] = ()
    """Each difference, stated once."""
    compilations: tuple[MatchedCompilation, ...] = ()
    """Each compilation matched across ranks."""
    collectives: tuple[GraphCollectives, ...] = ()
    """Per graph and rank, its collectives."""
    notes: tuple[str, ...] = ()  # what the merge could not compare, DDP and FSDP explained
    """DDP and FSDP explained, what could not be compared."""

    @property
    def merged(self) -> bool:
        return bool(self.ranks)

    def rank_run(self, rank: int) -> RankRun:
        for r in self.ranks:
            if r.rank == rank:
                return r
        raise LookupError(f"no rank {rank}; ranks: {', '.join(str(r.rank) for r in self.ranks)}")


@dataclass(frozen=True)
class StageView:
    """What ``Report.stage`` returns: the stage's data, its explanation, and how it displays."""

    report: Report
    stage: Any  # stages.Stage
    comp: Any  # capturing.model.Compilation

    @property
    def content(self) -> Any:
        return self.stage.content(self.comp)

    @property
    def explanation(self) -> str:
        return self.stage.explanation

    def __repr__(self) -> str:
        return _views().stage_text(self.report, self.stage, self.comp)

    def _repr_html_(self) -> str:
        return _views().stage_html(self.report, self.stage, self.comp)


def _write(path: str | os.PathLike, text: str) -> str:
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
