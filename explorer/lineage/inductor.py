"""One Inductor lowering (forward, backward or inference) -> rows of its wrapper, kernels and loop IR.

What is torch's own data and what is inferred:

* kernel -> post-grad nodes: torch's provenance. The wrapper writes
  ``# [Provenance debug handles] K:N`` above each call, and
  ``OutputCode.provenance`` keeps torch's ``cppCodeToPost[K:N]`` (extern calls
  included); without it, a Triton kernel's ``# Graph fragment`` header (the
  post-grad nodes torch printed for it), else ``Kernel.source_nodes``.
* wrapper lines: a kernel or extern call, and the comments above it, get the
  user lines of the nodes it computes; an allocation (``buf3 = empty_strided...``,
  ``buf1 = buf0; del buf0  # reuse``) follows the buffer: the call that writes
  it (by the kernel's ``out_ptr``/``in_out_ptr`` parameters, an extern's
  ``out=``); the kernel sources inside the wrapper get the kernel's lines;
  imports, asserts on inputs, ``del`` and the benchmark harness are glue.
* kernel lines: see ``match`` (inferred inside a kernel, among torch's nodes for it).
* loop IR: a scheduler node (``op3: SchedulerNode(ComputedBuffer)``) and every
  line of its block belong to the call that writes its buffers (``op3.outputs``),
  the members of a fused node to the fused node's call; the loop body's lines
  are matched like kernel lines (``sin = ops.sin(load)``), among that call's nodes.
"""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Optional

from ..capturing.inductor_code import kernels as kernel_text
from ..capturing.inductor_code import loop_ir, wrapper
from ..capturing.inductor_code.kernels import kernel_params, param_role
from ..capturing.model import Compilation, IrDump, Kernel, OutputCode
from . import match
from .graphs import GraphLines, Row
from .model import Origin

_GLUE: tuple[Origin, ...] = ()


class Call:
    """One call of a kernel or an extern kernel in the wrapper's ``call()``."""

    def __init__(self, row: int, callee: str, kernel: Optional[int], handle: Optional[str],
                 args: list[str], lhs: Optional[str]) -> None:
        self.row, self.callee, self.kernel, self.handle = row, callee, kernel, handle
        self.args, self.lhs = args, lhs
        self.nodes: tuple[str, ...] = ()
        self.origins: tuple[Origin, ...] = _GLUE


class Lowering:
    """The rows of one lowering's wrapper module, its kernels and its IR dumps."""

    def __init__(self, comp: Compilation, post: Optional[GraphLines],
                 union: Callable[[Iterable[tuple[Origin, ...]]], tuple[Origin, ...]]) -> None:
        self.comp, self.post = comp, post
        self.union = union  # origin sets -> one sorted origin set
        self.table = post.table if post else {}
        self.kernel_rows: dict[int, list[Row]] = {}  # index in comp.kernels -> rows
        self.kernel_origins: dict[int, tuple[Origin, ...]] = {}
        self.kernel_nodes: dict[int, dict[str, None]] = {}  # from its calls' provenance
        self.kernel_sources: dict[int, str] = {}  # kernel -> which record linked it (lineage.SOURCES key)
        self._wrapper_sources: dict[int, str] = {}
        self.buffer_writer: dict[str, Call] = {}
        self.buffer_alias: dict[str, list[str]] = {}
        self.ir_calls: dict[str, Call] = {}  # scheduler node -> the call computing it (post-fusion dump first)
        self.buffer_ir: dict[str, tuple[Origin, ...]] = {}  # buffer -> user lines of the scheduler node writing it
        self._wrappers: dict[int, tuple[list[str], dict, set[int], list[Call]]] = {}
        self._origins_memo: dict[tuple[str, ...], tuple[Origin, ...]] = {}
        self._matchers: dict[tuple[str, ...], match.Matcher] = {}
        self._assign_memo: dict = {}
        self._by_op: dict[str, list[str]] = {}  # op -> post-grad nodes, in graph order (extern calls by name)
        for name, (op, _, _) in self.table.items():
            self._by_op.setdefault(op, []).append(name)
        self._fragments: dict[int, tuple[str, ...]] = {}
        self._body_memo: dict[tuple, list] = {}
        self._body_exact: dict[tuple, tuple] = {}
        self._kernel_memo: dict[tuple, tuple] = {}
        self._params: dict[int, list[str]] = {}

    def origins_of(self, nodes: tuple[str, ...]) -> tuple[Origin, ...]:
        if self.post is None or not nodes:
            return _GLUE
        if len(nodes) == 1:
            return self.post.node_origins(nodes[0])
        got = self._origins_memo.get(nodes)
        if got is None:
            got = self._origins_memo[nodes] = self.union(self.post.node_origins(n) for n in nodes)
        return got

    def matcher(self, nodes: tuple[str, ...]) -> match.Matcher:
        m = self._matchers.get(nodes)
        if m is None:
            m = self._matchers[nodes] = match.Matcher(match.candidates(nodes, self.table), self._assign_memo)
        return m

    # ---- the wrapper ----
    def read_wrapper(self, part: int, oc: OutputCode) -> None:
        """Its calls, what each computes and writes, and its kernels' rows; before ``ir_rows``."""
        if oc.language == "cpp":
            self._read_cpp_wrapper(part, oc)
            return
        lines = oc.code.splitlines()
        kernels = {k.name: i for i, k in enumerate(self.comp.kernels) if k.graph_kind == oc.graph_kind}
        spans = self._kernel_spans(lines, kernels)
        inside: set[int] = set()
        for i, (head, start, _, end) in spans.items():
            inside.update(range(head, end + 1))
            self._read_fragment(i, lines, head, start)
        calls = self._scan_calls(lines, kernels, inside, oc)
        for i in spans:
            self._kernel(i)
        for call in calls:
            call.origins = self.origins_of(call.nodes)
            if call.kernel is not None and not call.origins:
                call.origins = self.kernel_origins.get(call.kernel, _GLUE)
        self._wrappers[part] = (lines, spans, inside, calls)
        if any(c.handle and c.handle in oc.provenance for c in calls):
            self._wrapper_sources[part] = "wrapper_provenance"

    def _read_cpp_wrapper(self, part: int, oc: OutputCode) -> None:
        """AOTInductor's C++ wrapper: the calls torch marked with a provenance handle
        (``// [Provenance debug handles] K:N``), each the next call statement after its comment."""
        lines = oc.code.splitlines()
        kernels = {k.name: i for i, k in enumerate(self.comp.kernels) if k.graph_kind == oc.graph_kind}
        calls = [Call(c.row, c.callee, kernels.get(c.callee), c.handle, list(c.args), None)
                 for c in wrapper.cpp_call_lines(lines, kernels)]
        used: set[str] = set()
        for call in calls:
            call.nodes = self._call_nodes(call, oc, used)
            used.update(call.nodes)
            self._writes(call)
            if call.kernel is not None:
                self.kernel_nodes.setdefault(call.kernel, {}).update(dict.fromkeys(call.nodes))
            call.origins = self.origins_of(call.nodes)
        self._wrappers[part] = (lines, {}, set(), calls)
        if any(c.handle and c.handle in oc.provenance for c in calls):
            self._wrapper_sources[part] = "wrapper_provenance"

    def _cpp_rows(self, lines: list[str], calls: list[Call]) -> list[Row]:
        rows: list[Row] = [(_GLUE, None)] * len(lines)
        by_row = {c.row: c for c in calls}
        pending: list[int] = []
        for r, line in enumerate(lines):
            call = by_row.get(r)
            s = line.strip()
            if call is not None:
                rows[r] = (call.origins, call.callee)
                for p in pending:
                    rows[p] = (call.origins, None)
                pending = []
            elif wrapper.is_call_preamble(s):
                pending.append(r)
            else:
                buf = wrapper.cpp_buffer_mention(line)
                if buf is not None:
                    rows[r] = (self.buffer_origins(buf), buf)
        return rows

    def wrapper_rows(self, part: int) -> list[Row]:
        lines, spans, inside, calls = self._wrappers[part]
        if self.comp.output_code and self.comp.output_code[part].language == "cpp":
            return self._cpp_rows(lines, calls)
        rows: list[Row] = [(_GLUE, None)] * len(lines)
        for i, (head, start, first, _) in spans.items():
            korigins = self.kernel_origins[i]
            for r in range(head, start):
                rows[r] = self._header_row(lines[r], korigins)
            rows[start] = (korigins, self.comp.kernels[i].name)
            for r, row in enumerate(self.kernel_rows[i]):
                if first + r < len(rows):
                    rows[first + r] = row
        self._call_rows(lines, rows, inside, calls)
        return rows

    def _kernel_spans(self, lines: list[str], kernels: dict[str, int]) -> dict[int, tuple[int, int, int, int]]:
        """kernel index -> (first header comment row, definition row, first source row, last row)."""
        spans = {}
        for name, i in kernels.items():
            k = self.comp.kernels[i]
            span = wrapper.kernel_span(lines, name, k.wrapper_lineno, k.source)
            if span is not None:
                spans[i] = tuple(span)
        return spans

    def _header_row(self, line: str, korigins: tuple[Origin, ...]) -> Row:
        h = wrapper.header_line(line)
        if h.kind in ("node", "input"):
            return (self.origins_of(h.nodes) if h.kind == "node" else _GLUE, h.nodes[0])
        if h.kind == "aten":
            return (self.origins_of(h.nodes), None)
        if h.kind == "glue":
            return (_GLUE, None)
        return (korigins, None)

    def _scan_calls(self, lines: list[str], kernels: dict[str, int], inside: set[int],
                    oc: OutputCode) -> list[Call]:
        found, aliases = wrapper.call_lines(lines, kernels, inside)
        calls = [Call(c.row, c.callee, kernels[c.callee] if c.kernel else None, c.handle, list(c.args), c.lhs)
                 for c in found]
        # `buf1 = buf0; del buf0  # reuse`, `buf5 = reinterpret_tensor(buf4, ...); del buf4  # reuse`
        for lhs, b in aliases:  # both ways: an allocation reused later follows what the reuse computes
            self.buffer_alias.setdefault(lhs, []).append(b)
            self.buffer_alias.setdefault(b, []).append(lhs)
        used: set[str] = set()
        for call in calls:
            call.nodes = self._call_nodes(call, oc, used)
            used.update(call.nodes)
            self._writes(call)
        for call in calls:  # a kernel computes what every call of it computes
            if call.kernel is not None:
                self.kernel_nodes.setdefault(call.kernel, {}).update(dict.fromkeys(call.nodes))
        return calls

    def _call_nodes(self, call: Call, oc: OutputCode, used: set[str]) -> tuple[str, ...]:
        if call.handle and call.handle in oc.provenance:
            if call.kernel is not None:
                self.kernel_sources[call.kernel] = "provenance"
            return tuple(n for n in oc.provenance[call.handle] if n in self.table) or oc.provenance[call.handle]
        if call.kernel is not None:
            return self._kernel_nodes_without_provenance(call.kernel)
        for name in self._by_op.get(wrapper.extern_op(call.callee), ()):  # by name, in graph order: a heuristic
            if name not in used:
                return (name,)
        return ()

    def _kernel_nodes_without_provenance(self, i: int) -> tuple[str, ...]:
        """A Triton kernel's ``Graph fragment`` header (post-grad nodes), else ``Kernel.source_nodes``."""
        found = self._fragments.get(i)
        if found:
            self.kernel_sources.setdefault(i, "fragment")
            return found
        self.kernel_sources.setdefault(i, "nodes")
        return tuple(n for n in self.comp.kernels[i].source_nodes if n in self.table)

    def wrapper_source(self, part: int) -> str:
        """``wrapper_provenance`` when torch's handles linked the wrapper's calls, else ``by_name``."""
        return self._wrapper_sources.get(part, "by_name")

    def _read_fragment(self, i: int, lines: list[str], head: int, start: int) -> None:
        self._fragments[i] = tuple(n for n in wrapper.fragment_nodes(lines, head, start) if n in self.table)

    def _writes(self, call: Call) -> None:
        written: list[str] = []
        if call.lhs:
            written += wrapper.buffer_names(call.lhs)
        if call.kernel is not None:
            params = self._params.get(call.kernel)
            if params is None:
                k = self.comp.kernels[call.kernel]
                params = self._params[call.kernel] = kernel_params(k.source, k.language)
            for p, a in zip(params, call.args):
                if param_role(p) != "in":
                    written += wrapper.buffer_names(a)
            if not params:
                written += [b for a in call.args for b in wrapper.buffer_names(a) if b not in self.buffer_writer]
        else:
            written += [b for a in call.args if wrapper.is_out_argument(a) for b in wrapper.buffer_names(a)]
            if wrapper.writes_first_argument(call.callee) and call.args:
                written += wrapper.buffer_names(call.args[0])
        for b in written:
            self.buffer_writer.setdefault(b, call)

    def buffer_origins(self, buf: str) -> tuple[Origin, ...]:
        """The user lines of what writes ``buf`` (its scheduler node, else its call), or of the
        buffers it is reused as or viewed from."""
        seen, todo = {buf}, [buf]
        while todo:
            b = todo.pop(0)
            if self.buffer_ir.get(b):
                return self.buffer_ir[b]
            call = self.buffer_writer.get(b)
            if call is not None and call.origins:
                return call.origins
            for other in self.buffer_alias.get(b, ()):
                if other not in seen and len(seen) < 16:
                    seen.add(other)
                    todo.append(other)
        return _GLUE

    def _call_rows(self, lines: list[str], rows: list[Row], inside: set[int], calls: list[Call]) -> None:
        by_row = {c.row: c for c in calls}
        pending: list[int] = []
        for r, line in enumerate(lines):
            if r in inside or not line.startswith("    "):
                continue
            s = line.lstrip()
            call = by_row.get(r)
            if call is not None:
                rows[r] = (call.origins, call.callee)
                for p in pending:
                    rows[p] = (call.origins, None)
                pending = []
                continue
            if wrapper.is_call_preamble(s):
                pending.append(r)
                continue
            buf = wrapper.assigned_buffer(s)
            if buf is not None:
                rows[r] = (self.buffer_origins(buf), buf)

    # ---- kernels ----
    def _kernel(self, i: int) -> None:
        k = self.comp.kernels[i]
        nodes = tuple(self.kernel_nodes.get(i, ())) or self._kernel_nodes_without_provenance(i)
        rows, origins = self.kernel_source_rows(k, nodes)
        self.kernel_rows[i] = rows
        self.kernel_origins[i] = origins

    def kernel_source_rows(self, k: Kernel, nodes: tuple[str, ...]) -> tuple[list[Row], tuple[Origin, ...]]:
        lines = k.source.splitlines()
        matcher = self.matcher(nodes)
        stated = tuple(Origin(u.filename, u.lineno) for u in k.user_lines if u.lineno)
        korigins = self.union((self.origins_of(nodes), stated))
        rows: list[Row] = [(_GLUE, None)] * len(lines)
        # a model's layers make kernels alike but for constants and names: read each shape once
        key = (kernel_text.shape_key(k.source, k.name), matcher.signature)
        got = self._kernel_memo.get(key)
        if got is None:
            stmts, signature = _kernel_statements(lines, matcher.vocabulary)
            matched = matcher.ranks(stmts) if matcher.cands and stmts else ([], [])
            got = self._kernel_memo[key] = (signature, [(s.row, ns, d) for s, ns, d in zip(stmts, *matched)])
        signature, matched_rows = got
        names = matcher.everything
        for row, ns, d in matched_rows:
            rows[row] = (self.origins_of(tuple(names[i] for i in ns)), names[d] if d >= 0 else None)
        if signature is not None:
            rows[signature] = (korigins, k.name)
        return rows, korigins

    # ---- loop-level IR ----
    def ir_rows(self, dump: IrDump) -> list[Row]:
        """Call ``ir_rows`` on the post-fusion dump first: pre-fusion nodes whose buffers
        fusion made local (never passed to a call) are found through their fused node."""
        blocks, n = loop_ir.scheduler_nodes(dump.text)
        calls = self._ir_calls(blocks)
        rows: list[Row] = [(_GLUE, None)] * n
        node_origins: dict[str, tuple[Origin, ...]] = {}
        bodies: dict[str, list[tuple[int, tuple[Origin, ...], Optional[str]]]] = {}
        for name, block in blocks.items():
            call = calls.get(name)
            body_nodes: tuple[str, ...] = ()
            if block.body is not None and call is not None and call.nodes:
                bodies[name], body_nodes = self._body(block.body_text, call.nodes)
            node_origins[name] = (self.origins_of(body_nodes or call.nodes) if call else _GLUE) \
                or (call.origins if call else _GLUE)
            if not block.members:
                for b in block.buffers:
                    self.buffer_ir.setdefault(b, node_origins[name])
        for name, block in blocks.items():
            origins = node_origins[name]
            if block.members:
                origins = self.union([origins] + [node_origins.get(m, _GLUE) for m in block.members])
            lo, hi = block.span
            rows[lo:hi] = [(origins, None)] * (hi - lo)
            for r, element in block.elements:
                rows[r] = (origins, element)
            start = block.body[0] if block.body else 0
            for rel, origins_, element in bodies.get(name, ()):
                if origins_:
                    rows[start + rel] = (origins_, element)
        return rows

    def ir_nodes(self, dump: IrDump) -> list[IrNode]:
        """Per scheduler node of the dump, in its order: its name, the row its block starts on, and the post-grad
        nodes it computes (its loop body's, matched among its kernel's; else its kernel's). As ``ir_rows``, call it
        on the post-fusion dump first."""
        blocks, _ = loop_ir.scheduler_nodes(dump.text)
        calls = self._ir_calls(blocks)
        out = []
        for name, block in blocks.items():
            call = calls.get(name)
            nodes: tuple[str, ...] = ()
            if call is not None and call.nodes:
                if block.body is not None:
                    nodes = self._body(block.body_text, call.nodes)[1]
                nodes = nodes or call.nodes
            out.append(IrNode(name, block.span[0], nodes, block.computes_nothing))
        return out

    def _body(self, text: str, nodes: tuple[str, ...]
              ) -> tuple[list[tuple[int, tuple[Origin, ...], Optional[str]]], tuple[str, ...]]:
        """A loop body's lines matched among ``nodes``. Bodies alike but for buffer names and
        constants (the same node before and after fusion, a model's layers) are read once."""
        exact = self._body_exact.get((text, nodes))
        if exact is not None:
            return exact
        matcher = self.matcher(nodes)
        if not matcher.cands:
            return [], ()
        key = (loop_ir.body_shape_key(text), matcher.signature)
        got = self._body_memo.get(key)
        if got is None:
            stmts = _body_statements(tuple(text.split("\n")), matcher.vocabulary)
            matched = matcher.ranks(stmts) if stmts else ([], [])
            got = self._body_memo[key] = [(s.row, ns, d) for s, ns, d in zip(stmts, *matched)]
        names = matcher.everything
        out: list[tuple[int, tuple[Origin, ...], Optional[str]]] = []
        found: dict[str, None] = {}
        for row, ns, d in got:
            named = tuple(names[i] for i in ns)
            out.append((row, self.origins_of(named), names[d] if d >= 0 else None))
            found.update(dict.fromkeys(named))
        result = self._body_exact[(text, nodes)] = (out, tuple(found))
        return result

    def _ir_calls(self, blocks: dict[str, loop_ir.SchedulerNodeBlock]) -> dict[str, Call]:
        calls: dict[str, Call] = {}
        group_of: dict[str, str] = {}
        for name, block in blocks.items():
            for m in block.members:
                group_of[m] = name
            call = next((self.buffer_writer[b] for b in block.buffers if b in self.buffer_writer), None)
            if call is not None:
                calls[name] = call
        for name, block in blocks.items():
            if name not in calls and block.members:
                found = next((calls[m] for m in block.members if m in calls), None)
                if found is not None:
                    calls[name] = found
        for name in blocks:
            if name not in calls:
                found = (calls.get(group_of.get(name, "")) or self.ir_calls.get(name)
                         or self._reused_by_a_writer(blocks[name].buffers))
                if found is not None:
                    calls[name] = found
        for name, call in calls.items():
            self.ir_calls.setdefault(name, call)
            for m in blocks[name].members:
                self.ir_calls.setdefault(m, call)
        return calls


    def _reused_by_a_writer(self, buffers: tuple[str, ...]) -> Optional[Call]:
        """The call computing a node whose buffers no call takes, when the wrapper reuses them as a buffer that call
        writes in place: ``buf2 = buf1; del buf1  # reuse`` then ``cpp_fused_mean_mul_sin_0(buf2, buf0)`` (torch
        2.14's C++ kernels compute a reduction and its epilogue in one kernel although the dump keeps two nodes)."""
        return next((self.buffer_writer[a] for b in buffers for a in self.buffer_alias.get(b, ())
                     if a in self.buffer_writer), None)


def _body_statements(text: tuple[str, ...], vocab: frozenset[str]) -> list[match.Stmt]:
    """A loop body's lines as statements: its values' data flow and the op words each spells."""
    out = []
    defined: set[str] = set()
    Stmt = match.Stmt
    empty: frozenset[str] = frozenset()
    for line in loop_ir.body_lines(text):
        if line.kind == "return":
            out.append(Stmt(line.row, (), line.operands, empty, "other"))
            continue
        uses = tuple(a for a in line.operands if a in defined)
        if line.kind == "index":
            out.append(Stmt(line.row, (line.name,), (), empty, "index"))
        elif line.kind == "op":
            words = frozenset(w for w in (line.op, *line.strings) if w in vocab or w == line.op)
            out.append(Stmt(line.row, (line.name,), uses, words, "op"))
        else:
            out.append(Stmt(line.row, (line.name,), uses, empty, line.kind))
        defined.add(line.name)
    return out


def _kernel_statements(lines: list[str], vocab: frozenset[str]) -> tuple[list[match.Stmt], Optional[int]]:
    """A kernel's statements (lines defining or using a CSE variable) and its signature's line."""
    found, signature = kernel_text.kernel_statements(lines)
    empty: frozenset[str] = frozenset()
    return [match.Stmt(s.row, s.defs, s.uses, match.line_words(s.rhs, vocab) if s.kind == "op" else empty, s.kind)
            for s in found], signature


class IrNode(NamedTuple):
    """One scheduler node of a loop-IR dump, as the chain reads it."""

    name: str  # op3, op2_op3
    row: int  # the row its block starts on
    nodes: tuple[str, ...]  # the post-grad nodes it computes
    computes_nothing: bool  # a NopKernelSchedulerNode (a concatenation's buffer)


def ir_nodes(comp: Compilation, graphs: dict[str, GraphLines]) -> dict[tuple[str, int], list[IrNode]]:
    """Per loop-IR dump of ``comp`` (``(stage, part)``): ``Lowering.ir_nodes`` of it, read as the chain reads it
    (the wrappers first: a scheduler node is computed by the call that writes its buffers). ``graphs``: the
    post-grad graphs read (``GraphLines``), by stage id. What ``explorer.structure`` places each node of the
    loop IR in a module by."""
    outputs = comp.output_code or ()
    pre, post = comp.ir_pre_fusion or (), comp.ir_post_fusion or ()
    out: dict[tuple[str, int], list[IrNode]] = {}
    for kind in dict.fromkeys(d.graph_kind for d in post + pre):
        graph = graphs.get("post_grad_graph_backward" if kind == "backward" else "post_grad_graph")
        low = Lowering(comp, graph, lambda sets: tuple(sorted(set().union(*sets))))
        for part, oc in enumerate(outputs):
            if oc.graph_kind == kind:
                low.read_wrapper(part, oc)
        for stage, dumps in (("ir_post_fusion", post), ("ir_pre_fusion", pre)):
            for part, dump in enumerate(dumps):
                if dump.graph_kind == kind:
                    out[(stage, part)] = low.ir_nodes(dump)
    return out
