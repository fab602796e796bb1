"""Dynamo's guard tree text (trace event ``dynamo_cpp_guards_str``) -> one Guard per check.

Each check line reads ``+- KIND: code  # user source  # file:line in fn`` (a type check adds
`` (HINT: type T)``); the ``GuardManager: source=L['x']`` line above it names the value being guarded.
"""

from __future__ import annotations

import functools
import re
from typing import Optional

from .model import Guard

_LINE_RE = re.compile(r"^(?P<bars>[| ]*)\+- (?P<kind>[A-Z][A-Z0-9_]*): (?P<rest>.*)$")
# a dict's entries are managed in pairs: ``+- KeyValueManager pair``, then ``+- KeyManager: GuardManager: source=...``
# and ``+- ValueManager: GuardManager: source=...`` (a ModuleList's members are such values)
_MANAGER_RE = re.compile(
    r"^(?P<bars>[| ]*)\+- (?:\w+Manager: )?\w*GuardManager: source=(?P<source>.+?)(?:, accessed_by=|, type=|$)")
# torch appends " (HINT: type Linear)" to a type check's location
_LOC_RE = re.compile(r"^(?P<file>\S+):(?P<line>\d+) in (?P<fn>\S+)(?: \(HINT: [^)]*\))?$")


_ANY_LINE_RE = re.compile(_LINE_RE.pattern, re.M)


def has_guard(tree: str) -> bool:
    """Whether the text holds one guard line (what ``parse_guards`` would find one of), without parsing it all."""
    return _ANY_LINE_RE.search(tree) is not None


@functools.lru_cache(maxsize=16)  # the same tree again (a job's ranks, a capture's repeats): parsed once
def parse_guards(tree: str, frame_filename: Optional[str] = None) -> tuple[Guard, ...]:
    guards: list[Guard] = []
    managers: list[Optional[str]] = []  # the open managers' sources by depth (a tree: a new one closes deeper ones)
    for raw in tree.splitlines():
        m = _MANAGER_RE.match(raw)
        if m:
            depth = _depth(m["bars"])
            del managers[depth:]
            managers.extend([None] * (depth - len(managers)))
            managers.append(m["source"].strip())
            continue
        m = _LINE_RE.match(raw)
        if not m:
            continue
        depth = _depth(m["bars"])
        subject = next((s for s in reversed(managers[:depth]) if s is not None), None)
        guards.append(_guard(m["kind"], m["rest"], subject, frame_filename))
    return tuple(guards)


def _depth(bars: str) -> int:
    return len(bars) // 2


def _guard(kind: str, rest: str, subject: Optional[str], frame_filename: Optional[str]) -> Guard:
    parts = [p.strip() for p in re.split(r"\s+# ", rest)]
    code = parts[0]
    source = filename = fn = None
    lineno = None
    if len(parts) > 1:
        loc = _LOC_RE.match(parts[-1])
        if loc:
            filename, lineno, fn = _full_path(loc["file"], frame_filename), int(loc["line"]), loc["fn"]
            if len(parts) > 2:  # the user line may hold comments of its own
                source = "  # ".join(parts[1:-1])
        else:
            source = "  # ".join(parts[1:])
    if subject == "G" or subject is None:
        subject = _subject_from_code(code) or subject
    return Guard(kind=kind, code=code, subject=subject, source=source, filename=filename,
                 lineno=lineno, function=fn)


def _full_path(shown: str, frame_filename: Optional[str]) -> str:
    """torch cuts guard file names to their last characters; restore the frame's path."""
    if frame_filename and frame_filename.endswith(shown):
        return frame_filename
    return shown


def _subject_from_code(code: str) -> Optional[str]:
    m = re.search(r"((?:L|G)\[[^\]]+\](?:\[[^\]]+\]|\.\w+)*)", code)
    return m.group(1) if m else None
