"""Diffs computed once, in Python, and drawn anywhere (present/diff_view.py): a recompile against what it replaced
is in the view model, which the page, the widget and the static copy carry and draw; two ranks are compared
without their own device index and object ids; any other pair is made by the kernel on request. Hand-built
compilations: no torch run. The browser draws them in tests/test_browser.py."""

from __future__ import annotations

import random

from explorer.capturing.model import CaptureData, Compilation, Frame, FxGraph, Guard
from explorer.clinic.diff import line_opcodes
from explorer.present import diff_view
from explorer.present import viewmodel as vm
from explorer.present.html import render_fragment
from explorer.present.payload import build as payload_of
from explorer.present.text import lines
from explorer.report import Report

PROG = "/home/u/prog.py"
BEFORE = ('def forward(self, L_x_: "f32[8][1]cpu"):\n    l_x_ = L_x_\n    sin = torch.sin(l_x_)\n'
          "    return (sin,)\n")
AFTER = ('def forward(self, s0: "Sym(s0)", L_x_: "f32[s0][1]cpu"):\n    l_x_ = L_x_\n    sin = torch.sin(l_x_)\n'
         "    return (sin,)\n")


def recompiled() -> Report:
    frame = Frame("f", PROG, 3)
    first = Compilation("0/0", frame, "compiled", graph=FxGraph(BEFORE, 4),
                        guards=(Guard("TENSOR_MATCH", "check_tensor(L['x'], size=[8])", "L['x']"),))
    second = Compilation("0/1", frame, "compiled", graph=FxGraph(AFTER, 5), recompile_reason="size of x changed",
                         guards=(Guard("TENSOR_MATCH", "check_tensor(L['x'], size=[None])", "L['x']"),
                                 Guard("LAMBDA_GUARD", "2 <= L['x'].size()[0]", "L['x']")))
    return Report.of(CaptureData("2.13.0", "cpu", "3.11.9", compilations=(first, second)))


def test_a_recompiles_diff_is_made_once_and_every_view_draws_it():
    report = recompiled()
    model = vm.build(report)
    assert model["compilations"][0]["diffs"] == []
    guards, graph = model["compilations"][1]["diffs"]
    assert (graph["a"], graph["b"]) == ({"cid": "0/0", "stage": "graph"}, {"cid": "0/1", "stage": "graph"})
    assert graph["rows"][0][0] == "~" and graph["rows"][0][4] == [[len("def forward(self, "), len('][1]cpu"):')]]
    assert graph["counts"] == "1 added, 1 removed, 3 unchanged lines" and "same" not in graph
    assert guards["rows"] == [["-", 0, 1], ["+", 0, 2]]  # one line became two: none paired to mark inside
    payload = payload_of(report, pictures="none")[0]
    assert payload["views"][1]["diffs"] == [guards, graph]  # the page and the widget draw the same rows
    static = render_fragment(report, pictures=False)
    section = static[static.index('data-stage="diff"'):]
    assert '<mark class="cx-chg">s0: &quot;Sym(s0)&quot;, L_x_: &quot;f32[s0</mark>' in section
    assert "2 &lt;= L[&#x27;x&#x27;].size()[0]" in section
    comps = {c.compile_id: c for c in report.compilations}
    text = lines([graph], comps)
    assert text[0] == "− 0/0 Dynamo FX graph → + 0/1 Dynamo FX graph 1 added, 1 removed, 3 unchanged lines"
    assert text[1:3] == ['- def forward(self, L_x_: "f32[8][1]cpu"):',
                         '+ def forward(self, s0: "Sym(s0)", L_x_: "f32[s0][1]cpu"):']
    assert vm.build(report, panes=False)["compilations"][1]["diffs"] == []  # the text summary draws none


def test_unchanged_runs_fold_past_three_lines_around_each_change():
    a = [f"l{i}" for i in range(20)]
    b = a[:10] + ["changed"] + a[11:]
    rows, counts = diff_view.diff_rows(a, b)
    assert rows == [["fold", 0, 0, 7, "⋯ 7 unchanged lines"], ["=", 7, 7, 3], ["~", 10, 10, 1, [[0, 0]]],
                    ["=", 11, 11, 3], ["fold", 14, 14, 6, "⋯ 6 unchanged lines"]]
    assert counts == (1, 1, 19)
    same, counts = diff_view.diff_rows(a, a)
    assert same == [["fold", 0, 0, 20, "⋯ 20 unchanged lines"]] and counts == (0, 0, 20)


def test_two_ranks_are_compared_without_their_own_device_index_and_object_ids():
    rank0 = ([{"rows": ["x"]}], ['y = x.to("cuda:0")', "___check_obj_id(L['m'], 139812345678912)"])
    rank1 = ([{"rows": ["x"]}], ['y = x.to("cuda:1")', "___check_obj_id(L['m'], 140000000000000)"])
    between = diff_view.diff_block(diff_view.side("0/0", "graph", 1), rank1, diff_view.side("0/0", "graph", 0), rank0,
                                   ("Dynamo FX graph", "Dynamo FX graph"))
    assert between["same"] == "— identical" and between["note"] == "(device indexes and object ids written away)"
    assert between["del"].startswith("− rank 1 0/0") and between["add"].startswith("+ rank 0 0/0")
    within = diff_view.diff_block(diff_view.side("0/0", "graph"), rank1, diff_view.side("0/1", "graph"), rank0)
    assert "same" not in within and "note" not in within  # one rank's two compilations: as they are


def test_a_pane_with_no_text_to_compare_says_so():
    empty = diff_view.diff_block(diff_view.side("0/0", "graph"), ([], []), diff_view.side("0/1", "graph"),
                                 ([{"rows": ["x"]}], ["x"]))
    assert "rows" not in empty and empty["missing"].startswith("Nothing to compare")


def test_any_other_pair_is_made_by_the_kernel_on_request():
    from explorer.widget import ACTIONS, ExplorerView

    view = ExplorerView(recompiled())
    reply = ACTIONS["diff"](view, {"a": {"cid": "0/0", "stage": "guards"}, "b": {"cid": "0/1", "stage": "graph"}})
    d = reply["diff"]
    assert d["t"] == "diff" and d["a"] == {"cid": "0/0", "stage": "guards"} and d["rows"]
    assert d["lines"][0] == [{"key": "guards:0", "rows": ["TENSOR_MATCH  check_tensor(L['x'], size=[8])"]}]
    assert d["lines"][1] == [{"key": "graph:0", "src": "graph.code"}]  # the page reads the text it has
    assert ACTIONS["diff"](view, {"a": {"cid": "0/1", "stage": "graph"},
                                  "b": {"cid": "0/1", "stage": "graph"}})["diff"]["same"] == "— identical"


def test_the_line_diff_is_difflibs_with_the_common_head_and_tail_matched_first():
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        ops = line_opcodes(a, b)
        rebuilt = [x for tag, i1, i2, j1, j2 in ops for x in (a[i1:i2] if tag == "equal" else b[j1:j2])]
        assert rebuilt == b and sum(i2 - i1 for _, i1, i2, _, _ in ops) == len(a)
    a = ["same"] * 5 + ["x"] + ["tail"] * 3
    b = ["same"] * 5 + ["y", "z"] + ["tail"] * 3
    assert line_opcodes(a, b) == [("equal", 0, 5, 0, 5), ("replace", 5, 6, 5, 7), ("equal", 6, 9, 7, 10)]
