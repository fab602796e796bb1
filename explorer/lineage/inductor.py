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

import re
from typing import Callable, Iterable, Optional

from ..capturing.inductor_code import kernel_params, parse_call, split_args
from ..capturing.model import Compilation, IrDump, Kernel, OutputCode
from . import match
from .graphs import GraphLines, Row
from .model import Origin

_GLUE: tuple[Origin, ...] = ()
_HANDLE = re.compile(r"#\s*\[Provenance debug handles\] (\S+)")
_BUF = re.compile(r"\bbuf\d+\b")
_FRAGMENT_NODE = re.compile(r"^#\s+%(?P<name>\w+) : .*= (?P<kind>call_function|PlaceHolder)")
_ATEN_MAP = re.compile(r"^#\s+\w*\s*=>\s*(?P<nodes>[\w, ]+)$")
_VAR = re.compile(r"\b_?tmp\w*")
_IR_STRING = re.compile(r"'(\w+)'")
_IR_NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
_FLOAT = re.compile(r"\d\.\d+(?:e[-+]?\d+)?|\de[-+]\d+")  # what differs between layers: eps, scales
_QUOTED_NAME = re.compile(r"'[A-Za-z_]*\d\w*'")  # 'buf12', 'arg0_1', 'index0' (not 'sum')
_EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.", "torch._C.", "inductor_ops.")
_CPP_HANDLE = re.compile(r"^\s*//\s*\[Provenance debug handles\] (\S+)")
_CPP_CALL = re.compile(r"^\s+(?:AOTI_TORCH_ERROR_CODE_CHECK\()?(?P<callee>\w+)\((?P<args>.*?)\)\)?;\s*$")
_CPP_BUF = re.compile(r"\b(buf\d+)(?:_handle)?\b")


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
        calls: list[Call] = []
        handle: Optional[str] = None
        for r, line in enumerate(lines):
            m = _CPP_HANDLE.search(line)
            if m:
                handle = m.group(1)
                continue
            c = _CPP_CALL.match(line) if handle is not None else None
            if c is None or not (c["callee"] in kernels or c["callee"].startswith("aoti_torch_")):
                continue
            calls.append(Call(r, c["callee"], kernels.get(c["callee"]), handle, split_args(c["args"]), None))
            handle = None
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
            elif s.startswith("// [Provenance") or s.startswith("// Topologically Sorted"):
                pending.append(r)
            else:
                m = _CPP_BUF.search(line)
                if m and not s.startswith("//"):
                    rows[r] = (self.buffer_origins(m.group(1)), m.group(1))
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
            start = (k.wrapper_lineno or 0) - 1
            if not (0 <= start < len(lines)) or not lines[start].startswith(name):
                start = next((r for r, line in enumerate(lines) if line.startswith(f"{name} = async_compile")), -1)
                if start < 0:
                    continue
            src = k.source.splitlines()
            first_text = src[0] if src else ""
            first = next((r for r in range(start, min(start + 3, len(lines))) if lines[r] == first_text), start + 1)
            end = min(first + len(src), len(lines) - 1)  # the closing line of the literal
            head = start
            while head > 0 and lines[head - 1].startswith("#"):
                head -= 1
            spans[i] = (head, start, first, end)
        return spans

    def _header_row(self, line: str, korigins: tuple[Origin, ...]) -> Row:
        m = _FRAGMENT_NODE.match(line)
        if m:
            name = m["name"]
            return (self.origins_of((name,)) if m["kind"] == "call_function" else _GLUE, name)
        m = _ATEN_MAP.match(line)
        if m:
            return (self.origins_of(tuple(x.strip() for x in m["nodes"].split(",") if x.strip())), None)
        if line.startswith("#   return") or line.startswith("# kernel path"):
            return (_GLUE, None)
        return (korigins, None)

    def _scan_calls(self, lines: list[str], kernels: dict[str, int], inside: set[int],
                    oc: OutputCode) -> list[Call]:
        handle: Optional[str] = None
        calls: list[Call] = []
        for r, line in enumerate(lines):
            if r in inside or not line.startswith("    "):
                continue
            s = line.lstrip()
            if s.startswith("#"):
                m = _HANDLE.match(s)
                if m:
                    handle = m.group(1)
                continue
            parsed = parse_call(s.rstrip())
            if parsed is None:
                self._alias(s)
                continue
            lhs, callee, args = parsed
            base = callee[:-4] if callee.endswith(".run") else callee
            if base in kernels:
                call = Call(r, base, kernels[base], handle, split_args(args), lhs)
            elif callee.startswith(_EXTERN_PREFIXES) and not callee.startswith("torch._C._dynamo"):
                call = Call(r, callee, None, handle, split_args(args), lhs)
            else:
                self._alias(s)
                continue
            handle = None
            calls.append(call)
        used: set[str] = set()
        for call in calls:
            call.nodes = self._call_nodes(call, oc, used)
            used.update(call.nodes)
            self._writes(call)
        for call in calls:  # a kernel computes what every call of it computes
            if call.kernel is not None:
                self.kernel_nodes.setdefault(call.kernel, {}).update(dict.fromkeys(call.nodes))
        return calls

    def _alias(self, stmt: str) -> None:
        # `buf1 = buf0; del buf0  # reuse`, `buf5 = reinterpret_tensor(buf4, ...); del buf4  # reuse`
        head = stmt.split(";", 1)[0]
        if "=" not in head:
            return
        lhs, rhs = head.split("=", 1)
        lhs = lhs.strip()
        if _BUF.fullmatch(lhs):
            for b in _BUF.findall(rhs):
                if b != lhs:  # both ways: an allocation reused later follows what the reuse computes
                    self.buffer_alias.setdefault(lhs, []).append(b)
                    self.buffer_alias.setdefault(b, []).append(lhs)

    def _call_nodes(self, call: Call, oc: OutputCode, used: set[str]) -> tuple[str, ...]:
        if call.handle and call.handle in oc.provenance:
            if call.kernel is not None:
                self.kernel_sources[call.kernel] = "provenance"
            return tuple(n for n in oc.provenance[call.handle] if n in self.table) or oc.provenance[call.handle]
        if call.kernel is not None:
            return self._kernel_nodes_without_provenance(call.kernel)
        for name in self._by_op.get(_extern_op(call.callee), ()):  # by name, in graph order: a heuristic
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
        found = []
        for r in range(head, start):
            if lines[r].startswith("#   %"):
                m = _FRAGMENT_NODE.match(lines[r])
                if m and m["kind"] == "call_function" and m["name"] in self.table:
                    found.append(m["name"])
        self._fragments[i] = tuple(found)

    def _writes(self, call: Call) -> None:
        written: list[str] = []
        if call.lhs:
            written += _BUF.findall(call.lhs)
        if call.kernel is not None:
            params = self._params.get(call.kernel)
            if params is None:
                k = self.comp.kernels[call.kernel]
                params = self._params[call.kernel] = kernel_params(k.source, k.language)
            for p, a in zip(params, call.args):
                if p.startswith(("out_ptr", "in_out_ptr")):
                    written += _BUF.findall(a)
            if not params:
                written += [b for a in call.args for b in _BUF.findall(a) if b not in self.buffer_writer]
        else:
            written += [b for a in call.args if a.replace(" ", "").startswith("out=") for b in _BUF.findall(a)]
            if call.callee.startswith("aoti_torch_") and call.callee.endswith("_out") and call.args:
                written += _BUF.findall(call.args[0])  # AOTInductor's C shim: the out tensor comes first
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
            if s.startswith("# [Provenance") or s.startswith("# Topologically Sorted"):
                pending.append(r)
                continue
            head = s.split(";", 1)[0].split("=", 1)
            if len(head) == 2 and _BUF.fullmatch(head[0].strip()):
                buf = head[0].strip()
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
        key = (_FLOAT.sub("0", k.source.replace(k.name, "K")), matcher.signature)
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
        blocks, n = _ir_blocks(dump.text)
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
            for r, element in block.elements.items():
                rows[r] = (origins, element)
            start = block.body[0] if block.body else 0
            for rel, origins_, element in bodies.get(name, ()):
                if origins_:
                    rows[start + rel] = (origins_, element)
        return rows

    def ir_nodes(self, dump: IrDump) -> list[tuple[str, int, tuple[str, ...]]]:
        """Per scheduler node of the dump, in its order: its name, the row its block starts on, and the post-grad
        nodes it computes (its loop body's, matched among its kernel's; else its kernel's). As ``ir_rows``, call it
        on the post-fusion dump first."""
        blocks, _ = _ir_blocks(dump.text)
        calls = self._ir_calls(blocks)
        out = []
        for name, block in blocks.items():
            call = calls.get(name)
            nodes: tuple[str, ...] = ()
            if call is not None and call.nodes:
                if block.body is not None:
                    nodes = self._body(block.body_text, call.nodes)[1]
                nodes = nodes or call.nodes
            out.append((name, block.span[0], nodes))
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
        key = (_QUOTED_NAME.sub("''", _FLOAT.sub("0", text)), matcher.signature)
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

    def _ir_calls(self, blocks: dict[str, _Block]) -> dict[str, Call]:
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


    def _reused_by_a_writer(self, buffers: list[str]) -> Optional[Call]:
        """The call computing a node whose buffers no call takes, when the wrapper reuses them as a buffer that call
        writes in place: ``buf2 = buf1; del buf1  # reuse`` then ``cpp_fused_mean_mul_sin_0(buf2, buf0)`` (torch
        2.14's C++ kernels compute a reduction and its epilogue in one kernel although the dump keeps two nodes)."""
        return next((self.buffer_writer[a] for b in buffers for a in self.buffer_alias.get(b, ())
                     if a in self.buffer_writer), None)


class _Block:
    """The lines of one scheduler node in an IR dump: from its header to the next one."""

    def __init__(self, name: str, start: int) -> None:
        self.name = name
        self.span = (start, start)
        self.body: Optional[tuple[int, int]] = None  # the rows of the loop body's statements
        self.body_text = ""
        self.buffers: list[str] = []
        self.elements: dict[int, str] = {start: name}
        parts = name.split("_")
        self.members = parts if len(parts) > 1 and all(p[:2] == "op" and p[2:].isdigit() for p in parts) else []


# each match starts at the newline before its line (anchoring on "\n" scans far faster than ^ with re.M)
_IR_MARKS = re.compile(r"\n(?:(?P<op>op\w+): \w+\(|    (?P<buf>buf\d+): \w|(?P<body>    def body\(self, ops\):\n)"
                       r"|(?P<ret>        return [^\n]*))")


def _ir_blocks(text: str) -> tuple[dict[str, _Block], int]:
    """The scheduler nodes of a dump (found by one regex scan, not line by line) and its line count."""
    blocks: dict[str, _Block] = {}
    current: Optional[_Block] = None
    row, pos = 0, 0
    body_start = -1
    for m in _IR_MARKS.finditer(text):
        start = m.start() + 1  # the line itself
        row += text.count("\n", pos, start)
        pos = start
        kind = m.lastgroup
        if kind == "op":
            name = m["op"]
            if current is not None:
                current.span = (current.span[0], row)
            current = blocks.setdefault(name, _Block(name, row))
            current.span = (row, row)
        elif current is None:
            continue
        elif kind == "buf":
            current.buffers.append(m["buf"])
            current.elements[row] = m["buf"]
        elif kind == "body":
            body_start = m.end()
        elif body_start >= 0:  # the body's return: its last line
            current.body = (row - text.count("\n", body_start, start), row + 1)
            current.body_text = text[body_start:m.end()]
            body_start = -1
    n = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0
    if current is not None:
        current.span = (current.span[0], n)
    return blocks, n


def _body_statements(text: tuple[str, ...], vocab: frozenset[str]) -> list[match.Stmt]:
    """A loop body (``name = ops.op(args)`` lines, as ``LoopBody`` prints them) as statements."""
    out = []
    defined: set[str] = set()
    Stmt = match.Stmt
    empty: frozenset[str] = frozenset()
    for r, line in enumerate(text):
        name, eq, rhs = line.strip().partition(" = ")
        if not eq:
            if name.startswith("return ") and name != "return None":
                out.append(Stmt(r, (), (name[7:],), empty, "other"))
            continue
        if rhs.startswith("self.get_index("):
            out.append(Stmt(r, (name,), (), empty, "index"))
            defined.add(name)
            continue
        paren = rhs.find("(")
        op = rhs[4:paren] if rhs.startswith("ops.") and paren > 0 else ""
        if op:
            args = rhs[paren + 1:-1]
            uses = tuple(a for a in args.split(", ") if a in defined)
        else:  # `getitem = reduction[0]`
            uses = tuple(w for w in _IR_NAME.findall(rhs) if w in defined)
        if op == "load":
            kind, words = "load", empty
        elif op.startswith("store"):
            kind, words = "store", empty
        elif op:
            kind = "op"
            extra = _IR_STRING.findall(rhs) if op in ("reduction", "scan") else ()
            words = frozenset(w for w in (op, *extra) if w in vocab or w == op)
        else:
            kind, words = "other", empty
        out.append(Stmt(r, (name,), uses, words, kind))
        defined.add(name)
    return out


def _kernel_statements(lines: list[str], vocab: frozenset[str]) -> tuple[list[match.Stmt], Optional[int]]:
    """A kernel's statements (lines defining or using a CSE variable) and its signature's line."""
    stmts = []
    signature = None
    for r, line in enumerate(lines):
        if "tmp" not in line:
            if signature is None and (line.startswith("def ") or "kernel(" in line or line.startswith('extern "C"')):
                signature = r
            continue
        split = _assignment(line)
        if split is not None:
            defs, rhs = split
            uses = tuple(_VAR.findall(rhs))
            if "_ptr" in rhs:
                stmts.append(match.Stmt(r, defs, uses, frozenset(), "load"))
            else:
                stmts.append(match.Stmt(r, defs, uses, match.line_words(rhs, vocab), "op"))
            continue
        uses = tuple(_VAR.findall(line))
        if uses:
            kind = "store" if ("store" in line or "_ptr" in line) else "other"
            stmts.append(match.Stmt(r, (), uses, frozenset(), kind))
    return stmts, signature


def _assignment(line: str) -> Optional[tuple[tuple[str, ...], str]]:
    """``auto tmp3 = tmp1 * tmp2;`` / ``tmp4_mean, tmp4_m2 = ...`` -> (defined variables, right-hand side).

    Inductor writes every assignment as ``x = y`` (comparisons as ``==``, ``<=``, so never `` = ``)."""
    eq = line.find(" = ")
    if eq <= 0:
        return None
    lhs = line[:eq]
    if "(" in lhs or "[" in lhs or "." in lhs:
        return None
    names = tuple(p.rsplit(" ", 1)[-1] for p in lhs.strip().split(",") if p.strip())
    for n in names:
        if not (n.startswith("tmp") or n.startswith("_tmp")):
            return None
    return (names, line[eq + 3:]) if names else None


def _extern_op(callee: str) -> str:
    parts = [p for p in callee.split(".") if p not in ("default", "run", "out", "Tensor")]
    for prefix in ("extern_kernels", "torch", "ops", "aten", "inductor_ops", "_C"):
        while parts and parts[0] == prefix:
            parts = parts[1:]
    return parts[0] if parts else callee


def ir_nodes(comp: Compilation, graphs: dict[str, GraphLines]) -> dict[tuple[str, int], list]:
    """Per loop-IR dump of ``comp`` (``(stage, part)``): ``Lowering.ir_nodes`` of it, read as the chain reads it
    (the wrappers first: a scheduler node is computed by the call that writes its buffers). ``graphs``: the
    post-grad graphs read (``GraphLines``), by stage id. What ``explorer.structure`` places each node of the
    loop IR in a module by."""
    outputs = comp.output_code or ()
    pre, post = comp.ir_pre_fusion or (), comp.ir_post_fusion or ()
    out: dict[tuple[str, int], list] = {}
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


def ir_node_rows(text: str) -> list[int]:
    """The row (from 0) each scheduler node of a loop-IR dump starts on, in the dump's order (``ir_nodes``')."""
    return [b.span[0] for b in _ir_blocks(text)[0].values()]
