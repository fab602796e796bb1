"""The code Dynamo traced into a graph -> the functions it inlined, and what the compilation compiled, by name.

Dynamo inlines every function a frame calls that it can trace (each module's ``forward``, helpers) into the
frame's one graph, so the graph's stack traces name lines of those functions, not of the frame: in a model whose
top-level ``forward`` is ``x = block(x)`` per layer, every operation comes from ``Block.forward``. As Dynamo writes
a graph, its tracing context lists the code objects it traced: the frame's first, then one entry per inlining as
each finished (a 32-layer model lists ``Block.forward`` 32 times). The recorder keeps that list (``traced_code``);
this module turns it into data: each function once, with its source read now (the file may change later), and
how many times it was inlined (``InlinedFunction``). A trace read from a file has no such list: the functions
are then found from the graph's stack traces (``inlined_from_graph``).

It also names the compilation as the user knows it (``Entry``): the frame's qualified name (``Decoder.forward``),
or, when the frame is torch's wrapper around a torch.nn module (``inner``, ``torch_compat.WRAPPER_FRAMES``), the
module's ``forward`` that the wrapper called (the last inlining to finish: the outermost call) and the user's
line that ran it (the innermost frame of ``dynamo_start``'s stack outside torch and the explorer).
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
from types import CodeType
from typing import Any, Optional, Union

from . import torch_compat
from .bytecode import source_lines
from .elements import Elements, Partly, partly
from .model import Entry, Frame, FxGraph, InlinedFunction, SourceLoc
from .parse_breaks import is_instrumentation
from .raw import DecodeError, RawEvent
from .records import TracedCode


def decode_traced_code(ev: RawEvent, ctx: Any) -> Union[TracedCode, Partly]:
    """The code objects of one graph, each read once (a model's forward appears once per layer). The first is
    the frame's, which the others are told from: without it the list says nothing; any other that is no code
    object is left out."""
    if ev.payload == ():
        return TracedCode(())
    if not isinstance(ev.payload, tuple) or not isinstance(ev.payload[0], CodeType):
        raise DecodeError(f"expected a tuple of code objects, the frame's first, got {_kind(ev.payload)}")
    codes = Elements(("traced function", "traced functions"), len(ev.payload))
    read: dict[CodeType, InlinedFunction] = {}
    for code in ev.payload:
        if not isinstance(code, CodeType):
            codes.left_out("held no code object")
        elif code not in read:
            read[code] = function_of(code)
    return partly(TracedCode(tuple(read[c] for c in ev.payload if isinstance(c, CodeType))), codes)


def _kind(payload: Any) -> str:
    return f"a tuple starting with {type(payload[0]).__name__}" if isinstance(payload, tuple) else \
        type(payload).__name__


def function_of(code: CodeType) -> InlinedFunction:
    lines = [line for *_, line in code.co_lines() if line]
    return InlinedFunction(name=getattr(code, "co_qualname", code.co_name), filename=code.co_filename,
                           firstlineno=code.co_firstlineno,
                           source=source_lines(code.co_filename, code.co_firstlineno, max(lines) if lines else None))


def _key(f: InlinedFunction) -> tuple[str, int, str]:
    return f.filename, f.firstlineno, f.name


def inlined_of(functions: tuple[InlinedFunction, ...]) -> tuple[InlinedFunction, ...]:
    """Each function inlined into the frame (``functions[0]``) once, in the order first traced, with its count."""
    if not functions:
        return ()
    frame = _key(functions[0])
    counts: dict[tuple[str, int, str], list] = {}
    for f in functions[1:]:
        key = _key(f)
        if key == frame:
            continue
        if key in counts:
            counts[key][1] += 1
        else:
            counts[key] = [f, 1]
    return tuple(dataclasses.replace(f, calls=n) for f, n in counts.values())


def inlined_from_graph(graph: FxGraph, frame: Frame, frame_source: Optional[str]) -> tuple[InlinedFunction, ...]:
    """Without Dynamo's list (a trace read from a file, where no tracing context was open to read): the functions
    the graph's stack traces name outside the frame's own lines, found in their files by name and line. ``calls``
    is then the most times one of its lines begins a run of the graph's nodes: at least that many inlinings."""
    last = frame.lineno + max(len((frame_source or "").splitlines()), 1) - 1
    runs: dict[tuple[str, str], dict[int, int]] = {}  # (file, function) -> line -> runs of nodes from it
    previous = None
    for node in graph.nodes:
        loc = node.loc
        if loc is None or not loc.lineno or not loc.function or loc == previous:
            previous = loc
            continue
        previous = loc
        if loc.filename == frame.filename and frame.lineno <= loc.lineno <= last:
            continue  # the frame's own line (or a generator expression's within it)
        lines = runs.setdefault((loc.filename, loc.function), {})
        lines[loc.lineno] = lines.get(loc.lineno, 0) + 1
    found: dict[tuple[str, int, str], InlinedFunction] = {}
    for (filename, function), lines in runs.items():
        span = _enclosing(filename, function, min(lines))
        if span is None:
            continue
        name, first, end = span
        if filename == frame.filename and first <= frame.lineno <= end:
            continue  # the frame's own function (a resume function's frame is the rest of it): not inlined
        source = source_lines(filename, first, end)
        key = (filename, first, name)
        calls = max(max(lines.values()), found[key].calls if key in found else 0)
        found[key] = InlinedFunction(name, filename, first, source, calls)
    return tuple(found.values())


def _enclosing(filename: str, function: str, line: int) -> Optional[tuple[str, int, int]]:
    """The innermost function named ``function`` around ``line`` of a file: (qualified name, first line, last)."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    best: Optional[tuple[str, int, int]] = None
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        node, prefix = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                todo.append((child, f"{prefix}{child.name}."))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                end = child.end_lineno or child.lineno
                if child.name == function and first <= line <= end and (best is None or first >= best[1]):
                    best = (prefix + child.name, first, end)
                todo.append((child, f"{prefix}{child.name}.<locals>."))
            else:
                todo.append((child, prefix))
    return best


def entry_of(functions: tuple[InlinedFunction, ...], stack: tuple[SourceLoc, ...]) -> Optional[Entry]:
    """What the compiled frame ran, by name; torch's wrapper frame seen through to the module it called."""
    if not functions:
        return None
    frame = functions[0]
    if not torch_compat.is_wrapper_frame(frame.filename, frame.name):
        return Entry(frame.name, frame.filename, frame.firstlineno)
    called = next((f for f in reversed(functions[1:]) if f.name not in torch_compat.MODULE_CALL_FUNCTIONS), None)
    if called is None:  # a torch function with nothing to inline (torch.compile(torch.sin)): the frame it is
        return None
    return Entry(called.name, called.filename, called.firstlineno, wrapper=True, called_at=user_line(stack))


def user_line(stack: tuple[SourceLoc, ...]) -> Optional[SourceLoc]:
    """The innermost frame below the compiled one (``stack[-1]``) in the user's code: not torch's, not ours."""
    torch_dir = _torch_dir()
    for loc in reversed(stack[:-1]):
        name = loc.filename or ""
        if not (is_instrumentation(name) or _is_torch(name, torch_dir)):
            return loc
    return None


def _torch_dir() -> Optional[str]:
    try:
        return torch_compat.torch_dir()
    except ImportError:  # a trace read where torch is not installed: the path's words decide
        return None


def _is_torch(filename: str, torch_dir: Optional[str]) -> bool:
    path = filename.replace("\\", "/")
    if torch_dir and filename.startswith(torch_dir):
        return True
    return any(f"/{where}/torch/" in path for where in ("site-packages", "dist-packages"))
