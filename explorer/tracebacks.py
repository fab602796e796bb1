"""The user's exception, shown from the cell's lines: explorer and torch-compiler frames left out.

The exception object and its type are never touched (it is the one a plain run
raises); IPython asks an exception for ``_render_traceback_`` before formatting
it, so that is where the trimmed traceback goes.

IPython's own formatter is used when the user's frames are ordinary functions
(the cell called into code defined elsewhere). It cannot be used for the cell's
own frame, which is a function standing for module code: IPython 9 would name it
by its qualified name and, finding the registered text unparseable (its first
line is ``%%compile``), show only that line. Nor where Dynamo ran part of the
cell: a frame running Dynamo's rewritten code (its code object holds unhashable
constants, which IPython's stack_data fails on), a resume function
(``torch_dynamo_resume_in_g_at_3`` with Dynamo's own arguments, standing for the
rest of ``g``), or no user frame at all (Ctrl-C while Dynamo compiled). Those
tracebacks are written here, in IPython's layout, the same under IPython 8 and
9, with each frame under the name a plain run shows: the cell, or ``g(x)``.
"""

from __future__ import annotations

import linecache
import os
import sys
import types
from dataclasses import dataclass
from typing import Any, Optional

from .capturing.torch_door.dynamo import resumed
from .capturing.torch_door.version import COMPILER_FOLDERS

_EXPLORER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
CELL_FRAMES = ("compiled_cell",)  # the cell's own function: shown as the cell, like module code
_CONTEXT = 2  # lines before and after the current one, as IPython shows them


@dataclass(frozen=True)
class Entry:
    """One frame as the user should see it."""

    filename: str
    lineno: int
    name: Optional[str]  # None for the cell itself (module-level code)
    args: tuple[str, ...] = ()
    first: int = 1  # the scope's lines, for the context shown
    last: int = 0


def show_from_cell(exc: BaseException, shell: Any, at: Optional[tuple[str, int, str]] = None) -> None:
    """Makes IPython show ``exc`` with explorer and Dynamo frames left out.

    ``at`` (filename, line, frame name) stands for the user frame when none is
    left: Dynamo was compiling that code when ``exc`` (e.g. Ctrl-C) came.
    """
    if isinstance(exc, SyntaxError) or exc.__traceback__ is None:
        return  # IPython shows a SyntaxError as file and line, no frames
    tb = exc.__traceback__  # as it is now: frames IPython adds while it propagates are not the cell's
    trimmed = user_traceback(tb)

    def render() -> list[str]:
        if trimmed is not None and at is None and _native_ok(trimmed) and not _chain_needs_us(exc):
            return shell.InteractiveTB.structured_traceback(type(exc), exc, trimmed, tb_offset=0)
        return format_exception(exc, shell, at, tb)

    try:
        exc._render_traceback_ = render  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # an exception type without __dict__: full traceback
        pass


def user_traceback(tb: types.TracebackType) -> Optional[types.TracebackType]:
    """The traceback without frames from the explorer and torch's compiler machinery.

    Where Dynamo resumed a function after a graph break, that function's frame
    calls a resume function at the same file: only the resume frame (the line
    that raised) is kept. None when every frame was internal.
    """
    kept = _kept(tb)
    kept = [entry for i, entry in enumerate(kept) if not _calls_resume(entry, kept[i + 1:i + 2])]
    new: Optional[types.TracebackType] = None
    for frame, lasti, lineno in reversed(kept):
        new = types.TracebackType(new, frame, lasti, lineno)
    return new


def user_entries(tb: Optional[types.TracebackType]) -> list[Entry]:
    """The user's frames of ``tb`` under the names a plain run shows (see the module docstring)."""
    kept = _kept(tb)
    out: list[Entry] = []
    for i, (frame, _, lineno) in enumerate(kept):
        if _calls_resume((frame, 0, lineno), kept[i + 1:i + 2]):
            continue  # the resume frame below says where it raised; it is shown under this frame's name
        caller = kept[i - 1][0] if i and _calls_resume(kept[i - 1], [(frame, 0, lineno)]) else None
        out.append(_entry(frame, lineno, caller))
    return out


def _entry(frame: types.FrameType, lineno: int, caller: Optional[types.FrameType]) -> Entry:
    code = frame.f_code
    named = caller.f_code if caller is not None else code
    resume = resumed(named.co_name)
    name = resume[0] if resume else named.co_name
    last = max((line for _, _, line in code.co_lines() if line), default=lineno)
    if caller is not None:
        last = max([last] + [line for _, _, line in caller.f_code.co_lines() if line])
    if name in CELL_FRAMES:
        return Entry(code.co_filename, lineno, None, (), 1, len(linecache.getlines(code.co_filename)))
    nargs = named.co_argcount + named.co_kwonlyargcount
    args = tuple(named.co_varnames[:nargs])
    return Entry(code.co_filename, lineno, name, args, named.co_firstlineno, last)


def format_exception(exc: BaseException, shell: Any = None, at: Optional[tuple[str, int, str]] = None,
                     tb: Optional[types.TracebackType] = None) -> list[str]:
    """IPython's verbose layout for ``exc`` over the user frames of ``tb`` (default: its traceback),
    after its cause or context."""
    lines: list[str] = []
    cause = exc.__cause__ if exc.__cause__ is not None else (
        None if exc.__suppress_context__ else exc.__context__)
    if cause is not None and user_entries(cause.__traceback__):
        lines += format_exception(cause, shell)
        lines.append("\nThe above exception was the direct cause of the following exception:\n"
                     if exc.__cause__ is not None else
                     "\nDuring handling of the above exception, another exception occurred:\n")
    entries = user_entries(tb if tb is not None else exc.__traceback__)
    if not entries and at is not None:
        filename, lineno, name = at
        scope_end = len(linecache.getlines(filename))
        entries = [Entry(filename, lineno, None if name in CELL_FRAMES or resumed(name) else name,
                         (), 1, scope_end)]
    red, green, reset = _colors(shell)
    lines.append("-" * 75)
    lines.append(f"{red}{type(exc).__name__:<42}{reset}Traceback (most recent call last)")
    for entry in entries:
        lines.append(_frame_text(entry, shell, green, reset))
    lines.extend(_exception_lines(exc, red, reset))
    return lines


def _exception_lines(exc: BaseException, red: str, reset: str) -> list[str]:
    """``Name: message`` and the exception's notes, as IPython (8 and 9) writes them for any exception."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises: IPython shows it this way too
        message = "<exception str() failed>"
    notes = getattr(exc, "__notes__", None) or []
    if not isinstance(notes, (list, tuple)):
        notes = [repr(notes)]
    return [f"{red}{type(exc).__name__}{reset}: {message}", *(str(n) for n in notes)]


def _frame_text(entry: Entry, shell: Any, green: str, reset: str) -> str:
    where = f"{_file_label(entry.filename, shell)}, line {entry.lineno}"
    if entry.name is not None:
        where += f", in {entry.name}({', '.join(entry.args)})"
    body = []
    first = max(entry.first, entry.lineno - _CONTEXT)
    last = min(max(entry.last, entry.lineno), entry.lineno + _CONTEXT)
    for n in range(first, last + 1):
        text = linecache.getline(entry.filename, n).rstrip("\n")
        if n == entry.lineno:
            marker = "-" * max(5 - len(str(n)), 0) + "> "
            body.append(f"{green}{marker}{n}{reset} {text}")
        elif text or n < entry.lineno:
            body.append(f"{' ' * (7 - len(str(n)))}{n} {text}")
    while body and body[-1].strip().isdigit():  # no trailing empty lines
        body.pop()
    return where + "\n" + "\n".join(body) + "\n"


def _file_label(filename: str, shell: Any) -> str:
    fmt = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if fmt is not None:
        named = fmt(filename)
        if named is not None:
            return " ".join(named)
    return f"File {filename}"


def _colors(shell: Any) -> tuple[str, str, str]:
    scheme = str(getattr(shell, "colors", "NoColor")).lower()
    if shell is None or scheme == "nocolor":
        return "", "", ""
    return "\x1b[0;31m", "\x1b[0;32m", "\x1b[0m"


def _native_ok(tb: types.TracebackType) -> bool:
    """IPython's formatter copes: ordinary code objects (hashable), no resume function, not the cell."""
    walk: Optional[types.TracebackType] = tb
    while walk is not None:
        code = walk.tb_frame.f_code
        if resumed(code.co_name) or code.co_name in CELL_FRAMES:
            return False
        try:
            hash(code)
        except TypeError:
            return False
        walk = walk.tb_next
    return True


def _chain_needs_us(exc: BaseException) -> bool:
    seen = 0
    link = exc.__cause__ or exc.__context__
    while link is not None and seen < 8:
        if link.__traceback__ is not None and not _native_ok(link.__traceback__):
            return True
        link, seen = link.__cause__ or link.__context__, seen + 1
    return False


def _kept(tb: Optional[types.TracebackType]) -> list[tuple[types.FrameType, int, int]]:
    kept = []
    walk = tb
    while walk is not None:
        code = walk.tb_frame.f_code
        if not is_internal(code.co_filename) and not _is_compile_wrapper(code):
            kept.append((walk.tb_frame, walk.tb_lasti, walk.tb_lineno))
        walk = walk.tb_next
    return kept


def _is_compile_wrapper(code: types.CodeType) -> bool:
    """torch.compile's backend wrapper (``_TorchCompileWrapper.__call__`` in torch/__init__.py)."""
    torch_dir = _torch_dir()
    return bool(torch_dir) and code.co_filename == os.path.join(torch_dir, "__init__.py") and code.co_name == "__call__"


def _calls_resume(entry: tuple, following: list) -> bool:
    if not following:
        return False
    code, next_code = entry[0].f_code, following[0][0].f_code
    return code.co_filename == next_code.co_filename and next_code.co_name.startswith("torch_dynamo_resume_in_")


def is_internal(filename: str) -> bool:
    if filename.startswith(_EXPLORER_DIR):
        return True
    torch_dir = _torch_dir()
    if torch_dir and filename.startswith(torch_dir):
        rest = filename[len(torch_dir):]
        return rest.split(os.sep, 1)[0] in COMPILER_FOLDERS  # torch's compiler machinery: a plain run would not show it
    return False


def _torch_dir() -> Optional[str]:
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None
