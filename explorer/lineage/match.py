"""Inside one kernel or one loop body: which post-grad node each line computes.

torch's provenance stops at the kernel (``cppCodeToPost``: kernel -> the
post-grad nodes it computes; the Triton header's ``Graph fragment``). Inside a
fused kernel no torch artifact says which line computes which node, so this
module assigns them, only ever choosing among the nodes torch says the kernel
computes:

1. every line that defines or uses a CSE variable (``tmp3``, ``tmp_acc0_vec``,
   ``_tmp4``; in a loop body ``sin``, ``load_1``) is a statement; its
   variables give the data flow (a use refers to the latest definition above);
2. a statement that computes from other variables is matched to a candidate
   node by the op it spells (``tmp1.sin()``, ``tl_math.sin``, ``ops.sin``,
   ``tmp3 * tmp2`` for ``aten.mul``, ``tl.sum`` for ``aten.sum``), preferring
   a node whose inputs the statement's operands come from, then one not yet
   matched, then the earliest in graph order;
3. loads, constants, broadcasts and other unmatched statements take the nodes
   of the statements that consume them; stores take the nodes of what they
   store; whatever is still unassigned takes all the kernel's nodes.

This is the documented heuristic of the line-level chain; the kernel-level
mapping it refines is torch's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Iterable, Optional

# the words a node's op is spelled with in generated code (C++, Triton) and in loop bodies (ops.*)
_SYMBOLS = {"add": "+", "sub": "-", "rsub": "-", "mul": "*", "div": "/", "true_divide": "/",
            "floor_divide": "//", "remainder": "%", "fmod": "%", "eq": "==", "ne": "!=", "lt": "<",
            "le": "<=", "gt": ">", "ge": ">=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
            "logical_and": "&", "logical_or": "|", "neg": "-"}
_MAX = ("max", "max2", "maximum", "max_propagate_nan")
_MIN = ("min", "min2", "minimum", "min_propagate_nan")
_WELFORD = ("welford", "welford_reduce", "welford_combine", "welford_reduce_fallback")
_CAST = ("to", "to_dtype", "static_cast", "convert")
_ALIASES: dict[str, tuple[str, ...]] = {
    "div": ("truediv", "div_rn", "floordiv"), "true_divide": ("truediv",), "floor_divide": ("floordiv",),
    "relu": ("clamp_min", *_MAX), "clamp": ("clamp_min", "clamp_max", *_MAX, *_MIN),
    "clamp_min": ("clamp_min", *_MAX), "clamp_max": ("clamp_max", *_MIN),
    "hardtanh": ("clamp_min", "clamp_max", *_MAX, *_MIN), "maximum": _MAX, "minimum": _MIN,
    "sum": ("+",), "mean": ("sum", "+", "/", "truediv"), "amax": _MAX, "amin": _MIN,
    "max": _MAX, "min": _MIN, "prod": ("*",), "any": ("|", "or_"), "all": ("&", "and_"),
    "argmax": ("argmax", *_MAX), "argmin": ("argmin", *_MIN),
    "var_mean": _WELFORD, "var": _WELFORD, "std": _WELFORD, "std_mean": _WELFORD,
    "native_layer_norm": (*_WELFORD, "rsqrt", "-", "*", "+"),
    "where": ("blendv", "?", "masked"), "convert_element_type": _CAST, "_to_copy": _CAST,
    "pow": ("*", "square"), "reciprocal": ("/",), "expand": ("broadcast_to",),
    "prepare_softmax_online": ("online_softmax_reduce", *_MAX, "sum", "exp", "-"),
    "_softmax": (*_MAX, "exp", "sum", "-", "/"), "_log_softmax": (*_MAX, "exp", "log", "sum", "-"),
    "gelu": ("erf", "tanh", "*", "+"), "silu": ("sigmoid", "exp", "*", "/"), "abs": ("fabs",),
    "logical_not": ("!", "not"), "bitwise_not": ("~",), "sigmoid": ("exp", "/"),
    "full": ("constant",), "scalar_tensor": ("constant",), "index": ("load",),
}
# view-like ops compute nothing of their own: their lines are index arithmetic inside loads
_NO_COMPUTE = {"view", "reshape", "_unsafe_view", "permute", "transpose", "t", "squeeze", "unsqueeze",
               "slice", "select", "as_strided", "alias", "clone", "copy", "copy_", "split", "split_with_sizes",
               "getitem", "cat", "unbind", "contiguous", "detach", "lift_fresh_copy", "_reshape_alias"}
_VOCABULARY = frozenset(w for ws in _ALIASES.values() for w in ws) | frozenset(_SYMBOLS.values())
_OPERATORS = (" + ", " - ", " * ", " / ", " // ", " % ", " == ", " != ", " < ", " <= ", " > ", " >= ",
              " & ", " | ", " ^ ", " ? ")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def op_of(target: str) -> str:
    """``aten.sin.default`` -> ``sin``; ``prims.convert_element_type.default`` -> ``convert_element_type``."""
    parts = target.split(".")
    if len(parts) >= 2 and parts[0] in ("aten", "prims", "inductor", "quantized", "higher_order", "operator",
                                        "torch", "_operator", "math"):
        return parts[1] if parts[0] not in ("torch",) else parts[-1]
    return parts[-1]


@cache
def node_words(op: str) -> frozenset[str]:
    """The words that spell ``op`` in a line: its name, its aliases, its operator symbol."""
    if op in _NO_COMPUTE:
        return frozenset()
    words = {op, op.lstrip("_")}
    words.update(_ALIASES.get(op, ()))
    if op in _SYMBOLS:
        words.add(_SYMBOLS[op])
    return frozenset(words)


def line_words(rhs: str, vocabulary: frozenset[str]) -> frozenset[str]:
    """The op words a statement's right-hand side spells (identifiers and spaced operators)."""
    found = {w for w in _IDENT.findall(rhs) if w in vocabulary}
    padded = f" {rhs} "
    for op in _OPERATORS:
        if op in padded:
            found.add(op.strip())
    if rhs.lstrip().startswith("-"):
        found.add("-")
    return frozenset(found)


@dataclass
class Stmt:
    row: int  # 0-based line of the text
    defs: tuple[str, ...]
    uses: tuple[str, ...]
    words: frozenset[str]  # op words the line spells (only for computing statements)
    kind: str  # "op" | "load" | "store" | "index" | "other"


@dataclass(frozen=True)
class Candidate:
    name: str
    op: str
    inputs: frozenset[str]
    order: int  # position in the graph (earlier first on ties)
    words: frozenset[str]


NodeInfo = tuple[str, tuple[str, ...], int]  # a graph node's op, input nodes, position


def candidates(names: Iterable[str], table: dict[str, NodeInfo]) -> list[Candidate]:
    """Candidates for the nodes ``names`` of a post-grad node table."""
    out = []
    for name in names:
        info = table.get(name)
        if info is None:
            continue
        op, inputs, order = info
        out.append(Candidate(name, op, frozenset(inputs), order, node_words(op)))
    out.sort(key=lambda c: c.order)
    return out


class Matcher:
    """The candidates of one kernel (or one scheduler node's call), indexed by the words that spell them."""

    def __init__(self, cands: list[Candidate], memo: Optional[dict] = None) -> None:
        self.cands = cands
        self.everything = tuple(c.name for c in cands)
        self.by_word: dict[str, list[Candidate]] = {}
        for c in cands:
            for w in c.words:
                self.by_word.setdefault(w, []).append(c)
        self.vocabulary = _VOCABULARY.union(self.by_word)
        # for ``_best`` without scanning every candidate a word names (a 5,000-op chain has 5,000 `*`s):
        # of one op, only the earliest and the earliest not yet matched can win unless the statement's
        # upstream touches them, and those are found through the names and their consumers
        self.by_name = {c.name: c for c in cands}
        self.by_op: dict[str, list[Candidate]] = {}
        for c in cands:
            self.by_op.setdefault(c.op, []).append(c)
        self.ops_of_word = {w: tuple(dict.fromkeys(c.op for c in cs)) for w, cs in self.by_word.items()}
        self.consumers: dict[str, list[Candidate]] = {}
        for c in cands:
            for x in c.inputs:
                self.consumers.setdefault(x, []).append(c)
        rank = {c.name: i for i, c in enumerate(cands)}
        self._rank = rank
        # what the matching depends on, without the names: models repeat layers, and the
        # kernels and loop bodies of each layer match alike (computed once, kept in ``memo``)
        self.signature = tuple((c.op, tuple(sorted(rank[x] for x in c.inputs if x in rank))) for c in cands)
        self.memo = memo if memo is not None else {}

    def assign(self, stmts: list[Stmt]) -> tuple[list[tuple[str, ...]], list[Optional[str]]]:
        """For each statement: the node names it computes, and the one it was matched to directly."""
        nodes, direct = self.ranks(stmts)
        names = self.everything
        return [tuple(names[i] for i in ns) for ns in nodes], [names[d] if d >= 0 else None for d in direct]

    def ranks(self, stmts: list[Stmt]) -> tuple[list[tuple[int, ...]], list[int]]:
        """``assign`` with candidates by position (-1: none), the same for every layer alike."""
        key = (self.signature, tuple((s.defs, s.uses, s.words, s.kind) for s in stmts))
        got = self.memo.get(key)
        if got is None:
            nodes, direct = self._assign(stmts)
            rank = self._rank
            got = self.memo[key] = ([tuple(rank[x] for x in ns) for ns in nodes],
                                    [rank[d] if d is not None else -1 for d in direct])
        return got

    def _assign(self, stmts: list[Stmt]) -> tuple[list[tuple[str, ...]], list[Optional[str]]]:
        n = len(stmts)
        producers: list[list[int]] = [[] for _ in range(n)]
        consumers: list[list[int]] = [[] for _ in range(n)]
        latest: dict[str, int] = {}
        for i, s in enumerate(stmts):
            for v in s.uses:
                j = latest.get(v)
                if j is not None and j != i:
                    producers[i].append(j)
                    consumers[j].append(i)
            for v in s.defs:
                latest[v] = i
        direct: list[Optional[str]] = [None] * n
        flow: list[frozenset[str]] = [frozenset()] * n  # the nodes a statement's value carries so far
        used: set[str] = set()
        fresh_from: dict[str, int] = {}  # per op: where its not-yet-matched candidates start
        for i, s in enumerate(stmts):
            ps = producers[i]
            upstream = (flow[ps[0]] if len(ps) == 1 else frozenset().union(*(flow[p] for p in ps))) if ps \
                else frozenset()
            if s.kind == "op" and s.uses and s.words:
                best = self._best(s.words, upstream, used, fresh_from)
                if best is not None:
                    direct[i] = best.name
                    used.add(best.name)
                    flow[i] = frozenset((best.name,))
                    continue
            flow[i] = upstream
        nodes: list[tuple[str, ...]] = [(d,) if d else () for d in direct]
        values = [[p for p in producers[i] if stmts[p].kind != "index"] for i in range(n)]

        def from_consumers() -> None:  # loads, constants, casts, indices: what their consumers compute
            for i in range(n - 1, -1, -1):
                if not nodes[i] and stmts[i].defs and stmts[i].kind != "store":
                    nodes[i] = _union(nodes[c] for c in consumers[i])

        from_consumers()
        for i in range(n):  # stores and dead ends: what they are handed (not the index they are handed)
            if not nodes[i]:
                nodes[i] = _union(nodes[p] for p in values[i])
        from_consumers()  # indices of stores
        family: dict[str, tuple[str, ...]] = {}
        for i, s in enumerate(stmts):  # an accumulator's other form: tmp_acc0 beside tmp_acc0_vec
            for v in s.defs:
                if nodes[i]:
                    family.setdefault(_family(v), nodes[i])
        for i, s in enumerate(stmts):
            if not nodes[i]:
                nodes[i] = next((family[_family(v)] for v in s.defs if _family(v) in family), self.everything)
        return nodes, direct

    def _best(self, words: frozenset[str], upstream: frozenset[str], used: set[str],
              fresh_from: dict[str, int]) -> Optional[Candidate]:
        """The candidate with the highest ``_key`` among those spelled by ``words``.

        Without upstream, candidates of one op differ only in order and freshness, so per op the
        earliest and the earliest unmatched stand for all; the others are reached from ``upstream``.
        """
        shown: dict[str, Candidate] = {}
        for u in upstream:
            c = self.by_name.get(u)
            if c is not None and c.words & words:
                shown[c.name] = c
            for c in self.consumers.get(u, ()):
                if c.words & words:
                    shown[c.name] = c
        for op in dict.fromkeys(o for w in words for o in self.ops_of_word.get(w, ())):
            group = self.by_op[op]
            shown[group[0].name] = group[0]
            k = fresh_from.get(op, 0)
            while k < len(group) and group[k].name in used:
                k += 1
            fresh_from[op] = k
            if k < len(group):
                shown[group[k].name] = group[k]
        return max(shown.values(), key=lambda c: _key(c, words, upstream, used), default=None)


def _family(var: str) -> str:
    for suffix in ("_vec", "_arr", "_mask"):
        if var.endswith(suffix):
            return var[: -len(suffix)]
    return var


def _key(c: Candidate, words: frozenset[str], upstream: frozenset[str], used: set[str]) -> tuple[int, int]:
    """How well ``c`` fits a statement: its op spelled, its inputs upstream, not yet matched; earlier first."""
    if c.op in words or c.op.lstrip("_") in words:
        exact = 3  # the op's own name: `tmp0.sin()`, `ops.exp(...)`, `tl.sum(...)`
    else:
        exact = 2 if any(len(w) > 2 for w in words & c.words) else 1  # an alias, else an operator symbol
    flows = 3 if c.inputs & upstream else 0
    continues = 4 if c.name in upstream else 0  # an accumulator line of the same reduction
    fresh = 2 if c.name not in used else 0
    return exact + flows + continues + fresh, -c.order


def _union(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for g in groups:
        out.update(dict.fromkeys(g))
    return tuple(out)
