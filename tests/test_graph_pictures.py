"""A graph's picture and a repeated member's diff look as they did when the report stored them as text.

Up to schema version 4 a report stored each small graph's Graphviz text (``FxGraph.dot``) and each odd member's
diff as unified-diff lines (``MemberGroup.diff``). ``tests/data/pictures_v4.json.gz`` holds what the explorer of
version 4 drew from the reports of tests/data (v2, v3 and v4: ``report_v4.json.gz`` is tests/programs/llama_blocks.py
at four layers, the third with GELU, a training step captured with ``python -m explorer run --fresh --json``)
and from graphs built here: every picture's DOT text, plain and folded (a family of repeated layers, a big
family, a big graph of no modules, a graph whose user line holds quotes and backslashes), and every folded-structure
block of the view model (the member diffs, their titles and counts) with each compilation's summary lines. The
pictures and diffs drawn now must be those, text for text.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from explorer.capturing.model import FxGraph, FxNode, SourceLoc
from explorer.capturing.parse_fx import parse_graph
from explorer.present import fold_picture
from explorer.present.graph_dot import graph_dot
from explorer.present.structure_view import structure_for
from explorer.report import Report
from explorer.stages import STAGES
from explorer.structure import compilation_structure

DATA = Path(__file__).parent / "data"
GOLDEN = json.loads(gzip.decompress((DATA / "pictures_v4.json.gz").read_bytes()))


def plain(fx: FxGraph) -> str:
    return graph_dot(fx.nodes)


def _reports() -> dict[str, Report]:
    out = {"v2": Report.load(DATA / "report_v2.json"),
           "v3": Report.from_json((DATA / "merged_v3.json").read_text(encoding="utf-8")),
           "v4": Report.from_json(gzip.decompress((DATA / "report_v4.json.gz").read_bytes()).decode("utf-8"))}
    out["v3 rank 1"] = out["v3"].rank(1)
    return out


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    return _reports()


def _graphs(report: Report):
    for comp in report.capture.compilations:
        for st in STAGES:
            fx = st.content(comp) if st.kind == "graph" else None
            if isinstance(fx, FxGraph):
                yield comp, st.id, fx


def pictures(report: Report) -> dict[str, str]:
    """Every picture of the report's graph stages, as the views draw them: ``"CID STAGE"`` a plain one,
    ``"CID STAGE KEY"`` each picture of a folded one."""
    out = {}
    for comp, stage, fx in _graphs(report):
        folded = fold_picture.fold(fx, structure_for(report, comp), stage)
        if folded is None:
            out[f"{comp.compile_id} {stage}"] = plain(fx)
        else:
            out.update({f"{comp.compile_id} {stage} {key}": dot for key, dot in folded.dots.items()})
    return out


def structure_blocks(report: Report) -> list:
    """Every folded-structure block (``cx-rep``: outlines, member diffs, guard groups, launches) of the view model,
    and each compilation's summary lines."""
    from explorer.present.viewmodel import build

    out: list = []

    def walk(b):
        if isinstance(b, dict):
            if "cx-rep" in str(b.get("cls", "")):
                out.append(b)
                return
            for v in b.values():
                walk(v)
        elif isinstance(b, list):
            for v in b:
                walk(v)

    for c in build(report)["compilations"]:
        walk(c.get("panes"))
        out.append(c.get("repeats"))
    return json.loads(json.dumps(out, ensure_ascii=False))


@pytest.mark.parametrize("name", ["v2", "v3", "v3 rank 1", "v4"])
def test_a_reports_pictures_are_drawn_as_before(reports, name):
    got, want = pictures(reports[name]), GOLDEN["pictures"][name]
    assert list(got) == list(want)
    for key in want:
        assert got[key] == want[key], key


def test_every_small_graph_is_drawn_plain_as_its_stored_text_was(reports):
    want = GOLDEN["pictures"]["plain of every small graph"]
    got = {f"{name} {comp.compile_id} {stage}": plain(fx) for name, r in reports.items()
           for comp, stage, fx in _graphs(r) if len(fx.nodes) <= fold_picture.PLAIN_MAX}
    assert got == want


def test_a_user_line_of_quotes_and_backslashes_is_drawn_as_before():
    assert plain(parse_graph(GOLDEN["evil_code"])) == GOLDEN["pictures"]["evil plain"][""]


def test_families_and_big_graphs_fold_to_the_same_pictures():
    from test_structure import _stack

    for name, acts in (("stack 5 relu 1 tanh", ["relu"] * 5 + ["tanh"]), ("stack 300 relu", ["relu"] * 300)):
        comp = _stack(acts)
        assert fold_picture.fold(comp.graph, compilation_structure(comp), "graph").dots == GOLDEN["pictures"][name]
    loc = SourceLoc("/u/f.py", 3, "f")
    nodes = [FxNode("x", "placeholder", "x")] + [FxNode(f"n{i}", "call_function", "torch.sin", (f"n{i - 1}",) if i
                                                        else ("x",), "f32[4]", loc) for i in range(900)]
    folded = fold_picture.fold(FxGraph(code="", num_nodes=len(nodes), nodes=tuple(nodes)), None, "graph")
    assert folded.dots == GOLDEN["pictures"]["900 by position"]


@pytest.mark.parametrize("name", ["v2", "v3", "v3 rank 1", "v4"])
def test_a_reports_member_diffs_read_as_before(reports, name):
    got, want = structure_blocks(reports[name]), GOLDEN["diffs"][name]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a == b


def test_a_version_4_diffs_text_reads_into_hunks_that_write_it_back():
    """Every form version 4 wrote: a one-line range (``-1``), an empty one (``-6,0``), a cut diff, and the sentence
    of members alike but for their class."""
    from explorer.present.member_diff import CLASS_ONLY, diff_lines
    from explorer.structure.model import ListingHunk, MemberGroup
    from explorer.upgrade import _hunks

    texts = [["@@ -1 +1,2 @@", "-a: x() -> f32", "+a: y() -> f32", "+b: z() -> f32"],
             ["@@ -6,0 +7,2 @@", "+c: x() -> f32", "+d: x() -> f32", "@@ -9,3 +11,2 @@", " e", "-f", " g"],
             ["@@ -3,2 +3,2 @@", " h", "-i", "… 7 more diff lines"],
             [CLASS_ONLY]]
    for text in texts:
        hunks, cut = _hunks(text)
        g = MemberGroup(("1",), 3, tuple(ListingHunk(**{**h, "lines": tuple(h["lines"])}) for h in hunks),
                        diff_cut=cut)
        assert [line for line, _ in diff_lines(g)] == text
