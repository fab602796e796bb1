"""The parts of a compiled frame torch treats apart, read from the captured texts.

* ``torch.compiler.nested_compile_region``: Dynamo traces the region once into
  a subgraph (``class subgraph_0`` inside the frame's graph) and calls it with
  ``torch.ops.higher_order.invoke_subgraph(subgraph_N, 'subgraph_N', ...)`` at
  every use; AOTAutograd names it ``repeated_subgraph0`` and Inductor compiles
  it once into a function of the wrapper (``def repeated_subgraph0(args):``)
  that every call runs, with the same kernels.
* ``torch.compiler.disable``: the graph breaks at the call (gb0098, "Skip
  calling `torch.compiler.disable()`d function"): the function runs as plain Python.
* ``torch._dynamo.nonstrict_trace``: the graph calls the function opaquely
  (``NAME_callable = self.NAME_callable`` then ``flat_apply``), its body untraced.
"""

from __future__ import annotations

import re
import textwrap
from typing import Optional

from ..plural import counted, noun
from .inductor_code.wrapper import subgraph_calls
from .model import FxGraph, GraphBreak, OutputCode, Region
from .parse_fx import parse_graph
from .torch_door.dynamo import NONSTRICT_TRACE_ATTRIBUTE

_INVOKE_RE = re.compile(r"invoke_subgraph\((?P<var>\w+), '(?P<name>\w+)'")
_CLASS_RE = re.compile(r"^(?P<indent>[ \t]+)class (?P<name>\w+)\(torch\.nn\.Module\):\s*$", re.M)
_FILE_RE = re.compile(r"^\s*# File: (?P<file>.+?):(?P<line>\d+) in [^,]+, code: (?P<code>.*)$")
_DISABLED_RE = re.compile(r"Skip calling function `<function (?P<name>[\w.<>]+) at")


def regions_of(graph: Optional[FxGraph], aot_graphs: tuple[Optional[FxGraph], ...],
               outputs: tuple[OutputCode, ...], graph_break: Optional[GraphBreak]) -> tuple[Region, ...]:
    out: list[Region] = []
    if graph is not None:
        out += _nested(graph, aot_graphs, outputs)
        out += _nonstrict(graph)
    if graph_break is not None:
        disabled = _disabled(graph_break)
        if disabled is not None:
            out.append(disabled)
    return tuple(out)


def _nested(graph: FxGraph, aot_graphs: tuple[Optional[FxGraph], ...],
            outputs: tuple[OutputCode, ...]) -> list[Region]:
    code = graph.code
    calls: dict[str, list[tuple[Optional[str], Optional[int], Optional[str]]]] = {}
    where: tuple[Optional[str], Optional[int], Optional[str]] = (None, None, None)
    for line in code.splitlines():
        m = _FILE_RE.match(line)
        if m:
            where = (m["file"], int(m["line"]), m["code"].strip())
            continue
        for inv in _INVOKE_RE.finditer(line):
            calls.setdefault(inv["name"], []).append(where)
    if not calls:
        return []
    bodies = _class_bodies(code)
    aot_names = _aot_names(aot_graphs)
    wrapper_kernels = _wrapper_functions(outputs)
    out = []
    for name, sites in calls.items():
        body = bodies.get(name)
        aot = aot_names.get(name)
        filename, lineno, source = sites[0]
        kernels = wrapper_kernels.get(aot or "", ())
        out.append(Region("nested_compile_region", name, calls=len(sites),
                          graph=parse_graph(body) if body and "def forward(" in body else None,
                          aot_name=aot, kernels=kernels, filename=filename, lineno=lineno, source=source,
                          note=_nested_note(len(sites), kernels)))
    return out


def _nested_note(calls: int, kernels: tuple[str, ...]) -> str:
    n = len(kernels)
    reuse = f"; its {counted(n, 'kernel call')} {noun(n, 'is', 'are')} the same code at each call" if kernels else ""
    return f"traced and compiled once, called {calls}x{reuse}"


def _class_bodies(code: str) -> dict[str, str]:
    """``class NAME(torch.nn.Module):`` blocks nested in a graph print, dedented: the subgraphs' own graphs."""
    out = {}
    lines = code.splitlines()
    for m in _CLASS_RE.finditer(code):
        start = code.count("\n", 0, m.start())
        indent = len(m["indent"])
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        out[m["name"]] = textwrap.dedent("\n".join(lines[start:end])).strip("\n") + "\n"
    return out


def _aot_names(graphs: tuple[Optional[FxGraph], ...]) -> dict[str, str]:
    """Dynamo's subgraph name -> AOTAutograd's (``invoke_subgraph(repeated_subgraph0_1, 'subgraph_0', ...)``)."""
    out: dict[str, str] = {}
    for g in graphs:
        if g is None:
            continue
        for m in _INVOKE_RE.finditer(g.code):
            var = re.sub(r"_\d+$", "", m["var"])
            out.setdefault(m["name"], var)
    return out


def _wrapper_functions(outputs: tuple[OutputCode, ...]) -> dict[str, tuple[str, ...]]:
    """``def repeated_subgraph0(args):`` in an output module -> the kernels and library calls its body makes."""
    out: dict[str, tuple[str, ...]] = {}
    for oc in outputs:
        if oc.language == "python":
            out.update(subgraph_calls(oc.code))
    return out


def _nonstrict(graph: FxGraph) -> list[Region]:
    found: dict[str, Region] = {}
    where: tuple[Optional[str], Optional[int], Optional[str]] = (None, None, None)
    for line in graph.code.splitlines():
        m = _FILE_RE.match(line)
        if m:
            where = (m["file"], int(m["line"]), m["code"].strip())
            continue
        leaf = NONSTRICT_TRACE_ATTRIBUTE.match(line)
        if leaf and not leaf["name"].endswith("_input"):  # NAME_input_spec: the arguments' spec
            name = leaf["name"]
            r = found.get(name)
            calls = (r.calls if r else 0) + 1
            found[name] = Region("nonstrict_trace", name, calls=calls, filename=where[0], lineno=where[1],
                                 source=where[2], note="called from the graph as an opaque function: Dynamo did "
                                 "not trace its body, so its guards and graph breaks are not there")
    return list(found.values())


def _disabled(brk: GraphBreak) -> Optional[Region]:
    text = f"{brk.reason}\n{brk.explanation or ''}"
    if "torch.compiler.disable" not in text:
        return None
    m = _DISABLED_RE.search(text)
    name = m["name"] if m else (brk.source_line or "?")
    return Region("disable", name, calls=1, filename=brk.filename, lineno=brk.lineno, source=brk.source_line,
                  note="torch.compiler.disable: the graph breaks at the call and the function runs as plain Python")
