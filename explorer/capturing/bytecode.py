"""Code objects -> Bytecode data: the `dis` listing, an instruction table with
line numbers (for the line-level chain), the function's source, and for
rewritten code a decompilation to Python when depyf manages one.
"""

from __future__ import annotations

import dis
import linecache
import re
import sys
from types import CodeType
from typing import Optional

from .model import Bytecode, Instruction


def from_code(code: CodeType, decompile: bool = False) -> Bytecode:
    instructions = tuple(Instruction(*row) for row in instruction_rows(code))
    lines = [i.line for i in instructions if i.line]
    decompiled, error = _decompile(code) if decompile else (None, None)
    return Bytecode(
        name=code.co_name,
        filename=code.co_filename,
        firstlineno=code.co_firstlineno,
        listing=dis_listing(code),
        instructions=instructions,
        source=source_lines(code.co_filename, code.co_firstlineno, max(lines) if lines else None),
        decompiled=decompiled,
        decompile_error=error,
    )


def instruction_rows(code: CodeType) -> list[tuple[int, str, str, Optional[int], bool]]:
    """(offset, opname, argrepr, line, is_jump_target) across Python versions."""
    out = []
    line = None
    for inst in dis.get_instructions(code):
        if sys.version_info >= (3, 13):
            line = inst.line_number
        elif inst.starts_line is not None:
            line = inst.starts_line
        out.append((inst.offset, inst.opname, inst.argrepr, line, bool(inst.is_jump_target)))
    return out


def dis_listing(code: CodeType) -> str:
    """The ``dis`` listing with each instruction's offset, on every Python: 3.13 leaves offsets out by default
    (jump targets become labels, ``L1:``), but Dynamo names resume functions by offset (``__resume_at_30``) and
    the panes read a listing's rows by its offset column."""
    if sys.version_info >= (3, 13):
        return dis.Bytecode(code, show_offsets=True).dis()
    return dis.Bytecode(code).dis()


def from_listing(name: str, filename: str, firstlineno: int, listing: str) -> Bytecode:
    """When only torch's printed listing exists (frames the hook never saw: a frame Dynamo gave up on)."""
    return Bytecode(name=name, filename=filename, firstlineno=firstlineno, listing=listing,
                    instructions=instructions_of_listing(listing), source=source_lines(filename, firstlineno, None))


# a row of a `dis` listing: [line] [>> | L1:] offset OPNAME [arg] [(argrepr)]
_ROW = re.compile(r"^\s*(?:(?P<line>\d+)\s+)?(?:(?P<target>>>|L\d+:)\s+)?(?P<offset>\d+)\s+(?P<op>[A-Z][A-Z0-9_]*)"
                  r"(?:\s+\d+)?(?:\s+\((?P<repr>.*)\))?\s*$")
# Python 3.13's default layout has no offset column: [line] [L1:] OPNAME [arg] [(argrepr)]
_ROW_313 = re.compile(r"^\s*(?:(?P<line>\d+)\s+)?(?:(?P<target>L\d+:)\s+)?(?P<op>[A-Z][A-Z0-9_]*)"
                      r"(?:\s+\d+)?(?:\s+\((?P<repr>.*)\))?\s*$")
_FIRST_ROW = re.compile(r"^\s*(?P<numbers>(?:\d+\s+(?:>>\s+|L\d+:\s+)?)+)[A-Z][A-Z0-9_]*")


def instructions_of_listing(listing: str) -> tuple[Instruction, ...]:
    """The instruction table read back from a printed ``dis`` listing (rows it cannot read are left out).

    Torch prints listings with ``dis``'s defaults, which on Python 3.13 leave out the offset column: the first
    row (it always carries its line) tells the layouts apart, by one number before the opcode or two. Without
    offsets, each row's offset is its position in code units (2 bytes each, inline caches not counted)."""
    rows = listing.splitlines()
    first = next((m for m in map(_FIRST_ROW.match, rows) if m), None)
    with_offsets = first is None or len(first["numbers"].split()) - ("L" in first["numbers"]) >= 2
    out: list[Instruction] = []
    line = None
    for text in rows:
        m = (_ROW if with_offsets else _ROW_313).match(text)
        if m is None:
            continue
        if m["line"]:
            line = int(m["line"])
        offset = int(m["offset"]) if with_offsets else 2 * len(out)
        out.append(Instruction(offset, m["op"], m["repr"] or "", line, bool(m["target"])))
    return tuple(out)


def source_lines(filename: str, first: int, last: Optional[int]) -> Optional[str]:
    """Lines ``first`` to ``last`` of a file as Python's line cache has them (``last`` unknown: up to 200)."""
    all_lines = linecache.getlines(filename)
    if not all_lines or first < 1:
        return None
    if last is None or last < first:
        last = min(len(all_lines), first + 200)
    return "".join(all_lines[first - 1:last]) or None


def _decompile(code: CodeType) -> tuple[Optional[str], Optional[str]]:
    try:
        from depyf.decompiler import Decompiler
    except ImportError:
        return None, "depyf is not installed"
    # depyf caches decompile() forever (lru_cache on the method); calling the function
    # underneath keeps the rewritten code object, and what it references, collectable.
    decompile = getattr(Decompiler.decompile, "__wrapped__", Decompiler.decompile)
    try:
        return decompile(Decompiler(code)), None
    except Exception as e:  # noqa: BLE001 - decompiling is best-effort: the error is shown instead
        return None, _decompile_failure(code, e)


def _decompile_failure(code: CodeType, e: Exception) -> str:
    """Why there is no decompiled text, with the versions: depyf reads the bytecode of the Pythons it was written
    for (0.20 fails on most of Python 3.13's, e.g. its CALL and LOAD_FAST_LOAD_FAST), so the reader can tell a
    version gap from a bug."""
    import sys
    from importlib.metadata import PackageNotFoundError, version

    try:
        depyf = f"depyf {version('depyf')}"
    except PackageNotFoundError:
        depyf = "depyf"
    message = str(e)
    if not message.startswith(type(e).__name__):  # depyf's DecompilationError names itself
        message = f"{type(e).__name__}: {message}"
    python = ".".join(map(str, sys.version_info[:2]))
    return f"{depyf} could not decompile {code.co_name} (Python {python} bytecode): {message}"
