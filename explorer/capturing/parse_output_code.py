"""Inductor's output module (the wrapper) -> one Kernel per generated kernel.

Kernels are the string literals passed to ``async_compile.<language>(...)``.
Triton and Halide kernels carry a ``# Topologically Sorted Source Nodes``
comment; provenance artifacts (when torch emits them) link every kernel,
C++ included, to post-grad FX nodes and user lines. The wrapper's text is
read by ``inductor_code.wrapper``; this module makes the records.
"""

from __future__ import annotations

from typing import Any, Optional

from .inductor_code import stack_frames
from .inductor_code.wrapper import aoti_kernels, kernel_definitions, source_nodes
from .model import Kernel, SourceLoc


def parse_kernels(code: str, kind: str = "", provenance: Optional[dict[str, Any]] = None) -> tuple[Kernel, ...]:
    """Raises SyntaxError for a wrapper it cannot read (the caller turns that into a Problem)."""
    lines = code.splitlines()
    prov = _provenance_by_kernel(provenance or {})
    out = []
    for lineno, name, lang, source in kernel_definitions(code):
        nodes, aten = source_nodes(lines, lineno)
        p = prov.get(name, {})
        out.append(Kernel(
            name=name, language=lang, source=source, graph_kind=kind,
            source_nodes=tuple(nodes or p.get("nodes", ())), aten_ops=tuple(aten),
            user_lines=tuple(p.get("user_lines", ())), wrapper_lineno=lineno,
        ))
    return tuple(out)


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


def parse_aoti_kernels(code: str, kind: str = "", provenance: Optional[dict[str, Any]] = None) -> tuple[Kernel, ...]:
    """One Kernel per function of AOTInductor's kernel file (its own ``#include`` line kept with it)."""
    prov = _provenance_by_kernel(provenance or {})
    out = []
    for name, source in aoti_kernels(code):
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
