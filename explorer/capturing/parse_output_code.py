"""Inductor's output module (the wrapper) -> one Kernel per generated kernel.

Kernels are the string literals passed to ``async_compile.<language>(...)``.
Triton and Halide kernels carry a ``# Topologically Sorted Source Nodes``
comment; provenance artifacts (when torch emits them) link every kernel,
C++ included, to post-grad FX nodes and user lines.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Optional

from .model import Kernel, SourceLoc

_LANG = {"cpp_pybinding": "cpp", "cpp": "cpp", "triton": "triton", "halide": "halide", "cuda": "cuda",
         "rocm": "rocm", "mps": "metal", "cutedsl": "cutedsl"}
_NODES_RE = re.compile(r"# Topologically Sorted Source Nodes: \[(?P<nodes>[^\]]*)\](?:, Original ATen: \[(?P<aten>[^\]]*)\])?")
_AOT_ID_RE = re.compile(r"^# AOT ID: \['\d+_(?P<kind>\w+)'\]", re.M)
_STACK_RE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\n\s*(?P<code>[^\n]*)')


def graph_kind(code: str) -> Optional[str]:
    m = _AOT_ID_RE.search(code)
    return m["kind"] if m else None


def parse_kernels(code: str, kind: str = "", provenance: Optional[dict[str, Any]] = None) -> tuple[Kernel, ...]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ()
    lines = code.splitlines()
    prov = _provenance_by_kernel(provenance or {})
    out = []
    for stmt in tree.body:
        found = _kernel_assignment(stmt)
        if not found:
            continue
        name, lang, source = found
        nodes, aten = _source_nodes(lines, stmt.lineno)
        p = prov.get(name, {})
        out.append(Kernel(
            name=name, language=lang, source=source, graph_kind=kind,
            source_nodes=tuple(nodes or p.get("nodes", ())), aten_ops=tuple(aten),
            user_lines=tuple(p.get("user_lines", ())), wrapper_lineno=stmt.lineno,
        ))
    return tuple(out)


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
            split = lambda s: [x.strip() for x in (s or "").split(",") if x.strip()]  # noqa: E731
            return split(m["nodes"]), split(m["aten"])
        i -= 1
    return [], []


def _provenance_by_kernel(provenance: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    mappings = provenance.get("node_mappings") or {}
    for key, value in mappings.items():
        if key.endswith("CodeToPost") and isinstance(value, dict):
            for kernel_key, nodes in value.items():
                name = kernel_key.split(":", 1)[0]
                out.setdefault(name, {}).setdefault("nodes", [])
                out[name]["nodes"] += [n for n in nodes if n not in out[name]["nodes"]]
    for kernel_key, traces in (provenance.get("stack_traces") or {}).items():
        name = kernel_key.split(":", 1)[0]
        locs = out.setdefault(name, {}).setdefault("user_lines", [])
        for trace in traces:
            for m in _STACK_RE.finditer(trace):
                loc = SourceLoc(m["file"], int(m["line"]), m["fn"], m["code"].strip())
                if loc not in locs:
                    locs.append(loc)
    return out


def load_json(payload: Optional[str]) -> Any:
    try:
        return json.loads(payload) if payload else None
    except ValueError:
        return None
