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
dimension). An indirect access counts every index it loads as a distinct one (32 token ids: 32 rows of the
table), so where indices repeat it touches fewer: the count is "up to", and the view says so.

C++ kernels are read the same way (``cpp_traffic``): each access of a pointer parameter (``in_ptr0[x0]``,
``loadu(in_ptr1 + x1 + 64L*tmp0)``, ``tmp.store(out_ptr0 + ...)``, ``atomic_add_vec(out_ptr0, index, v)``) is an
offset over the loop variables around it (``for(int64_t x1=0; x1<64; x1+=16)``: a vectorized loop covers its
whole range) and the ``tmp`` values assigned before it. A pointer whose accesses cannot be read (a template
kernel's own code) is charged in full, once per direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from ..capturing.inductor_code import (
    CppAssign,
    CppLoop,
    arg_numel,
    buffer_sizes,
    cpp_accesses,
    cpp_assignments,
    cpp_body,
    cpp_loops,
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
from ..capturing.inductor_code import triton as tt
from ..capturing.inductor_code.cpp import (
    cpp_keyword,
    is_accumulator,
    is_lanes_of,
    without_lane_count,
)
from ..capturing.inductor_code.kernels import is_inductor_pointer, is_value, replace_values
from ..capturing.inductor_code.syntax import replace_words, without_name, words

_ITEMSIZE = {"float": 4, "double": 8, "bfloat16": 2, "half": 2, "float16": 2, "int64_t": 8, "uint64_t": 8,
             "int32_t": 4, "uint32_t": 4, "int16_t": 2, "uint16_t": 2, "int8_t": 1, "uint8_t": 1,
             "bool": 1, "long": 8, "int": 4, "float8_e4m3fn": 1, "float8_e5m2": 1}
_TRITON_ITEMSIZE = {"fp32": 4, "fp64": 8, "bf16": 2, "fp16": 2, "i64": 8, "u64": 8, "i32": 4, "u32": 4,
                    "i16": 2, "u16": 2, "i8": 1, "u8": 1, "i1": 1, "fp8e4nv": 1, "fp8e5": 1}
TOUCHED = "counted from the kernel's loads and stores (the elements each offset can reach, indirect loads included)"
WHOLE = "estimate: each buffer argument read or written once in full"
INDIRECT = "indirect (each index value counted as its own element or row: an upper bound when indices repeat)"


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
    gathered_elements: int = 0  # read by indirect loads (part of read_elements)
    scattered_elements: int = 0  # written by indirect stores and atomics (part of written_elements)

    @property
    def bytes(self) -> int:
        return (self.read_elements + self.written_elements) * self.itemsize


def kernel_traffic(name: str, kernel: Any, wrapper_code: Optional[str]
                   ) -> tuple[Optional[int], str, tuple[PointerTraffic, ...]]:
    """(bytes read + written per call, how it was found; bytes is None with the reason when unknown) and the
    pointers behind them (empty when the bytes were not counted from the code)."""
    if kernel is None:
        return None, "kernel source not captured (time the graph inside explorer.capture())", ()
    if kernel.language in _READERS and wrapper_code:
        traffic = _READERS[kernel.language](name, kernel.source, wrapper_code)
        if traffic is not None:
            return sum(p.bytes for p in traffic) or None, _how(traffic), tuple(traffic)
    num_gb = tt.kernel_num_gb(kernel.source)
    if num_gb is not None:
        return round(num_gb * 1e9), "inductor estimate (kernel_num_gb)", ()
    if kernel.language not in _READERS:
        return None, f"no byte count for {kernel.language} kernels", ()
    if not wrapper_code:
        return None, "the wrapper code was not captured", ()
    if kernel.language == "triton":
        return None, "no kernel_num_gb in the source and buffer sizes not readable from the wrapper", ()
    return None, "buffer sizes not readable from the wrapper (dynamic shapes or an unknown form)", ()


def _how(traffic: list[PointerTraffic]) -> str:
    whole = [p.param for p in traffic if not p.counted]
    gathers = [p for p in traffic if p.indirect]
    if whole and len(whole) == len(traffic):
        return WHOLE
    how = TOUCHED
    if gathers:
        how += "; " + INDIRECT + ": " + ", ".join(gather_text(p) for p in gathers)
    if whole:
        how += "; whole buffer (access form not read): " + ", ".join(whole)
    return how


def gather_text(p: PointerTraffic) -> str:
    """``in_ptr1 (primals_1): gathered 2,048 of 6,400,000 elements``: what its indirect accesses touch."""
    parts = [f"{verb} {count:,}" for verb, count in (("gathered", p.gathered_elements),
                                                    ("scattered", p.scattered_elements)) if count]
    return f"{p.param} ({p.arg}) " + " and ".join(parts) + f" of {p.buffer_elements:,} elements"


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
        out.append(_pointer(pname, arg, n, itemsize, _touched(mine, space) if mine else None))
    return out


def _touched(accesses: list[Any], space: _IndexSpace) -> Optional[dict[tuple[str, str], tuple[int, bool]]]:
    """{(load | store, offset): (elements, indirect?)} of one pointer's accesses; None if one cannot be read."""
    seen: dict[tuple[str, str], tuple[int, bool]] = {}
    for a in accesses:
        key = space.canonical(a.index)
        found = space.distinct(a.index)
        if found is None:
            return None
        for op in (("load", "store") if a.op == "atomic" else (a.op,)):
            seen[(op, key)] = found
    return seen


def _pointer(pname: str, arg: str, n: int, itemsize: int, seen: Optional[dict[tuple[str, str], tuple[int, bool]]]
             ) -> PointerTraffic:
    """One pointer's traffic from its distinct accesses: each direction's elements, capped at the buffer's;
    without them (``seen`` None: not read), the whole buffer once per direction its name says."""
    if seen is None:
        role = param_role(pname)
        return PointerTraffic(pname, arg, n, n if role != "out" else 0, n if role != "in" else 0, itemsize, False,
                              False)

    def total(op: str, indirect_only: bool = False) -> int:
        # an atomic's read is part of its scatter (it loads and stores the same offsets): not a gather
        return min(n, sum(c for (o, key), (c, g) in seen.items() if o == op and (
            not indirect_only or (g and (op == "store" or ("store", key) not in seen)))))

    return PointerTraffic(pname, arg, n, total("load"), total("store"), itemsize,
                          any(g for _, g in seen.values()), True, total("load", True), total("store", True))


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
        for name in tt.numel_names(prefix):
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
        for word in set(words(expr)):
            if word in self.values or tt.is_library_word(word):
                continue
            root = tt.index_root(word)
            if root is not None:
                card = self.numel(root)
                if card is None:
                    return None
                roots.setdefault(tt.index_prefix(root), {})[word] = card
                continue
            rhs = self.defs.get(word)
            if rhs is None:
                continue  # a keyword argument's name (eviction_policy), a dtype: no index variable
            if tt.loads(rhs) or tt.reduces(rhs) or is_value(word):
                sub = self._value_deps(word, depth)
                if sub is None:
                    return None
                for prefix, vars_ in sub[0].items():
                    roots.setdefault(prefix, {}).update(vars_)
                gathered = gathered or sub[1] or tt.loads(rhs)
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
            loads = triton_accesses(rhs) if tt.loads(rhs) else []
            # a loaded value is fixed by its address: only the offsets count (not the mask, not `other`)
            parts = [a.index for a in loads] if loads else [without_name(rhs, name)]
            for part in parts:
                sub = self._expr_deps(part, depth + 1)
                if sub is None:
                    self._deps[name] = None
                    return None
                roots, g = sub
                if not loads and tt.reduces(rhs):
                    roots = {p: v for p, v in roots.items() if not p.startswith("r")}
                for prefix, vars_ in roots.items():
                    merged.setdefault(prefix, {}).update(vars_)
                gathered = gathered or g
            gathered = gathered or bool(loads)
        self._deps[name] = (merged, gathered)
        return merged, gathered

    def _index_var(self, name: str, rhs: str, depth: int) -> Optional[tuple[str, int]]:
        """An index variable derived from one root: ``v``, ``v % K``, ``v // K``, ``(v // K) % M``."""
        form = tt.index_form(rhs)
        if form:
            base, div, mod = form
            root = tt.index_root(base)
            if root is not None:
                prefix, card = tt.index_prefix(root), self.numel(root)
            elif base in self.defs and depth < 40:
                got = self._index_var(base, self.defs[base], depth + 1)
                if got is None:
                    return None
                prefix, card = got
            else:
                return None
            if card is None:
                return None
            if div:
                card = -(-card // div)
            if mod:
                card = min(card, mod)
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

        def sub(word: str) -> str:
            if not is_value(word) or word not in self.defs:
                return word
            got = self._canon.get(word)
            if got is None:
                self._canon[word] = word  # defined from itself (an accumulator): named, not expanded again
                rhs = tt.without_load_options(self.defs[word])
                got = self._canon[word] = "(" + self.canonical(rhs, depth + 1) + ")"
            return got

        return replace_values(expr.replace(" ", ""), sub)


# ---- C++ ----

def cpp_traffic(name: str, kernel_source: str, wrapper_code: str) -> Optional[list[PointerTraffic]]:
    """Per pointer argument of a C++ kernel: elements read and written per call, read from its loads and stores
    as the Triton reader reads Triton's (see the module's docstring); None when a buffer's size is unknown."""
    params = cpp_pointer_params(kernel_source)
    args = direct_call_args(name, wrapper_code)
    if not params or args is None or len(args) != len(params):
        return None
    sizes = buffer_sizes(wrapper_code)
    body = cpp_body(kernel_source)
    names = [p for _, p in params]
    accesses = cpp_accesses(body, names) if body else []
    space = _CppSpace(body, accesses)
    out = []
    for arg, (ctype, pname) in zip(args, params):
        n = arg_numel(arg, sizes)
        itemsize = _ITEMSIZE.get(ctype.split("::")[-1].lower())
        if n is None or itemsize is None:
            return None
        mine = [a for a in accesses if a.pointer == pname]
        out.append(_pointer(pname, arg, n, itemsize,
                            _cpp_touched(mine, space) if mine and is_inductor_pointer(pname) else None))
    return out




def _cpp_touched(accesses: list[Any], space: _CppSpace) -> Optional[dict[tuple[str, str], tuple[int, bool]]]:
    """As ``_touched``: accesses at the same offset over the same loop ranges (a reduction's second loop over a
    row, a vectorized loop's tail) are counted once."""
    seen: dict[tuple[str, str], tuple[int, bool]] = {}
    for a in accesses:
        if a.op == "?":
            return None
        found = space.distinct(a.index, a.at)
        if found is None:
            return None
        key = space.canonical(a.index, a.at)
        for op in (("load", "store") if a.op == "atomic" else (a.op,)):
            seen[(op, key)] = found
    return seen


class _CppSpace:
    """A C++ kernel body's loops and ``tmp`` values: what each offset depends on, scoped by position.

    A name means the loop (or the assignment) that encloses (precedes) where it is used: Inductor reuses
    ``x1`` and ``tmp0`` in each loop nest. A vectorized loop (``x1 += 16``) covers every index in its range;
    ``x1_inner`` (the lanes of a non-contiguous vector access) adds nothing where ``x1`` is counted.
    """

    def __init__(self, body: str, accesses: list[Any]) -> None:
        self.loops: dict[str, list[CppLoop]] = {}
        for loop in cpp_loops(body):
            self.loops.setdefault(loop.var, []).append(loop)
        self.assigns: dict[str, list[CppAssign]] = {}
        for a in cpp_assignments(body):
            self.assigns.setdefault(a.name, []).append(a)
        self.accesses = accesses
        self._deps: dict[tuple[str, int], Optional[tuple[dict[tuple[str, int], int], bool]]] = {}
        self._canon: dict[tuple[str, int], str] = {}

    def loop(self, var: str, at: int) -> Optional[CppLoop]:
        """The innermost loop of ``var`` around position ``at``."""
        around = [lp for lp in self.loops.get(var, ()) if lp.begin <= at < lp.stop]
        return max(around, key=lambda lp: lp.begin) if around else None

    def assignment(self, name: str, at: int) -> Optional[CppAssign]:
        """The last assignment to ``name`` before ``at``."""
        before = [a for a in self.assigns.get(name, ()) if a.at < at]
        return before[-1] if before else None

    def distinct(self, expr: str, at: int) -> Optional[tuple[int, bool]]:
        """(at most how many distinct values ``expr`` takes in one call, does it depend on a loaded value)."""
        deps = self._expr_deps(expr, at, 0)
        if deps is None:
            return None
        roots, gathered = deps
        names = {var for var, _ in roots}
        count = 1
        for (var, _), elements in roots.items():
            if is_lanes_of(var, names):
                continue  # a vector's lanes: x1 already counts the range they cover
            count *= elements
        return count, gathered

    def _expr_deps(self, expr: str, at: int, depth: int
                   ) -> Optional[tuple[dict[tuple[str, int], int], bool]]:
        """{(loop variable, its loop): the values it covers} reached by ``expr``, through ``tmp`` values too."""
        if depth > 40:
            return None
        roots: dict[tuple[str, int], int] = {}
        gathered = False
        for word in set(words(expr)):
            if cpp_keyword(word):
                continue
            loop = self.loop(word, at)
            if loop is not None:
                if loop.elements is None:
                    return None
                roots[(word, loop.begin)] = loop.elements
                continue
            assign = self.assignment(word, at)
            if assign is None:
                continue  # a size symbol, a lambda's local buffer, a function: no loop variable
            sub = self._value_deps(word, assign, depth)
            if sub is None:
                return None
            roots.update(sub[0])
            gathered = gathered or sub[1]
        return roots, gathered

    def _value_deps(self, name: str, assign: CppAssign, depth: int
                    ) -> Optional[tuple[dict[tuple[str, int], int], bool]]:
        """What a ``tmp`` value depends on: a loaded value on the variables of its offsets; an accumulator
        (``tmp_acc0``) on the loops around its declaration (not the ones it reduces over)."""
        key = (name, assign.at)
        if key in self._deps:
            return self._deps[key]
        self._deps[key] = ({}, False)  # a value defined from itself adds nothing more
        if is_accumulator(name):
            first = self.assigns[name][0]
            got: Optional[tuple[dict[tuple[str, int], int], bool]] = (
                {(lp.var, lp.begin): lp.elements or 0 for lps in self.loops.values() for lp in lps
                 if lp.begin <= first.at < lp.stop}, True)
        else:
            end = assign.at + len(assign.rhs)
            loads = [a for a in self.accesses if assign.at <= a.at < end and a.op == "load"]
            got = self._loads_deps(loads, depth) if loads else self._expr_deps(
                without_name(assign.rhs, name), assign.at, depth + 1)
        self._deps[key] = got
        return got

    def _loads_deps(self, loads: list[Any], depth: int) -> Optional[tuple[dict[tuple[str, int], int], bool]]:
        """A loaded value is fixed by its address: only the offsets count (not a mask, not the other branch)."""
        roots: dict[tuple[str, int], int] = {}
        for a in loads:
            sub = self._expr_deps(a.index, a.at, depth + 1)
            if sub is None:
                return None
            roots.update(sub[0])
        return roots, True

    def canonical(self, expr: str, at: int, depth: int = 0) -> str:
        """``expr`` with each ``tmp`` replaced by what it holds and each loop variable by its range, so equal
        offsets over the same ranges compare equal (the main and tail branches of a loop, two loops over a row)."""
        if depth > 12:
            return expr

        def sub(word: str) -> str:
            loop = self.loop(word, at)
            if loop is not None:
                return f"{word}[{loop.start}:{loop.end}]"
            assign = self.assignment(word, at) if is_value(word) else None
            if assign is None or is_accumulator(word):
                return word
            key = (word, assign.at)
            if key not in self._canon:
                self._canon[key] = word  # defined from itself: named, not expanded again
                rhs = without_lane_count(assign.rhs)  # a load's lane count
                self._canon[key] = "(" + self.canonical(rhs, assign.at, depth + 1) + ")"
            return self._canon[key]

        return replace_words(expr.replace(" ", ""), sub)


_READERS = {"triton": triton_traffic, "cpp": cpp_traffic}
