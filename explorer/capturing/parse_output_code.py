"""Inductor's output module (the wrapper) -> one Kernel per generated kernel.

Kernels are the string literals passed to ``async_compile.<language>(...)``.
Triton and Halide kernels carry a ``# Topologically Sorted Source Nodes``
comment; provenance artifacts (when torch emits them) link every kernel,
C++ included, to post-grad FX nodes and user lines.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from .inductor_code import stack_frames
from .model import Kernel, SourceLoc

_LANG = {"cpp_pybinding": "cpp", "cpp": "cpp", "triton": "triton", "halide": "halide", "cuda": "cuda",
         "rocm": "rocm", "mps": "metal", "cutedsl": "cutedsl"}
_NODES_RE = re.compile(r"# Topologically Sorted Source Nodes: \[(?P<nodes>[^\]]*)\]"
                       r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?")
_AOT_ID_RE = re.compile(r"^# AOT ID: \['\d+_(?P<kind>\w+)'\]", re.M)


def graph_kind(code: str) -> Optional[str]:
    m = _AOT_ID_RE.search(code)
    return m["kind"] if m else None


def parse_kernels(code: str, kind: str = "", provenance: Optional[dict[str, Any]] = None) -> tuple[Kernel, ...]:
    """Raises SyntaxError for a wrapper it cannot read (the caller turns that into a Problem).

    The kernel definitions are read one statement at a time (``scan_kernels``):
    parsing a 100-kernel wrapper whole with ``ast`` took half a second, most of
    a big report's reading time. A wrapper the scanner does not recognise is
    parsed whole, as before.
    """
    found = scan_kernels(code)
    if not found:  # nothing recognised (or no kernels: a small module): the whole-module parse decides
        tree = ast.parse(code)
        found = [(stmt.lineno, *k) for stmt in tree.body if (k := _kernel_assignment(stmt))]
    lines = code.splitlines()
    prov = _provenance_by_kernel(provenance or {})
    out = []
    for lineno, name, lang, source in found:
        nodes, aten = _source_nodes(lines, lineno)
        p = prov.get(name, {})
        out.append(Kernel(
            name=name, language=lang, source=source, graph_kind=kind,
            source_nodes=tuple(nodes or p.get("nodes", ())), aten_ops=tuple(aten),
            user_lines=tuple(p.get("user_lines", ())), wrapper_lineno=lineno,
        ))
    return tuple(out)


_KERNEL_DEF_RE = re.compile(r"^(\w+) = async_compile\.(\w+)\(", re.M)
_OPEN_RE = re.compile(r"""[rRbBuU]{0,2}('''|\"\"\")""")
_STATEMENT_END_RE = re.compile(r"[^\n]*\)[ \t]*(?:#[^\n]*)?$", re.M)


def scan_kernels(code: str) -> Optional[list[tuple[int, str, str, str]]]:
    """(line, name, language, source) per ``NAME = async_compile.LANG(..., '''source''')``, or None.

    Each definition is parsed on its own with ``ast`` (so string escapes and
    prefixes read exactly as Python reads them); None (parse the module
    whole) when a definition does not look like one: no triple-quoted
    source, or its statement does not parse.
    """
    out = []
    pos = line = 0
    while (m := _KERNEL_DEF_RE.search(code, pos)) is not None:
        opener = _OPEN_RE.search(code, m.end())
        if opener is None:
            return None
        close = code.find(opener.group(1), opener.end())
        end = _STATEMENT_END_RE.search(code, close + 3) if close >= 0 else None
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


def _source_nodes(lines: list[str], lineno: int) -> tuple[list[str], list[str]]:
    """Reads the comment block just above a kernel definition."""
    i = lineno - 2
    while i >= 0 and lines[i].startswith("#"):
        m = _NODES_RE.search(lines[i])
        if m:
            return _split_names(m["nodes"]), _split_names(m["aten"])
        i -= 1
    return [], []


def _split_names(text: Optional[str]) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def _provenance_by_kernel(provenance: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """kernel name -> {"nodes": [...], "user_lines": [...]}, each in first-seen order without repeats."""
    nodes: dict[str, dict[str, None]] = {}
    user_lines: dict[str, dict[SourceLoc, None]] = {}
    for key, value in (provenance.get("node_mappings") or {}).items():
        if key.endswith("CodeToPost") and isinstance(value, dict):
            for kernel_key, names in value.items():
                nodes.setdefault(kernel_key.split(":", 1)[0], {}).update(dict.fromkeys(names))
    for kernel_key, traces in (provenance.get("stack_traces") or {}).items():
        locs = user_lines.setdefault(kernel_key.split(":", 1)[0], {})
        for trace in traces:
            for f in stack_frames(trace):
                locs[SourceLoc(f.filename, f.lineno, f.function, f.code or "")] = None
    return {name: {"nodes": list(nodes.get(name, ())), "user_lines": list(user_lines.get(name, ()))}
            for name in nodes.keys() | user_lines.keys()}


# AOTInductor writes its C++ kernels into one file: `extern "C"  void  NAME(params)` then a braced body
_AOTI_KERNEL_RE = re.compile(r'^(?:#include[^\n]*\n)?extern "C"\s+void\s+(?P<name>\w+)\(', re.M)


def parse_aoti_kernels(code: str, kind: str = "", provenance: Optional[dict[str, Any]] = None) -> tuple[Kernel, ...]:
    """One Kernel per function of AOTInductor's kernel file (its own ``#include`` line kept with it)."""
    starts = [m for m in _AOTI_KERNEL_RE.finditer(code)]
    prov = _provenance_by_kernel(provenance or {})
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(code)
        source = code[m.start():end].strip("\n")
        name = m["name"]
        p = prov.get(name, {})
        out.append(Kernel(name=name, language="cpp", source=source, graph_kind=kind,
                          source_nodes=tuple(p.get("nodes", ())), user_lines=tuple(p.get("user_lines", ()))))
    return tuple(out)


def with_kernel_trace(k: Kernel, table: dict[str, Any]) -> Kernel:
    """``k`` with what torch's per-kernel record says of it (``kernel_information.json``'s shape, the
    per-kernel op trace): its ordered ops, its post-grad nodes and user lines where the kernel's own
    provenance had none. Keys are ``name:handle``; a kernel called twice has two."""
    import dataclasses

    ops: list[str] = []
    nodes: dict[str, None] = {}
    locs: dict[SourceLoc, None] = {}
    for key, entry in table.items():
        if key.split(":", 1)[0] != k.name or not isinstance(entry, dict):
            continue
        for op in entry.get("ops") or ():
            ops.append(str(op.get("op") or op.get("name") or op) if isinstance(op, dict) else str(op))
        nodes.update(dict.fromkeys(str(n) for n in entry.get("post_grad_nodes") or ()))
        for trace in entry.get("stack_traces") or ():
            for f in stack_frames(str(trace)):
                locs[SourceLoc(f.filename, f.lineno, f.function, f.code)] = None
    if not (ops or nodes or locs):
        return k
    return dataclasses.replace(k, op_trace=tuple(ops) or k.op_trace,
                               source_nodes=k.source_nodes or tuple(nodes),
                               user_lines=k.user_lines or tuple(locs))
