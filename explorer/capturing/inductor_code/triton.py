"""A Triton kernel's source: its decorator's metadata, its ``@triton.jit`` signature, its body's values,
loads and stores, and the index arithmetic they use (``x0 = xindex % 512``, ``tl.sum(...)``)."""

from __future__ import annotations

import ast
import re
from typing import Optional

from .kernels import Access
from .syntax import closing, first_argument

_SIGNATURE = re.compile(r"'signature':\s*(\{[^}]*\})")
_JIT_DEF = re.compile(r"@triton\.jit\s*\ndef\s+\w+\(([^)]*)\)")
_HEURISTIC = re.compile(r"@triton_heuristics\.(\w+)\(")
_SIZE_HINTS = re.compile(r"size_hints=(\{[^}]*\})")
_MUTATED = re.compile(r"'mutated_arg_names':\s*\[([^\]]*)\]")
_NUM_GB = re.compile(r"['\"]kernel_num_gb['\"]\s*:\s*([0-9.eE+-]+)")


# ---- the decorator's metadata and the signature ----

def triton_signature(source: str) -> dict[str, str]:
    """{param: Triton type} from the kernel's ``triton_meta={'signature': {...}}`` (``*bf16``, ``i32``, ...)."""
    m = _SIGNATURE.search(source)
    if not m:
        return {}
    try:
        return {str(k): str(v) for k, v in ast.literal_eval(m.group(1)).items()}
    except (ValueError, SyntaxError):
        return {}


def jit_params(source: str) -> list[tuple[str, bool]]:
    """(name, is constexpr) of the @triton.jit function's parameters, in order."""
    m = _JIT_DEF.search(source)
    if not m:
        return []
    out = []
    for p in m.group(1).split(","):
        if p.strip():
            name, _, ann = p.partition(":")
            out.append((name.strip(), "constexpr" in ann))
    return out


def heuristic(source: str) -> Optional[str]:
    """``pointwise``, ``reduction``, ``persistent_reduction``, ``template``: the ``@triton_heuristics.*``
    decorator; None without one."""
    m = _HEURISTIC.search(source)
    return m.group(1) if m else None


def size_hints(source: str) -> Optional[dict]:
    """The decorator's ``size_hints={'x': 1024, ...}`` as written; None when absent or unreadable."""
    m = _SIZE_HINTS.search(source)
    if not m:
        return None
    try:
        hints = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return None
    return hints if isinstance(hints, dict) else None


def mutated_arg_names(source: str) -> set[str]:
    """The parameters ``inductor_meta`` lists as mutated (written in place)."""
    if "'mutated_arg_names'" not in source:
        return set()
    return set(_MUTATED.findall(source)[0].replace("'", "").split(", "))


def arg_role(name: str, triton_type: str, mutated: set[str]) -> str:
    """What a (non-constexpr) parameter is, by its type and Inductor's naming: ``input``, ``output``,
    ``in/out`` for a pointer, ``size`` (``xnumel``, ``ks0``) or ``scalar``."""
    if triton_type.startswith("*"):
        return "in/out" if name.startswith("in_out") or name in mutated else \
            "output" if name.startswith("out") else "input"
    return "size" if "numel" in name or name.startswith("ks") else "scalar"


def kernel_num_gb(source: str) -> Optional[float]:
    """Inductor's own estimate of the GB a launch moves (``inductor_meta``'s ``kernel_num_gb``), or None."""
    m = _NUM_GB.search(source)
    return float(m.group(1)) if m else None


# ---- the body: assignments, loads and stores ----

_ASSIGN = re.compile(r"^[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*(.+?)[ \t]*$", re.M)
_ACCESS = re.compile(r"\btl\.(load|store|atomic_\w+)\(\s*")


def triton_body(source: str) -> str:
    """The ``@triton.jit`` function's body (what follows its ``def`` line), or ''."""
    m = _JIT_DEF.search(source)
    return source[m.end():] if m else ""


def triton_assignments(body: str) -> dict[str, list[str]]:
    """{name: every right-hand side assigned to it, in order} over the kernel body (loops included)."""
    out: dict[str, list[str]] = {}
    for m in _ASSIGN.finditer(body):
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


def triton_accesses(body: str) -> list[Access]:
    """Every load, store and atomic of the body, with the pointer and the offset expression it uses."""
    out = []
    for m in _ACCESS.finditer(body):
        first = first_argument(body, m.end())
        if first is None:
            continue
        pm = re.match(r"^(\w+)\s*(?:\+\s*(.+))?$", first, re.S)
        if pm is None:
            continue
        index = (pm.group(2) or "0").strip()
        if index.startswith("(") and closing(index, 0) == len(index) - 1:
            index = index[1:-1].strip()
        op = m.group(1) if m.group(1) in ("load", "store") else "atomic"
        out.append(Access(op, pm.group(1), index, body.count("\n", 0, m.start())))
    return out


# ---- index arithmetic ----

_ROOT = re.compile(r"^(x|y|z|r\d*_?)index$")
_REDUCE = re.compile(r"\b(?:tl\.(?:sum|max|min|reduce|argmax|argmin|cumsum|cumprod|associative_scan)|"
                     r"triton_helpers\.\w+|welford\w*)\(")
_INDEX_FORM = re.compile(r"\(?(\w+)\)?(?://(\d+))?\)?(?:%(\d+))?")
_LOAD_OPTIONS = re.compile(r",\s*(?:eviction_policy|other|cache_modifier)=[^,)]*")


def index_root(word: str) -> Optional[str]:
    """``xindex`` -> ``x``, ``r0_index`` -> ``r0_``: the launch's index variable a name is; None for others."""
    m = _ROOT.match(word)
    return m.group(1) if m else None


def reduces(rhs: str) -> bool:
    """The right-hand side reduces or scans (``tl.sum(``, ``triton_helpers.max2(``, ``welford_reduce(``)."""
    return _REDUCE.search(rhs) is not None


def loads(rhs: str) -> bool:
    """The right-hand side loads from memory (``tl.load(``)."""
    return "tl.load(" in rhs


def is_library_word(word: str) -> bool:
    """A word of Triton's or Inductor's libraries (``tl``, ``libdevice``, ``triton_helpers``), a constant
    (``XBLOCK``, ``None``) or a size (``xnumel``): never an index variable or a value."""
    return word.startswith(("tl", "libdevice", "triton_helpers")) or word.isupper() or word.endswith("numel") \
        or word in ("None", "True", "False")


def numel_names(prefix: str) -> tuple[str, ...]:
    """The size parameter of index prefix ``x`` (``xnumel``); a reduction's (``rnumel``, ``r0_numel``)."""
    return (f"{prefix}numel",) if prefix not in ("r", "r_") else ("rnumel", "r0_numel")


def index_form(rhs: str) -> Optional[tuple[str, Optional[int], Optional[int]]]:
    """``v``, ``v % K``, ``v // K``, ``(v // K) % M`` -> (v, K of ``//``, M of ``%``); None for another form."""
    m = _INDEX_FORM.fullmatch(rhs.replace(" ", "").strip("()"))
    if not m:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None, int(m.group(3)) if m.group(3) else None


def without_load_options(rhs: str) -> str:
    """A load with its ``eviction_policy=``, ``other=``, ``cache_modifier=`` left out: only its address."""
    return _LOAD_OPTIONS.sub("", rhs)


def index_prefix(root: str) -> str:
    """The prefix a root names sizes and variables by: ``x``, ``r0_`` (a reduction's ``r`` / ``r_``)."""
    return "r0_" if root in ("r", "r_") else root
