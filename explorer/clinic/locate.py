"""Which frames of a traceback are the user's own code.

Dynamo reports a graph break where it stopped tracing, which may be inside the
standard library (``copy.deepcopy``, ``inspect.currentframe``) or torch. The
line a user can change is the deepest frame outside those: that is the line
the "what to fix" list points at.
"""

from __future__ import annotations

import linecache
import os
import re
import sysconfig
from functools import lru_cache
from typing import Optional

from ..capturing.model import SourceLoc


@lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted(os.path.normpath(r) + os.sep for r in roots if r))


def is_library_file(filename: Optional[str]) -> bool:
    """True for the standard library, installed packages, and frozen/builtin pseudo-files."""
    if not filename:
        return True
    if filename.startswith("<") and not filename.startswith(("<ipython-input", "<string>")):
        return True  # <frozen ...>, <built-in>
    path = os.path.normpath(filename)
    if any(path.startswith(root) for root in _library_roots()):
        return True
    if not os.path.isabs(path):
        # torch names its own files relative to its package in guard comments ("nn/modules/dropout.py")
        return _library_relative(path)
    return f"{os.sep}torch{os.sep}" in path and f"{os.sep}site-packages{os.sep}" in path


@lru_cache(maxsize=256)
def _library_relative(path: str) -> bool:
    for root in _library_roots():
        for base in (root, os.path.join(root, "torch")):
            if os.path.isfile(os.path.join(base, path)):
                return True
    return False


_SWALLOWED = re.compile(r'^File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)$')


def repaired(traceback: tuple[SourceLoc, ...]) -> tuple[SourceLoc, ...]:
    """Undoes a parse slip: a frame without source text (``<stdin>``) swallowed the next frame's header."""
    out: list[SourceLoc] = []
    for loc in traceback:
        m = _SWALLOWED.match(loc.code or "")
        if m is None:
            out.append(loc)
            continue
        out.append(SourceLoc(loc.filename, loc.lineno, loc.function, None))
        line = int(m["line"])
        out.append(SourceLoc(m["file"], line, m["fn"], linecache.getline(m["file"], line).strip() or None))
    return tuple(out)


def user_frame(traceback: tuple[SourceLoc, ...]) -> Optional[SourceLoc]:
    """The deepest frame of ``traceback`` in the user's own code, if any."""
    for loc in reversed(repaired(traceback)):
        if not is_library_file(loc.filename):
            return loc
    return None


def basename(path: Optional[str]) -> str:
    return (path or "?").rsplit("/", 1)[-1]


def rel(path: Optional[str]) -> str:
    """A path relative to the working directory when that is shorter, for CLI lines."""
    if not path:
        return "?"
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
