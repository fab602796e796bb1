"""Which line of the user's own code a break or a guard belongs to.

Dynamo reports a graph break where it stopped tracing, which may be inside the
standard library (``copy.deepcopy``, ``inspect.currentframe``) or torch. The
line a user can change is the deepest frame outside those: that is the line
the "what to fix" list points at. A guard torch makes inside a library names
the library's line; the user's is the compiled frame's line that hands the
guarded value there.
"""

from __future__ import annotations

import linecache
import os
import re
import sysconfig
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from ..capturing.model import Bytecode, Guard, SourceLoc
from .guard_filter import user_name


@lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted(os.path.normpath(r) + os.sep for r in roots if r))


@lru_cache(maxsize=4096)  # asked for every guard and frame, of a few files
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
    # another machine's installs (a trace of a job that ran elsewhere): its packages and standard library
    return bool(_OTHER_LIBRARY.search(path.replace(os.sep, "/")))


_COMMENT = re.compile(r"#.*")  # a Python comment, to the end of the line


_OTHER_LIBRARY = re.compile(r"/(?:site|dist)-packages/|/lib/python3\.\d+/")


def is_torch_or_python_file(filename: Optional[str]) -> bool:
    """torch's own files and the standard library's: code no model author wrote. Narrower than
    ``is_library_file``: a model's code may be an installed package's (transformers' ``LlamaAttention.forward``),
    and that is what an engineer debugging it reads."""
    if not filename or (filename.startswith("<") and not filename.startswith(("<ipython-input", "<string>"))):
        return True
    path = os.path.normpath(filename)
    installed = any(f"{os.sep}{d}{os.sep}" in path for d in ("site-packages", "dist-packages"))
    if installed:
        return f"{os.sep}torch{os.sep}" in path
    return any(path.startswith(root) for root in _stdlib_roots())


@lru_cache(maxsize=1)
def _stdlib_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.normpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if paths.get(k))


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


_LOADS = ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW",
          "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_CLOSURE")


def first_read(name: Optional[str], code: Bytecode) -> Optional[int]:
    """The first line of the compiled frame ``code`` that hands on ``name``: a local (``x``) or a local's
    attribute (``self.norm``, for ``self.norm.weight``). Where torch checks a value inside a library
    (``F.layer_norm`` checks ``x``), this is the user's line that passed it there. Found in the frame's own
    bytecode: the first load of the local, or of its attribute right after it."""
    parts = (name or "").split(".")
    root, attr = parts[0], parts[1] if len(parts) > 1 else None
    if not root.isidentifier():
        return None
    if not code.instructions:  # a frame read from a trace has no code object: its source, line by line
        return _first_read_in_source(root, attr, code)
    previous = None
    for ins in code.instructions:
        loads_root = ins.opname in _LOADS and root in ins.argrepr.replace(",", " ").split()
        # a method load reads "NULL|self + norm" on 3.12, "norm + NULL|self" on 3.13
        reads_attr = previous is not None and ins.opname in ("LOAD_ATTR", "LOAD_METHOD") \
            and attr in ins.argrepr.replace("+", " ").split()
        if ins.line and (reads_attr if attr is not None else loads_root):
            return ins.line
        previous = ins if loads_root else None
    return None


def _first_read_in_source(root: str, attr: Optional[str], code: Bytecode) -> Optional[int]:
    """``first_read`` from the frame's source text: the first line after its ``def`` line that names the local
    (or ``local.attr``) outside a comment."""
    pattern = re.compile(rf"\b{re.escape(root)}\s*\.\s*{re.escape(attr)}\b" if attr else rf"\b{re.escape(root)}\b")
    lines = (code.source or "").split("\n")
    body = 0
    if lines[0].lstrip().startswith(("def ", "async def ", "@")):  # after the signature (quoted lines may lack it)
        body = next((i + 1 for i, line in enumerate(lines) if line.rstrip().endswith(":")), 1)
    for i, line in enumerate(lines[body:], start=body):
        if pattern.search(_COMMENT.sub("", line)):
            return code.firstlineno + i
    return None


@dataclass(frozen=True)
class GuardLine:
    """The line a guard belongs to, as a user reads it."""

    filename: Optional[str]
    lineno: Optional[int]
    function: Optional[str]
    source: Optional[str]
    checked_in: Optional[str] = None  # torch's own location, inside a library, when the line was moved from it

    @property
    def is_user(self) -> bool:
        return bool(self.lineno) and not is_library_file(self.filename)


def guard_line(guard: Guard, code: Optional[Bytecode]) -> GuardLine:
    """Torch's line for ``guard``; for a frame local checked inside a library (``L['x']`` at
    ``nn/modules/linear.py:134``), the compiled frame's line that hands it there (``self.fc1(x)``)."""
    own = GuardLine(guard.filename, guard.lineno, guard.function, guard.source)
    subject = guard.subject or ""
    if code is None or not subject.startswith("L[") or not (guard.lineno and is_library_file(guard.filename)):
        return own
    line = first_read(user_name(subject), code)
    if line is None:
        return own
    where = f"{guard.filename}:{guard.lineno}" + (f" in {guard.function}" if guard.function else "")
    return GuardLine(code.filename, line, code.name, linecache.getline(code.filename, line).strip() or None,
                     checked_in=where)
