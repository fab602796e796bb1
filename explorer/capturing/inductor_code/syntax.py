"""The syntax Inductor's Python and C++ share: call arguments, brackets, statements, identifiers.

Plain text in, plain data out; every reader of the package splits arguments and finds brackets with these.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def words(expr: str) -> list[str]:
    """The identifiers of an expression, in order (repeats kept)."""
    return _WORD.findall(expr)


def replace_words(expr: str, fn: Callable[[str], str]) -> str:
    """``expr`` with each identifier replaced by ``fn(identifier)``."""
    return _WORD.sub(lambda m: fn(m.group(0)), expr)


def without_name(expr: str, name: str) -> str:
    """``expr`` with every whole-word use of ``name`` blanked (a value defined from itself)."""
    return re.sub(rf"\b{re.escape(name)}\b", " ", expr)


def split_args(text: str) -> list[str]:
    """``a, f(b, c), [d, e], {'k': v}`` -> its top-level arguments, stripped (brackets and quotes kept whole)."""
    if not any(c in text for c in "([{'\""):
        return [a.strip() for a in text.split(",") if a.strip()]
    out: list[str] = []
    depth, quote, cur = 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    last = "".join(cur).strip()
    if last:
        out.append(last)
    return out


def positional(args: list[str]) -> list[str]:
    """The arguments that are not ``name=value`` keywords (``stream=stream0``, ``out=buf3``)."""
    return [a for a in args if not re.match(r"^\w+\s*=(?!=)", a)]


def keywords(args: list[str]) -> dict[str, str]:
    out = {}
    for a in args:
        m = re.match(r"^(\w+)\s*=(?!=)\s*(.*)$", a, re.S)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def parse_call(stmt: str) -> Optional[tuple[Optional[str], str, str]]:
    """``buf4 = extern_kernels.mm(a, b)`` -> (``buf4``, ``extern_kernels.mm``, ``a, b``); None if no call."""
    if not stmt.endswith(")"):
        return None
    paren = stmt.find("(")
    if paren <= 0:
        return None
    head, lhs = stmt[:paren], None
    if " = " in head:
        lhs, head = head.rsplit(" = ", 1)
    if not head.replace(".", "").replace("_", "").isalnum():
        return None
    return lhs, head, stmt[paren + 1:-1]


def first_argument(text: str, start: int) -> Optional[str]:
    end = argument_end(text, start)
    return text[start:end].strip() if end >= 0 else None


def closing(text: str, open_at: int) -> int:
    """The position of the bracket closing the one at ``open_at``; -1 if none."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def bracket_pairs(text: str) -> dict[int, int]:
    """{position of an opening bracket: position of its closing one}, in one pass (a kernel has many loops)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(r"[()\[\]{}]", text):
        if m.group(0) in "([{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


def statement_end(text: str, start: int) -> int:
    """The ``;`` that ends the statement starting at ``start`` (brackets and braces skipped), or the text's end."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return i
        elif ch == ";" and depth == 0:
            return i
    return len(text)


def argument_end(text: str, start: int) -> int:
    """Where the call argument starting at ``start`` ends: the ``,`` or ``)`` at its own level; -1 if not found."""
    depth = 0
    for i in range(start, min(len(text), start + 4000)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif ch == "," and depth == 0:
            return i
    return -1


def enclosing_call(text: str, at: int) -> Optional[tuple[str, int]]:
    """(the called name, which argument ``at`` is in) of the call around ``at``: ``v.store(`` -> ``store``,
    ``transpose_mxn<float,16,16,false>(`` -> ``transpose_mxn``; None when ``at`` is in no call's parentheses."""
    depth, argpos = 0, 0
    i = at - 1
    floor = max(0, at - 4000)
    while i >= floor:
        ch = text[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None
                break
            depth -= 1
        elif ch == "," and depth == 0:
            argpos += 1
        elif ch == ";" and depth == 0:
            return None
        i -= 1
    else:
        return None
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j >= 0 and text[j] == ">":  # template arguments (which may hold casts and their parentheses)
        angle = 0
        while j >= 0:
            if text[j] == ">":
                angle += 1
            elif text[j] == "<":
                angle -= 1
                if angle == 0:
                    j -= 1
                    break
            j -= 1
    end = j + 1
    while j >= 0 and (text[j].isalnum() or text[j] == "_"):
        j -= 1
    return text[j + 1:end], argpos
