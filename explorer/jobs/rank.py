"""One rank of a distributed job: the script under capture, its part written, the merge by one rank.

``torchrun --nproc-per-node N -m explorer run train.py --json r.json`` starts N of these. Each runs
the script exactly as ``explorer run`` does for one process, then writes its own report, a *part*
(``r.rank<k>.json``), which says which rank made it and how it ended. A rank that finds the set
complete (every rank of this launch) and claims its merge (the hidden ``.r.json.merging``, one claim
per set) merges them into ``r.json`` (and ``--html``); ``explorer merge
r.json`` does the same afterwards. Under ``explorer run --nproc-per-node N`` the parts go to a
folder of the launcher's, which merges them itself.

A rank that raises still writes its part (the capture keeps what was compiled). torchrun stops the
other ranks with SIGTERM once one fails: while the script runs, SIGTERM here ends the script with
an exception instead of killing the process outright, so those ranks write their parts too, saying
they were stopped. A rank killed outright (SIGKILL) writes nothing and is named as missing.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional

from ..clinic.locate import is_library_file
from ..distributed.model import RankFailure, RankInfo
from ..options import Options
from ..plural import counted
from ..report import Distributed, Report
from ..targets import ScriptTarget
from . import env as rank_envs

TERMINATED = ("terminated by SIGTERM: torchrun stops the other ranks this way once one rank fails (or the job "
              "was cancelled)")


class RankTerminated(SystemExit):
    """SIGTERM while the script ran, as an exception: the part is still written; exits 128 + 15 as a shell says."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum

    def __str__(self) -> str:
        return TERMINATED


class TermGuard:
    """SIGTERM raises ``RankTerminated`` while the script runs, and is held off afterwards until the rank is done.

    Only the script may be interrupted: the explorer's own steps after it (assembling the capture,
    the clinic, writing the part, the merge) run to the end, or the part would be lost; a SIGTERM
    meanwhile is remembered (``pending``) and the rank then exits as stopped.
    """

    def __init__(self) -> None:
        self.installed = False
        self.in_script = False
        self.pending = False
        self.previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only
        self.previous = signal.getsignal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, self._on_term)
        self.installed, self.in_script = True, True

    def script_done(self) -> None:
        self.in_script = False

    def release(self) -> None:
        """The old handling back; a SIGTERM held off meanwhile stays in ``pending`` (the rank ends right after)."""
        if not self.installed:
            return
        self.installed = False
        signal.signal(signal.SIGTERM, self.previous)

    def _on_term(self, signum: int, frame: Any) -> None:
        if self.in_script:
            self.in_script = False  # raise once
            raise RankTerminated(signum)
        self.pending = True


@dataclasses.dataclass
class GuardedScript(ScriptTarget):
    """The script as ``ScriptTarget`` runs it; the guard stops raising the moment the script ends."""

    guard: Optional[TermGuard] = None

    def run(self, compiled: Any = None) -> Any:
        try:
            return super().run(compiled)
        finally:
            if self.guard is not None:
                self.guard.script_done()


def run_rank(words: Any, options: Options, rank: rank_envs.RankEnv, *, quiet: bool, fail_on_break: bool,
             run_script: Callable[..., Any], say: Callable[[str], None]) -> int:
    """Runs the script as this rank; writes the part; merges if this rank's part completed the set."""
    guard = TermGuard()
    guard.install()
    try:
        code = _run_rank(words, options, rank, guard, quiet=quiet, fail_on_break=fail_on_break,
                         run_script=run_script, say=say)
    finally:
        guard.release()
    if guard.pending and code == 0:
        return 128 + signal.SIGTERM  # asked to stop while the part was written: stopped now
    return code


def _run_rank(words: Any, options: Options, rank: rank_envs.RankEnv, guard: TermGuard, *, quiet: bool,
              fail_on_break: bool, run_script: Callable[..., Any], say: Callable[[str], None]) -> int:
    folder = os.environ.get(rank_envs.PARTS_ENV)
    base = options.json or options.html
    part = (rank_envs.part_in_folder(folder, rank.rank) if folder
            else rank_envs.part_path(base, rank.rank) if base else None)
    if part is not None and os.path.exists(part):
        os.remove(part)  # a stale part of an earlier launch must not be merged with this one
    target = GuardedScript(words.script, tuple(words.script_args), guard=guard)
    outcome = run_script(words.script, words.script_args, dataclasses.replace(options, json=None, html=None),
                         target=target)
    guard.script_done()  # also when the script never started (a usage error)
    report = dataclasses.replace(outcome.report, distributed=Distributed(
        world_size=rank.world_size, rank=rank.rank,
        info=rank_info(rank, outcome.exit_code, outcome_error(outcome), words.script)))
    code = outcome.exit_code
    if code == 0 and fail_on_break and report.capture is not None and report.capture.graph_breaks:
        say(f"rank {rank.rank}: exit 3: {counted(report.capture.break_count, 'graph break')} and --fail-on-break")
        code = 3
    if part is None:
        if not quiet:
            say(f"rank {rank.rank} of {rank.world_size} (no --json: this rank's summary only)")
            print(report.summary() if report.capture is not None else "nothing captured", file=sys.stderr)
        return code
    try:
        write_atomically(part, report.to_json())
    except OSError as e:
        say(f"rank {rank.rank}: could not write its part {part!r}: {e}")
        return code or 4
    if folder:
        return code  # the launcher merges
    if not quiet:
        say(f"rank {rank.rank} of {rank.world_size}: wrote its part {part}")
    merged = merge_if_last(base, rank, options)
    if merged is not None:
        write_merged(merged, options, quiet=quiet, say=say)
    return code


def outcome_error(outcome: Any) -> Optional[BaseException]:
    return getattr(outcome, "error", None)


def rank_info(rank: rank_envs.RankEnv, exit_code: int, error: Optional[BaseException], script: str) -> RankInfo:
    from ..capturing.torch_door.distributed import process_group_backend

    return RankInfo(rank=rank.rank, world_size=rank.world_size, local_rank=rank.local_rank,
                    local_world_size=rank.local_world_size, node_rank=rank.node_rank, host=rank.host, pid=rank.pid,
                    run_id=rank.run_id, restart=rank.restart, backend=process_group_backend(),
                    started_at=rank.started_at, ended_at=time.time(), exit_code=exit_code,
                    failure=failure_of(error, exit_code, script))


def failure_of(error: Optional[BaseException], exit_code: int, script: str) -> Optional[RankFailure]:
    """How the script ended, in words, with the user line it ended at; None for a normal end."""
    if error is None or (isinstance(error, SystemExit) and exit_code == 0 and not isinstance(error, RankTerminated)):
        return None
    filename, lineno, source, tb = _where(error, script)
    if isinstance(error, RankTerminated):
        return RankFailure("terminated", TERMINATED, exit_code, filename, lineno, source, tb)
    if isinstance(error, SystemExit):
        return RankFailure("exit", f"sys.exit({error.code!r}): exit code {exit_code}", exit_code, filename, lineno,
                           source, tb)
    if isinstance(error, KeyboardInterrupt):
        return RankFailure("interrupted", "KeyboardInterrupt (Ctrl-C or SIGINT)", exit_code, filename, lineno,
                           source, tb)
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return RankFailure("raised", text, exit_code, filename, lineno, source, tb)


def _where(error: BaseException, script: str) -> tuple[Optional[str], Optional[int], Optional[str], str]:
    """The deepest frame of the user's own code, and the traceback from the script's frame down."""
    frames = traceback.extract_tb(error.__traceback__)
    script = os.path.abspath(script)
    start = next((i for i, f in enumerate(frames) if os.path.abspath(f.filename) == script), None)
    frames = frames[start:] if start is not None else frames
    user = [f for f in frames if not is_library_file(f.filename) and "/explorer/" not in f.filename]
    top = user[-1] if user else (frames[-1] if frames else None)
    text = "".join(traceback.format_list(frames)) if frames else ""
    if top is None:
        return None, None, None, text
    return top.filename, top.lineno, (top.line or None), text


# ---- the merge, by the one rank that claims it ----

def merge_if_last(base: str, rank: rank_envs.RankEnv, options: Optional[Options] = None) -> Optional[Report]:
    """The merged report if this rank completed the set of this launch's parts and won the claim to merge it.

    Every rank that finds the set complete (the rank whose part appeared last always does, others may) tries
    to claim its merge; exactly one claim succeeds. Modification times cannot decide it: a part's time is when
    its text was written, not when it appeared under its name, so the rank whose part appeared last could see
    another's as newer and neither would merge."""
    from .merge import merge

    parts = {k: p for k, p in rank_envs.parts_of(base).items() if k < rank.world_size}
    if len(parts) < rank.world_size:
        return None
    try:
        reports = {k: Report.load(p) for k, p in parts.items()}
        identity = _set_identity(parts)
    except (OSError, ValueError):
        return None  # a part replaced under us: a new launch has begun, it merges its own
    if rank.job is not None and any(_job(r) != rank.job for r in reports.values()):
        return None  # a part of another launch: this launch's own is still to come
    if not claim_merge(merge_claim_path(base), identity):
        return None  # another rank found the same set complete first: it merges
    return merge(reports, world_size=rank.world_size, sources=parts, options=options)


def merge_claim_path(base: str) -> str:
    """The hidden file beside the report that names the set of parts whose merge was claimed."""
    folder, name = os.path.split(base)
    return os.path.join(folder, f".{name}.merging")


def _set_identity(parts: dict[int, str]) -> str:
    """One set of parts: each part's file (a rename gives each write a new one), size and time."""
    stats = {k: os.stat(p) for k, p in parts.items()}
    return ";".join(f"{k}:{s.st_dev}:{s.st_ino}:{s.st_size}:{s.st_mtime_ns}" for k, s in sorted(stats.items()))


def claim_merge(path: str, identity: str) -> bool:
    """True for exactly one caller per ``identity``: the claim appears whole (a hard link of a written file,
    which fails if the name exists), and a claim naming another set (an earlier launch's) is moved aside."""
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(identity)
    try:
        for _ in range(8):
            try:
                os.link(tmp, path)
                return True
            except FileExistsError:
                pass
            try:
                with open(path, encoding="utf-8") as fh:
                    held = fh.read()
            except FileNotFoundError:
                continue  # moved aside as stale by another rank: try again
            if held == identity:
                return False
            stale = f"{path}.{os.getpid()}.stale"
            try:
                os.rename(path, stale)  # only one rank moves a given stale claim; the others find it gone
                os.remove(stale)
            except FileNotFoundError:
                pass
        return False
    finally:
        os.remove(tmp)


def _job(report: Report) -> Optional[str]:
    info = report.distributed.info if report.distributed is not None else None
    return f"{info.run_id}/{info.restart}" if info is not None and info.run_id else None


def write_merged(merged: Report, options: Options, *, quiet: bool, say: Callable[[str], None]) -> list[str]:
    """The merged report's JSON and HTML where the options say; the summary; problems in words."""
    failed = []
    for flag, save in (("html", merged.save_html), ("json", None)):
        path = getattr(options, flag)
        if not path:
            continue
        try:
            if save is not None:
                save(path)
            else:
                write_atomically(path, merged.to_json())
        except OSError as e:
            failed.append(f"could not write the {flag.upper()} report {path!r}: {e}")
    if not quiet:
        print(merged.summary(), file=sys.stderr, flush=True)
    for flag in ("json", "html"):
        path = getattr(options, flag)
        if path and not any(flag.upper() in f for f in failed):
            say(f"wrote merged {flag.upper()} report ({counted(merged.distributed.world_size, 'rank')}): {path}")
    for f in failed:
        say(f)
    return failed


def write_atomically(path: str, text: str) -> None:
    """Readers (another rank looking for parts) see the whole file or none of it."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
