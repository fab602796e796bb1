"""``python -m explorer run --nproc-per-node N train.py``: N ranks under torch.distributed.run, one merged report.

The launcher is torch's own (``torch.distributed.run``, what ``torchrun`` runs), started as
``torchrun --standalone --nproc-per-node N -m explorer run [options] train.py -- [args]``: each rank
gets the rendezvous environment torchrun gives (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ...), runs
the script under capture and writes its part into a folder of this process's; once every rank has
ended, this process merges the parts, writes ``--json`` / ``--html`` and prints the summary. Ranks
torchrun saw die without a part (a signal) are named as missing, with how they ended. One machine;
for several, run ``torchrun ... -m explorer run`` on each and ``python -m explorer merge`` the parts.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from typing import Any, Callable, Optional

from ..options import Options
from ..report import RankRun, Report
from . import env as rank_envs
from .merge import merge
from .rank import write_merged

EXIT_OK, EXIT_RAISED, EXIT_GRAPH_BREAK, EXIT_REPORT_FAILED, EXIT_INTERRUPTED = 0, 1, 3, 4, 130
# the launcher's own words: not passed on to the ranks (they write parts, quietly)
_LAUNCHER_ONLY = {"--nproc-per-node": True, "--json": True, "--html": True, "--quiet": False,
                  "--fail-on-break": False}


def launch(run: Any, options: Options, *, quiet: bool, fail_on_break: bool, say: Callable[[str], None]) -> int:
    """Starts the ranks, waits for all of them, merges their parts; returns the job's exit code."""
    from ..capturing.torch_door.distributed import launch_ranks

    n = options.nproc_per_node or 1
    child = ["-m", "explorer", "run", *rank_words(run.option_words), "--quiet", run.script, "--",
             *run.script_args]
    folder = tempfile.mkdtemp(prefix="compile-explorer-ranks-")
    interrupted = False
    try:
        saved = os.environ.get(rank_envs.PARTS_ENV)
        os.environ[rank_envs.PARTS_ENV] = folder  # the ranks inherit it: where they write their parts
        try:
            ended = launch_ranks(n, child)
        except KeyboardInterrupt:  # Ctrl-C (or a signal to torchrun): merge what the ranks wrote
            interrupted, ended = True, {}
        finally:
            _restore(rank_envs.PARTS_ENV, saved)
        merged = _merged(folder, n, {k: ended_text(c) for k, c in ended.items()}, options, say)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if merged is None:
        return EXIT_INTERRUPTED if interrupted else EXIT_RAISED
    failed = write_merged(merged, options, quiet=quiet, say=say)
    code = EXIT_INTERRUPTED if interrupted else exit_code(merged.distributed.ranks, ended)
    if code == EXIT_OK and failed:
        return EXIT_REPORT_FAILED
    if code == EXIT_OK and fail_on_break and any(r.capture and r.capture.graph_breaks
                                                 for r in merged.distributed.ranks):
        say(f"exit {EXIT_GRAPH_BREAK}: graph breaks on some rank and --fail-on-break")
        return EXIT_GRAPH_BREAK
    return code


def rank_words(words: list[str]) -> list[str]:
    """The explorer options given, less the launcher's own (and their values)."""
    out = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in _LAUNCHER_ONLY:
            skip = _LAUNCHER_ONLY[name] and "=" not in word
            continue
        out.append(word)
    return out


def exit_code(ranks: tuple[RankRun, ...], ended: dict[int, int]) -> int:
    """The job's exit code: the first rank that failed of its own accord (not stopped by torchrun); else a
    rank killed by a signal (128 + its number, as a shell says); else 1."""
    failed = [r for r in ranks if r.failure is not None]
    if not failed and not ended:
        return EXIT_OK
    own = [r for r in failed if r.failure.kind in ("raised", "exit", "interrupted")]
    if own:
        first = min(own, key=lambda r: (r.info.ended_at or 0) if r.info else 0)
        return first.failure.exit_code or EXIT_RAISED
    signals = [-code for rank, code in sorted(ended.items()) if code < 0 and ranks[rank].info is None]
    return 128 + signals[0] if signals else EXIT_RAISED


def ended_text(exitcode: int) -> str:
    """How torchrun saw a rank end: ``exit code 1``, ``killed by SIGKILL``."""
    if exitcode >= 0:
        return f"exit code {exitcode}"
    try:
        return f"killed by {signal.Signals(-exitcode).name}"
    except ValueError:
        return f"killed by signal {-exitcode}"


def _merged(folder: str, n: int, ended: dict[int, str], options: Options,
            say: Callable[[str], None]) -> Optional[Report]:
    parts = rank_envs.parts_in_folder(folder)
    reports: dict[int, Report] = {}
    for k, path in parts.items():
        try:
            reports[k] = Report.load(path)
        except (OSError, ValueError) as e:
            say(f"rank {k}'s part could not be read: {e}")
    if not reports:
        say("no rank wrote a part: nothing was captured, no report was written")
        return None
    return merge(reports, world_size=n, launcher=ended, options=options)


def _restore(name: str, value: Optional[str]) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
