"""Inductor's wrapper module: its header, its kernel definitions, ``call()`` and its launches, buffers, handles.

The Python wrapper (``output_code.py``) and AOTInductor's C++ one. Every reading of the wrapper's text is here:
the ``# AOT ID`` header, the ``NAME = async_compile.LANG('''...''')`` definitions and the comment block above
each (``# Topologically Sorted Source Nodes``, ``# Original ATen``, a Triton kernel's ``# Graph fragment``),
the ``[Provenance debug handles]`` comments, each ``<kernel>.run(...)`` / ``<kernel>(...)`` / extern call and
the names it writes, allocations, reuses and views of buffers, ``def call(args)`` and nested subgraph functions.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Container, Iterator, NamedTuple, Optional

from ..elements import PLACEHOLDER
from .kernels import param_role
from .syntax import keywords, parse_call, positional, split_args

# ---- the header and the kernel definitions ----

_AOT_ID = re.compile(r"^# AOT ID: \['([^']+)'\]", re.M)
_GRAPH_KIND = re.compile(r"^# AOT ID: \['\d+_(?P<kind>\w+)'\]", re.M)
_LANG = {"cpp_pybinding": "cpp", "cpp": "cpp", "triton": "triton", "halide": "halide", "cuda": "cuda",
         "rocm": "rocm", "mps": "metal", "cutedsl": "cutedsl"}
_NODES = re.compile(r"# Topologically Sorted Source Nodes: \[(?P<nodes>[^\]]*)\]"
                    r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?")
_KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.(\w+)\(", re.M)
_OPEN = re.compile(r"""[rRbBuU]{0,2}('''|\"\"\")""")
_STATEMENT_END = re.compile(r"[^\n]*\)[ \t]*(?:#[^\n]*)?$", re.M)
# AOTInductor writes its C++ kernels into one file: `extern "C"  void  NAME(params)` then a braced body
_AOTI_KERNEL = re.compile(r'^(?:#include[^\n]*\n)?extern "C"\s+void\s+(?P<name>\w+)\(', re.M)


def aot_id(code: str) -> Optional[str]:
    """The wrapper's ``# AOT ID: ['0_forward']`` (``0_forward``), or None."""
    m = _AOT_ID.search(code)
    return m.group(1) if m else None


def graph_kind(code: str) -> Optional[str]:
    """``forward``, ``backward`` or ``inference``, from the wrapper's ``# AOT ID`` line; None without one."""
    m = _GRAPH_KIND.search(code)
    return m["kind"] if m else None


class KernelDefinition(NamedTuple):
    """``NAME = async_compile.LANG(..., '''source''')`` at 1-based ``line`` of the wrapper."""

    line: int
    name: str
    language: str  # triton, cpp, halide, ... (``cpp_pybinding`` read as cpp)
    source: str


def kernel_definitions(code: str) -> list[KernelDefinition]:
    """Every kernel the wrapper defines. Raises SyntaxError for a wrapper it cannot read.

    The definitions are read one statement at a time (``scan_kernels``): parsing a 100-kernel wrapper whole
    with ``ast`` took half a second, most of a big report's reading time. A wrapper the scanner does not
    recognise is parsed whole."""
    found = scan_kernels(code)
    if not found:  # nothing recognised (or no kernels: a small module): the whole-module parse decides
        tree = ast.parse(code)
        found = [(stmt.lineno, *k) for stmt in tree.body if (k := _kernel_assignment(stmt))]
    return [KernelDefinition(*k) for k in found]


def scan_kernels(code: str) -> Optional[list[tuple[int, str, str, str]]]:
    """(line, name, language, source) per ``NAME = async_compile.LANG(..., '''source''')``, or None.

    Each definition is parsed on its own with ``ast`` (so string escapes and
    prefixes read exactly as Python reads them); None (parse the module
    whole) when a definition does not look like one: no triple-quoted
    source, or its statement does not parse.
    """
    out = []
    pos = line = 0
    while (m := _KERNEL_DEF.search(code, pos)) is not None:
        opener = _OPEN.search(code, m.end())
        if opener is None:
            return None
        close = code.find(opener.group(1), opener.end())
        end = _STATEMENT_END.search(code, close + 3) if close >= 0 else None
        if end is None:
            return None
        try:
            stmt = ast.parse(code[m.start():end.end()]).body
        except SyntaxError:
            return None
        k = _kernel_assignment(stmt[0]) if len(stmt) == 1 else None
        if k is None:
            return None
        line += code.count("\n", pos, m.start())
        out.append((line + 1, *k))
        line += code.count("\n", m.start(), end.end())
        pos = end.end()
    return out


def _kernel_assignment(stmt: ast.stmt) -> Optional[tuple[str, str, str]]:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "async_compile"):
        return None
    strings = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not strings:
        return None
    lang = _LANG.get(call.func.attr, call.func.attr)
    return stmt.targets[0].id, lang, max(strings, key=len).strip("\n")


def source_nodes(lines: list[str], lineno: int) -> tuple[list[str], list[str]]:
    """(post-grad nodes, ATen ops) of the ``# Topologically Sorted Source Nodes: [...], Original ATen: [...]``
    comment in the block just above the kernel defined on 1-based ``lineno``."""
    i = lineno - 2
    while i >= 0 and lines[i].startswith("#"):
        m = _NODES.search(lines[i])
        if m:
            return _split_names(m["nodes"]), _split_names(m["aten"])
        i -= 1
    return [], []


def _split_names(text: Optional[str]) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


class AotiKernel(NamedTuple):
    name: str
    source: str  # its own ``#include`` line kept with it


def aoti_kernels(code: str) -> list[AotiKernel]:
    """Each function of AOTInductor's kernel file: ``extern "C" void NAME(...)`` to the next one."""
    starts = list(_AOTI_KERNEL.finditer(code))
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(code)
        out.append(AotiKernel(m["name"], code[m.start():end].strip("\n")))
    return out


class KernelSpan(NamedTuple):
    """Where one kernel sits in the wrapper's lines (0-based rows)."""

    head: int  # the first comment line above its definition
    start: int  # ``NAME = async_compile...``
    first: int  # the source's first line
    end: int  # the closing line of the literal


def kernel_span(lines: list[str], name: str, lineno: Optional[int], source: str) -> Optional[KernelSpan]:
    """The rows of kernel ``name`` (defined on 1-based ``lineno`` when known), its comment block included."""
    start = (lineno or 0) - 1
    if not (0 <= start < len(lines)) or not lines[start].startswith(name):
        start = next((r for r, line in enumerate(lines) if line.startswith(f"{name} = async_compile")), -1)
        if start < 0:
            return None
    src = source.splitlines()
    first_text = src[0] if src else ""
    first = next((r for r in range(start, min(start + 3, len(lines))) if lines[r] == first_text), start + 1)
    end = min(first + len(src), len(lines) - 1)
    head = start
    while head > 0 and lines[head - 1].startswith("#"):
        head -= 1
    return KernelSpan(head, start, first, end)


_FRAGMENT_NODE = re.compile(r"^#\s+%(?P<name>\w+) : .*= (?P<kind>call_function|PlaceHolder)")
_ATEN_MAP = re.compile(r"^#\s+\w*\s*=>\s*(?P<nodes>[\w, ]+)$")


class HeaderLine(NamedTuple):
    """One comment line above a kernel's definition."""

    kind: str  # "node" (a Graph fragment's call), "input" (its placeholder), "aten" (``# op => nodes``),
    #            "glue" (``#   return``, ``# kernel path``), "other"
    nodes: tuple[str, ...]  # the post-grad nodes it names


def header_line(line: str) -> HeaderLine:
    """What a comment line of a kernel's header says: a Triton kernel's ``# Graph fragment`` lists its post-grad
    nodes (``#   %sin : ... = call_function[...]``), its ``# Original ATen`` map ``#   aten.sin => sin``."""
    m = _FRAGMENT_NODE.match(line)
    if m:
        return HeaderLine("node" if m["kind"] == "call_function" else "input", (m["name"],))
    m = _ATEN_MAP.match(line)
    if m:
        return HeaderLine("aten", tuple(x.strip() for x in m["nodes"].split(",") if x.strip()))
    if line.startswith("#   return") or line.startswith("# kernel path"):
        return HeaderLine("glue", ())
    return HeaderLine("other", ())


def fragment_nodes(lines: list[str], head: int, start: int) -> list[str]:
    """The post-grad nodes a Triton kernel's ``# Graph fragment`` header (rows ``head`` to ``start``) names."""
    found = []
    for r in range(head, start):
        if lines[r].startswith("#   %"):
            h = header_line(lines[r])
            if h.kind == "node":
                found.append(h.nodes[0])
    return found


# ---- provenance ----

_HANDLE = re.compile(r"\[Provenance debug handles\] (\S+)")
_PY_HANDLE = re.compile(r"#\s*\[Provenance debug handles\] (\S+)")
_CPP_HANDLE = re.compile(r"^\s*//\s*\[Provenance debug handles\] (\S+)")


def provenance_handles(code: str) -> list[str]:
    """Every ``[Provenance debug handles] K:N`` the wrapper names (``triton_poi_fused_sin_0:1``), in order."""
    return _HANDLE.findall(code)


def is_call_preamble(stripped: str) -> bool:
    """A comment the wrapper writes just above a call (its provenance handle, its source nodes), Python or C++."""
    return stripped.startswith(("# [Provenance", "# Topologically Sorted", "// [Provenance",
                                "// Topologically Sorted"))


# ---- calls ----

_EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.", "torch._C.", "inductor_ops.")
_NAME = re.compile(r"\b(?:buf|arg)\w*\b")
_BUF = re.compile(r"\bbuf\d+\b")


def is_extern(callee: str) -> bool:
    """A library call of the wrapper (``extern_kernels.mm``, ``torch.ops.aten...``), not Dynamo's bookkeeping."""
    return callee.startswith(_EXTERN_PREFIXES) and not callee.startswith("torch._C._dynamo")


def extern_op(callee: str) -> str:
    """``extern_kernels.mm`` -> ``mm``, ``torch.ops.aten.convolution.default`` -> ``convolution``."""
    parts = [p for p in callee.split(".") if p not in ("default", "run", "out", "Tensor")]
    for prefix in ("extern_kernels", "torch", "ops", "aten", "inductor_ops", "_C"):
        while parts and parts[0] == prefix:
            parts = parts[1:]
    return parts[0] if parts else callee


def profiler_name(callee: str) -> str:
    """The profiler's name of a wrapper call: ``extern_kernels.mm`` -> ``aten::mm``,
    ``torch.ops._c10d_functional.all_reduce_.default`` -> ``_c10d_functional::all_reduce_``; a kernel's own."""
    parts = callee.removeprefix("torch.ops.").split(".")
    if len(parts) < 2:
        return callee
    if parts[0] == "extern_kernels":
        return f"aten::{parts[1]}"
    return f"{parts[0]}::{parts[1]}"


def buffer_names(text: str) -> list[str]:
    """The ``bufN`` names in ``text``, in order."""
    return _BUF.findall(text)


def is_out_argument(arg: str) -> bool:
    """``out=buf3``: a keyword argument an extern writes."""
    return arg.replace(" ", "").startswith("out=")


def writes_first_argument(callee: str) -> bool:
    """AOTInductor's C shim ``aoti_torch_*_out``: its out tensor comes first."""
    return callee.startswith("aoti_torch_") and callee.endswith("_out")


def assigned_buffer(stmt: str) -> Optional[str]:
    """``buf3 = ...`` (``buf1 = buf0; del buf0  # reuse``) -> ``buf3``; None when no buffer is assigned."""
    head = stmt.split(";", 1)[0].split("=", 1)
    if len(head) == 2 and _BUF.fullmatch(head[0].strip()):
        return head[0].strip()
    return None


def buffer_aliases(stmt: str) -> list[tuple[str, str]]:
    """(buffer, another it is) of ``buf1 = buf0; del buf0  # reuse`` or ``buf5 = reinterpret_tensor(buf4,
    ...)``: an allocation reused later, or a view."""
    head = stmt.split(";", 1)[0]
    if "=" not in head:
        return []
    lhs, rhs = head.split("=", 1)
    lhs = lhs.strip()
    if not _BUF.fullmatch(lhs):
        return []
    return [(lhs, b) for b in _BUF.findall(rhs) if b != lhs]


class CallLine(NamedTuple):
    """A kernel or extern call of the wrapper, with the provenance handle written above it."""

    row: int  # 0-based line
    callee: str  # the kernel's name (``.run`` dropped), or the extern's dotted name
    kernel: bool  # one of the kernels asked for (else an extern)
    handle: Optional[str]  # ``K:N`` of the ``[Provenance debug handles]`` comment above it
    args: tuple[str, ...]  # every argument, keywords included
    lhs: Optional[str]  # the assignment's target


def call_lines(lines: list[str], kernels: Container[str], skip: Container[int]
               ) -> tuple[list[CallLine], list[tuple[str, str]]]:
    """The Python wrapper's calls of ``kernels`` and of externs, and its buffer aliases (``buffer_aliases``) in
    order, rows in ``skip`` (kernel sources) left out."""
    handle: Optional[str] = None
    calls: list[CallLine] = []
    aliases: list[tuple[str, str]] = []
    for r, line in enumerate(lines):
        if r in skip or not line.startswith("    "):
            continue
        s = line.lstrip()
        if s.startswith("#"):
            m = _PY_HANDLE.match(s)
            if m:
                handle = m.group(1)
            continue
        parsed = parse_call(s.rstrip())
        if parsed is None:
            aliases += buffer_aliases(s)
            continue
        lhs, callee, args = parsed
        base = callee[:-4] if callee.endswith(".run") else callee
        if base in kernels:
            calls.append(CallLine(r, base, True, handle, tuple(split_args(args)), lhs))
        elif is_extern(callee):
            calls.append(CallLine(r, callee, False, handle, tuple(split_args(args)), lhs))
        else:
            aliases += buffer_aliases(s)
            continue
        handle = None
    return calls, aliases


_CPP_CALL = re.compile(r"^\s+(?:AOTI_TORCH_ERROR_CODE_CHECK\()?(?P<callee>\w+)\((?P<args>.*?)\)\)?;\s*$")
_CPP_BUF = re.compile(r"\b(buf\d+)(?:_handle)?\b")


def cpp_call_lines(lines: list[str], kernels: Container[str]) -> list[CallLine]:
    """AOTInductor's C++ wrapper: the calls torch marked with a provenance handle
    (``// [Provenance debug handles] K:N``), each the next call statement (of a kernel in ``kernels`` or of
    the ``aoti_torch_`` shim) after its comment."""
    calls: list[CallLine] = []
    handle: Optional[str] = None
    for r, line in enumerate(lines):
        m = _CPP_HANDLE.search(line)
        if m:
            handle = m.group(1)
            continue
        c = _CPP_CALL.match(line) if handle is not None else None
        if c is None or not (c["callee"] in kernels or c["callee"].startswith("aoti_torch_")):
            continue
        calls.append(CallLine(r, c["callee"], c["callee"] in kernels, handle, tuple(split_args(c["args"])), None))
        handle = None
    return calls


def cpp_buffer_mention(line: str) -> Optional[str]:
    """The first buffer a C++ wrapper line (not a comment) names (``buf3``, ``buf3_handle``), or None."""
    if line.strip().startswith("//"):
        return None
    m = _CPP_BUF.search(line)
    return m.group(1) if m else None


def run_args(name: str, wrapper: str) -> Optional[list[str]]:
    """The positional arguments of the wrapper's first ``<name>.run(...)`` call (a Triton kernel's launch)."""
    m = re.search(rf"^\s*{re.escape(name)}\.run\((.*)\)\s*$", wrapper, re.M)
    return positional(split_args(m.group(1))) if m else None


def direct_call_args(name: str, wrapper: str) -> Optional[list[str]]:
    """The arguments of the wrapper's first ``<name>(...)`` call (a C++ kernel, called as a function)."""
    m = re.search(rf"^\s*{re.escape(name)}\((.*)\)\s*$", wrapper, re.M)
    return split_args(m.group(1)) if m else None


def call_function_rows(code: str) -> list[int]:
    """The 0-based rows of each ``def call(...)`` of the wrapper (a backward and its forward may share a module)."""
    return [i for i, line in enumerate(code.splitlines()) if re.match(r"\s*def call\(", line)]


_EXTERN = re.compile(r"\b(extern_kernels\.\w+|torch\.ops\.\w+\.\w+(?:\.\w+)?)\(")


def extern_call_counts(wrapper: str) -> dict[str, int]:
    """How many times the wrapper calls each library function (``extern_kernels.mm``,
    ``torch.ops.aten.convolution.default``), comments and kernel definitions left out."""
    counts = Counter(m.group(1) for line in wrapper.splitlines() if not line.lstrip().startswith("#")
                     for m in _EXTERN.finditer(line) if "async_compile" not in line)
    return {name: n for name, n in counts.items() if not name.endswith((".run", "wait"))}


_SUBGRAPH_DEF = re.compile(r"^def (?P<name>repeated_subgraph\d+|\w*subgraph\w*)\(args\):\s*$", re.M)
_CALLEE = re.compile(r"^\s+(?:\w+ = )?(?P<callee>[\w.]+)\(")
_NOT_KERNELS = ("assert_size_stride", "assert_alignment", "empty_strided", "reinterpret_tensor", "args.clear",
                "alloc_from_pool")


def subgraph_calls(code: str) -> dict[str, tuple[str, ...]]:
    """``def repeated_subgraph0(args):`` in an output module -> the kernels and library calls its body makes."""
    out: dict[str, tuple[str, ...]] = {}
    lines = code.splitlines()
    for m in _SUBGRAPH_DEF.finditer(code):
        row = code.count("\n", 0, m.start()) + 1
        found: dict[str, None] = {}
        while row < len(lines) and (not lines[row].strip() or lines[row].startswith((" ", "\t"))):
            call = _CALLEE.match(lines[row])
            if call and not call["callee"].startswith(_NOT_KERNELS):
                found[call["callee"]] = None
            row += 1
        out[m["name"]] = tuple(found)
    return out


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
        elif is_extern(callee):
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


# what Inductor's own random number generation leaves in the output code it writes: its seed and random prims, the
# C++ helpers of cpp_prefix.h, Triton's philox calls
_RNG_MARKERS = ("inductor_seeds", "inductor_random", "inductor_randint", "inductor_lookup_seed", "normalized_rand_cpu",
                "randn_cpu", "randint64_cpu", "tl.rand(", "tl.randn(", "tl.randint(", "triton_helpers.randint64")


def uses_inductor_rng(code: str) -> bool:
    """Whether output code draws random numbers with Inductor's own generator (not eager's: a cell's random values
    then differ from a plain run's)."""
    return any(marker in code for marker in _RNG_MARKERS)
