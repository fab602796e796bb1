"""``open_trace(PATH)``: a TORCH_TRACE (one process or every rank of a job) as the report a run would make.

Each log file is one process (torch's trace handler opens one file per process, named ``rank_N_`` once the
process group is up). Each is read into the records an in-process capture takes (``capturing.trace_file``),
assembled by the capture's own decoders and folds, completed with what only a trace gives (compile time per
phase, the debug folder's loop-level IR) and what it lacks (``gaps``, ``source``), and run through the
pipeline's steps after the capture (``pipeline.finish``: kernel details, the reasons for empty stages, the
clinic, the chain). Ranks are merged as ``run --nproc-per-node`` merges its parts (``jobs.merge``), so
the report compares them. Logs without a rank are listed beside the ranks, and files that are no logs are
listed with why. Reading needs no torch.
"""

from __future__ import annotations

import dataclasses
import glob
import os
from dataclasses import dataclass
from typing import Callable, Optional

from ..capturing.cache_keys import explain_keys
from ..capturing.inductor_code.wrapper import aot_id
from ..capturing.model import CaptureData, Problem
from ..capturing.phases import EVENT, READ_SPANS, PhaseClock, with_phases
from ..capturing.raw import RawCapture, describe_error
from ..capturing.recorder import Recorder
from ..capturing.session import read
from ..capturing.trace_file import BLOCK, GZ_BLOCK, READ, FileFacts, Record, open_text, replay
from ..distributed.model import RankInfo
from ..options import Options
from ..pipeline import RunContext, finish, write_outputs
from ..report import Distributed, Report
from . import gaps
from .paths import Found, LogFile, OpenError, find
from .source import with_source

__all__ = ["OpenError", "Opened", "open_trace", "read_log"]

UNKNOWN_VERSION = "unknown (the trace does not say)"
PHASES_READ = READ_SPANS


@dataclass
class Opened:
    """One log read: its file, what reading learnt, and its capture (None when nothing could be read)."""

    log: LogFile
    facts: FileFacts
    data: Optional[CaptureData]

    @property
    def rank(self) -> Optional[int]:
        """The rank its name says, else the one its records carry (a process that logged before the group)."""
        if self.log.rank is not None:
            return self.log.rank
        return min(self.facts.ranks) if self.facts.ranks else None


def open_trace(path: str | os.PathLike, *, rank: Optional[int] = None, html: Optional[str] = None,
               json: Optional[str] = None, say: Optional[Callable[[str], None]] = None) -> Report:
    """The report of the TORCH_TRACE at ``path``: a trace folder, a log file, or a ``.gz`` of either.

    Every rank's log goes into one report that compares them; ``rank`` keeps one rank only. ``html`` and
    ``json`` also save the report there. Raises ``OpenError`` when ``path`` holds no trace log.
    """
    options = Options(capture_only=True, html=html, json=json)
    found = find(os.fspath(path))
    try:
        opened = _read_all(found, rank, say)
    finally:
        found.close()
    ranked = {o.rank: o for o in opened if o.rank is not None}
    if rank is not None:
        if rank not in ranked:
            have = ", ".join(str(r) for r in sorted(ranked)) or "none"
            raise OpenError(f"{path}: no log of rank {rank} (ranks found: {have})")
        report = _report(ranked[rank], options, _listed(found, [o for o in opened if o is not ranked[rank]]))
    elif len(opened) == 1:
        report = _report(opened[0], options, _listed(found, []))
    else:
        report = _job(opened, found, options)
    write_outputs(report, options)
    return report.freeze()


def read_log(log: LogFile, debug_runs: Optional[dict[int, str]] = None, memo: Optional[dict] = None,
             texts: Optional[dict[str, str]] = None) -> Opened:
    """One log file into a capture, with the phases of its compile time and the debug folder's IR if any.
    ``memo``: the records other logs of the job decoded (a rank's graphs are most often every rank's);
    ``texts``: the payloads they read (``trace_file.replay``)."""
    facts = FileFacts(log.name)
    clock = PhaseClock()
    recorder = Recorder([clock], keep=(EVENT,))
    ir = _IrFiles(debug_runs or {}, recorder)
    try:
        with open_text(log.path) as stream:
            replay(stream, facts, recorder, before=ir.before if debug_runs else None,
                   block=GZ_BLOCK if log.path.endswith(".gz") else BLOCK, texts=texts)
    except (OSError, EOFError, UnicodeError) as e:  # a gzip cut short, a disk error: what was read stays
        facts.problem("unreadable", None, f"reading stopped after {facts.records} records: {describe_error(e, False)}")
        facts.close()
    data = _assemble(recorder.raw, facts, clock, ir_folder=bool(ir.used), memo=memo)
    return Opened(log, facts, data)


def _read_all(found: Found, rank: Optional[int], say: Optional[Callable[[str], None]]) -> list[Opened]:
    out = []
    memo: dict = {}  # records decoded once for every log of the job
    texts: dict[str, str] = {}  # and their payloads held once
    for i, log in enumerate(found.logs):
        if rank is not None and log.rank is not None and log.rank != rank:
            out.append(Opened(log, FileFacts(log.name), None))  # named beside the rank asked for, not read
            continue
        if say is not None and len(found.logs) > 1:
            say(f"reading {log.name} ({i + 1} of {len(found.logs)})")
        out.append(read_log(log, found.debug_runs, memo, texts))
    return out


def _assemble(raw: RawCapture, facts: FileFacts, clock: PhaseClock, ir_folder: bool,
              memo: Optional[dict]) -> CaptureData:
    version = facts.torch_version or UNKNOWN_VERSION
    said: list[str] = []
    raw = explain_keys(raw, None, said)  # a trace's cache misses compared within it, never with this machine's
    data = read(raw, notes=said, wall_time_s=None, error=None, torch_version=version, device=_devices,
                python_version="unknown (not in the trace)", memo=memo)
    data = with_phases(data, clock, PHASES_READ)
    comps = tuple(with_source(gaps.with_gaps(c, ir_folder)) for c in data.compilations)
    notes = [gaps.NOT_IN_A_TRACE]
    said = gaps.version_note(facts.torch_version, gaps.installed_torch())
    if said:
        notes.append(said)
    return dataclasses.replace(data, compilations=comps, notes=tuple(notes) + data.notes,
                               problems=tuple(facts.problems) + data.problems, cache_mode="warm")  # as the job had them


def _devices(devices: list[str]) -> str:
    return ", ".join(devices) if devices else "unknown (no tensor in the trace's graphs names one)"


def _report(opened: Opened, options: Options, listed: list[str]) -> Report:
    """One process's report, through the pipeline's steps after the capture (outputs written by the caller)."""
    data = opened.data
    if listed:
        data = dataclasses.replace(data, notes=data.notes + tuple(listed))
    report = Report(entry="open", options=options)
    ctx = RunContext(dataclasses.replace(options, html=None, json=None), data, live=False)
    return finish(report, ctx)


def _job(opened: list[Opened], found: Found, options: Options) -> Report:
    """Every rank in one report, compared; logs without a rank are named in its notes."""
    from ..jobs.merge import merge  # the one place the merge is used

    ranked = sorted((o for o in opened if o.rank is not None), key=lambda o: (o.rank, o.log.name))
    unranked = [o for o in opened if o.rank is None]
    if not ranked:  # several processes, none in a process group: each is shown as if it were a rank
        ranked = [dataclasses.replace(o, log=dataclasses.replace(o.log, rank=i)) for i, o in enumerate(unranked)]
        unranked = []
        numbered = ", ".join(f"{o.log.name} as {o.log.rank}" for o in ranked)
        extra = [f"none of the {len(ranked)} logs names a rank (no process group): each is shown as a rank, in "
                 f"file order ({numbered})"]
    else:
        extra = []
    parts: dict[int, Report] = {}
    sources: dict[int, str] = {}
    problems: list[Problem] = []
    world = max(o.rank for o in ranked) + 1
    for o in ranked:
        if o.rank in parts:
            problems.append(Problem(READ, f"{o.log.name}: a second log of rank {o.rank} (the first is "
                                    f"{sources[o.rank]}): not merged; open it alone with --rank or its path"))
            continue
        part = _report(o, options, [])
        info = RankInfo(rank=o.rank, world_size=world, pid=min(o.facts.pids) if o.facts.pids else None)
        parts[o.rank] = dataclasses.replace(part, distributed=Distributed(world_size=world, rank=o.rank, info=info))
        sources[o.rank] = o.log.name
    listed = _listed(found, unranked) + extra
    merged = merge(parts, world_size=world, sources=sources, options=options, problems=problems)
    missing = [k for k in range(world) if k not in parts]
    if missing:
        listed.append(f"no log of rank{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} in the "
                      f"trace (the highest rank found is {world - 1})")
    if listed and merged.capture is not None:
        merged = dataclasses.replace(merged, capture=dataclasses.replace(
            merged.capture, notes=merged.capture.notes + tuple(listed)))
    return merged


def _listed(found: Found, others: list[Opened]) -> list[str]:
    """Notes naming the logs not in the report and the files that are no logs."""
    out = []
    for o in others:
        if o.data is None:
            out.append(f"{o.log.name}: another rank's log, not read (--rank)")
            continue
        n = len(o.data.compilations)
        out.append(f"{o.log.name}: a log without a rank ({o.facts.records} records, {n} compilation"
                   f"{'s' if n != 1 else ''}): a process outside the job's process group (the launcher, or one "
                   f"that never called init_process_group); open it alone to see it")
    for name, why in found.stray:
        out.append(f"{name}: {why}; not read")
    return out


# ---- the loop-level IR of a TORCH_COMPILE_DEBUG folder ----

class _IrFiles:
    """Puts a debug folder's ``ir_pre_fusion.txt`` / ``ir_post_fusion.txt`` into the records, where the IR
    logger's records would have been: just before the output code of the graph they belong to (its AOT ID)."""

    def __init__(self, runs: dict[int, str], recorder: Recorder) -> None:
        self.runs, self.recorder = runs, recorder
        self.used: list[str] = []

    def before(self, record: Record) -> None:
        if "inductor_output_code" not in record.metadata or record.pid not in self.runs:
            return
        found = aot_id(record.payload or "")
        if found is None:
            return
        folders = sorted(glob.glob(os.path.join(glob.escape(self.runs[record.pid]), f"*__{glob.escape(found)}_*")))
        if not folders:
            return
        cid = self.recorder.compile_id_of(record.metadata)
        for kind, file, head in (("ir_pre_fusion", "ir_pre_fusion.txt", "BEFORE FUSION\n"),
                                 ("ir_post_fusion", "ir_post_fusion.txt", "AFTER FUSION\n")):
            text = _text(os.path.join(folders[-1], file))
            if text is not None:
                self.recorder.take(kind, cid, {}, head + text)
                self.used.append(folders[-1])


def _text(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
