"""The HTML views: what a reader sees in a notebook cell or a saved report."""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import linecache
import re
import sys
import textwrap

import pytest
from html_parts import kernel_html, stage_keys

from explorer.capturing.model import (
    Bytecode,
    CaptureData,
    Compilation,
    Frame,
    FxGraph,
    FxNode,
    GraphBreak,
    Guard,
    IrDump,
    Kernel,
    OutputCode,
    Restart,
    SourceLoc,
)
from explorer.present import graphviz_svg
from explorer.present.graph_dot import graph_dot
from explorer.present.html import render_fragment, render_page, stage_html
from explorer.present.panes import listing_rows as listing_hl_rows
from explorer.stages import BY_ID, why_missing

EVIL = "<img src=x onerror=alert(1)>"


def text_of(fragment: str) -> str:
    """What a reader reads: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def comp_by_id(data: CaptureData, cid: str) -> Compilation:
    """By compile id relative to the report's first frame: frame ids count per process."""
    frame, n = map(int, cid.split("/"))
    first = int(data.compilations[0].compile_id.split("/")[0])
    return next(c for c in data.compilations if c.compile_id == f"{first + frame}/{n}")


def chip(page: str, label: str) -> str:
    m = re.search(re.escape(label) + r" <b>([^<]*)</b>", page)
    assert m, f"no header number for {label!r}"
    return html.unescape(m.group(1))


def tiny_comp(**kw) -> Compilation:
    base = dict(compile_id="0/0", frame=Frame("f", "/u/prog.py", 3), status="compiled")
    base.update(kw)
    return Compilation(**base)


def tiny_data(*comps: Compilation, **kw) -> CaptureData:
    return CaptureData(torch_version="2.13.0+cpu", device="cpu", python_version="3.11.7", compilations=comps, **kw)


# ---- the header ----

def test_header_shows_the_reports_numbers(breaks_report):
    data = breaks_report.data
    page = render_fragment(data)
    assert chip(page, "compilations") == str(len(data.compilations)) == "6"
    assert chip(page, "graphs") == str(data.num_graphs)
    assert chip(page, "graph breaks") == str(len(data.graph_breaks)) == "4"
    assert chip(page, "recompiles") == str(len(data.recompiles)) == "3"
    assert chip(page, "kernels") == str(len(data.kernels))
    assert chip(page, "compile time") == f"{data.compile_time_s:.2f} s"
    assert chip(page, "device") == "cpu"
    assert chip(page, "torch") == data.torch_version
    # the de-duplicated "what to fix" list: two places, each seen twice (before and after the recompile)
    breaks = re.search(r'<ul class="cx-list cx-breaks">(.*?)</ul>', page, re.S).group(1)
    assert breaks.count("<li") == 2
    assert "basics.py:7</code>: Failed to trace builtin operator" in breaks and "×2" in breaks
    assert "basics.py:8</code>: Data-dependent branching" in breaks


# ---- every stage says something ----

@pytest.mark.parametrize("fixture", ["breaks_report", "module_report", "dynamic_report"])
def test_every_stage_has_content_or_says_why_not(fixture, request):
    data = request.getfixturevalue(fixture).data
    for comp in data.compilations:
        for key, _label in stage_keys(comp):
            pane = stage_html(comp, **key)
            assert text_of(pane).strip(), f"{comp.compile_id} {key}: empty pane"
            stage = BY_ID.get(key["stage"])
            if "kernel" not in key and stage.scope == "compilation" and not stage.present(comp):
                why = why_missing(stage.id, comp)
                assert 'class="cx-missing"' in pane and html.escape(why) in pane, (comp.compile_id, key)


def test_a_missing_stage_gives_the_captures_own_reason():
    comp = tiny_comp(missing={"graph": "the backend crashed before <the graph> was logged"})
    pane = stage_html(comp, "graph")
    assert "cx-missing" in pane
    assert "the backend crashed before &lt;the graph&gt; was logged" in pane


def test_inference_compilation_explains_absent_training_graphs(module_report):
    comp = module_report.data.compilations[0]
    assert comp.aot_inference is not None and comp.aot_forward is None
    assert "<svg" in stage_html(comp, "aot_inference") or "nodes" in text_of(stage_html(comp, "aot_inference"))
    why = why_missing("aot_forward", comp)
    assert html.escape(why) in stage_html(comp, "aot_forward")
    assert "nodes" in text_of(stage_html(comp, "post_grad_graph"))
    frag = render_fragment(module_report.data)
    assert "Not captured here (" in frag and "AOT backward" in frag


# ---- source, bytecode ----

def test_source_highlights_the_graph_break_line(breaks_report):
    data = breaks_report.data
    top = stage_html(comp_by_id(data, "0/0"), "source")
    line7 = re.search(r'<span class="cx-hl" data-line="7">(.*?)</span>\n', top).group(1)
    assert 'print("tick")' in text_of(line7)
    assert top.count('class="cx-hl"') == 1
    assert "Line <b>7</b> (highlighted) is where the graph break happened" in top
    # the resume function starts at line 7; its own break is the `if` on line 8
    resume = stage_html(comp_by_id(data, "1/0"), "source")
    assert "if y.sum() &gt; 0" in text_of(
        re.search(r'data-line="8">(.*?)</span>\n', resume).group(1)).replace(">", "&gt;")
    assert 'class="cx-lno"> 7</span>' in resume or 'class="cx-lno">7</span>' in resume
    # no break in the last frame: nothing highlighted
    assert "cx-hl" not in stage_html(comp_by_id(data, "2/0"), "source")


def test_a_break_in_a_called_function_is_named_in_the_callers_source():
    bc = Bytecode("f", "/u/prog.py", 3, "", source="def f(x):\n    return helper(x)\n")
    gb = GraphBreak(reason="Unsupported <thing>", filename="/u/helpers.py", lineno=40)
    pane = stage_html(tiny_comp(original_bytecode=bc, graph_break=gb), "source")
    assert "cx-hl" not in pane
    assert "outside this code, at <code>/u/helpers.py:40</code>: Unsupported &lt;thing&gt;" in pane


def test_original_bytecode_marks_the_break_lines_instructions(breaks_report):
    pane = stage_html(comp_by_id(breaks_report.data, "0/0"), "original_bytecode")
    marked = re.findall(r'<span class="cx-hl"[^>]*>(.*?)</span>', pane)
    assert marked and any("print" in m for m in marked)
    assert not any("sin" in m for m in marked)  # line 6's instructions stay plain


def test_rewritten_bytecode_shows_the_listing_and_decompiled_python(breaks_report):
    comp = comp_by_id(breaks_report.data, "0/0")
    assert "RETURN_VALUE" in stage_html(comp, "rewritten_bytecode")  # the whole listing (3.10 has no RESUME)
    bc = comp.rewritten_bytecode
    if bc.decompiled is None and sys.version_info >= (3, 13):  # depyf 0.20 reads bytecode up to 3.12's
        pane = text_of(stage_html(comp, "decompiled"))
        assert "could not decompile breaks (Python 3.1" in pane and "Rewritten bytecode" in pane  # says why, and where
        pytest.skip(f"depyf cannot decompile Python {sys.version_info[0]}.{sys.version_info[1]} bytecode: "
                    f"{bc.decompile_error}")
    assert bc.decompiled
    assert "__compiled_fn" in text_of(stage_html(comp, "decompiled"))


@pytest.mark.parametrize("listing", [
    # Python 3.11/3.12: offsets, and >> at jump targets
    "  5           0 RESUME                   0\n\n  6           2 LOAD_GLOBAL              1 (NULL + print)\n"
    "        >>   14 CALL                     1\n\n  7          22 RETURN_VALUE\n",
    # Python 3.13 with offsets shown (bytecode.dis_listing): labels at jump targets, on a row of their own line too
    "  5          0       RESUME                   0\n\n"
    "  6          2       LOAD_GLOBAL              1 (print + NULL)\n"
    "      L1:   14       CALL                     1\n\n  7   L2:   22       RETURN_VALUE\n",
])
def test_the_break_lines_rows_of_a_listing_are_found_in_each_pythons_layout(listing):
    rows = listing_hl_rows(listing, 6)
    assert rows == [3, 4] and listing_hl_rows(listing, 7) == [6]


def test_decompile_failure_is_said_and_the_listing_shown():
    bc = Bytecode("torch_dynamo_resume_in_f_at_7", "/u/prog.py", 7, "  7           0 RESUME                   0\n",
                  decompile_error="DecompilationError: SWAP <not supported>")
    comp = tiny_comp(rewritten_bytecode=bc)
    pane = stage_html(comp, "decompiled")
    assert "cx-missing" in pane and "SWAP &lt;not supported&gt;" in pane
    assert "The Rewritten bytecode stage shows the code as a bytecode listing" in pane
    assert "RESUME" in stage_html(comp, "rewritten_bytecode")


# ---- graphs ----

def test_graph_stage_has_highlighted_code_and_a_clean_svg(breaks_report):
    if graphviz_svg.dot_program() is None:
        pytest.skip("Graphviz's dot is not installed")
    pane = stage_html(comp_by_id(breaks_report.data, "0/0"), "graph")
    assert '<pre class="cx-code">' in pane and "def forward" in text_of(pane)
    assert "<svg" in pane and "</svg>" in pane
    for bad in ("<?xml", "<!DOCTYPE", "<script", "<!--"):
        assert bad not in pane


def test_without_dot_the_node_table_and_an_install_hint(breaks_report, monkeypatch):
    monkeypatch.setattr(graphviz_svg.shutil, "which", lambda name: None)
    pane = stage_html(comp_by_id(breaks_report.data, "0/0"), "graph")
    assert "<svg" not in pane
    assert "apt install graphviz" in pane and "conda install graphviz" in pane
    table = re.search(r'<table class="cx-table cx-nodes">(.*?)</table>', pane, re.S).group(1)
    assert "<th>name</th><th>op</th><th>target</th><th>type</th><th>user line</th>" in table
    assert "<code>sin</code>" in table and "call_method" in table and "f32[8][1]cpu" in table
    assert "basics.py:6</code> y = x.sin() + 1" in table


def test_a_huge_graph_is_drawn_folded_and_dot_sees_only_the_fold(monkeypatch):
    from benchmarks.bench_render import fx_graph

    drawn = []
    monkeypatch.setattr(graphviz_svg, "render_svg", lambda dot, **k: drawn.append(dot) or ("<svg>folded</svg>", ""))
    pane = stage_html(tiny_comp(graph=fx_graph(1_500)), "graph")
    assert "Drawn folded: one box per module" in pane and "<svg>folded</svg>" in pane
    (dot,) = drawn
    assert dot.count("shape=box3d") >= 5 and dot.count(" -> ") < 20  # boxes of nodes, not 1,500 nodes


def test_each_distinct_graph_is_drawn_once_per_render(breaks_report, monkeypatch):
    if graphviz_svg.dot_program() is None:
        pytest.skip("Graphviz's dot is not installed")
    from explorer.present.payload import build

    calls = []
    real = graphviz_svg.render_svg
    monkeypatch.setattr(graphviz_svg, "render_svg", lambda dot, **k: calls.append(dot) or real(dot, **k))
    data = breaks_report.data
    dots = {graph_dot(fx.nodes) for c in data.compilations
            for fx in (c.graph, c.aot_joint, c.aot_forward, c.aot_backward, c.aot_inference, c.post_grad_graph,
                       c.post_grad_graph_backward) if fx is not None and fx.nodes}
    frag = render_fragment(data)  # the static copy
    assert sorted(calls) == sorted(dots)
    assert frag.count("<svg") >= len(dots)
    calls.clear()
    payload, _ = build(data, pictures="inline")  # the interactive page's payload
    assert sorted(calls) == sorted(dots)
    assert sum(svg.startswith("<svg") for svg in payload["pictures"].values()) == len(dots)


def test_bad_or_slow_dot_gives_a_note_not_an_error():
    if graphviz_svg.dot_program() is None:
        pytest.skip("Graphviz's dot is not installed")
    svg, why = graphviz_svg.render_svg("digraph { a -> ")
    assert svg is None and "Graphviz could not draw this graph" in why
    big = "digraph {" + " ".join(f"n{i} -> n{(i * 7) % 300};" for i in range(300)) + "}"
    svg, why = graphviz_svg.render_svg(big, timeout_s=0.001)
    assert svg is None and "took longer than" in why


def test_svg_sanitiser_drops_scripts_handlers_and_external_images():
    raw = ('<?xml version="1.0"?><!DOCTYPE svg PUBLIC "x"><!-- n --><svg onload="evil()" width="1">'
           '<script>alert(1)</script><a xlink:href="javascript:alert(1)"><image href="http://x/y.png"/></a>'
           '<text x="1"> onclick=not-an-attribute </text></svg>')
    clean = graphviz_svg.sanitize_svg(raw)
    assert clean.startswith("<svg") and 'width="1"' in clean
    for bad in ("<?xml", "DOCTYPE", "<!--", "onload", "<script", "javascript:", "<image", "http://x"):
        assert bad not in clean
    assert " onclick=not-an-attribute " in clean  # text is text: left alone


# ---- guards, graph breaks, recompiles ----

def test_guards_table_and_raw_tree(breaks_report):
    pane = stage_html(comp_by_id(breaks_report.data, "1/0"), "guards")
    table = re.search(r'<table class="cx-table cx-guards">(.*?)</table>', pane, re.S).group(1)
    assert "<th>kind</th><th>check</th><th>guarded value</th><th>user line</th>" in table
    row = next(r for r in table.split("<tr>") if "TENSOR_MATCH" in r)
    assert "L[&#x27;y&#x27;]" in row  # the guarded value, escaped
    assert "basics.py:8 in torch_dynamo_resume_in_breaks_at_7" in row
    assert "<summary>guard tree (as torch printed it)</summary>" in pane and "TREE_GUARD_MANAGER" in pane


def test_a_guard_torch_makes_inside_a_library_is_shown_at_the_user_line_that_calls_it(module_report):
    # torch names nn/modules/linear.py:134 for x and for fc1's weight; the user's line is forward's `self.fc1(x)`
    from explorer.present.text import stage_text

    comp = module_report.data.compilations[0]
    user_line = (comp.frame.filename, comp.frame.lineno + 1)  # TinyMLP.forward's body
    assert linecache.getline(*user_line).strip() == "return self.fc2(torch.relu(self.fc1(x)))"
    torch_says = {g.subject: (g.filename, g.lineno) for g in comp.guards if g.kind == "TENSOR_MATCH"}
    assert torch_says["L['x']"] == ("nn/modules/linear.py", torch_says["L['x']"][1])  # the library's line
    pane = stage_html(comp, "guards")
    for subject in ("L['x']", "L['self']._modules['fc1']._parameters['weight']"):
        row = next(r for r in pane.split("<tr") if "TENSOR_MATCH" in r and f"<code>{html.escape(subject)}</code>" in r)
        assert f'data-origin="{user_line[0]}:{user_line[1]}"' in row
        assert "(torch checks it in nn/modules/linear.py:" in text_of(row)
    assert "checked inside a library, shown at the line that hands the value there" in text_of(pane)
    text = stage_text(module_report, BY_ID["guards"], comp)
    row = next(line for line in text.splitlines() if line.startswith("TENSOR_MATCH") and "L['x']" in line)
    assert f"basics.py:{user_line[1]} in forward (torch checks it in nn/modules/linear.py:" in row


def test_graph_break_stage_tells_the_whole_story(breaks_report):
    comp = comp_by_id(breaks_report.data, "0/1")
    gb = comp.graph_break
    pane = stage_html(comp, "graph_break")
    assert f"Graph break: {gb.reason}" in pane
    assert f'<a href="{gb.doc_url}" target="_blank" rel="noopener">{gb.gb_code}</a>' in pane
    assert "basics.py:7</code>" in pane and 'print(&quot;tick&quot;)' in pane.replace('"', "&quot;")
    assert html.escape(gb.explanation, quote=True) in pane
    for hint in gb.hints:
        assert f"<li>{html.escape(hint, quote=True)}</li>" in pane
    assert "<summary>user traceback</summary>" in pane
    assert "Recompiled" in pane and "size mismatch at index 0. expected 8, actual 16" in pane
    assert '<div class="cx-h4">Restarts</div>' in pane and "attempt 0: Failed to trace builtin operator" in pane


def test_no_break_no_recompile_is_said_plainly():
    pane = stage_html(tiny_comp(), "graph_break")
    assert "No graph break" in pane and "not a recompile" in pane


def test_only_http_links_from_logs():
    gb = GraphBreak(reason="r", gb_code="GB0001", doc_url="javascript:alert(1)")
    pane = stage_html(tiny_comp(graph_break=gb), "graph_break")
    assert "javascript:" not in pane and "GB0001" in pane and "<a " not in pane


# ---- kernels ----

def test_kernels_are_listed_and_highlighted(breaks_report):
    comp = comp_by_id(breaks_report.data, "0/0")
    pane = stage_html(comp, "kernels")
    for k in comp.kernels:
        assert f'data-kernel="{k.name}"' in pane
    assert '<span class="cx-chip">cpp</span>' in pane
    assert "float" in text_of(pane)  # the C++ source, as text (the interactive view colours it)
    assert "<th>FX nodes</th>" in pane and "<th>user lines</th>" in pane


def test_one_kernel_per_stage_key(breaks_report):
    """One kernel is the kernels stage with the kernel named beside it: an object, not a ``kernel:NAME`` key."""
    comp = comp_by_id(breaks_report.data, "0/0")
    k = comp.kernels[0]
    assert ({"stage": "kernels", "kernel": k.name}, f"Kernel {k.name}") in stage_keys(comp)
    pane = stage_html(comp, "kernels", k.name)
    assert pane.count("data-kernel=") == 2 and k.name in pane  # the pane names its kernel, and so does its div
    assert pane.startswith(f'<div class="cx-pane" data-stage="kernels" data-kernel="{k.name}">')
    assert "No such kernel" in stage_html(comp, "kernels", "nope")
    assert kernel_html(k) in pane


def test_triton_kernel_shows_its_source_and_facts():
    k = Kernel("triton_poi_fused_add_0", "triton",
               "@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, xnumel):\n    x0 = 1\n",
               source_nodes=("add",), aten_ops=("aten.add.Tensor",))
    out = kernel_html(k)
    assert "@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, xnumel):" in text_of(out)
    assert "<th>ATen ops</th>" in out and "aten.add.Tensor" in out


def test_duplicate_kernel_names_get_distinct_keys():
    ks = (Kernel("k0", "cpp", "int a;", graph_kind="forward"), Kernel("k0", "cpp", "int b;", graph_kind="backward"))
    comp = tiny_comp(kernels=ks)
    keys = [k["kernel"] for k, _ in stage_keys(comp) if "kernel" in k]
    assert keys == ["forward/k0", "backward/k0"]
    assert "int b;" in text_of(stage_html(comp, "kernels", "backward/k0"))


# ---- long texts, big reports ----

def test_long_text_is_cut_with_show_all_and_nothing_lost():
    code = "\n".join(f"x_{i} = x_{i - 1} + 1  # line {i}" for i in range(5_000))
    pane = stage_html(tiny_comp(graph=FxGraph(code=code, num_nodes=5_000)), "graph", max_chars=10_000)
    head, rest = pane.split('<details class="cx-more">', 1)
    assert "# line 10\n" in text_of(head) and "line 4999" not in head
    assert "<summary>show all (" in rest and "line 4999" in rest
    shown = re.findall(r'<pre class="cx-code">(.*?)</pre>', pane, re.S)
    assert sum(len(text_of(p)) for p in shown) >= len(code) - 5_000  # all of it is there, split in two


def test_big_report_renders_folded_pictures_and_every_kernel(monkeypatch):
    """1,500 nodes are not drawn node by node (unreadable, and slow to lay out): each graph is drawn folded, a few
    boxes of nodes, and Graphviz only ever sees small pictures."""
    from benchmarks.bench_render import big_report

    drawn = []
    monkeypatch.setattr(graphviz_svg, "render_svg", lambda dot, **k: drawn.append(dot) or ("<svg>folded</svg>", ""))
    data = big_report(1_500, 100)
    page = render_fragment(data)
    assert chip(page, "kernels") == "100"
    assert page.count('data-kernel="') == 100
    assert page.count("Drawn folded: one box per module") == 3  # Dynamo, AOT forward, post-grad
    assert drawn and all(dot.count(" -> ") < 50 for dot in drawn)


# ---- safety, standalone ----

def evil_comp() -> Compilation:
    loc = SourceLoc(f"/u/{EVIL}.py", 4, EVIL, f"y = x  # {EVIL}")
    node = FxNode(EVIL, "call_function", EVIL, (EVIL,), EVIL, loc)
    fx = FxGraph(code=f"# {EVIL}\ny = '{EVIL}'", num_nodes=1, nodes=(node,))
    bc = Bytecode(EVIL, f"/u/{EVIL}.py", 3, f"  3 0 LOAD_CONST 1 ('{EVIL}')", source=f"def f():\n    s = '{EVIL}'\n",
                  decompiled=f"s = '{EVIL}'")
    gb = GraphBreak(reason=EVIL, filename=loc.filename, lineno=4, source_line=EVIL, explanation=EVIL, hints=(EVIL,),
                    gb_code=EVIL, doc_url=f"https://x/{EVIL}", user_traceback=(loc,), detail=EVIL)
    return Compilation(
        compile_id=EVIL, frame=Frame(EVIL, f"/u/{EVIL}.py", 3), status="compiled", original_bytecode=bc,
        rewritten_bytecode=Bytecode(EVIL, EVIL, 3, EVIL, decompile_error=EVIL), graph=fx, aot_forward=fx,
        guards=(Guard(EVIL, EVIL, EVIL, EVIL, EVIL, 4, EVIL),), guard_tree=EVIL, recompile_reason=EVIL,
        graph_break=gb, restarts=(Restart(0, EVIL),), ir_pre_fusion=(IrDump(EVIL, EVIL),),
        output_code=(OutputCode(EVIL, EVIL, EVIL),),
        kernels=(Kernel(EVIL, "cpp", f"// {EVIL}", EVIL, (EVIL,), (EVIL,), (loc,)),),
        failure=EVIL, missing={"aot_backward": EVIL})


def page_payload(page: str) -> str:
    """The standalone page's embedded report, as JSON text, whether written plainly or gzip + base64."""
    import base64
    import gzip

    m = re.search(r'<script type="([^"]+)" id="cx-payload"([^>]*)>(.*?)</script>', page, re.S)
    assert m, "no payload script"
    if "gzip+base64" in m.group(2):
        return gzip.decompress(base64.b64decode(m.group(3))).decode("utf-8")
    return m.group(3).replace("\\u003c", "<")


def without_payload(page: str) -> str:
    """The page less its JSON payload (data, never run): what the browser executes and renders."""
    return re.sub(r'(<script type="[^"]+" id="cx-payload"[^>]*>).*?(</script>)', r"\1\2", page, flags=re.S)


@pytest.mark.parametrize("compress", [False, True], ids=["plain json", "gzip"])
def test_every_user_string_is_escaped_in_hand_built_data(compress):
    data = tiny_data(evil_comp(), notes=(EVIL,), error=EVIL)
    from explorer.present.page import render_page as page_of

    page = page_of(data, compress=compress)
    assert "<img" not in page.lower()
    assert EVIL in page_payload(page)  # the string travels as data, which the front end shows as text
    for key, _ in stage_keys(data.compilations[0]):
        assert "<img" not in stage_html(data.compilations[0], **key).lower()


EVIL_PROGRAM = '''
import torch


def evil(x):
    y = x * 2  # <img src=x onerror=alert(1)>
    print("<img src=x onerror=alert(1)>")
    return y + 1
'''


def test_every_user_string_is_escaped_in_a_real_capture(tmp_path):
    import torch

    import explorer

    path = tmp_path / "evil_prog.py"
    path.write_text(textwrap.dedent(EVIL_PROGRAM))
    spec = importlib.util.spec_from_file_location("evil_prog", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    report = explorer.explore(mod.evil, torch.randn(3), backend="eager")
    assert report.data.graph_breaks  # the print line really is in the report
    frag = render_fragment(report.data)
    assert "<img" not in frag.lower()
    assert "&lt;img src=x onerror=alert(1)&gt;" in frag
    page = render_page(report.data)  # the interactive page: the string travels as JSON data, shown as text
    assert "<img" not in page.lower()
    assert EVIL.replace("<", "\\u003c") in page


def test_standalone_page_is_one_file_without_network(breaks_report):
    page = render_page(breaks_report.data)
    assert page.startswith("<!doctype html>")
    assert '<meta charset="utf-8">' in page and "<title>compile-explorer: 6 compilations" in page
    assert "<link" not in page and "@import" not in page and "url(" not in page
    scripts = re.findall(r"<script\b([^>]*)>", page)
    assert len(scripts) == 2 and all("src" not in attrs for attrs in scripts)  # the payload, the module: inline
    assert 'type="module"' in scripts[1] and 'id="cx-payload"' in scripts[0]
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    # the module loads nothing (the payload is data: its kernels' own `import` lines are not code the page runs)
    # (nor do its JSDoc comments: `@param {import("./x.js").T}` names a type for tsc, and the bundle keeps comments)
    code = re.sub(r"/\*\*.*?\*/", "", without_payload(page), flags=re.S)
    assert not re.search(r"""\bimport\s*\(|\bimport\s+[^;]*\bfrom\b|\bfetch\(|XMLHttpRequest|WebSocket""", code)


def test_fragment_is_self_contained_and_themed(breaks_report):
    frag = render_fragment(breaks_report.data)
    assert frag.startswith('<div class="cx-report"><style>') and frag.endswith("</div>")
    assert "<script" not in frag and "<!doctype" not in frag.lower()
    css = re.search(r"<style>(.*?)</style>", frag, re.S).group(1)
    # every rule is scoped under the root class (or a host-theme selector in front of it)
    for rule in re.findall(r"([^{}]+)\{[^{}]*\}", re.sub(r"@media[^{]+\{", "", css)):
        assert all(".cx-report" in sel for sel in rule.split(",")), rule
    # light and dark both name a colour for the same token classes; code blocks set bg and fg
    assert 'body[data-jp-theme-light="false"] .cx-report' in css and "prefers-color-scheme: dark" in css
    light, dark = css.split("@media", 1)
    assert "--cx-code-bg:" in light and "--cx-code-bg:" in dark
    assert "pre.cx-code{background:var(--cx-code-bg);color:var(--cx-code-fg)" in css


def test_no_compilations_is_said():
    frag = render_fragment(tiny_data())
    assert "No compilations were captured" in frag and chip(frag, "compilations") == "0"


# ---- code as text ----

@pytest.mark.parametrize("lang", ["python", "cpp"])
def test_code_blocks_keep_the_text_exactly_and_escaped(breaks_report, lang):
    comp = comp_by_id(breaks_report.data, "0/0")
    text = comp.graph.code if lang == "python" else comp.kernels[0].source
    text += f"\n# {EVIL} 'a\\'b' \"\"\"x\ny\"\"\" /* c */ 1.5e3f\n"
    key = {"stage": "graph"} if lang == "python" else {"stage": "kernels", "kernel": comp.kernels[0].name}
    if lang == "python":
        comp = dataclasses.replace(comp, graph=dataclasses.replace(comp.graph, code=text))
    else:
        comp = dataclasses.replace(comp, kernels=(dataclasses.replace(comp.kernels[0], source=text),))
    out = stage_html(comp, **key, max_chars=10**9)
    assert "<img" not in out
    code = re.search(r'<pre class="cx-code">(.*?)</pre>', out, re.S).group(1)
    assert html.unescape(code) == text.rstrip("\n")
