"""The line-level chain (issue 11, item 5): every line of every stage linked to the user lines it came from.

Ground truth is torch's own data wherever torch has some: the line table of each
code object (``dis``), the ``# File:`` stack traces FX prints above graph nodes,
and the provenance artifacts Inductor emits for the same compilation
(``inductor_provenance_tracking_node_mappings`` / ``..._kernel_stack_traces``,
recorded here beside the capture). Triton kernels come from a capture made on an
H200 (tests/data/cuda_lineage.json), so this file needs no GPU.
"""

import builtins
import contextlib
import dis
import io
import json
import logging
import os
import re
import sys
import textwrap
from collections import defaultdict

import jsonschema
import pytest
import torch
from programs import lineage as P

import explorer
from explorer import pipeline
from explorer.capturing.model import CaptureData
from explorer.cell import build_cell_function, register_source
from explorer.lineage import Lineage, Origin, lineage_of
from explorer.options import Options
from explorer.report import Report
from explorer.schema import SCHEMA_PATH
from explorer.serial import from_jsonable
from explorer.stages import BY_ID

PROGRAMS = os.path.abspath(P.__file__)
DATA = os.path.join(os.path.dirname(__file__), "data", "cuda_lineage.json")
SIN_LINES = {"pointwise": 6, "reduction": 12, "matmul_act": 18, "with_break": 22, "train": 28}
CELL = "y = torch.sin(x) * 2\nz = y.relu().sum()\nz\n"


class _Provenance(logging.Handler):
    """torch's provenance artifacts, by compile id, as a second listener on the trace logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.by_compile = defaultdict(lambda: {"nodes": {}, "traces": {}})

    def emit(self, record):
        md = getattr(record, "metadata", None) or {}
        art = md.get("artifact")
        if not isinstance(art, dict) or "frame_id" not in md:
            return
        slot = self.by_compile[f"{md['frame_id']}/{md.get('frame_compile_id', 0)}"]
        if art.get("name") == "inductor_provenance_tracking_node_mappings":
            slot["nodes"].update(json.loads(record.payload).get("cppCodeToPost", {}))
        elif art.get("name") == "inductor_provenance_tracking_kernel_stack_traces":
            slot["traces"].update(json.loads(record.payload))


@pytest.fixture(scope="session")
def lineage_runs():
    """Each program compiled once: its report and torch's provenance for it."""
    handler = _Provenance()
    trace = logging.getLogger("torch.__trace")
    trace.addHandler(handler)
    runs = {}
    try:
        torch.manual_seed(0)
        args = {"pointwise": (torch.randn(8, 16),), "reduction": (torch.randn(8, 16),),
                "matmul_act": (torch.randn(8, 16), torch.randn(16, 32), torch.randn(32)),
                "with_break": (torch.randn(8),),
                "train": (torch.randn(8, 16, requires_grad=True), torch.randn(16, 4, requires_grad=True))}
        for name, a in args.items():
            handler.by_compile.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                report = explorer.explore(getattr(P, name), *a)
            runs[name] = (report, {k: dict(v) for k, v in handler.by_compile.items()})
        handler.by_compile.clear()
        filename = register_source(CELL)
        ns = {"__name__": "__main__", "__builtins__": builtins, "torch": torch, "x": torch.randn(8, 16)}
        cell = build_cell_function(CELL, filename, ns)
        outcome = pipeline.run(pipeline.CellTarget(cell), Options(time=False))
        runs["cell"] = (outcome.report, {k: dict(v) for k, v in handler.by_compile.items()})
    finally:
        trace.removeHandler(handler)
    return runs


@pytest.fixture(scope="session")
def cuda_runs():
    with open(DATA) as fh:
        doc = json.load(fh)
    out = {}
    for name, cap in doc["captures"].items():
        data = from_jsonable(CaptureData, cap)
        nodes, traces = {}, {}
        for art, payload in doc["provenance"][name]:
            (nodes if "node_mappings" in art else traces).update(
                json.loads(payload).get("cppCodeToPost", {}) if "node_mappings" in art else json.loads(payload))
        out[name] = (data, lineage_of(data), nodes, traces)
    return out


# ---- helpers ----

def _text(comp, stage, part):
    if stage == "kernels":
        return comp.kernels[part].source
    if stage == "source":
        return comp.original_bytecode.source
    if stage == "decompiled":
        return comp.rewritten_bytecode.decompiled
    value = BY_ID[stage].content(comp)
    if isinstance(value, tuple):
        value = value[part]
    for attr in ("code", "text", "listing"):
        if hasattr(value, attr):
            return getattr(value, attr)
    raise AssertionError(stage)


def _lines(lin: Lineage, comp, stage, part=0):
    """[(text line, origins, element)] of one text."""
    t = lin.text(stage, part)
    assert t is not None, f"{comp.compile_id}: no lineage for {stage}[{part}]"
    text = _text(comp, stage, part).splitlines()
    per = t.sets_per_line()
    assert len(per) == len(text), (stage, part, len(per), len(text))
    named = [tuple(lin.origins[i] for i in s) for s in lin.sets]
    return [(line, named[idx], t.elements.get(str(n))) for n, (line, idx) in enumerate(zip(text, per), 1)]


def _pairs(data, lins):
    by_id = {lin.compile_id: lin for lin in lins}
    return [(c, by_id[c.compile_id]) for c in data.compilations]


def _loc(filename, line):
    return Origin(filename, line)


def _inferred(comp, lin, kernel, nodes):
    """The user lines the chain gives the kernel's nodes that torch printed with no stack trace."""
    stage = "post_grad_graph_backward" if kernel.graph_kind == "backward" else "post_grad_graph"
    graph = getattr(comp, stage)
    rows = {e: o for _, o, e in _lines(lin, comp, stage) if e}
    return {o for n in graph.nodes if n.name in nodes and n.loc is None and n.op != "placeholder"
            for o in rows.get(n.name, ())}


# ---- every stage, every line ----

@pytest.mark.parametrize("name", ["pointwise", "reduction", "matmul_act", "with_break", "train", "cell"])
def test_every_text_of_every_stage_has_one_row_per_line(lineage_runs, name):
    report, _ = lineage_runs[name]
    assert report.lineage and len(report.lineage) == len(report.compilations)
    for comp, lin in _pairs(report.capture, report.lineage):
        for stage in ("source", "original_bytecode", "rewritten_bytecode", "graph", "aot_forward", "aot_backward",
                      "aot_inference", "aot_joint", "post_grad_graph", "post_grad_graph_backward"):
            if BY_ID[stage].present(comp) and (stage != "source" or comp.original_bytecode.source):
                _lines(lin, comp, stage)
        for stage in ("ir_pre_fusion", "ir_post_fusion", "output_code"):
            for part in range(len(getattr(comp, stage) or ())):
                _lines(lin, comp, stage, part)
        for i, k in enumerate(comp.kernels):
            assert lin.text("kernels", i).kernel == k.name
            _lines(lin, comp, "kernels", i)


@pytest.mark.parametrize("name", ["pointwise", "reduction", "matmul_act", "with_break", "train", "cell"])
def test_every_fx_node_and_kernel_is_reached_from_a_user_line_or_glue(lineage_runs, name):
    report, _ = lineage_runs[name]
    for comp, lin in _pairs(report.capture, report.lineage):
        for stage in ("graph", "aot_joint", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph",
                      "post_grad_graph_backward"):
            graph = getattr(comp, stage)
            if graph is None:
                continue
            rows = {e: o for _, o, e in _lines(lin, comp, stage) if e}
            for node in graph.nodes:
                if node.op == "output":
                    continue
                if node.op == "placeholder":  # an input: glue, on its own line or on the def line
                    assert rows.get(node.name, ()) == (), f"{stage}: input {node.name} is glue"
                    continue
                assert node.name in rows, f"{stage}: node {node.name} has no line"
                if node.loc is not None:  # torch's stack trace for it
                    assert rows[node.name] == (_loc(node.loc.filename, node.loc.lineno),), (stage, node.name)
        for i, k in enumerate(comp.kernels):
            rows = _lines(lin, comp, "kernels", i)
            reached = {o for _, origins, _ in rows for o in origins}
            assert reached, f"kernel {k.name} is reached from no user line"
            assert {_loc(u.filename, u.lineno) for u in k.user_lines} <= reached


def _sin_chain(comp, lin, line, kernels_expected=True):
    """What the user line holding torch.sin reaches, stage by stage."""
    got = {}
    for t in lin.texts:
        rows = _lines(lin, comp, t.stage, t.part)
        hits = [(text, e) for text, origins, e in rows if line in origins]
        if hits:
            got.setdefault(t.stage, []).extend(hits)
    return got


@pytest.mark.parametrize("name", ["pointwise", "reduction", "matmul_act", "with_break", "train"])
def test_the_line_holding_torch_sin_reaches_every_stage_down_to_a_kernel_line_computing_sin(lineage_runs, name):
    report, _ = lineage_runs[name]
    comp = report.compilations[0]
    lin = report.lineage[0]
    line = _loc(PROGRAMS, SIN_LINES[name])
    got = _sin_chain(comp, lin, line)
    assert any("torch.sin" in text or "sin" in (e or "") for text, e in got["graph"]), got["graph"]
    assert any(e == "sin" for _, e in got["post_grad_graph"])
    assert any(e == "sin" for _, e in got.get("aot_forward", []) + got.get("aot_inference", []))
    assert any(e == "sin" and "ops.sin(" in text for text, e in got["ir_pre_fusion"])
    assert any(e == "sin" and "ops.sin(" in text for text, e in got["ir_post_fusion"])
    wrapper_calls = [text for text, e in got["output_code"] if e and e.startswith("cpp_fused")]
    assert wrapper_calls, "a wrapper line calling the kernel"
    kernel_sin = [text for text, e in got["kernels"] if e == "sin"]
    assert kernel_sin and all(".sin()" in text or "std::sin" in text for text in kernel_sin), kernel_sin
    assert "source" in got and "original_bytecode" in got and "rewritten_bytecode" in got


def test_a_kernel_line_leads_back_to_the_user_line(lineage_runs):
    report, _ = lineage_runs["pointwise"]
    comp, lin = report.compilations[0], report.lineage[0]
    k = next(i for i, k in enumerate(comp.kernels) if "sin" in k.name)
    rows = _lines(lin, comp, "kernels", k)
    sin_row = next(origins for text, origins, e in rows if e == "sin")
    assert sin_row == (_loc(PROGRAMS, 6),)
    cos_row = next(origins for text, origins, e in rows if e == "cos")
    assert cos_row == (_loc(PROGRAMS, 7),)
    relu_row = next(origins for text, origins, e in rows if e == "relu")
    assert relu_row == (_loc(PROGRAMS, 8),)


def test_the_backward_kernel_computes_sin_again_and_says_so(lineage_runs):
    report, _ = lineage_runs["train"]
    comp, lin = report.compilations[0], report.lineage[0]
    backward = [i for i, k in enumerate(comp.kernels) if k.graph_kind == "backward"]
    assert backward
    rows = _lines(lin, comp, "kernels", backward[0])
    assert any(e == "sin" and origins == (_loc(PROGRAMS, 28),) for _, origins, e in rows)
    assert any(e == "cos" for _, _, e in rows)  # d/dx sin = cos, from the same user line
    assert lin.text("post_grad_graph_backward") is not None


# ---- torch's own data as ground truth ----

@pytest.mark.parametrize("name", ["pointwise", "reduction", "matmul_act", "train", "cell"])
def test_kernel_lines_name_only_nodes_and_lines_torch_gives_the_kernel(lineage_runs, name):
    """Inside a kernel the chain is inferred; it must stay within torch's provenance for that kernel."""
    report, prov = lineage_runs[name]
    for comp, lin in _pairs(report.capture, report.lineage):
        if not comp.kernels:
            continue
        torch_nodes, torch_traces = prov[comp.compile_id]["nodes"], prov[comp.compile_id]["traces"]
        for i, k in enumerate(comp.kernels):
            keys = [key for key in torch_nodes if key.split(":")[0] == k.name]
            assert keys, f"torch gave no provenance for {k.name}"
            nodes = {n for key in keys for n in torch_nodes[key]}
            lines = {Origin(f, int(ln)) for key in keys for tr in torch_traces.get(key, ())
                     for f, ln in re.findall(r'File "([^"]+)", line (\d+)', tr)}
            rows = _lines(lin, comp, "kernels", i)
            assert {e for _, _, e in rows if e and e != k.name} <= nodes
            reached = {o for _, origins, _ in rows for o in origins}
            assert reached == lines | _inferred(comp, lin, k, nodes), (k.name, reached, lines)


@pytest.mark.parametrize("name", ["pointwise", "with_break", "train", "cell"])
def test_bytecode_rows_carry_the_line_numbers_dis_gives(lineage_runs, name):
    report, _ = lineage_runs[name]
    fn = {"cell": None}.get(name, getattr(P, name, None))
    for comp, lin in _pairs(report.capture, report.lineage):
        bc = comp.original_bytecode
        if bc is None:
            continue
        rows = _lines(lin, comp, "original_bytecode")
        instruction_rows = [origins for text, origins, _ in rows if re.search(r"\b[A-Z][A-Z_]{2,}\b", text)]
        assert len(instruction_rows) == len(bc.instructions)
        expected = [(_loc(bc.filename, i.line),) if i.line else () for i in bc.instructions]
        assert instruction_rows == expected
        if fn is not None and comp.frame.name == fn.__name__:  # and those are CPython's own
            line, lines = None, []
            for ins in dis.get_instructions(fn.__code__):
                if sys.version_info >= (3, 13):  # starts_line became a bool; the line is line_number
                    line = ins.line_number
                elif ins.starts_line is not None:
                    line = ins.starts_line
                lines.append((_loc(fn.__code__.co_filename, line),) if line else ())
            assert instruction_rows == lines
        src = _lines(lin, comp, "source")
        assert src[0][1] == (_loc(bc.filename, bc.firstlineno),)
        assert all(o == ((_loc(bc.filename, bc.firstlineno + n),) if t.strip() else ())
                   for n, (t, o, _) in enumerate(src))


def test_the_rewritten_code_calls_the_graph_for_its_lines_and_the_resume_function_for_the_rest(lineage_runs):
    report, _ = lineage_runs["with_break"]
    comp, lin = report.compilations[0], report.lineage[0]
    graph_lines = {_loc(PROGRAMS, 22)}
    rows = _lines(lin, comp, "rewritten_bytecode")
    graph_call = [o for t, o, _ in rows if "__compiled_fn" in t]
    assert graph_call and set(graph_call[0]) == graph_lines
    resume = [o for t, o, _ in rows if "__resume_at_" in t]
    assert resume and set(resume[0]) == {_loc(PROGRAMS, 23), _loc(PROGRAMS, 24)}
    assert any(o == (_loc(PROGRAMS, 23),) for t, o, _ in rows if "CALL" in t)  # print, copied with its line
    if sys.version_info >= (3, 11):
        assert rows[0][1] == ()  # Dynamo's RESUME of the new code: glue
    if comp.rewritten_bytecode.decompiled:
        dec = _lines(lin, comp, "decompiled")
        assert any(set(o) == graph_lines for t, o, _ in dec if "__compiled_fn" in t)
        assert any(_loc(PROGRAMS, 24) in o for t, o, _ in dec if "__resume_at_" in t)
        assert any(o == (_loc(PROGRAMS, 23),) for t, o, _ in dec if "'print'" in t)


def test_a_notebook_cell_is_named_by_its_registered_file(lineage_runs):
    report, _ = lineage_runs["cell"]
    comp, lin = report.compilations[0], report.lineage[0]
    filename = comp.frame.filename
    assert filename.startswith("<compiled-cell-")
    assert _loc(filename, 1) in lin.origins and _loc(filename, 2) in lin.origins
    got = _sin_chain(comp, lin, _loc(filename, 1))
    assert any(e == "sin" for _, e in got["kernels"])
    assert all(o.file == filename for o in lin.origins)


def test_wrapper_allocations_follow_their_buffer_and_bookkeeping_is_glue(lineage_runs):
    report, _ = lineage_runs["cell"]
    comp, lin = report.compilations[0], report.lineage[0]
    rows = _lines(lin, comp, "output_code")
    alloc = {e: o for t, o, e in rows if e and e.startswith("buf") and "empty_strided" in t}
    assert alloc  # buf0 holds y (line 1), buf1 the sum (line 2)
    assert set(alloc.values()) == {(_loc(comp.frame.filename, 1),), (_loc(comp.frame.filename, 2),)}
    assert all(o == () for t, o, _ in rows if t.lstrip().startswith(("import ", "from ", "del ", "assert_size")))


# ---- Triton (captured on an H200) ----

@pytest.mark.parametrize("name", ["pointwise", "reduction", "train"])
def test_triton_kernels_get_lines_too(cuda_runs, name):
    data, lins, torch_nodes, torch_traces = cuda_runs[name]
    comp, lin = data.compilations[0], lins[0]
    triton = [i for i, k in enumerate(comp.kernels) if k.language == "triton"]
    assert triton
    filename = comp.frame.filename
    line = _loc(filename, SIN_LINES[name])
    got = _sin_chain(comp, lin, line)
    kernel_sin = [t for t, e in got["kernels"] if e == "sin"]
    assert kernel_sin and all("tl_math.sin(" in t or "libdevice.sin(" in t for t in kernel_sin)
    assert any(e == "sin" for _, e in got["post_grad_graph"])
    assert any(e == "sin" for _, e in got["ir_post_fusion"])
    assert any(e and e.startswith("triton_") for _, e in got["output_code"])
    for i in triton:  # within torch's provenance, as for C++
        k = comp.kernels[i]
        keys = [key for key in torch_nodes if key.split(":")[0] == k.name]
        nodes = {n for key in keys for n in torch_nodes[key]}
        rows = _lines(lin, comp, "kernels", i)
        assert {e for _, _, e in rows if e and e != k.name} <= nodes
        lines = {Origin(f, int(ln)) for key in keys for tr in torch_traces.get(key, ())
                 for f, ln in re.findall(r'File "([^"]+)", line (\d+)', tr)}
        assert {o for _, origins, _ in rows for o in origins} == lines | _inferred(comp, lin, k, nodes)


def test_post_grad_nodes_torch_printed_without_a_stack_trace_inherit_from_their_users(cuda_runs):
    data, lins, _, _ = cuda_runs["reduction"]
    comp, lin = data.compilations[0], lins[0]
    assert "No stacktrace found" in comp.post_grad_graph.code
    rows = {e: o for _, o, e in _lines(lin, comp, "post_grad_graph") if e}
    softmax = (_loc(comp.frame.filename, 13),)
    for name in ("prepare_softmax_online_default", "sub_tensor", "exp_default"):
        assert rows[name] == softmax, name  # used by div (softmax's line), which torch did trace


# ---- the JSON ----

def test_lineage_round_trips_and_matches_the_schema(lineage_runs):
    report, _ = lineage_runs["with_break"]
    assert report.lineage
    text = report.to_json()
    again = Report.from_json(text)
    assert again == report and again.lineage == report.lineage
    with open(SCHEMA_PATH) as fh:
        jsonschema.validate(json.loads(text), json.load(fh))
    doc = json.loads(text)["lineage"][0]
    assert set(doc) == {"compile_id", "origins", "sets", "texts"}
    assert doc["sets"][0] == []
    assert all(set(o) == {"file", "line"} and isinstance(o["line"], int) for o in doc["origins"])  # not "FILE:LINE"


def test_links_give_one_line_link_per_line(lineage_runs):
    report, _ = lineage_runs["pointwise"]
    lin = report.lineage[0]
    links = lin.links
    assert len(links) == sum(sum(t.runs[1::2]) for t in lin.texts)  # each run: (set, how many lines)
    sin = [link for link in lin.reached_from(_loc(PROGRAMS, 6)) if link.stage == "kernels" and link.element == "sin"]
    assert sin and sin[0].kernel.startswith("cpp_fused")
    first = links[0]
    assert first.stage == "source" and first.line == 1 and first.origins == (_loc(PROGRAMS, 5),)
    assert lin.origins_at("source", 2) == (_loc(PROGRAMS, 6),)


def test_backward_nodes_keep_their_user_line_in_torch_2_14s_comment_layout():
    """torch 2.14 prints ``# Backward of forward node: File: ...`` above backward nodes (2.13: ``# File: ...``);
    tags may also come first (``# recompute: MUST_SAVE File: ...``)."""
    from explorer.capturing.parse_fx import parse_graph
    from explorer.lineage.graphs import GraphLines

    code = textwrap.dedent('''\
        class GraphModule(torch.nn.Module):
            def forward(self, mm: "f32[8, 4][4, 1]cpu", tangents_1: "f32[][]cpu"):
                # Backward of forward node: File: /u/prog.py:29 in train, code: return (h * h).mean()
                div: "f32[8, 4][4, 1]cpu" = torch.ops.aten.div.Scalar(tangents_1, 32);  tangents_1 = None

                # recompute: MUST_SAVE File: /u/prog.py:28 in train, code: h = torch.sin(x @ w)
                sin: "f32[8, 4][4, 1]cpu" = torch.ops.aten.sin.default(mm);  mm = None
                mul: "f32[8, 4][4, 1]cpu" = torch.ops.aten.mul.Tensor(div, sin);  div = sin = None
                return (mul,)
        ''')
    graph = parse_graph(code)
    locs = {n.name: (n.loc.lineno, n.loc.code) if n.loc else None for n in graph.nodes}
    assert locs["div"] == (29, "return (h * h).mean()") and locs["sin"] == (28, "h = torch.sin(x @ w)")
    assert GraphLines(graph).origins == {"div": (Origin("/u/prog.py", 29),), "sin": (Origin("/u/prog.py", 28),),
                                         "mul": (Origin("/u/prog.py", 28),)}
