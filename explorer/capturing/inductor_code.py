"""Inductor's generated code, read in one place for every layer.

The wrapper module (``call()``, its ``<kernel>.run(...)`` and extern calls, its buffers) and the kernels it
defines (a Triton kernel's ``triton_meta`` signature and ``@triton.jit`` parameters, a C++ kernel's pointer
parameters, a Triton kernel's loads and stores), plus the stack frames torch prints in its traces. Capture
(kernels, Triton details), timing (bytes, which kernel wrote a buffer) and lineage (what each wrapper line
computes) all read it through these functions, so one reading of Inductor's text serves them all and a change
in what Inductor writes is fixed here once.

Everything here is plain text in, plain data out: no torch import.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from .elements import PLACEHOLDER

# ---- stack frames, as torch prints them (provenance stack traces, graph breaks, recompile reasons) ----

# a frame's source line is optional (code from <stdin> has none): never take the next frame for it
STACK_FRAME = re.compile(r'^[ \t]*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[^\n]+?)[ \t]*$'
                         r'(?:\n(?![ \t]*File ")(?P<code>[^\n]*))?', re.M)


@dataclass(frozen=True)
class StackFrame:
    filename: str
    lineno: int
    function: str
    code: Optional[str]  # the source line, stripped; None when torch printed none


def stack_frames(text: str) -> list[StackFrame]:
    """Every ``File "...", line N, in fn`` frame of a printed traceback, with the source line below it."""
    return [StackFrame(m["file"], int(m["line"]), m["fn"].strip(), (m["code"] or "").strip() or None)
            for m in STACK_FRAME.finditer(text)]


# ---- arguments and calls ----

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


def run_args(name: str, wrapper: str) -> Optional[list[str]]:
    """The positional arguments of the wrapper's first ``<name>.run(...)`` call (a Triton kernel's launch)."""
    m = re.search(rf"^\s*{re.escape(name)}\.run\((.*)\)\s*$", wrapper, re.M)
    return positional(split_args(m.group(1))) if m else None


def direct_call_args(name: str, wrapper: str) -> Optional[list[str]]:
    """The arguments of the wrapper's first ``<name>(...)`` call (a C++ kernel, called as a function)."""
    m = re.search(rf"^\s*{re.escape(name)}\((.*)\)\s*$", wrapper, re.M)
    return split_args(m.group(1)) if m else None


# ---- kernel parameters ----

_SIGNATURE = re.compile(r"'signature':\s*(\{[^}]*\})")
_JIT_DEF = re.compile(r"@triton\.jit\s*\ndef\s+\w+\(([^)]*)\)")
_PY_PARAMS = re.compile(r"^def \w+\(([^)]*)\)", re.M)
_CPP_PARAMS = re.compile(r"\bkernel\(([^)]*)\)", re.S)


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


def param_role(name: str) -> str:
    """What the kernel does with a pointer parameter, by Inductor's naming: read, written, or both."""
    if name.startswith("in_out_ptr"):
        return "in_out"
    if name.startswith("out_ptr"):
        return "out"
    return "in"


# ---- buffers ----

def buffer_sizes(code: str) -> dict[str, Optional[int]]:
    """{buffer or input name: elements} from the wrapper's allocations, input asserts and views; None if symbolic."""
    sizes: dict[str, Optional[int]] = {}
    for m in re.finditer(r"assert_size_stride\((\w+),\s*(\([^)]*\))", code):
        sizes[m.group(1)] = numel(m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(?:empty_strided\w*|torch\.empty_strided)\((\([^)]*\))", code, re.M):
        sizes[m.group(1)] = numel(m.group(2))
    # a view of another buffer, given its own size: buf2 = reinterpret_tensor(buf0, (16, 8, 256, 64), ...)
    for m in re.finditer(r"^\s*(\w+)\s*=\s*reinterpret_tensor\(\w+,\s*(\([^)]*\))", code, re.M):
        sizes[m.group(1)] = numel(m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(\w+);\s*del\s+\2", code, re.M):  # buf3 = buf1; del buf1  # reuse
        sizes.setdefault(m.group(1), sizes.get(m.group(2)))
    return sizes


def arg_numel(arg: str, sizes: dict[str, Optional[int]]) -> Optional[int]:
    """Elements of what a call passes: a named buffer, or a ``reinterpret_tensor(buf, (sizes), ...)`` view."""
    m = re.match(r"reinterpret_tensor\(\w+,\s*(\([^)]*\))", arg)
    if m:
        return numel(m.group(1))
    return sizes.get(arg)


def numel(size_tuple: str) -> Optional[int]:
    dims = [d.strip() for d in size_tuple.strip("()").split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        return None
    return math.prod(int(d) for d in dims)


_NAME = re.compile(r"\b(?:buf|arg)\w*\b")


def buffer_roots(code: str) -> dict[str, str]:
    """{name: the storage it lives in}: ``buf9 = reinterpret_tensor(buf1, ...); del buf1  # reuse``,
    ``buf3 = buf1; del buf1``, ``buf14 = buf13[0]`` make one storage of several names."""
    parent: dict[str, str] = {}
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(?:reinterpret_tensor\((\w+),|(\w+)\s*(?:;|$|\[))", code, re.M):
        src = m.group(2) or m.group(3)
        if src and src != m.group(1) and _NAME.fullmatch(src):
            parent.setdefault(m.group(1), src)

    def root(name: str) -> str:
        seen = set()
        while name in parent and name not in seen:
            seen.add(name)
            name = parent[name]
        return name

    return {name: root(name) for name in parent}


@dataclass(frozen=True)
class WrapperCall:
    """One kernel launch or extern call in a wrapper's ``call()``, in order."""

    line: int  # 0-based line of the wrapper
    callee: str  # the kernel's name (``.run`` dropped), or the extern's dotted name
    kernel: bool  # a generated kernel defined in this wrapper
    args: tuple[str, ...]  # positional arguments
    out: tuple[str, ...]  # names it writes: the assignment's target, ``out=``
    lhs: Optional[str] = None


_EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.", "torch._C.", "inductor_ops.")


def wrapper_calls(code: str, kernels: set[str]) -> Iterator[tuple[int, WrapperCall]]:
    """Each call of a kernel in ``kernels`` (``k.run(...)`` or ``k(...)``) or of an extern, with its line."""
    for r, line in enumerate(code.splitlines()):
        if not line.startswith("    "):
            continue
        s = line.strip()
        if s.startswith("#"):
            continue
        parsed = parse_call(s)
        if parsed is None:
            continue
        lhs, callee, argtext = parsed
        base = callee[:-4] if callee.endswith(".run") else callee
        if base in kernels:
            args = split_args(argtext)
            yield r, WrapperCall(r, base, True, tuple(positional(args)), tuple(_NAME.findall(lhs or "")), lhs)
        elif callee.startswith(_EXTERN_PREFIXES) and not callee.startswith("torch._C._dynamo"):
            args = split_args(argtext)
            out = tuple(_NAME.findall(lhs or "")) + tuple(_NAME.findall(keywords(args).get("out", "")))
            yield r, WrapperCall(r, callee, False, tuple(positional(args)), out, lhs)


def match_estimates(names: list[str], code: str, kernels: set[str]) -> list[Optional[str]]:
    """The wrapper call each op Inductor estimated became, the ops in its scheduler's order
    (``inductor_runtime_and_tensor_meta``): an extern op (``extern_kernels.mm``, ``torch.ops...``) is the next
    call of that name; a scheduler node (``op3``, ``op2_op3`` fused) is the next generated kernel call, matched
    only when the nodes and the kernel calls are as many (a node that launched nothing, or kernels combined,
    leave them unmatched: None), since the wrapper calls them in the scheduler's order. An op torch gave no name
    (``?``: one with no scheduler node, such as a fallback kernel's outputs) is matched to nothing."""
    calls = [c for _, c in wrapper_calls(code, kernels)]
    generated = iter([c.callee for c in calls if c.kernel])
    nodes = [n for n in names if "." not in n and n != PLACEHOLDER]
    in_order = len(nodes) == len([c for c in calls if c.kernel])
    used: dict[str, int] = {}
    out: list[Optional[str]] = []
    for name in names:
        if name == PLACEHOLDER:
            out.append(None)
            continue
        if "." not in name:
            out.append(next(generated) if in_order else None)
            continue
        start = used.get(name, 0)
        at = next((i for i, c in enumerate(calls) if i >= start and not c.kernel and c.callee == name), None)
        used[name] = (at if at is not None else len(calls)) + 1
        out.append(name if at is not None else None)
    return out


def call_buffers(call: WrapperCall, params: list[str]) -> tuple[set[str], set[str]]:
    """(names read, names written) by one call: a kernel by its parameters' roles, an extern by ``out=``."""
    reads: set[str] = set()
    writes: set[str] = set(call.out)
    if call.kernel and params:
        for p, a in zip(params, call.args):
            names = set(_NAME.findall(a))
            role = param_role(p)
            if role in ("in", "in_out"):
                reads |= names
            if role in ("out", "in_out"):
                writes |= names
    else:
        for a in call.args:
            reads |= set(_NAME.findall(a))
    return reads - (writes if not call.kernel else set()), writes


# ---- a Triton kernel's body: assignments, loads and stores ----

@dataclass(frozen=True)
class Access:
    """One ``tl.load`` / ``tl.store`` / ``tl.atomic_*`` of a pointer parameter in a Triton kernel."""

    op: str  # "load" | "store" | "atomic"
    pointer: str  # the parameter: in_ptr0, out_ptr1, in_out_ptr0
    index: str  # the offset expression added to it ("0" for the pointer itself)
    line: int  # 0-based line in the kernel source
    at: int = -1  # C++: where in the body it is (loops and assignments are scoped by position)


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
        first = _first_argument(body, m.end())
        if first is None:
            continue
        pm = re.match(r"^(\w+)\s*(?:\+\s*(.+))?$", first, re.S)
        if pm is None:
            continue
        index = (pm.group(2) or "0").strip()
        if index.startswith("(") and _closing(index, 0) == len(index) - 1:
            index = index[1:-1].strip()
        op = m.group(1) if m.group(1) in ("load", "store") else "atomic"
        out.append(Access(op, pm.group(1), index, body.count("\n", 0, m.start())))
    return out


def _first_argument(text: str, start: int) -> Optional[str]:
    end = _argument_end(text, start)
    return text[start:end].strip() if end >= 0 else None


def _closing(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


# ---- a C++ kernel's body: loops, assignments, loads and stores ----

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


def cpp_body(source: str) -> str:
    """The text of a C++ kernel's ``kernel(...)`` function after its parameters, or ''."""
    m = _CPP_KERNEL.search(source)
    if not m:
        return ""
    close = _closing(source, m.end() - 1)
    return source[close + 1:] if close >= 0 else ""


def cpp_int(text: str) -> Optional[int]:
    """``static_cast<int64_t>(16L)``, ``16L``, ``(-1L)`` -> the integer; None for a symbol (``ks0``)."""
    text = text.strip()
    while True:
        m = _CAST.match(text)
        if m and _closing(text, text.index("(")) == len(text) - 1:
            text = m.group(1).strip()
        elif text.startswith("(") and _closing(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
        else:
            break
    m = re.fullmatch(r"(-?\d+)[LlUu]*", text)
    return int(m.group(1)) if m else None


def cpp_loops(body: str) -> list[CppLoop]:
    """Every ``for(init; var < end; step)`` of the body, with the block (or statement) it runs."""
    pairs = _bracket_pairs(body)
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
            stop = _statement_end(body, begin) + 1
        out.append(CppLoop(var, cpp_int(init.group(2)), cpp_int(bound.group(1)) if bound else None, step,
                           begin, stop))
    return out


def _bracket_pairs(text: str) -> dict[int, int]:
    """{position of an opening bracket: position of its closing one}, in one pass (a kernel has many loops)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(r"[()\[\]{}]", text):
        if m.group(0) in "([{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


def cpp_assignments(body: str) -> list[CppAssign]:
    """Every assignment to a ``tmp`` name, in order, its right-hand side up to its ``;`` (lambdas whole)."""
    out = []
    for m in _CPP_ASSIGN.finditer(body):
        end = _statement_end(body, m.end())
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
        call = _enclosing_call(body, m.start())
        name, argpos = call if call else ("", -1)
        if p < len(body) and body[p] == "[":
            close = _closing(body, p)
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
                index = _first_argument(body, p + 1) or "?"
            elif p < len(body) and body[p] in ",)":
                index = "0"
                if name == "atomic_add_vec":  # (pointer, index vector, value)
                    index = (_first_argument(body, p + 1) if body[p] == "," else None) or "?"
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
    while m and _closing(text, text.index("(")) == len(text) - 1:
        text = m.group(1).strip()
        m = _CAST.match(text)
    return text


def _statement_end(text: str, start: int) -> int:
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


def _argument_end(text: str, start: int) -> int:
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


def _enclosing_call(text: str, at: int) -> Optional[tuple[str, int]]:
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
