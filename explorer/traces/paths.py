"""What a PATH given to ``open`` holds: trace logs (by rank when their names say), other files, debug folders.

PATH is a TORCH_TRACE directory (``dedicated_log_torch_trace_rank_3_ab12cd.log``, one per process), one log
file, a ``.gz`` of a log, a ``.tar.gz`` (or ``.tgz``, ``.tar``) of a directory, or a TORCH_COMPILE_DEBUG folder
(its ``tlparse/`` logs and, under ``run_<date>-pid_<pid>/torchinductor/``, the loop-level IR the trace lacks).
Files that are not trace logs are listed with why, never skipped in silence; a PATH that holds no trace at all
is an ``OpenError`` (the CLI's exit code 2).
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from ..capturing.trace_file import GLOG

_RANK_NAME = re.compile(r"dedicated_log_torch_trace_rank_(\d+)[_.]")
_DEBUG_RUN = re.compile(r"^run_.*-pid_(\d+)$")
_SNIFF = 4096  # characters read to tell a trace log from another file


class OpenError(Exception):
    """PATH holds nothing to open: it does not exist, cannot be read, or holds no trace log."""


@dataclass(frozen=True)
class LogFile:
    path: str
    name: str  # as the report names it: relative to PATH
    rank: Optional[int] = None  # from the file's name (torch adds rank_N_ once the process group is up)


@dataclass
class Found:
    """The logs to read, the other files with why they are not read, and the debug folders' IR by process."""

    logs: list[LogFile] = field(default_factory=list)
    stray: list[tuple[str, str]] = field(default_factory=list)  # (name, why)
    debug_runs: dict[int, str] = field(default_factory=dict)  # pid -> its run_*/torchinductor folder
    unpacked: Optional[str] = None  # a temporary folder an archive was unpacked to (removed by ``close``)

    def close(self) -> None:
        if self.unpacked:
            shutil.rmtree(self.unpacked, ignore_errors=True)
            self.unpacked = None


def find(path: str) -> Found:
    """What ``path`` holds; raises ``OpenError`` when it holds no trace log."""
    path = os.path.expanduser(os.fspath(path))
    if not os.path.exists(path):
        raise OpenError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        found = _folder(path)
    elif _is_archive(path):
        found = _archive(path)
    else:
        found = _file(path)
    if not found.logs:
        found.close()
        listed = "; ".join(f"{n}: {why}" for n, why in found.stray[:5])
        raise OpenError(f"{path}: no TORCH_TRACE log in it" + (f" ({listed})" if listed else " (it is empty)"))
    return found


def _file(path: str) -> Found:
    why = _not_a_log(path)
    if why:
        raise OpenError(f"{path}: {why}")
    return Found(logs=[LogFile(path, os.path.basename(path), _rank_of_name(os.path.basename(path)))])


def _folder(root: str) -> Found:
    found = Found()
    try:
        walk = list(os.walk(root, onerror=_raise))
    except OSError as e:
        raise OpenError(f"{root}: cannot be read ({e.strerror or e})") from None
    for folder, dirs, files in walk:
        dirs.sort()
        rel = os.path.relpath(folder, root)
        run = _DEBUG_RUN.match(os.path.basename(folder))
        if run and os.path.isdir(os.path.join(folder, "torchinductor")):
            found.debug_runs[int(run.group(1))] = os.path.join(folder, "torchinductor")
        if _in_debug_run(rel):
            continue  # a TORCH_COMPILE_DEBUG run's own files: read for their IR only
        for name in sorted(files):
            path = os.path.join(folder, name)
            shown = name if rel == "." else os.path.join(rel, name)
            why = _not_a_log(path)
            if why:
                found.stray.append((shown, why))
            else:
                found.logs.append(LogFile(path, shown, _rank_of_name(name)))
    return found


def _raise(error: OSError) -> None:
    raise error


def _in_debug_run(rel: str) -> bool:
    return any(_DEBUG_RUN.match(part) for part in rel.split(os.sep))


def _is_archive(path: str) -> bool:
    if not path.endswith((".tar", ".tar.gz", ".tgz", ".gz")):
        return False
    try:
        return tarfile.is_tarfile(path)
    except OSError as e:
        raise OpenError(f"{path}: cannot be read ({e.strerror or e})") from None


def _archive(path: str) -> Found:
    """A tar of a trace folder, unpacked to a temporary folder for as long as the report is being made."""
    target = tempfile.mkdtemp(prefix="cx_trace_")
    try:
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]  # no links, no devices
            if hasattr(tarfile, "data_filter"):
                tar.extractall(target, members=members, filter="data")
            else:
                tar.extractall(target, members=[m for m in members if _safe(m.name)])
    except (OSError, tarfile.TarError, EOFError) as e:
        shutil.rmtree(target, ignore_errors=True)
        raise OpenError(f"{path}: the archive cannot be unpacked ({e})") from None
    found = _folder(target)
    found.unpacked = target
    return found


def _safe(name: str) -> bool:
    return not os.path.isabs(name) and ".." not in name.split("/")


def _not_a_log(path: str) -> Optional[str]:
    """Why ``path`` is not a trace log (None: it is one): read its first line."""
    from ..capturing.trace_file import open_text

    try:
        if os.path.getsize(path) == 0:
            return "an empty file"
        with open_text(path) as fh:
            head = fh.read(_SNIFF)
    except (OSError, EOFError) as e:
        return f"cannot be read ({getattr(e, 'strerror', None) or e})"
    first = next((line for line in head.splitlines() if line.strip()), "")
    m = GLOG.match(first)
    if m is None or not first[m.end():].startswith("{"):
        return "not a TORCH_TRACE log (its first line is not a trace record)"
    return None


def _rank_of_name(name: str) -> Optional[int]:
    m = _RANK_NAME.match(name)
    return int(m.group(1)) if m else None
