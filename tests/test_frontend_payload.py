"""The front end's data boundary: the payload the front end reads (present/payload.py) and the page around it.

The stage list comes from the registry alone; kernels have stable keys; what the
view derives is left out and comes back exactly; the line-level chain survives
its compaction; a big report's page stays within its size budget; no string of
the report can leave the script element it travels in.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import sys
from pathlib import Path

import pytest
from frontend_side import to_script_json, unpack_texts

from explorer.capturing.model import CaptureData, Compilation, Frame, Kernel, OutputCode
from explorer.lineage import LineLink, Origin
from explorer.present.context import kernel_refs
from explorer.present.page import module_text, payload_script, render_page
from explorer.present.payload import FIRST_STAGES, PICTURED, build, compact_lineage, to_json
from explorer.stages import STAGES

sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))


def decode_entry(origins, entry):
    """The JS reading of one line's entry (frontend/src/model.js, Model.linkOf)."""
    if entry == 0:
        return None
    if entry == -1:
        return ()
    return tuple(origins[i - 1] for i in (entry if isinstance(entry, list) else [entry]))


def test_the_stage_list_is_the_registry_alone(breaks_report):
    payload, _ = build(breaks_report, pictures="none")
    assert payload["stages"] == [s.to_dict() for s in STAGES]
    js = module_text()
    for s in STAGES:  # titles and explanations reach the view through the payload only
        assert f'"{s.title}"' not in js and s.explanation[:40] not in js, s.id
    ids = "|".join(re.escape(s.id) for s in STAGES)
    assert not re.search(rf'"(?:{ids})"\s*,\s*"(?:{ids})"\s*,\s*"(?:{ids})"', js)  # no list of stage ids in JS
    assert FIRST_STAGES <= {s.id for s in STAGES}


def test_views_say_what_each_compilation_has_and_why_not(breaks_report):
    from explorer.stages import why_missing

    payload, _ = build(breaks_report, pictures="none")
    for comp, view in zip(breaks_report.capture.compilations, payload["views"]):
        present = [s.id for s in STAGES if s.scope == "compilation" and s.present(comp)]
        assert view["present"] == present
        assert view["why"] == {s.id: why_missing(s.id, comp) for s in STAGES
                               if s.scope == "compilation" and s.id not in present}
        assert view["label"] == comp.label


def test_kernels_are_keyed_stably():
    ks = (Kernel("cpp_fused_0", "cpp", "a", "forward"), Kernel("cpp_fused_0", "cpp", "b", "backward"),
          Kernel("cpp_fused_1", "cpp", "c", "forward"))
    comp = Compilation("0/0", Frame("f", "/u/p.py", 1), "compiled", kernels=ks)
    data = CaptureData("2.13", "cpu", "3.11", compilations=(comp,))
    assert kernel_refs(comp) == ["forward/cpp_fused_0", "backward/cpp_fused_0", "cpp_fused_1"]
    a, _ = build(data, pictures="none")
    b, _ = build(data, pictures="inline")
    assert a["views"][0]["kernels"] == b["views"][0]["kernels"] == kernel_refs(comp)
    # a chain line names its kernel by index (part); a repeated name alone is ambiguous and is skipped
    links = (LineLink("kernels", 1, (Origin("/u/p.py", 2),), part=1, kernel="cpp_fused_0"),
             LineLink("kernels", 1, (Origin("/u/p.py", 3),), part=0, kernel="cpp_fused_1"),  # index, name disagree
             LineLink("kernels", 1, (Origin("/u/p.py", 4),), part=2, kernel="cpp_fused_1"))
    lin = type("L", (), {"compile_id": "0/0", "links": links})()
    packed = compact_lineage([lin], {"0/0": kernel_refs(comp)})["compilations"]["0/0"]
    assert set(packed["blocks"]) == {"kernels:backward/cpp_fused_0", "kernels:cpp_fused_1"}
    # what each block is travels beside its key, which no view splits
    assert packed["stages"] == {"kernels:backward/cpp_fused_0": "kernels", "kernels:cpp_fused_1": "kernels"}
    # a link to one kernel is an object: the kernels stage, and the kernel beside it
    index = a["views"][0]["panes"]["kernels"][0]
    assert [r["c"][0]["go"]["stage"] for r in index["rows"]] == ["kernels"] * 3
    assert [r["c"][0]["go"]["kernel"] for r in index["rows"]] == kernel_refs(comp)


def test_derivable_fields_are_left_out_and_come_back_exactly(breaks_report):
    from frontend_report import synthetic

    for report in (breaks_report, synthetic()):
        payload, _ = build(report, pictures="none")
        unpack_texts(payload)  # what the front end does with a packed text when a pane shows it
        for comp, doc in zip(report.capture.compilations, payload["report"]["capture"]["compilations"]):
            for name in ("graph", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph"):
                fx = getattr(comp, name)
                if fx is not None:
                    assert doc[name] == {"code": fx.code, "num_nodes": max(fx.num_nodes, len(fx.nodes))}
            for name in ("original_bytecode", "rewritten_bytecode"):
                if doc[name] is not None:
                    assert "instructions" not in doc[name] and doc[name]["listing"] == getattr(comp, name).listing
            refs = kernel_refs(comp)
            for o, d in zip(comp.output_code or (), doc["output_code"] or ()):
                if d["code"] is None:  # the wrapper embeds kernel sources: they travel once, in the kernels
                    text = d["code_parts"][0] + "".join(
                        comp.kernels[refs.index(r)].source + part
                        for r, part in zip(d["kernel_refs"], d["code_parts"][1:]))
                    assert text == o.code
                else:
                    assert d["code"] == o.code
        assert "lineage" not in payload["report"] and payload["omitted"]


def test_wrapper_code_that_does_not_embed_a_kernel_is_kept_whole():
    k = Kernel("k", "cpp", "x" * 300)
    comp = Compilation("0/0", Frame("f", "/u/p.py", 1), "compiled", kernels=(k,),
                       output_code=(OutputCode("inference", "no kernel text here"),))
    payload, _ = build(CaptureData("2.13", "cpu", "3.11", compilations=(comp,)), pictures="none")
    assert payload["report"]["capture"]["compilations"][0]["output_code"][0]["code"] == "no kernel text here"


def test_the_chain_survives_compaction(breaks_report):
    from explorer.lineage import lineage_of

    lineage = lineage_of(breaks_report.capture)
    refs = {c.compile_id: kernel_refs(c) for c in breaks_report.capture.compilations}
    packed = compact_lineage(lineage, refs)
    origins = [Origin(**o) for o in packed["origins"]]  # {"file", "line"}: nothing to split
    assert origins == sorted(origins) and all(set(o) == {"file", "line"} for o in packed["origins"])
    seen = named = 0
    for lin in lineage:
        comp = packed["compilations"][lin.compile_id]
        for link in lin.links:
            key = (f"kernels:{refs[lin.compile_id][link.part]}" if link.stage == "kernels"
                   else f"{link.stage}:{link.part}")
            assert set(decode_entry(origins, comp["blocks"][key][link.line - 1])) == set(link.origins), link
            if link.element and link.stage in PICTURED:  # what a graph's picture links its nodes by
                assert comp["elements"][key][str(link.line)] == link.element
                named += 1
            seen += 1
    assert seen > 100 and named > 10
    # the other stages' elements (loop IR buffers, wrapper and kernel lines) are not read by the view: left out
    assert all(key.split(":")[0] in PICTURED for c in packed["compilations"].values() for key in c["elements"])


def test_a_models_loop_ir_travels_outlined_by_module(llama_report):
    """The page's loop-IR panes (tests/programs/llama_blocks.py: four blocks, the third with GELU): over each dump,
    forward and backward, its module outline, the alike blocks in one row and the odd one called out; each row's
    line is a scheduler node of the text the payload carries for that dump (the backward's packed, read back)."""
    from explorer.present.text import flat

    comp = llama_report.compilations[0]
    payload, _ = build(llama_report, pictures="none")
    doc = payload["report"]["capture"]["compilations"][0]
    assert any(isinstance(d["text"], dict) for d in doc["ir_post_fusion"])  # travels packed
    unpack_texts(doc)
    for stage in ("ir_pre_fusion", "ir_post_fusion"):
        pane = payload["views"][0]["panes"][stage]
        src = {b["key"]: b["src"] for b in pane if b["t"] == "code"}
        outlines = [b for b in pane if b["t"] == "details" and b.get("cls") == "cx-rep"]
        assert [flat(b["s"]).split(":")[0] for b in outlines] == [d.graph_kind for d in getattr(comp, stage)]
        for outline in outlines:
            rows = {flat(r["c"][0]): r["c"][3] for r in outline["body"][0]["rows"]}
            assert {"2× Block (layers.1, 3) alike", "layers.2 differs"} <= set(rows), (stage, set(rows))
            for where in rows.values():
                field, part, name = src[where[0]["key"]].split(".")  # "ir_post_fusion.1.text"
                lines = doc[field][int(part)][name].split("\n")
                assert lines[where[0]["line"] - 1].startswith("op"), (stage, where)


def test_the_chain_read_per_line_or_per_text_is_the_same(breaks_report):
    """Lineage's run-length coded texts and the same chain as one LineLink per line compact alike."""
    from explorer.lineage import lineage_of

    refs = {c.compile_id: kernel_refs(c) for c in breaks_report.capture.compilations}
    lineage = lineage_of(breaks_report.capture)
    per_line = [type("L", (), {"compile_id": lin.compile_id, "links": lin.links})() for lin in lineage]
    assert compact_lineage(lineage, refs) == compact_lineage(per_line, refs)


@pytest.mark.parametrize("fixture", ["breaks_report", "module_report", "dynamic_report"])
def test_every_fx_node_and_kernel_the_page_shows_is_reached_or_glue(fixture, request):
    """In the payload the page draws from: each line of an FX graph or a kernel is reached from a user
    line or marked glue (never "no data"), each node's line is there, each kernel reaches a user line."""
    report = request.getfixturevalue(fixture)
    payload, _ = build(report, pictures="none")
    chain = payload["lineage"]
    for comp, view in zip(report.capture.compilations, payload["views"], strict=True):
        blocks = chain["compilations"][comp.compile_id]["blocks"]
        elements = chain["compilations"][comp.compile_id]["elements"]
        for stage in ("graph", "aot_joint", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph",
                      "post_grad_graph_backward"):
            graph = getattr(comp, stage)
            if graph is None or not graph.code:
                continue
            key = f"{stage}:0"
            assert len(blocks[key]) == len(graph.code.splitlines()) and 0 not in blocks[key], key
            named = set(elements.get(key, {}).values())
            assert {n.name for n in graph.nodes if n.op not in ("output", "placeholder")} <= named, key
        for ref, kernel in zip(view["kernels"], comp.kernels, strict=True):
            entries = blocks[f"kernels:{ref}"]
            assert len(entries) == len(kernel.source.splitlines()) and 0 not in entries, ref
            assert any(e not in (0, -1) for e in entries), f"kernel {ref} is reached from no user line"


def test_a_big_reports_page_is_within_budget():
    from frontend_report import synthetic

    report = synthetic()
    page = render_page(report)
    assert len(page.encode("utf-8")) <= 3_000_000
    assert 'data-encoding="gzip+base64"' in page  # a big payload is packed; the browser unpacks it
    first, _ = build(report, pictures="lazy", defer=True)
    assert len(gzip.compress(to_json(first).encode(), 1)) < 200_000  # the widget's first message


def test_a_small_page_keeps_readable_json(breaks_report):
    page = render_page(breaks_report, compress=False)
    m = re.search(r'<script type="application/json" id="cx-payload">(.*?)</script>', page, re.S)
    assert json.loads(m.group(1))["report"]["capture"]["torch_version"] == breaks_report.capture.torch_version


def test_packed_payload_decodes_to_the_same_json(breaks_report):
    payload, _ = build(breaks_report, pictures="none")
    tag = payload_script(payload, compress=True)
    packed = re.search(r">([A-Za-z0-9+/=]+)</script>", tag).group(1)
    assert json.loads(gzip.decompress(base64.b64decode(packed))) == json.loads(to_json(payload))


@pytest.mark.parametrize("evil", ["</script><script>alert(1)</script>", "<!--", "</SCRIPT >", "\u2028<b>"])
def test_no_report_string_can_leave_the_script_element(evil):
    comp = Compilation("0/0", Frame(evil, evil, 1), "compiled", failure=evil)
    data = CaptureData(evil, evil, "3.11", compilations=(comp,), notes=(evil,))
    payload, _ = build(data, pictures="none")
    text = to_script_json(payload)
    assert "<" not in text and json.loads(text)["report"]["capture"]["notes"] == [evil]
    page = render_page(data, compress=False)
    body = page.split('id="cx-payload">', 1)[1].split("</script>", 1)[0]
    assert json.loads(body)["report"]["capture"]["device"] == evil


def test_the_front_end_is_one_built_module_with_the_entry_points(tmp_path):
    """The page and the widget load one module, frontend/src bundled (tests/test_frontend_build.py): no import
    left, only the entry's exports, and (where node is installed) it parses as an ES module."""
    import shutil
    import subprocess

    js = module_text()
    assert not re.search(r"^\s*import\b", js, re.M)
    exports = re.findall(r"^export\b(.*?);", js, re.M | re.S)
    assert len(exports) == 1 and re.fullmatch(r"\s*\{[^}]*\}\s*", exports[0]), exports
    names = {n.split(" as ")[-1].strip() for n in exports[0].strip(" {}\n").split(",")}
    assert names == {"default", "mount", "mountPage"}, exports
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the syntax check needs it")
    path = tmp_path / "explorer.mjs"
    path.write_text(js, encoding="utf-8")
    proc = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_what_the_first_view_draws_travels_as_it_is_and_the_later_stages_long_texts_packed():
    """Unpacking is on the first paint's path, so the Dynamo graph's text (a 2,300-node graph: 370 KB) travels as
    it is, in the page and in a big report's first widget message; the later stages' long texts travel packed."""
    from frontend_report import synthetic

    report = synthetic()
    code = report.capture.compilations[0].graph.code
    for defer in (False, True):
        payload, _ = build(report, pictures="none", defer=defer)
        doc = payload["report"]["capture"]["compilations"][0]
        assert len(code) > 300_000 and doc["graph"]["code"] == code
    doc = build(report, pictures="none")[0]["report"]["capture"]["compilations"][0]
    assert isinstance(doc["post_grad_graph"]["code"], dict) and "$lines" in doc["post_grad_graph"]["code"]
