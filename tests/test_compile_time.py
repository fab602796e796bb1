"""Where the compile time went: a live capture keeps torch's compile-time spans (its ``chromium_event`` records) as
each compilation's phases, an opened TORCH_TRACE gives the same, and the Compile time pane names the biggest first.

One child process captures a small program with ``explore()`` while ``TORCH_TRACE`` writes torch's own trace of the
very same compile: the trace's records are the ground truth the live phases are checked against (names and
nesting; durations are the same spans, but the test does not rely on that).
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import subprocess
import sys

import pytest

from explorer.capturing.model import Phase
from explorer.capturing.phases import MAX_DEPTH, PASS
from explorer.present import phases_view, run_time_view, viewmodel
from explorer.present.text import summary
from explorer.report import Report
from explorer.traces import open_trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = r"""
import json, sys
import torch
import explorer
from explorer.present import viewmodel
torch._inductor.config.cpp.vec_isa_ok = True
def fn(x, y):
    z = torch.relu(x @ y).sum(0) * 2
    torch._dynamo.graph_break()  # two compilations: two rows of the run's timeline
    return torch.sin(z) + 1
# the default capture (torch's caches on) in an empty cache folder: every lookup a cold miss
report = explorer.explore(fn, torch.randn(8, 8), torch.randn(8, 8), why_slow=True, json=sys.argv[1])
out = []
for c in report.compilations:
    pane = viewmodel.compilation(c, report)["panes"].get("compile_time")
    out.append({"key": c.compile_id, "phases": [[p.name, p.depth, p.parent, p.seconds] for p in c.phases],
                "pane": pane})
print(json.dumps(out))
"""

@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The live capture's compilations (phases and pane) and the TORCH_TRACE folder of the same compile."""
    trace = tmp_path_factory.mktemp("trace")
    env = dict(os.environ, TORCH_TRACE=str(trace), PYTHONPATH=ROOT,
               TORCHINDUCTOR_CACHE_DIR=str(tmp_path_factory.mktemp("inductor_cache")))
    env.pop("CX_BENCH_NO_PHASES", None)
    done = subprocess.run([sys.executable, "-c", CHILD, str(trace / "live.report")], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), str(trace)


@pytest.fixture(scope="module")
def reports(both):
    """The live report (saved as JSON by the child, read back) and the report of its TORCH_TRACE, opened."""
    _, trace = both
    return Report.load(os.path.join(trace, "live.report")), open_trace(trace)


def spans_in_trace(folder: str) -> dict[str, set[tuple[str, int, str]]]:
    """Torch's begin/end spans in the trace, nested per compile id, read here without the explorer: (name, depth,
    parent) for each, the passes of a pass manager and spans deeper than the explorer keeps left out."""
    out: dict[str, set[tuple[str, int, str]]] = {}
    stacks: dict[str, list[str]] = {}
    for path in glob.glob(os.path.join(folder, "*.log")):
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            if line.startswith("\t") or "{" not in line:
                continue
            meta = json.loads(line[line.index("{"):])
            if "chromium_event" not in meta or meta.get("frame_id") is None:
                continue
            payload = []
            for more in lines[i + 1:]:
                if not more.startswith("\t"):
                    break
                payload.append(more[1:])
            span = json.loads("\n".join(payload))
            key = f"{meta['frame_id']}/{meta['frame_compile_id']}"
            stack = stacks.setdefault(key, [])
            if span["ph"] == "B":
                path_ = stack + [span["name"]]
                if len(path_) <= MAX_DEPTH and not any(n.startswith(PASS) for n in path_):
                    out.setdefault(key, set()).add((span["name"], len(stack), stack[-1] if stack else ""))
                stack.append(span["name"])
            elif span["ph"] == "E" and span["name"] in stack:
                del stack[len(stack) - 1 - stack[::-1].index(span["name"]):]
    return out


def test_a_live_capture_keeps_the_spans_torch_writes_to_its_trace(both):
    live, trace = both
    truth = spans_in_trace(trace)
    assert truth, "torch wrote no spans: the test would prove nothing"
    got = {c["key"]: {(n, d, p) for n, d, p, _ in c["phases"]} for c in live if c["phases"]}
    assert got == truth
    names = {n for c in got.values() for n, _, _ in c}
    assert {"entire_frame_compile", "bytecode_tracing", "backend_compile", "inductor_compile"} <= names
    assert all(s >= 0 for c in live for *_, s in c["phases"])


def test_opening_the_trace_gives_the_same_phases_in_the_pane(both):
    live, trace = both
    report = open_trace(trace)
    for comp in live:
        opened = next(c for c in report.compilations if c.compile_id == comp["key"])
        pane = viewmodel.compilation(opened, report)["panes"]["compile_time"]
        live_pane = comp["pane"]
        assert live_pane is not None, "the live capture has no Compile time pane"

        def names(blocks: list) -> list[str]:
            table = next(b for b in blocks if b["t"] == "table" and b.get("cls") == "cx-phases")
            return [r["text"].split(":")[0].strip() for r in table["rows"]]

        def bars(blocks: list) -> set[str]:
            return {r[0] for r in next(b for b in blocks if b["t"] == "chart")["rows"]}

        assert names(pane) == names(live_pane) and names(pane)
        assert len(bars(pane)) == len(bars(live_pane))


def test_the_pane_names_the_biggest_costs_first(both):
    _, trace = both
    report = open_trace(trace)
    comp = report.compilations[0]
    # begun in this order; their own times: the frame 0.3 s, tracing 0.1 s, the backend 0.4 s, Inductor 0.2 s
    phases = (Phase("entire_frame_compile", 0, 1.0), Phase("bytecode_tracing", 1, 0.1, parent="entire_frame_compile"),
              Phase("backend_compile", 1, 0.6, parent="entire_frame_compile"),
              Phase("inductor_compile", 2, 0.2, parent="backend_compile"))
    pane = viewmodel.compilation(dataclasses.replace(comp, phases=phases), report)["panes"]["compile_time"]
    chart = next(b for b in pane if b["t"] == "chart")
    assert [r[0].split(" · ")[-1] for r in chart["rows"]] == [
        "backend_compile", "entire_frame_compile", "inductor_compile", "bytecode_tracing"]
    assert [round(r[1], 6) for r in chart["rows"]] == [0.4, 0.3, 0.2, 0.1]
    said = next(b for b in pane if b["t"] == "p" and "biggest costs" in b["r"])["r"]
    assert said.index("backend_compile") < said.index("entire_frame_compile") < said.index("inductor_compile")
    real = next(b for b in viewmodel.compilation(comp, report)["panes"]["compile_time"] if b["t"] == "chart")
    values = [r[1] for r in real["rows"] if not r[0].endswith("more phases")]
    assert values == sorted(values, reverse=True)
    assert phases_view.words("backend_compile").endswith("· backend_compile")


def section_of(report: Report) -> dict:
    """The header's "Compile time, the whole run" section."""
    body = viewmodel.header(report)["body"]
    return next(b for b in body if b["t"] == "section" and b["title"].startswith("Compile time, the whole run"))


def test_the_runs_timeline_places_each_compilation_as_the_opened_trace_does(reports):
    live, opened = reports
    rows = {c.compile_id: c for c in live.capture.compilations if c.phases}
    assert len(rows) == 2, "the graph break should make two compilations with spans"
    for c in opened.capture.compilations:
        if c.compile_id in rows:  # the same spans on the same clock: the same place and the same phases
            assert c.phases_began_s == pytest.approx(rows[c.compile_id].phases_began_s, abs=1e-6)
            assert [p.name for p in c.phases] == [p.name for p in rows[c.compile_id].phases]
    began = sorted(rows.values(), key=lambda c: c.phases_began_s)
    assert began[0].phases_began_s == 0.0 and began[1].phases_began_s > 0.0
    for report in (live, opened):
        picture = next(b for b in section_of(report)["body"] if b["t"] == "svg")
        assert picture["links"] == [{"cid": c.compile_id, "stage": "compile_time"} for c in began]
        assert picture["svg"].startswith("<svg") and picture["svg"].count('data-link="') == 2
        assert all(f"[{c.compile_id}]" in picture["svg"] for c in began)
    assert section_of(live)["body"][0]["svg"] == section_of(opened)["body"][0]["svg"]


def test_the_run_names_its_costliest_phases_each_leading_to_its_compilation_or_kernels(reports):
    live, _ = reports
    table = next(b for b in section_of(live)["body"] if b["t"] == "table" and b.get("cls") == "cx-costliest")
    truth = sorted(((c.compile_id, p.name, t) for c in live.capture.compilations
                    for p, t in zip(c.phases, phases_view.own_times(c.phases))), key=lambda r: -r[2])
    first = table["rows"][0]
    assert first["text"].startswith(f"{truth[0][1]} [{truth[0][0]}]")
    for row in table["rows"]:
        name = row["text"].split(" [")[0]
        stage = "kernels" if name in run_time_view.COMPILE_SPANS else "compile_time"
        assert row["go"] == {"cid": row["text"].split("[")[1].split("]")[0], "stage": stage}


def test_the_explorers_own_cost_is_measured_live_and_said_missing_from_a_trace(reports):
    live, opened = reports
    own = live.capture.own_time
    assert own is not None and own.records > 0 and 0 < own.listening_s < live.capture.wall_time_s
    assert own.reading_s > 0 and {s.name for s in live.step_times} >= {"clinic", "lineage"}
    table = next(b for b in section_of(live)["body"] if b["t"] == "table" and b.get("cls") == "cx-own-cost")
    said = " ".join(r["text"] for r in table["rows"])
    assert f"{own.records} records" in said and "chromium_event" in said
    assert opened.capture.own_time is None
    assert any("not in a trace" in b.get("r", "") for b in section_of(opened)["body"] if b["t"] == "p")


def test_why_slow_names_the_top_phase_and_the_cold_misses(reports):
    live, _ = reports
    answer = live.why_slow
    assert answer is not None
    truth = max(((c.compile_id, p.name, t) for c in live.capture.compilations
                 for p, t in zip(c.phases, phases_view.own_times(c.phases))), key=lambda r: r[2])
    assert (answer.top[0].compile_id, answer.top[0].name) == truth[:2]
    assert [p.seconds for p in answer.top] == sorted((p.seconds for p in answer.top), reverse=True)
    assert answer.total_s >= answer.wall_s >= answer.compile_s > 0
    misses = {(m.compile_id, m.cache) for m in answer.misses}
    cold = {(c.compile_id, k.cache) for c in live.capture.compilations for k in c.caches if k.outcome == "miss"}
    assert ("0/0", "fx_graph") in cold and misses == cold  # an empty cache folder: the graph cache missed
    text = summary(live).split("\n")
    assert text[1].startswith("Why it took"), text[:3]  # right under the headline, before the compilations
    said = []
    for line in text[2:]:  # the answer's lines: indented under its heading
        if not line.startswith("  "):
            break
        said.append(line.strip())
    assert any(line.startswith(f"{truth[1]} [{truth[0]}]") for line in said), said
    assert any("fx_graph cache missed" in line and "[0/0]" in line for line in said), said


def test_the_magic_prints_the_answer_and_opens_the_view_on_the_slowest_compile_time_pane(reports):
    from explorer.magic import open_on_compile_time, why_slow_text

    live, _ = reports
    text = why_slow_text(live)
    assert text.startswith("Why it took") and live.why_slow.top[0].name in text

    class View:
        def select(self, **kw):
            self.selected = kw

    view = View()
    open_on_compile_time(view, live)
    spent = [sum(p.seconds for p in c.phases if p.depth == 0) for c in live.capture.compilations]
    assert view.selected == {"comp_index": spent.index(max(spent)), "left": "compile_time"}


def test_the_timeline_escapes_every_name_it_draws():
    from explorer.present.timeline_svg import timeline

    evil = "<img src=x onerror=alert(1)>"
    svg = timeline([{"label": f"[0/0] {evil}", "tip": evil, "link": 0,
                     "bars": [(0.0, 1.0, 0, '"><script>', f"{evil}: 1 s")]}], title=evil, span_s=1.0, legend=evil)
    assert "<img" not in svg and "<script" not in svg and "&lt;img" in svg
