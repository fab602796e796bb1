"""The text summary is drawn from the view model's blocks, and what it says the views show too: DDPOptimizer's
split and the DDP and FSDP2 notes (once the text's alone), a timing report's notes. Hand-built reports: no
torch run (tests/test_distributed.py checks the split on a real DDP job)."""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re

from explorer.capturing.model import (
    CaptureData,
    Compilation,
    DdpBucket,
    DdpOptimizer,
    DdpSubgraph,
    Frame,
    FxGraph,
    Kernel,
    OutputCode,
)
from explorer.distributed.ddp import FIRST_BUCKET_ERROR
from explorer.present import summary_view
from explorer.present import viewmodel as vm
from explorer.present.html import render_fragment
from explorer.present.payload import build as payload_of
from explorer.present.text import lines, summary, timing_text
from explorer.report import Report

PROG = "/home/u/ddp.py"
GRAPH = "def forward(self, L_x_):\n    relu = torch.relu(L_x_)\n    return (relu,)\n"


def split_report() -> Report:
    pieces = tuple(DdpSubgraph(f"submod_{i}", FxGraph(GRAPH, 3)) for i in range(2))
    buckets = (DdpBucket("submod_0", 2**20, ("layers.0.weight", "layers.0.bias")),
               DdpBucket("submod_1", 2**20, ("layers.1.weight", "layers.1.bias")))
    ddp = DdpOptimizer(bucket_cap_bytes=2**20, bucket_count=2, subgraphs=pieces, buckets=buckets)
    comp = Compilation("0/0", Frame("forward", PROG, 12), "compiled", graph=FxGraph(GRAPH, 3),
                       output_code=(OutputCode("inference", "def call(args):\n    pass\n"),),
                       kernels=(Kernel("cpp_fused_relu_0", "cpp", "void k() {}\n", "inference"),), ddp_optimizer=ddp)
    return Report.of(CaptureData("2.13.0", "cpu", "3.11.9", compilations=(comp,)))


def plain(html: str) -> str:
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_a_ddp_split_is_in_the_graph_pane_of_every_view_and_in_the_text():
    report = split_report()
    view = vm.build(report)["compilations"][0]
    (split,) = [b for b in view["panes"]["graph"] if b["t"] == "section"]
    title = "DDPOptimizer split [0/0] forward (ddp.py:12) into 2 graphs at gradient-bucket boundaries"
    assert split["title"].startswith(title) and "a split, not a graph break" in split["title"]
    assert "submod_0: bucket of 1.00 MiB: layers.0.weight, layers.0.bias" in json.dumps(split["body"]).replace(
        '"}, "', "")
    first = view["panes"]["output_code"][0]  # a stage made from the pieces says which one it shows
    assert first["cls"] == "cx-missing cx-ddp" and "show the last one (submod_1)" in first["r"][1]
    assert payload_of(report, pictures="none")[0]["views"][0]["panes"]["graph"] == view["panes"]["graph"]
    assert title in plain(render_fragment(report, pictures=False))
    text = summary(report)
    assert title in text and "\n  submod_0: bucket of 1.00 MiB: layers.0.weight, layers.0.bias" in text
    assert "bucket_cap_mb" in text and "show the last one (submod_1)" in text


def test_what_ddp_did_is_noted_in_the_header_of_every_view_and_in_the_text():
    data = dataclasses.replace(split_report().capture, error=f"RuntimeError: {FIRST_BUCKET_ERROR}")
    body = vm.build(data, panes=False)["header"]["body"]
    refused, reducer = [b for b in body if b.get("cls") == "cx-missing cx-ddp"]
    assert "DDPOptimizer refused DDP's bucket_cap_mb" in refused["r"][1] and "C++ reducer" in reducer["r"][1]
    assert "DDPOptimizer refused DDP's bucket_cap_mb" in plain(render_fragment(data, pictures=False))
    assert "\nnote: DDPOptimizer refused DDP's bucket_cap_mb" in summary(data)


def test_a_timing_reports_notes_are_in_its_section_as_the_text_says_them():
    from explorer.timing.model import TimingReport

    timing = TimingReport(device="cpu", notes=("the GPU was busy",))
    report = dataclasses.replace(split_report(), timing=timing)
    section = vm.build(report, panes=False)["timing"]
    assert "the GPU was busy" in json.dumps(section)
    assert "the GPU was busy" in plain(render_fragment(report, pictures=False))
    assert any("the GPU was busy" in line for line in timing_text(timing))


def test_the_summary_is_its_blocks_laid_out_and_each_fact_comes_from_the_view_model():
    report = split_report()
    model = vm.build(report, panes=False)
    blocks = summary_view.summary_blocks(report, model)
    assert summary(report, model=model) == "\n".join(line.split("\n")[0] for line in lines(blocks))
    assert blocks[0]["r"].startswith("compile-explorer: 1 compilation, 1 graph,")  # the header's chips in a line
    rows = next(b for b in blocks if b["t"] == "section" and b["title"] == "Compilations")["body"][0]["items"]
    assert rows[0]["r"] == model["compilations"][0]["summary"]  # each compilation's row is the view model's


def test_a_failed_step_reads_as_a_sentence_in_every_view():
    """"The explorer could not decoder: decoder [0/0] ..." was no sentence: the step is said in words, once."""
    from explorer.capturing.model import Problem

    bad = Problem("decoder", "DecodeError: no 'def forward(' in the graph text", "dynamo_output_graph", "0/0", 1)
    data = CaptureData("2.13", "cpu", "3.11", problems=(bad, Problem("timing", "RuntimeError: boom")))
    report = Report.of(data)
    text = summary(report)
    assert ("The explorer could not read a record torch wrote: [0/0_1] dynamo_output_graph: DecodeError: no 'def "
            "forward(' in the graph text") in text
    assert "The explorer could not time eager against compiled: RuntimeError: boom" in text
    assert "could not decoder" not in text and "timing: RuntimeError" not in text
    page = htmllib.unescape(re.sub(r"<[^>]+>", "", render_fragment(report)))
    assert "The explorer could not read a record torch wrote: [0/0_1] dynamo_output_graph" in page


def test_counts_agree_with_their_nouns_in_the_summary_the_page_and_the_chips():
    """One compilation, one graph, one graph break: never "1 graph breaks"."""
    from explorer.capturing.model import GraphBreak

    comp = Compilation("0/0", Frame("f", PROG, 3), "compiled", graph=FxGraph(GRAPH, 1),
                       graph_break=GraphBreak("print", PROG, 4), kernels=(Kernel("k0", "cpp", "void k0() {}"),))
    report = Report.of(CaptureData("2.13", "cpu", "3.11", compilations=(comp,)))
    first = summary(report).splitlines()[0]
    assert first.startswith("compile-explorer: 1 compilation, 1 graph, 1 graph break, 0 recompiles, 1 kernel,"), first
    model = vm.build(report)
    assert model["header"]["chips"][:5] == [["compilation", 1], ["graph", 1], ["graph break", 1],
                                           ["recompiles", 0], ["kernel", 1]]
    assert "1 node" in str(vm.comp_summary(comp, report)) and "1 nodes" not in str(vm.comp_summary(comp, report))
    from explorer.present.page import render_page

    title = re.search(r"<title>(.*?)</title>", render_page(report)).group(1)
    assert "1 compilation, 1 graph break" in htmllib.unescape(title)


def test_a_record_read_in_part_that_no_pane_shows_is_said_in_the_header_and_is_no_problem():
    from explorer.capturing.model import PartialRead

    read = PartialRead("artifact:graph_execution", "1 of 3 graph runs named no compilation: kept as `?`")
    report = Report.of(CaptureData("2.13", "cpu", "3.11", partial_reads=(read,), graph_execution=("0/0", "?")))
    assert report.all_problems == ()
    (note,) = [b for b in vm.build(report)["header"]["body"] if "cx-partial" in (b.get("cls") or "")]
    assert note["r"][1:] == ["the order the graphs ran (artifact:graph_execution): ", read.message]
    assert f"Read in part: the order the graphs ran (artifact:graph_execution): {read.message}" in summary(report)
    assert "could not" not in summary(report)
