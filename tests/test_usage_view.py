"""Real programs' use of torch.compile in the view: each part in the view model, the page's payload, the static
copy and the text, from one hand-built report (tests/usage_reports.py; no torch run). tests/test_real_usage.py
checks the same parts on real captures, tests/test_browser.py draws them in Chromium."""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re

import jsonschema
import pytest
from usage_reports import EVIL, KEY, REGION_GRAPH, usage_report

from explorer.capturing.model import FxGraph
from explorer.capturing.usage import CacheLookup, StoredStages
from explorer.lineage import Lineage, TextLines
from explorer.lineage.model import SOURCES
from explorer.present import viewmodel as vm
from explorer.present.html import render_fragment, stage_html
from explorer.present.page import render_page
from explorer.present.payload import build as payload_of
from explorer.present.text import flat, lines, stage_text, summary
from explorer.report import Report
from explorer.schema import SCHEMA_PATH
from explorer.stages import BY_ID


@pytest.fixture(scope="module")
def report():
    return usage_report()


@pytest.fixture(scope="module")
def model(report):
    return vm.build(report)


@pytest.fixture(scope="module")
def static(report):
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", render_fragment(report, pictures=False)))


def words(text):
    return " ".join(text.split())


def view_of(model, cid):
    return next(c for c in model["compilations"] if c["cid"] == cid)


def texts(blocks):
    """Every string a reader sees in ``blocks``: their plain forms and their runs."""
    return json.dumps(blocks, ensure_ascii=False)


def test_the_report_round_trips_and_validates_against_the_shipped_schema(report):
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        jsonschema.validate(json.loads(report.to_json()), json.load(fh))
    back = Report.from_json(report.to_json())
    assert back == report and vm.build(back) == vm.build(report)


def test_the_header_says_what_the_caches_did_and_the_stance_in_force(report, model, static):
    chips = dict(model["header"]["chips"])
    assert chips["caches"] == "warm: 1 served from cache" and chips["stance"] == "fail_on_recompile"
    assert dict(payload_of(report, pictures="none")[0]["header"]["chips"]) == chips  # the page's and widget's
    assert "caches warm: 1 served from cache" in words(static) and "stance fail_on_recompile" in words(static)
    text = summary(report)
    assert "caches: warm (the program's compile caches as they are): 1 graph served by torch's graph caches" in text
    assert "stance: fail_on_recompile" in text


def _default_capture(report, outcome, stored=()):
    """The usage report's 0/0 in the default mode, its FX graph lookup ``outcome`` (``None``: no lookup, as with
    the graph caches off), its kernel built (a miss) or loaded (a hit)."""
    comp = report.capture.compilations[0]
    caches = () if outcome is None else (CacheLookup("fx_graph", outcome, key=KEY, graph_kind="inference"),)
    kernels = tuple(dataclasses.replace(k, build="loaded" if outcome == "hit" else "built") for k in comp.kernels)
    comp = dataclasses.replace(comp, caches=caches, stored=stored, kernels=kernels,
                               post_grad_graph=FxGraph("graph():\n    return ()", 0))
    return dataclasses.replace(report.capture, compilations=(comp,), cache_mode="cold", stance="default",
                               exports=(), error=None)


def test_a_first_run_is_labelled_lowered_now_and_a_rerun_served_never_cold(report):
    """Issue 40: a re-run served entirely from the caches (17 kernels loaded) read ``caches: cold``."""
    first = _default_capture(report, "miss")
    assert dict(vm.build(first)["header"]["chips"])["caches"] == "1 lowered now"
    said = summary(Report.of(first))
    assert "caches: 1 graph lowered now; kernels: 0 loaded from torch's code cache" in said and ", 1 built" in said
    assert "a re-run is served by torch's graph caches, its loop-level IR by the explorer's stage store" in said
    rerun = _default_capture(report, "hit", stored=(StoredStages("replayed", ("ir_pre_fusion",), key=KEY,
                                                                 graph_kind="inference"),))
    chips = dict(vm.build(rerun)["header"]["chips"])
    assert chips["caches"] == "1 served from cache"
    said = summary(Report.of(rerun))
    assert ("caches: 1 graph served by torch's graph caches (FX graph cache 1 hit), the loop-level IR of 1 from "
            "the explorer's stage store; kernels: 1 loaded from torch's code cache") in said
    assert "lowered now" not in said
    for capture in (first, rerun):
        model = vm.build(capture)
        assert "cold" not in json.dumps(model["header"], ensure_ascii=False) + summary(Report.of(capture)).split(
            "\n")[1]
    fresh = dataclasses.replace(_default_capture(report, None), cache_mode="fresh")
    assert dict(vm.build(fresh)["header"]["chips"])["caches"] == "fresh: 1 lowered now"
    assert "caches: fresh (torch's graph caches off while capturing): 1 graph lowered now" in summary(Report.of(fresh))


def test_each_compilation_says_where_it_came_from(report, model, static):
    strip = view_of(model, "0/0")["from_where"]
    said = words(" ".join(flat(b["r"]) for b in strip))
    assert "Dynamo compiled" in said and "AOTAutograd cache hit" in said and "FX graph cache hit [inference]" in said
    assert KEY in said and "kernels: 1 loaded, 0 built" in said
    assert "2.10 s saved" in said and "0.40 s here, 2.50 s cold" in said  # against the cold compile torch timed
    assert view_of(model, "aoti/0")["from_where"] == []  # nothing consulted: no strip
    payload = payload_of(report, pictures="none")[0]
    assert payload["views"][0]["from_where"] == strip  # the page and the widget draw it over every pane
    assert "From where:" in static and KEY in static
    assert "from where: Dynamo traced it; AOTAutograd cache hit" in summary(report)


def test_a_stage_a_cache_hit_skipped_says_so_with_the_key_and_a_cached_one_says_where_from(report, model):
    view = view_of(model, "0/0")
    assert "ir_pre_fusion" not in view["present"]
    why = view["why"]["ir_pre_fusion"]
    assert why.startswith("skipped: AOTAutograd cache hit (key aot" + KEY)
    comp = report.compilations[0]
    assert "skipped: AOTAutograd cache hit" in stage_html(comp, "ir_pre_fusion", report=report)
    assert stage_text(report, BY_ID["ir_pre_fusion"], comp).endswith(f"(not captured: {why})")
    first = view["panes"]["output_code"][0]
    assert first["cls"] == "cx-missing cx-cached" and "From the cache: " in flat(first["r"])
    assert KEY in flat(first["r"]) and view["panes"]["output_code"][1]["src"] == "output_code.0.code"
    assert "From the cache:" in stage_html(comp, "output_code", report=report)


def test_compiled_regions_are_a_tree_named_in_the_frame_list(report, model, static):
    view = view_of(model, "1/0")
    assert "region subgraph_0 ×4" in view["label"] and "disable: plain_helper" in view["label"]
    assert "nonstrict_trace: opaque_scale" in flat(view["summary"])
    tree = next(b for b in view["panes"]["graph"] if b["t"] == "list" and b["cls"] == "cx-regions")
    region, disabled, opaque = tree["items"]
    assert "compiled once, called 4×" in flat(region["r"])
    assert region["origin"]["file"].endswith("prog.py") and region["origin"]["line"] == 12
    assert "cpp_fused_relu_0" in texts(region["body"])
    (code,) = [b for d in region["body"] if d["t"] == "details" for b in d["body"]]
    assert vm_text(report, "1/0", code["src"]) == REGION_GRAPH  # the region's graph, once
    assert "torch.compiler.disable" in flat(disabled["r"]) and "nonstrict_trace" in flat(opaque["r"])
    assert "compiled once, called 4×" in static and "plain_helper" in static
    assert "region subgraph_0 (prog.py:12): nested_compile_region, 3 nodes, compiled once, called 4x" in \
        summary(report)


def vm_text(report, cid, src):
    from explorer.present.html import resolve

    return resolve(report.compilation(cid), src)


def test_the_guards_pane_lists_dropped_guards_beside_kept_ones_with_the_warning(report, model, static):
    guards = view_of(model, "1/0")["panes"]["guards"]
    warning, dropped, kept = guards[:3]
    assert warning["t"] == "note" and "kept 1 of 3 guards, dropped 2" in flat(warning["r"])
    assert "no longer recompiles" in flat(warning["r"])
    assert [r["c"][2]["code"] for r in dropped["rows"]] == ["m[0].weight", f"m[1].{EVIL}"]
    assert "wrong results" in dropped["rows"][0]["c"][4] and dropped["rows"][0]["origin"]["line"] == 12
    assert kept["t"] == "details" and kept["body"][0]["rows"][0]["c"][2] == {"code": "x"}
    comp = report.compilation("1/0")
    page = stage_html(comp, "guards", report=report)
    assert "<img" not in page.lower() and htmllib.escape(EVIL) in page
    assert "dropped: what can go wrong" in static
    text = stage_text(report, BY_ID["guards"], comp)
    assert "dropped TENSOR_MATCH on m[0].weight (from prog.py:12)" in text and "kept by the filter (1)" in text


def test_a_refused_recompile_is_explained_like_any_and_leads_to_the_guards_it_failed(report, model, static):
    section = next(b for b in model["header"]["body"] if b["t"] == "section" and b["title"].startswith("Recompiles"))
    (item,) = section["body"][0]["items"]
    assert item["cls"] == "cx-refused" and item["go"] == {"cid": "1/0", "stage": "guards"}
    assert "refused by set_stance('fail_on_recompile')" in flat(item["r"])
    assert "number of dims of x: 1 -> 2" in flat(item["r"]) and "eager_on_recompile" in flat(item["r"])
    assert "1/0 number of dims of x: 1 -> 2" in texts(item["body"]).replace('"}, " ', " ")
    assert "refused by set_stance('fail_on_recompile')" in static
    assert "recompile refused by set_stance('fail_on_recompile')" in summary(report)


def test_export_shows_its_program_wrapper_kernels_and_package_files(report, model, static):
    section = next(b for b in model["header"]["body"] if b["t"] == "section" and b["title"].startswith("Exported"))
    (item,) = section["body"][0]["items"]
    assert item["go"] == {"cid": "aoti/0", "stage": "export_graph"}
    pane = view_of(model, "aoti/0")["panes"]["export_graph"]
    tables = {b["cls"]: b for b in pane if b["t"] == "table"}
    assert set(tables) == {"cx-export-specs", "cx-ranges", "cx-decomps", "cx-package"}
    assert tables["cx-ranges"]["rows"][0]["c"][:2] == [{"code": "s77"}, "[2, 64]"]
    assert "x.size(0)" in texts(tables["cx-ranges"]) and "aten.addmm.default" in texts(tables["cx-decomps"])
    assert [r["c"][1] for r in tables["cx-package"]["rows"]] == ["123,456", "789"]
    assert "AOTInductor's C++ wrapper" in texts(view_of(model, "aoti/0")["panes"]["output_code"])
    assert "range constraints" in static and "123,456" in static and "kernel_information.json" in static
    text = summary(report)
    assert "range s77 (x.size(0)): [2, 64]" in text and "kernel_information.json  789 bytes" in text


def test_a_program_exported_without_aotinductor_shows_its_tables_in_the_header(report):
    data = dataclasses.replace(report.capture, exports=(dataclasses.replace(report.capture.exports[0],
                                                                            compile_id=None),))
    section = next(b for b in vm.build(data)["header"]["body"] if b["t"] == "section"
                   and b["title"].startswith("Exported"))
    (item,) = section["body"][0]["items"]
    assert "go" not in item and "cx-ranges" in texts(item["body"])


def test_each_kernel_and_wrapper_text_names_the_record_its_chain_links_came_from(report):
    kernel = SOURCES["kernel_trace"]
    lin = Lineage("0/0", texts=(TextLines("kernels", 0, kernel="cpp_fused_sin_0", runs=(0, 5), source=kernel),
                                TextLines("output_code", 0, runs=(0, 3), source=SOURCES["wrapper_provenance"])))
    model = vm.build(dataclasses.replace(report, lineage=(lin,)))
    panes = view_of(model, "0/0")["panes"]
    caption = next(b for b in panes["kernels"] if b.get("cls") == "cx-muted cx-prov")  # one for all its kernels
    assert kernel in flat(caption["r"])
    div = next(b for b in panes["kernels"] if b["t"] == "div")
    wrapper = [flat(b["r"]) for b in panes["output_code"] if b["t"] == "p"]
    assert any(SOURCES["wrapper_provenance"] in w for w in wrapper)
    assert "op trace" in texts(div["body"])  # torch's per-kernel op order
    assert "cx-prov" not in texts(view_of(vm.build(report), "0/0")["panes"])  # no chain: no caption
    k = report.compilations[0].kernels[0]
    two = dataclasses.replace(report.compilations[0], kernels=(k, dataclasses.replace(k, name="cpp_fused_cos_1")))
    other = TextLines("kernels", 1, kernel="cpp_fused_cos_1", runs=(0, 5), source=SOURCES["fragment"])
    lin2 = dataclasses.replace(lin, texts=lin.texts + (other,))
    data = dataclasses.replace(report.capture, compilations=(two,))
    divs = [b for b in vm.build(dataclasses.replace(report, capture=data, lineage=(lin2,)))["compilations"][0][
        "panes"]["kernels"] if b["t"] == "div"]
    assert [flat(d["body"][-2]["r"]) for d in divs] == [f"Chain links from: {s}" for s in (kernel,
                                                                                            SOURCES["fragment"])]


def test_the_page_carries_every_part_and_escapes_user_strings(report):
    page = render_page(report)
    assert "<img" not in re.sub(r'<script type="[^"]+" id="cx-payload"[^>]*>.*?</script>', "", page,
                                flags=re.S).lower()
    views = payload_of(report, pictures="none")[0]["views"]
    assert views[0]["from_where"] and views[1]["label"].endswith("nonstrict_trace: opaque_scale")
    assert any(b.get("cls") == "cx-regions" for b in views[1]["panes"]["graph"])


def test_a_regions_graph_is_sent_with_the_first_panes(report):
    first = payload_of(report, pictures="none", defer=True)[0]
    assert first["report"]["capture"]["compilations"][1]["regions"][0]["graph"]["code"] == REGION_GRAPH


def test_text_lines_skip_the_header_parts_the_summary_says_itself(model):
    said = lines(model["header"]["body"])
    assert not any(line.startswith(("caches:", "export:")) for line in said)
    assert not any("Exported programs" in line for line in said)
