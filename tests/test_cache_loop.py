"""How the pieces run: the cache-and-guard loop of a frame, beside the frame's own entries read live.

At the data boundary: a capture reads each compiled frame's cache from its code object (``Compilation.frame_cache``),
in the order Dynamo's frame evaluator tries it; the pane's pseudo-code names those entries with their guard counts,
in every output; a cell's entries are read before the explorer drops them; a report with no reading (a trace) says
what it cannot tell.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from explorer.capturing.model import CacheEntry, FrameCache
from explorer.present import html, loop_view, text
from explorer.present import viewmodel as vm
from explorer.report import Report
from explorer.stages import BY_ID, STAGES

V2 = Path(__file__).parent / "data" / "report_v2.json"


def _recompiled(x):
    y = x.sin() * 2
    print("tick")  # a graph break: the rest is a resume function, a frame of its own
    return y.cos()


@pytest.fixture(scope="module")
def recompile_report():
    """One frame compiled twice (a new dtype), each with a graph break: two entries in each frame's cache."""
    import torch

    import explorer

    torch._dynamo.reset()
    try:
        compiled = torch.compile(_recompiled, backend="eager")
        with explorer.capture() as report:
            compiled(torch.randn(4))
            compiled(torch.randn(4, dtype=torch.float64))
        return report
    finally:
        torch._dynamo.reset()


def _loop_rows(pane):
    return next(b for b in pane if b.get("cls") == "cx-loop")["rows"]


def _row_text(pane, start):
    return next(r["text"] for r in _loop_rows(pane) if r["text"].strip().startswith(start))


def test_a_recompiled_frame_has_two_live_entries_newest_first(recompile_report):
    first, second = (recompile_report.compilation(cid) for cid in ("0/0", "0/1"))
    for comp in (first, second):
        cache = comp.frame_cache
        assert [e.compile_id for e in cache.entries] == ["0/1", "0/0"]
        assert {e.backend for e in cache.entries} == {"eager"} and cache.recompile_limit == 8
        assert cache.read_at == "when the capture ended"
    resume = recompile_report.compilation("1/0")  # the resume function is a frame with a cache of its own
    assert [e.compile_id for e in resume.frame_cache.entries] == ["1/1", "1/0"]


def test_the_pseudo_code_names_the_frames_entries_with_their_guard_counts(recompile_report):
    comp = recompile_report.compilation("0/1")
    n_new, n_old = len(comp.guards), len(recompile_report.compilation("0/0").guards)
    assert n_new and n_old
    pane = vm.compilation(comp, recompile_report)["panes"]["cache_loop"]
    assert "_recompiled's cache: 2 entries [0/1, 0/0]" in _row_text(pane, "entries = ")
    assert f"0/1 (this one): {n_new} guards, then 0/0: {n_old} guards" in _row_text(pane, "if entry.guards(frame):")
    assert "2 of 8" in _row_text(pane, "if too_many(")
    assert "resume function" in _row_text(pane, "return run(entry.code")
    entries = next(b for b in pane if b.get("cls") == "cx-entries")["rows"]
    assert [r["go"] for r in entries] == [{"cid": "0/1", "stage": "guards"}, {"cid": "0/0", "stage": "guards"}]
    calls = next(b for b in pane if b["t"] == "list")["items"]
    assert calls[0]["text"].endswith("compiled 0/0") and "tried 0/0 failed: dtype of x" in calls[1]["text"]


def test_the_loop_stage_comes_before_the_guards_and_shows_in_every_output(recompile_report):
    ids = [s.id for s in STAGES]
    assert ids.index("cache_loop") == ids.index("guards") - 1
    comp = recompile_report.compilation("0/1")
    assert BY_ID["cache_loop"].present(comp)
    said = repr(recompile_report.stage("cache_loop", "0/1"))  # the text
    assert "How the pieces run" in said and "if entry.guards(frame):" in said and "0/1 (this one)" in said
    page = html.stage_html(comp, "cache_loop", report=recompile_report)  # the static copy
    assert "if entry.guards(frame):" in page and "0/1 (this one)" in page
    model = vm.build(recompile_report)  # the widget and the page draw the model's blocks
    view = next(c for c in model["compilations"] if c["cid"] == "0/1")
    assert "cache_loop" in view["present"] and view["panes"]["cache_loop"]
    again = Report.from_json(recompile_report.to_json())  # the JSON keeps the reading
    assert again.compilation("0/1").frame_cache == comp.frame_cache
    assert text.stage_text(again, BY_ID["cache_loop"], again.compilation("0/1")) == \
        text.stage_text(recompile_report, BY_ID["cache_loop"], comp)


def test_a_resume_function_says_who_calls_it(recompile_report):
    pane = vm.compilation(recompile_report.compilation("1/0"), recompile_report)["panes"]["cache_loop"]
    intro = pane[0]["r"]
    assert any("a resume function" in str(r) for r in intro) and "0/0, 0/1" in json.dumps(intro)


def test_the_order_is_the_caches_not_the_compile_order():
    """A hit moves its entry to the front: the pane follows what was read, and names an entry it has no
    compilation of."""
    report = Report.from_json(V2.read_text(encoding="utf-8"))
    cache = FrameCache((CacheEntry("0/0", "breaks", "inductor"), CacheEntry("0/1", "breaks", "inductor"),
                        CacheEntry("7/3", "breaks", "inductor")), "when the capture ended", 8)
    comps = tuple(dataclasses.replace(c, frame_cache=cache) if c.frame.name == "breaks" else c
                  for c in report.capture.compilations)
    report = dataclasses.replace(report, capture=dataclasses.replace(report.capture, compilations=comps))
    pane = vm.compilation(report.compilation("0/1"), report)["panes"]["cache_loop"]
    assert "0/0: 11 guards, then 0/1 (this one): 12 guards, then 7/3: guards not in this report" in \
        _row_text(pane, "if entry.guards(frame):")
    rows = next(b for b in pane if b.get("cls") == "cx-entries")["rows"]
    assert "compiled before this capture" in rows[2]["c"][4] and "go" not in rows[2]
    assert loop_view.DROPPED_BEFORE not in [b.get("r") for b in pane]
    explored = dataclasses.replace(report, entry="explore")  # explore() changed the cache first: the pane says so
    pane = vm.compilation(explored.compilation("0/1"), explored)["panes"]["cache_loop"]
    assert pane[1]["r"] == loop_view.DROPPED_BEFORE


def test_without_a_reading_the_pane_says_what_it_cannot_tell():
    report = Report.from_json(V2.read_text(encoding="utf-8"))  # saved before the cache was read
    comp = report.compilation("0/1")
    pane = vm.compilation(comp, report)["panes"]["cache_loop"]
    assert pane[1]["r"] == loop_view.NOT_READ
    assert "[0/1, 0/0]" in _row_text(pane, "entries = ")  # the frame's compilations, newest first
    opened = dataclasses.replace(report, entry="open")  # read from a trace
    pane = vm.compilation(comp, opened)["panes"]["cache_loop"]
    assert pane[1]["r"] == loop_view.FROM_A_TRACE and "moved to the front" in loop_view.FROM_A_TRACE


def test_a_cells_entries_are_read_before_the_explorer_drops_them(ip):
    report = ip.run_cell_magic("compile", "--backend eager -q -o --no-time", "y = torch.ones(3).sin() + 1")
    (comp,) = report.compilations
    cache = comp.frame_cache
    assert [e.compile_id for e in cache.entries] == [comp.compile_id]
    assert cache.read_at.startswith("when the cell ended")
    assert "1 entry" in _row_text(vm.compilation(comp, report)["panes"]["cache_loop"], "entries = ")
