"""The collectives each captured graph issues, in order, and where ranks would wait on each other.

Collectives inside compiled code are functional collectives: FX nodes calling
``torch.ops._c10d_functional.all_reduce`` / ``all_gather_into_tensor`` / ``reduce_scatter_tensor`` /
``all_to_all_single`` / ``broadcast`` ... (Dynamo turns ``dist.all_reduce`` into them too), each
followed later by a ``wait_tensor``. They are read from the graphs' printed code: kind, group,
reduction and sizes, the graph input each one combines (``operand``) and the user line that issued
it. Every rank must issue the same collectives in the same order on the same group; where two ranks'
graphs disagree in order or kind, each can block in a collective the other never joins: a hang.
Where they agree in kind and size but not in what they combine (rank 1 reduces its ``b`` where rank 0
reduces its ``a``), nothing hangs and the values are silently mixed. Collectives run outside any graph
(DDP's C++ reducer, FSDP2's hooks, eager ``dist.*`` calls) are not seen here; the notes say so where
that applies.

The user line: a node's printed stack names only its innermost frame, which for ``dist.all_reduce(b)``
is inside ``_functional_collectives.py``. The explorer's own capture hears Dynamo's ``trace_call`` log
(``Compilation.call_sites``): each collective's whole call stack, whose innermost user frame is the
line. A trace recorded elsewhere has no such log: the line is then inferred from the graph's user
lines that name the collective (``Collective.line_from`` says which).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Optional, Sequence

from ..capturing.model import CallSite, Compilation, FxGraph, FxNode, SourceLoc
from ..clinic.locate import is_library_file
from ..lineage.inputs import aot_input_names, dynamo_input_names
from .model import Collective, GraphCollectives

# the graphs read, in pipeline order: what the user's code issued, then what runs
STAGES = ("graph", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph", "post_grad_graph_backward")
# the graphs whose collectives are Dynamo's, one for one and in its order: the call sites it logged apply
_TRACED = ("graph", "aot_forward", "aot_inference")
_NAMESPACES = ("_c10d_functional.", "c10d_functional.", "_c10d_functional_autograd.")
_NOT_COLLECTIVES = {"wait_tensor"}  # waits complete a collective; they issue none
# the word a user's call of each kind of collective has in it (fc.all_gather_tensor, dist.all_reduce, ...)
_STEMS = {"all_gather_into_tensor": "all_gather", "all_gather_into_tensor_coalesced": "all_gather",
          "reduce_scatter_tensor": "reduce_scatter", "reduce_scatter_tensor_coalesced": "reduce_scatter",
          "all_reduce_coalesced": "all_reduce", "all_to_all_single": "all_to_all"}
_CALL_RE = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)(?:\s*:\s*\"[^\"]*\")?\s*=\s*(?P<call>torch\.ops\.[\w.]+\(.*)$")


def op_name(target: str) -> Optional[str]:
    """``torch.ops._c10d_functional.all_reduce_.default`` -> ``all_reduce``; None if not a collective."""
    for ns in _NAMESPACES:
        i = target.find(ns)
        if i >= 0:
            op = target[i + len(ns):].split(".")[0]
            op = op.rstrip("_")
            return None if op in _NOT_COLLECTIVES else op
    return None


def graph_collectives(graph: Optional[FxGraph], sites: Sequence[CallSite] = (),
                      names: Optional[dict[str, str]] = None) -> tuple[Collective, ...]:
    """The collectives ``graph`` issues, in its order (waits left out). ``sites``: Dynamo's call stacks of the
    collectives it made, in its order (``Compilation.call_sites``); ``names``: the user's name of each graph
    input (a Dynamo graph's placeholders name themselves)."""
    if graph is None:
        return ()
    wanted = [n for n in graph.nodes if n.op == "call_function" and op_name(n.target)]
    if not wanted:
        return ()
    calls = _calls(graph.code)
    nodes = {n.name: n for n in graph.nodes}
    names = dynamo_input_names(graph) if names is None else names
    found = tuple(_collective(n, calls.get(n.name, ""), nodes, names) for n in wanted)
    return _user_lines(_called_from(found, sites), graph)


def compilation_collectives(rank: int, comp: Compilation, key: str) -> list[GraphCollectives]:
    """One entry per stage of ``comp`` that issues any collective."""
    out = []
    for stage in STAGES:
        graph = getattr(comp, stage, None)
        found = graph_collectives(graph, comp.call_sites if stage in _TRACED else (),
                                  None if stage == "graph" else aot_input_names(graph, comp.graph))
        if found:
            out.append(GraphCollectives(rank, comp.compile_id, key, stage, found))
    return out


def sequence(entries: Sequence[Collective]) -> tuple[str, ...]:
    return tuple(c.signature() for c in entries)


def first_mismatch(a: Sequence[Collective], b: Sequence[Collective]) -> Optional[int]:
    """The first position where two ranks' collectives differ in kind, group, reduction or size; None if equal."""
    sa, sb = sequence(a), sequence(b)
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y:
            return i
    return None if len(sa) == len(sb) else min(len(sa), len(sb))


def _calls(code: str) -> dict[str, str]:
    """node name -> its call text (``torch.ops....(args)``), trailing ``;  x = None`` deletes cut off."""
    out = {}
    for line in code.splitlines():
        m = _CALL_RE.match(line)
        if m:
            out[m["name"]] = m["call"].split(";")[0].strip()
    return out


def _collective(node: FxNode, call: str, nodes: dict[str, FxNode], names: dict[str, str]) -> Collective:
    strings, ints = _literal_args(call)
    op = op_name(node.target) or node.target
    reduce_op = strings[0] if len(strings) >= 2 else None
    group = strings[-1] if strings else None
    group_size = ints[0] if ints and op in ("all_gather_into_tensor", "reduce_scatter_tensor",
                                              "all_gather_into_tensor_coalesced",
                                              "reduce_scatter_tensor_coalesced") else None
    first_input = node.inputs[0] if node.inputs else None
    source = nodes.get(first_input) if first_input else None
    loc = node.loc
    return Collective(op=op, target=node.target, node=node.name, group=group, group_size=group_size,
                      reduce_op=reduce_op, type=_short_type(node.type),
                      input_type=_short_type(source.type) if source is not None else None,
                      filename=loc.filename if loc else None, lineno=loc.lineno if loc else None,
                      code=loc.code if loc else None,
                      line_from="graph" if loc is not None and not is_library_file(loc.filename) else "",
                      operand=names.get(first_input) if source is not None and source.op == "placeholder" else None)


def _called_from(found: tuple[Collective, ...], sites: Sequence[CallSite]) -> tuple[Collective, ...]:
    """The user line of each collective whose node names a library line, from Dynamo's call stacks: the n-th
    collective of a kind is the n-th Dynamo made of that kind (its nodes may have been renamed since)."""
    if not sites:
        return found
    by_op: dict[str, list[CallSite]] = {}
    for site in sites:
        by_op.setdefault(site.op, []).append(site)
    counts: dict[str, int] = {}
    for c in found:
        counts[c.op] = counts.get(c.op, 0) + 1
    if any(len(by_op.get(op, ())) != n for op, n in counts.items()):
        return found  # not the same collectives: the stacks cannot be told apart
    used: dict[str, int] = {}
    out = []
    for c in found:
        i = used.get(c.op, 0)
        used[c.op] = i + 1
        user = next((f for f in reversed(by_op[c.op][i].stack) if not is_library_file(f.filename)), None)
        if c.line_from != "graph" and user is not None:
            c = replace(c, filename=user.filename, lineno=user.lineno, code=user.code, line_from="call")
        out.append(c)
    return tuple(out)


def _user_lines(found: tuple[Collective, ...], graph: FxGraph) -> tuple[Collective, ...]:
    """A collective without a user line yet names the library line that made it (``_functional_collectives.py:
    179``); the user line that called it is then *inferred*: the n-th of the graph's user lines whose code names
    that kind of collective (``fc.all_reduce(...)``) goes with the n-th collective of that kind."""
    user_lines: list[SourceLoc] = []
    for n in graph.nodes:
        loc = n.loc
        if loc is not None and not is_library_file(loc.filename) and loc not in user_lines:
            user_lines.append(loc)
    used: dict[str, int] = {}
    out = []
    for c in found:
        stem = _STEMS.get(c.op, c.op)
        i = used.get(stem, 0)
        used[stem] = i + 1
        if c.line_from:
            out.append(c)
            continue
        lines = [loc for loc in user_lines if stem in (loc.code or "")]
        if i < len(lines):
            loc = lines[i]
            c = replace(c, filename=loc.filename, lineno=loc.lineno, code=loc.code, line_from="inferred")
        out.append(c)
    return tuple(out)


def _literal_args(call: str) -> tuple[list[str], list[int]]:
    """The string and int constants among a call's arguments (reduction, group name, group size)."""
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError:
        return [], []
    if not isinstance(tree, ast.Call):
        return [], []
    strings: list[str] = []
    ints: list[int] = []
    for arg in list(tree.args) + [k.value for k in tree.keywords]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            strings.append(arg.value)
        elif isinstance(arg, ast.Constant) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
            ints.append(arg.value)
    return strings, ints


def _short_type(type_text: Optional[str]) -> Optional[str]:
    """``f32[4, 4][4, 1]cpu`` -> ``f32[4, 4]``: dtype and shape are what ranks must agree on."""
    if not type_text:
        return None
    m = re.match(r"^([a-z]+\d*[a-z0-9]*\[[^\]]*\])", type_text)
    return m.group(1) if m else type_text
