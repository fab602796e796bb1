"""Bytes a generated kernel moves per launch: what its loads and stores touch.

A kernel's bandwidth is only as true as its byte count. Charging every buffer argument in full is wrong
for a gather (an embedding reads the rows its indices name, not the whole table), for a kernel reading a
slice (q of a packed qkv) and for a reduction that loads the same row in two loops. So for Triton kernels
the count follows the code: each ``tl.load`` / ``tl.store`` is an offset expression over the launch's index
variables (``x0 = xindex % 512``, ``r0_1 = r0_index``) and values loaded earlier (an index read from another
buffer: an indirect load); the elements it touches are at most the distinct values that expression can
take, which is at most the product of the ranges of the variables it depends on, and never more than the
buffer holds. Loads of the same pointer at the same offset (after substituting what each ``tmp`` holds)
touch the same elements and are counted once. Masks are not evaluated, so the count is an upper bound of
what is touched, and an exact count for the common case (each index variable addressing its own
dimension).

C++ kernels keep the estimate from the wrapper (each buffer argument once per direction).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Optional

from ..capturing.inductor_code import (
    arg_numel,
    buffer_sizes,
    cpp_pointer_params,
    direct_call_args,
    jit_params,
    param_role,
    run_args,
    triton_accesses,
    triton_assignments,
    triton_body,
    triton_signature,
)

_NUM_GB = re.compile(r"['\"]kernel_num_gb['\"]\s*:\s*([0-9.eE+-]+)")
_ITEMSIZE = {"float": 4, "double": 8, "bfloat16": 2, "half": 2, "float16": 2, "int64_t": 8, "uint64_t": 8,
             "int32_t": 4, "uint32_t": 4, "int16_t": 2, "uint16_t": 2, "int8_t": 1, "uint8_t": 1,
             "bool": 1, "long": 8, "int": 4, "float8_e4m3fn": 1, "float8_e5m2": 1}
_TRITON_ITEMSIZE = {"fp32": 4, "fp64": 8, "bf16": 2, "fp16": 2, "i64": 8, "u64": 8, "i32": 4, "u32": 4,
                    "i16": 2, "u16": 2, "i8": 1, "u8": 1, "i1": 1, "fp8e4nv": 1, "fp8e5": 1}
TOUCHED = "counted from the kernel's loads and stores (the elements each offset can reach, indirect loads included)"
WHOLE = "estimate: each buffer argument read or written once in full"


@dataclass(frozen=True)
class PointerTraffic:
    """What one pointer argument of one launch moves."""

    param: str
    arg: str  # what the wrapper passes: buf3, arg0_1, reinterpret_tensor(...)
    buffer_elements: int
    read_elements: int
    written_elements: int
    itemsize: int
    indirect: bool  # some access's offset depends on a loaded value (a gather or scatter)
    counted: bool  # from the code's accesses; False: the whole buffer, once per direction

    @property
    def bytes(self) -> int:
        return (self.read_elements + self.written_elements) * self.itemsize


def kernel_bytes(name: str, kernel: Any, wrapper_code: Optional[str]) -> tuple[Optional[int], str]:
    """(bytes read + written per call, how it was found); bytes is None with the reason when unknown."""
    if kernel is None:
        return None, "kernel source not captured (time the graph inside explorer.capture())"
    if kernel.language == "triton" and wrapper_code:
        traffic = triton_traffic(name, kernel.source, wrapper_code)
        if traffic is not None:
            return sum(p.bytes for p in traffic) or None, _how(traffic)
    m = _NUM_GB.search(kernel.source)
    if m:
        return round(float(m.group(1)) * 1e9), "inductor estimate (kernel_num_gb)"
    if kernel.language == "triton":
        return None, "no kernel_num_gb in the source and buffer sizes not readable from the wrapper"
    if kernel.language != "cpp":
        return None, f"no byte count for {kernel.language} kernels"
    if not wrapper_code:
        return None, "the wrapper code was not captured"
    est = cpp_bytes_estimate(name, kernel.source, wrapper_code)
    if est is None:
        return None, "buffer sizes not readable from the wrapper (dynamic shapes or an unknown form)"
    return est, WHOLE


def _how(traffic: list[PointerTraffic]) -> str:
    whole = [p.param for p in traffic if not p.counted]
    gathers = [p for p in traffic if p.indirect]
    if whole and len(whole) == len(traffic):
        return WHOLE
    how = TOUCHED
    if gathers:
        how += "; gathered: " + ", ".join(f"{p.param} {p.read_elements + p.written_elements:,} of "
                                          f"{p.buffer_elements:,} elements" for p in gathers)
    if whole:
        how += "; whole buffer (access form not read): " + ", ".join(whole)
    return how


def triton_traffic(name: str, kernel_source: str, wrapper_code: str) -> Optional[list[PointerTraffic]]:
    """Per pointer argument: elements read and written per launch; None when a buffer's size is unknown."""
    sig = triton_signature(kernel_source)
    params = [p for p, _ in jit_params(kernel_source)]
    args = run_args(name, wrapper_code)
    if not sig or not params or args is None:
        return None
    values = dict(zip([p for p in params if sig.get(p, "constexpr") != "constexpr"], args))
    sizes = buffer_sizes(wrapper_code)
    body = triton_body(kernel_source)
    space = _IndexSpace(body, values)
    accesses = triton_accesses(body)
    out = []
    for pname, arg in values.items():
        ty = sig.get(pname, "")
        if not ty.startswith("*"):
            continue
        n = arg_numel(arg, sizes)
        itemsize = _TRITON_ITEMSIZE.get(ty[1:])
        if n is None or itemsize is None:
            return None
        mine = [a for a in accesses if a.pointer == pname]
        counts = _touched(mine, space, n) if mine else None
        if counts is None:
            role = param_role(pname)
            out.append(PointerTraffic(pname, arg, n, n if role != "out" else 0, n if role != "in" else 0,
                                      itemsize, False, False))
            continue
        read, written, indirect = counts
        out.append(PointerTraffic(pname, arg, n, read, written, itemsize, indirect, True))
    return out


def _touched(accesses: list[Any], space: _IndexSpace, n: int) -> Optional[tuple[int, int, bool]]:
    """(elements read, elements written, indirect?) by one pointer's accesses; None if one cannot be read."""
    seen: dict[tuple[str, str], int] = {}
    indirect = False
    for a in accesses:
        key = space.canonical(a.index)
        found = space.distinct(a.index)
        if found is None:
            return None
        count, gathered = found
        indirect = indirect or gathered
        for op in (("load", "store") if a.op == "atomic" else (a.op,)):
            seen[(op, key)] = count
    read = min(n, sum(c for (op, _), c in seen.items() if op == "load"))
    written = min(n, sum(c for (op, _), c in seen.items() if op == "store"))
    return read, written, indirect


_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_ROOT = re.compile(r"^(x|y|z|r\d*_?)index$")
_REDUCE = re.compile(r"\b(?:tl\.(?:sum|max|min|reduce|argmax|argmin|cumsum|cumprod|associative_scan)|"
                     r"triton_helpers\.\w+|welford\w*)\(")


class _IndexSpace:
    """The launch's index variables and what each ``tmp`` value depends on, for one kernel body."""

    def __init__(self, body: str, values: dict[str, str]) -> None:
        self.defs = {k: v[-1] for k, v in triton_assignments(body).items()}
        self.all_defs = triton_assignments(body)
        self.values = values
        self._deps: dict[str, Optional[tuple[dict[str, dict[str, int]], bool]]] = {}
        self._canon: dict[str, str] = {}

    def numel(self, prefix: str) -> Optional[int]:
        """``xnumel``, ``r0_numel`` (``rnumel``): a constant of the body or what the wrapper passes."""
        for name in ((f"{prefix}numel",) if prefix not in ("r", "r_") else ("rnumel", "r0_numel")):
            seen = set()
            value: Optional[str] = name
            while value is not None and not value.isdigit() and value not in seen:
                seen.add(value)
                value = self.defs.get(value, self.values.get(value))
            if value is not None and value.isdigit():
                return int(value)
        return None

    def distinct(self, expr: str) -> Optional[tuple[int, bool]]:
        """(at most how many distinct values ``expr`` takes in one launch, does it depend on a loaded value)."""
        deps = self._expr_deps(expr, 0)
        if deps is None:
            return None
        roots, gathered = deps
        count = 1
        for prefix, vars_ in roots.items():
            total = self.numel(prefix)
            if total is None:
                return None
            count *= min(total, math.prod(vars_.values()) if vars_ else total)
        return count, gathered

    def _expr_deps(self, expr: str, depth: int) -> Optional[tuple[dict[str, dict[str, int]], bool]]:
        """{root prefix: {index variable: its range}} reached by ``expr``, through ``tmp`` values too."""
        if depth > 40:
            return None
        roots: dict[str, dict[str, int]] = {}
        gathered = False
        for word in set(_WORD.findall(expr)):
            if word in self.values or word.startswith(("tl", "libdevice", "triton_helpers")) \
                    or word.isupper() or word.endswith("numel") or word in ("None", "True", "False"):
                continue
            m = _ROOT.match(word)
            if m:
                card = self.numel(m.group(1))
                if card is None:
                    return None
                roots.setdefault(_prefix(m.group(1)), {})[word] = card
                continue
            rhs = self.defs.get(word)
            if rhs is None:
                continue  # a keyword argument's name (eviction_policy), a dtype: no index variable
            if "tl.load(" in rhs or _REDUCE.search(rhs) or word.startswith(("tmp", "_tmp")):
                sub = self._value_deps(word, depth)
                if sub is None:
                    return None
                for prefix, vars_ in sub[0].items():
                    roots.setdefault(prefix, {}).update(vars_)
                gathered = gathered or sub[1] or "tl.load(" in rhs
                continue
            var = self._index_var(word, rhs, depth)
            if var is None:
                return None
            prefix, card = var
            roots.setdefault(prefix, {})[word] = card
        return roots, gathered

    def _value_deps(self, name: str, depth: int) -> Optional[tuple[dict[str, dict[str, int]], bool]]:
        """What a ``tmp`` value depends on: a loaded value on the variables of its offset; a reduced one
        loses the reduction's variables."""
        if name in self._deps:
            return self._deps[name]
        self._deps[name] = ({}, False)  # a value defined from itself (an accumulator) adds nothing more
        merged: dict[str, dict[str, int]] = {}
        gathered = False
        for rhs in self.all_defs.get(name, ()):
            loads = triton_accesses(rhs) if "tl.load(" in rhs else []
            # a loaded value is fixed by its address: only the offsets count (not the mask, not `other`)
            parts = [a.index for a in loads] if loads else [re.sub(rf"\b{re.escape(name)}\b", " ", rhs)]
            for part in parts:
                sub = self._expr_deps(part, depth + 1)
                if sub is None:
                    self._deps[name] = None
                    return None
                roots, g = sub
                if not loads and _REDUCE.search(rhs):
                    roots = {p: v for p, v in roots.items() if not p.startswith("r")}
                for prefix, vars_ in roots.items():
                    merged.setdefault(prefix, {}).update(vars_)
                gathered = gathered or g
            gathered = gathered or bool(loads)
        self._deps[name] = (merged, gathered)
        return merged, gathered

    def _index_var(self, name: str, rhs: str, depth: int) -> Optional[tuple[str, int]]:
        """An index variable derived from one root: ``v``, ``v % K``, ``v // K``, ``(v // K) % M``."""
        text = rhs.replace(" ", "").strip("()")
        m = re.fullmatch(r"\(?(\w+)\)?(?://(\d+))?\)?(?:%(\d+))?", text)
        if m:
            base = m.group(1)
            root = _ROOT.match(base)
            if root:
                prefix, card = _prefix(root.group(1)), self.numel(root.group(1))
            elif base in self.defs and depth < 40:
                got = self._index_var(base, self.defs[base], depth + 1)
                if got is None:
                    return None
                prefix, card = got
            else:
                return None
            if card is None:
                return None
            if m.group(2):
                card = -(-card // int(m.group(2)))
            if m.group(3):
                card = min(card, int(m.group(3)))
            return prefix, card
        sub = self._expr_deps(rhs, depth + 1)  # another form: bounded by the roots it reads
        if sub is None or len(sub[0]) != 1:
            return None
        (prefix, vars_), = sub[0].items()
        total = self.numel(prefix)
        return (prefix, min(total, math.prod(vars_.values()))) if total is not None else None

    def canonical(self, expr: str, depth: int = 0) -> str:
        """``expr`` with each ``tmp`` replaced by what it holds, so equal offsets compare equal."""
        if depth > 12:
            return expr

        def sub(m: re.Match) -> str:
            word = m.group(0)
            if not word.startswith(("tmp", "_tmp")) or word not in self.defs:
                return word
            got = self._canon.get(word)
            if got is None:
                self._canon[word] = word  # defined from itself (an accumulator): named, not expanded again
                rhs = re.sub(r",\s*(?:eviction_policy|other|cache_modifier)=[^,)]*", "", self.defs[word])
                got = self._canon[word] = "(" + self.canonical(rhs, depth + 1) + ")"
            return got

        return re.sub(r"\b_?tmp\d+\b", sub, expr.replace(" ", ""))


def _prefix(root: str) -> str:
    return "r0_" if root in ("r", "r_") else root


# ---- C++ ----

def cpp_bytes_estimate(name: str, kernel_source: str, wrapper_code: str) -> Optional[int]:
    """Sum of numel x itemsize over a C++ kernel's pointer arguments; in_out buffers count twice."""
    params = cpp_pointer_params(kernel_source)
    args = direct_call_args(name, wrapper_code)
    if not params or args is None or len(args) != len(params):
        return None
    sizes = buffer_sizes(wrapper_code)
    total = 0
    for arg, (ctype, pname) in zip(args, params):
        n = arg_numel(arg, sizes)
        itemsize = _ITEMSIZE.get(ctype.split("::")[-1].lower())
        if n is None or itemsize is None:
            return None
        total += n * itemsize * (2 if pname.startswith("in_out") else 1)
    return total
