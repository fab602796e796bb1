"""What every generated kernel shares, whatever its language: its name, its parameters, its statements.

Inductor names a kernel ``triton_poi_fused_add_0`` / ``cpp_fused_sin_1`` / ``triton_tem_fused_mm_2`` (a
template), its pointer parameters ``in_ptr0`` / ``out_ptr1`` / ``in_out_ptr0``, and its CSE values ``tmp3``,
``_tmp4``, ``tmp_acc0``; a statement defines or uses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional

_PY_PARAMS = re.compile(r"^def \w+\(([^)]*)\)", re.M)
_CPP_PARAMS = re.compile(r"\bkernel\(([^)]*)\)", re.S)
_INDUCTOR_POINTER = re.compile(r"^(?:in_out_ptr|in_ptr|out_ptr)\d+$")
_NUMBER = re.compile(r"_\d+$")
_VAR = re.compile(r"\b_?tmp\w*")
_TMP = re.compile(r"\b_?tmp\d+\b")
_FLOAT = re.compile(r"\d\.\d+(?:e[-+]?\d+)?|\de[-+]\d+")  # what differs between layers: eps, scales


# ---- names ----

def is_generated(name: str) -> bool:
    """A kernel Inductor generated (by its name: ``cpp_``, ``triton_``, ``halide_``), not a library call."""
    return name.startswith(("cpp_", "triton_", "halide_"))


def is_template(name: str) -> bool:
    """A template kernel (``triton_tem_fused_mm_0``): a matmul or convolution Inductor wrote from a template."""
    return "_tem_" in name or name.startswith("triton_tem")


def unnumbered(name: str) -> str:
    """``triton_poi_fused_add_3`` -> ``triton_poi_fused_add``: the kernel without its number."""
    return _NUMBER.sub("", name)


# ---- parameters ----

def kernel_params(source: str, language: str) -> list[str]:
    """A kernel's parameter names in order: the Python ``def`` of Triton/Halide code, C++'s ``kernel(...)``."""
    m = _PY_PARAMS.search(source) if language == "triton" else _CPP_PARAMS.search(source)
    if m is None:
        m = _CPP_PARAMS.search(source) or _PY_PARAMS.search(source)
    if m is None:
        return []
    out = []
    for p in m.group(1).split(","):
        p = p.split(":", 1)[0].strip()
        words = re.findall(r"[A-Za-z_]\w*", p)
        if words:
            out.append(words[-1])
    return out


def param_role(name: str) -> str:
    """What the kernel does with a pointer parameter, by Inductor's naming: read, written, or both."""
    if name.startswith("in_out_ptr"):
        return "in_out"
    if name.startswith("out_ptr"):
        return "out"
    return "in"


def is_inductor_pointer(name: str) -> bool:
    """``in_ptr0``, ``out_ptr1``, ``in_out_ptr0``: a pointer Inductor named (a template's own, ``X``, ``W``, not)."""
    return _INDUCTOR_POINTER.match(name) is not None


# ---- values and statements ----

def is_value(name: str) -> bool:
    """A CSE value of a kernel body: ``tmp3``, ``_tmp4``, ``tmp_acc0``."""
    return name.startswith(("tmp", "_tmp"))


def replace_values(expr: str, fn: Callable[[str], str]) -> str:
    """``expr`` with each numbered CSE value (``tmp3``, ``_tmp4``) replaced by ``fn(name)``."""
    return _TMP.sub(lambda m: fn(m.group(0)), expr)


def shape_key(source: str, name: str) -> str:
    """A kernel's source with its own name and its float constants written away: a model's layers make
    kernels alike but for these, read once."""
    return _FLOAT.sub("0", source.replace(name, "K"))


class KernelStatement(NamedTuple):
    """A kernel line that defines or uses a CSE value."""

    row: int  # 0-based line of the source
    defs: tuple[str, ...]
    uses: tuple[str, ...]
    rhs: str  # an assignment's right-hand side ('' for another statement)
    kind: str  # "op" (computes), "load" (reads a pointer), "store", "other"


def kernel_statements(lines: list[str]) -> tuple[list[KernelStatement], Optional[int]]:
    """A kernel's statements (lines defining or using a CSE variable) and its signature's line (``def``,
    ``kernel(``, ``extern "C"``)."""
    stmts = []
    signature = None
    for r, line in enumerate(lines):
        if "tmp" not in line:
            if signature is None and (line.startswith("def ") or "kernel(" in line or line.startswith('extern "C"')):
                signature = r
            continue
        split = _assignment(line)
        if split is not None:
            defs, rhs = split
            stmts.append(KernelStatement(r, defs, tuple(_VAR.findall(rhs)), rhs, "load" if "_ptr" in rhs else "op"))
            continue
        uses = tuple(_VAR.findall(line))
        if uses:
            kind = "store" if ("store" in line or "_ptr" in line) else "other"
            stmts.append(KernelStatement(r, (), uses, "", kind))
    return stmts, signature


def _assignment(line: str) -> Optional[tuple[tuple[str, ...], str]]:
    """``auto tmp3 = tmp1 * tmp2;`` / ``tmp4_mean, tmp4_m2 = ...`` -> (defined variables, right-hand side).

    Inductor writes every assignment as ``x = y`` (comparisons as ``==``, ``<=``, so never `` = ``)."""
    eq = line.find(" = ")
    if eq <= 0:
        return None
    lhs = line[:eq]
    if "(" in lhs or "[" in lhs or "." in lhs:
        return None
    names = tuple(p.rsplit(" ", 1)[-1] for p in lhs.strip().split(",") if p.strip())
    for n in names:
        if not (n.startswith("tmp") or n.startswith("_tmp")):
            return None
    return (names, line[eq + 3:]) if names else None


@dataclass(frozen=True)
class Access:
    """One load, store or atomic of a pointer parameter in a kernel (``tl.load``; C++'s ``p[i]``, ``loadu``)."""

    op: str  # "load" | "store" | "atomic" ("?" in C++: a use the reader cannot classify)
    pointer: str  # the parameter: in_ptr0, out_ptr1, in_out_ptr0
    index: str  # the offset expression added to it ("0" for the pointer itself)
    line: int  # 0-based line in the kernel source
    at: int = -1  # C++: where in the body it is (loops and assignments are scoped by position)
