"""A C++ kernel's source: its pointer parameters, and its body's loops, assignments, loads and stores."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .kernels import Access
from .syntax import bracket_pairs, closing, enclosing_call, first_argument, statement_end


def cpp_pointer_params(source: str) -> list[tuple[str, str]]:
    """(C type, name) of a C++ kernel's pointer parameters; [] when one is a scalar (a size: no byte count)."""
    m = re.search(r"void\s+kernel\s*\(([^)]*)\)", source)
    if not m:
        return []
    out = []
    for p in m.group(1).split(","):
        pm = re.match(r"\s*(?:const\s+)?([\w:]+)\s*\*\s*(\w+)", p)
        if pm:
            out.append((pm.group(1), pm.group(2)))
        elif p.strip():
            return []
    return out


@dataclass(frozen=True)
class CppLoop:
    """One ``for`` of a C++ kernel: its variable, its bounds (None when symbolic) and the body it covers."""

    var: str
    start: Optional[int]
    end: Optional[int]
    step: Optional[int]
    begin: int  # the body's first character, in the kernel body's text
    stop: int  # one past its last

    @property
    def elements(self) -> Optional[int]:
        """The index values the loop covers: a vectorized loop (step 16) covers every one in its range, its
        vector loads and stores reaching ``x .. x + 15``."""
        return max(0, self.end - self.start) if self.start is not None and self.end is not None else None


@dataclass(frozen=True)
class CppAssign:
    """``auto tmp3 = <rhs>;`` (or a plain ``tmp_acc0 = <rhs>;``): ``rhs`` may be a whole lambda."""

    name: str
    rhs: str
    at: int  # where ``rhs`` starts in the body


_CPP_KERNEL = re.compile(r"\bvoid\s+kernel\s*\(")
_FOR = re.compile(r"\bfor\s*\(")
_CPP_ASSIGN = re.compile(r"(?:^|(?<=[;{}\n]))[ \t]*(?:[\w:<>, ]*?[\w>]\s+)?(_?tmp\w*)\s*=(?!=)\s*")
_CAST = re.compile(r"^static_cast<[\w:]+>\((.*)\)$", re.S)
_KEYWORD = re.compile(r"^(?:static_cast|int64_t|int32_t|long|int|float|double|c10|at|vec|convert|std|auto|"
                      r"decltype|return|if|else|true|false|Vectorized\w*|VecMask|arange|loadu|store|template)$")
_LANE_COUNT = re.compile(r",\s*static_cast<int64_t>\(\w+\)\)$")


def cpp_body(source: str) -> str:
    """The text of a C++ kernel's ``kernel(...)`` function after its parameters, or ''."""
    m = _CPP_KERNEL.search(source)
    if not m:
        return ""
    close = closing(source, m.end() - 1)
    return source[close + 1:] if close >= 0 else ""


def cpp_int(text: str) -> Optional[int]:
    """``static_cast<int64_t>(16L)``, ``16L``, ``(-1L)`` -> the integer; None for a symbol (``ks0``)."""
    text = text.strip()
    while True:
        m = _CAST.match(text)
        if m and closing(text, text.index("(")) == len(text) - 1:
            text = m.group(1).strip()
        elif text.startswith("(") and closing(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
        else:
            break
    m = re.fullmatch(r"(-?\d+)[LlUu]*", text)
    return int(m.group(1)) if m else None


def cpp_keyword(word: str) -> bool:
    """A word of C++ or of Inductor's vector library (``static_cast``, ``int64_t``, ``Vectorized``, ``loadu``):
    never a loop variable or a value."""
    return _KEYWORD.match(word) is not None


def without_lane_count(rhs: str) -> str:
    """A vector load with its lane count argument left out (``loadu(p + x, static_cast<int64_t>(8))``)."""
    return _LANE_COUNT.sub(")", rhs)


def is_lanes_of(var: str, names: set[str]) -> bool:
    """``x1_inner``: the lanes of a non-contiguous vector access over ``x1`` (one of ``names``)."""
    return var.endswith("_inner") and var[:-len("_inner")] in names


def is_accumulator(name: str) -> bool:
    """``tmp_acc0``: a reduction's accumulator."""
    return name.startswith("tmp_acc")


def cpp_loops(body: str) -> list[CppLoop]:
    """Every ``for(init; var < end; step)`` of the body, with the block (or statement) it runs."""
    pairs = bracket_pairs(body)
    out = []
    for m in _FOR.finditer(body):
        close = pairs.get(m.end() - 1, -1)
        if close < 0:
            continue
        parts = [p.strip() for p in body[m.end():close].split(";")]
        if len(parts) != 3:
            continue
        init = re.match(r"^(?:[\w:]+\s+)?(\w+)\s*=\s*(.+)$", parts[0], re.S)
        if init is None:
            continue
        var = init.group(1)
        bound = re.match(rf"^{re.escape(var)}\s*<\s*(.+)$", parts[1], re.S)
        if parts[2] in (f"{var}++", f"++{var}"):
            step: Optional[int] = 1
        else:
            inc = re.match(rf"^{re.escape(var)}\s*\+=\s*(.+)$", parts[2], re.S)
            step = cpp_int(inc.group(1)) if inc else None
        begin = close + 1
        while begin < len(body) and body[begin] in " \t\r\n":
            begin += 1
        if begin < len(body) and body[begin] == "{":
            stop = pairs.get(begin, len(body) - 1) + 1
        else:
            stop = statement_end(body, begin) + 1
        out.append(CppLoop(var, cpp_int(init.group(2)), cpp_int(bound.group(1)) if bound else None, step,
                           begin, stop))
    return out


def cpp_assignments(body: str) -> list[CppAssign]:
    """Every assignment to a ``tmp`` name, in order, its right-hand side up to its ``;`` (lambdas whole)."""
    out = []
    for m in _CPP_ASSIGN.finditer(body):
        end = statement_end(body, m.end())
        out.append(CppAssign(m.group(1), body[m.end():end].strip(), m.end()))
    return out


_CPP_ALIAS = re.compile(r"\bauto\s+(\w+)\s*=\s*(\w+)\s*;")


def cpp_aliases(body: str, pointers: list[str]) -> dict[str, str]:
    """{local name: the pointer parameter it stands for}: ``auto out_ptr0 = in_out_ptr0;`` (an in-place
    buffer written under a second name)."""
    return {m.group(1): m.group(2) for m in _CPP_ALIAS.finditer(body) if m.group(2) in pointers}


def cpp_accesses(body: str, pointers: list[str]) -> list[Access]:
    """Every read and write of a pointer parameter: ``p[i]`` (``= v`` a store), ``loadu(p + i)``,
    ``v.store(p + i)``, ``transpose_mxn(src, .., dst, ..)``, ``atomic_add(&p[i], v)``,
    ``atomic_add_vec(p, index_vector, v)``; through a local alias of it too (named as the parameter). One the
    reader cannot classify has ``op`` ``"?"``."""
    if not pointers:
        return []
    aliases = cpp_aliases(body, pointers)
    declared = {m.start(i) for m in _CPP_ALIAS.finditer(body) if m.group(1) in aliases for i in (1, 2)}
    names = list(pointers) + list(aliases)
    out = []
    for m in re.finditer(r"\b(" + "|".join(re.escape(p) for p in names) + r")\b", body):
        if m.start() in declared:
            continue
        pointer = aliases.get(m.group(1), m.group(1))
        p = m.end()
        while p < len(body) and body[p] in " \t":
            p += 1
        call = enclosing_call(body, m.start())
        name, argpos = call if call else ("", -1)
        if p < len(body) and body[p] == "[":
            close = closing(body, p)
            if close < 0:
                out.append(Access("?", pointer, "", body.count("\n", 0, m.start()), m.start()))
                continue
            index = body[p + 1:close]
            after = body[close + 1:close + 4].lstrip()
            op = "store" if re.match(r"=(?!=)", after) else "atomic" if re.match(r"[-+*/]=", after) else "load"
            if name.startswith("atomic_"):
                op = "atomic"
        else:
            if p < len(body) and body[p] == "+":
                index = first_argument(body, p + 1) or "?"
            elif p < len(body) and body[p] in ",)":
                index = "0"
                if name == "atomic_add_vec":  # (pointer, index vector, value)
                    index = (first_argument(body, p + 1) if body[p] == "," else None) or "?"
            else:
                out.append(Access("?", pointer, "", body.count("\n", 0, m.start()), m.start()))
                continue
            if name == "store" or (name == "transpose_mxn" and argpos == 2):
                op = "store"
            elif name.startswith("atomic_"):
                op = "atomic"
            elif name:
                op = "load"
            else:
                op = "?"
        index = _uncast(index.strip())
        out.append(Access(op, pointer, index, body.count("\n", 0, m.start()), m.start()))
    return out


def _uncast(text: str) -> str:
    m = _CAST.match(text)
    while m and closing(text, text.index("(")) == len(text) - 1:
        text = m.group(1).strip()
        m = _CAST.match(text)
    return text
