"""The notebook view: one anywidget widget per view, its payload, its kernel-only actions.

What the front end draws from the payload is checked in a real browser
(test_browser.py); here, the Python side: the mime bundle, the widget's state,
the actions the front end can ask the kernel for, and the widget count.
"""

import json
import re
import time

import pytest

pytest.importorskip("anywidget")

import ipywidgets
from html_parts import stage_keys

from explorer.capturing.model import Bytecode, CaptureData, Compilation, Frame, FxGraph, GraphBreak, Kernel
from explorer.present.context import kernel_refs
from explorer.present.html import stage_html
from explorer.present.page import module_text
from explorer.present.text import summary
from explorer.stages import STAGES
from explorer.widget import ACTIONS, ExplorerView, widget_class

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
XSS = "<img src=x onerror=alert(1)>"


def live_widgets():
    from ipywidgets.widgets import widget as w

    # where ipywidgets keeps its live widgets: _instances (8.1+), Widget._active_widgets (8.0), Widget.widgets (7)
    for found in (getattr(w, "_instances", None), getattr(w.Widget, "_active_widgets", None),
                  getattr(w.Widget, "widgets", None)):
        if found is not None:
            return len(found)
    raise AssertionError(f"ipywidgets {ipywidgets.__version__}: no registry of live widgets found")


def payload_of(view):
    return view.payload()


def test_bundle_carries_widget_static_html_and_text(breaks_report):
    view = ExplorerView(breaks_report.data)
    bundle = view._repr_mimebundle_()
    assert bundle[WIDGET_MIME]["model_id"] == view.widget().model_id
    assert bundle["text/html"] == view.static_html()
    assert bundle["text/html"].startswith('<div class="cx-report">') and "<script" not in bundle["text/html"]
    # the static copy runs no `dot` (quick): its only pictures are drawn in Python (compile time's phases as bars,
    # the run's timeline)
    assert all(re.search(r'class="cx-chart( cx-timeline)?"', svg) for svg in re.findall(r"<svg\b[^>]*>",
                                                                                        bundle["text/html"]))
    assert bundle["text/plain"] == summary(breaks_report.data)


def test_one_view_is_one_widget(breaks_report):
    before = live_widgets()
    view = ExplorerView(breaks_report.data)
    view._repr_mimebundle_()
    view._repr_mimebundle_()  # displayed twice: still the same widget
    assert live_widgets() - before == 1
    w = view.widget()
    assert isinstance(w, widget_class()) and w.layout is None  # no Layout widget either
    assert w._esm == module_text()  # the built front end, the page's too (tests/test_frontend_build.py)


def test_payload_is_the_report_with_the_registry(breaks_report):
    data = breaks_report.data
    view = ExplorerView(breaks_report)
    p = payload_of(view)
    assert p["stages"] == [s.to_dict() for s in STAGES]
    assert [c["compile_id"] for c in p["report"]["capture"]["compilations"]] == \
        [c.compile_id for c in data.compilations]
    assert [v["kernels"] for v in p["views"]] == [kernel_refs(c) for c in data.compilations]
    assert p["pictures_lazy"] is True and p["pictures"] == {}
    assert abs(p["made_at"] - view.made_at) < 1e-6 and view.widget().made_at == view.made_at
    recompile = next(i for i, c in enumerate(data.compilations) if c.recompile_reason)
    assert p["views"][recompile]["previous"] == data.compilations[recompile - 1].compile_id


def test_payload_travels_as_bytes_gzipped_when_big(breaks_report):
    import gzip

    from explorer.widget import GZIP_OVER, decode_payload, encode_payload

    small, enc = encode_payload('{"a": "\u00e9"}')
    assert enc == "utf-8" and decode_payload(small, enc) == {"a": "\u00e9"}
    text = '{"a": "' + "x" * (GZIP_OVER + 1) + '"}'
    big, enc = encode_payload(text)
    assert enc == "gzip" and gzip.decompress(big).decode() == text and len(big) < GZIP_OVER
    w = ExplorerView(breaks_report.data).widget()
    assert isinstance(w.payload, bytes) and w.payload_encoding in ("utf-8", "gzip")


def test_pictures_are_drawn_by_the_kernel_on_request_into_the_widgets_state(breaks_report):
    """Drawn pictures land in the widget's ``pictures`` trait: the view redraws from it, and a notebook saved with
    its widgets' state (or a page made from it) still has them where no kernel runs."""
    from explorer.present import graphviz_svg

    view = ExplorerView(breaks_report.data)
    p = payload_of(view)
    ids = sorted({pid for v in p["views"] for pid in v["pictures"].values()})
    assert ids and view.widget().pictures == {}
    sent = []
    view.widget().send = lambda content, buffers=None: sent.append(content)
    view._on_msg(view.widget(), {"type": "action", "id": 7, "action": "pictures", "args": {"ids": ids[:2]}}, [])
    (reply,) = sent
    assert reply["id"] == 7 and reply["ok"] is True and reply["count"] == len(ids[:2])
    drawn = view.widget().pictures
    assert sorted(drawn) == ids[:2]
    if graphviz_svg.dot_program() is not None:
        assert all(s.startswith("<svg") for s in drawn.values())
    state = view.widget().get_state()  # what a saved notebook's widget state holds
    assert sorted(state["pictures"]) == ids[:2]


def test_ping_answers_with_the_actions_this_host_can_do(breaks_report, monkeypatch):
    """The view enables kernel actions only on this answer; "why" needs the notebook's variables."""
    from explorer import hosts

    view = ExplorerView(breaks_report.data)
    sent = []
    view.widget().send = lambda content, buffers=None: sent.append(content)
    monkeypatch.setattr(hosts, "namespace", lambda: {"f": print})
    view._on_msg(view.widget(), {"type": "action", "id": 3, "action": "ping", "args": {}}, [])
    monkeypatch.setattr(hosts, "namespace", lambda: None)
    view._on_msg(view.widget(), {"type": "action", "id": 4, "action": "ping", "args": {}}, [])
    assert [(r["id"], r["ok"], r["actions"]) for r in sent] == [(3, True, ["why", "save_html"]),
                                                                 (4, True, ["save_html"])]


def test_why_evaluates_the_call_in_the_hosts_namespace(breaks_report, monkeypatch):
    """In marimo there is no IPython shell: the call is evaluated in the notebook's own variables all the same."""
    import torch

    from explorer import hosts

    f = torch.compile(lambda x: x.sin(), backend="eager")
    f(torch.randn(4))
    monkeypatch.setattr(hosts, "namespace", lambda: {"f": f, "torch": torch})
    view = ExplorerView(breaks_report.data)
    same = ACTIONS["why"](view, {"expr": "f(torch.randn(4))"})["text"]
    other = ACTIONS["why"](view, {"expr": "f(torch.randn(4, 4))"})["text"]
    assert "reused" in same and "recompile" in other, (same, other)


def test_unknown_or_failing_actions_answer_with_text(breaks_report, monkeypatch):
    view = ExplorerView(breaks_report.data)
    sent = []
    view.widget().send = lambda content, buffers=None: sent.append(content)
    view._on_msg(view.widget(), {"type": "action", "id": 1, "action": "no_such", "args": {}}, [])
    monkeypatch.setitem(ACTIONS, "boom", lambda v, a: 1 / 0)
    view._on_msg(view.widget(), {"type": "action", "id": 2, "action": "boom", "args": {}}, [])
    view._on_msg(view.widget(), {"not": "ours"}, [])
    assert [(r["id"], r["ok"]) for r in sent] == [(1, False), (2, False)]
    assert "no such action" in sent[0]["text"] and "ZeroDivisionError" in sent[1]["text"]


def test_save_html_action_writes_the_page(breaks_report, tmp_path):
    view = ExplorerView(breaks_report.data)
    reply = ACTIONS["save_html"](view, {"path": str(tmp_path / "r.html")})
    text = (tmp_path / "r.html").read_text()
    assert reply["path"] == str(tmp_path / "r.html") and text.startswith("<!doctype html>")


def test_select_sets_the_panes_from_python(breaks_report):
    view = ExplorerView(breaks_report.data)
    view.select(comp_index=1, left="graph", right="kernels")
    sel = view.widget().selection
    assert sel["comp"] == breaks_report.data.compilations[1].compile_id
    assert (sel["left"], sel["right"], sel["from"]) == ("graph", "kernels", "python")
    n = sel["n"]
    view.select(left="graph")
    assert view.widget().selection["n"] == n + 1  # the same choice again still reaches the front end


def test_static_pane_html_and_pickers_for_other_outputs(breaks_report):
    data = breaks_report.data
    i = next(i for i, c in enumerate(data.compilations) if c.kernels)
    keys = [k for k, _ in stage_keys(data.compilations[i])]
    assert keys[: len(STAGES)] == [{"stage": s.id} for s in STAGES]
    assert keys[len(STAGES):] == [{"stage": "kernels", "kernel": r} for r in kernel_refs(data.compilations[i])]
    assert "cx-missing" in stage_html(data.compilations[0], "aot_inference", report=breaks_report)


def test_no_compilations_still_makes_a_view():
    data = CaptureData(torch_version="2.13", device="cpu", python_version="3.11")
    view = ExplorerView(data)
    bundle = view._repr_mimebundle_()
    assert WIDGET_MIME in bundle and "No compilations were captured" in bundle["text/html"]
    assert payload_of(view)["report"]["capture"]["compilations"] == []


def test_a_report_displays_as_the_view_where_widgets_reach_a_front_end(module_report, monkeypatch):
    """An explore() or capture() report, and %%compile -o's, displayed in a cell: the interactive view, with the
    static copy and the text in the same bundle; without a host (a script, nbconvert's text) those two only."""
    from explorer import hosts
    from explorer.report import Report

    report = Report(capture=module_report.data)
    plain = report._repr_mimebundle_()
    assert WIDGET_MIME not in plain and set(plain) == {"text/plain", "text/html"}
    monkeypatch.setattr(hosts, "widgets_live", lambda: True)
    bundle = report._repr_mimebundle_()
    assert bundle[WIDGET_MIME]["model_id"] == report.widget().model_id  # one widget per report
    assert bundle["text/html"].startswith('<div class="cx-report">') and bundle["text/plain"] == plain["text/plain"]
    assert report._repr_mimebundle_()[WIDGET_MIME]["model_id"] == bundle[WIDGET_MIME]["model_id"]
    assert isinstance(report.widget(), widget_class())
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(report)) == report == copy.deepcopy(report)  # the view stays behind


def test_a_notebook_executed_to_be_saved_gets_the_static_copy_as_an_output_of_its_own(breaks_report, monkeypatch):
    """Run by a client that draws nothing (nbclient: ``jupyter nbconvert --execute``), the view's output is the
    widget and the text, and the static copy is displayed as an output of its own: nbconvert's page shows that one
    offline (it drops a widget output's HTML); a style of its own hides it where the widget drew."""
    from explorer import hosts
    from explorer.widget import OfflineCopy

    shown = []
    monkeypatch.setattr(hosts, "display", lambda obj: shown.append(obj) or True)
    monkeypatch.setattr(hosts, "headless", lambda: False)
    view = ExplorerView(breaks_report.data)
    assert "text/html" in view._repr_mimebundle_() and shown == []  # a live front end: one output, as ever
    monkeypatch.setattr(hosts, "headless", lambda: True)
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {WIDGET_MIME, "text/plain"}
    assert len(shown) == 1 and isinstance(shown[0], OfflineCopy)
    html = shown[0]._repr_html_()
    assert html.startswith('<div class="cx-offline-copy"><style>') and view.static_html() in html
    assert ".jp-OutputArea:has(.cxv) .cx-offline-copy" in html and "<script" not in html


def test_widgets_are_live_in_a_kernel_and_where_marimo_put_its_comm_in_place(monkeypatch):
    import comm

    from explorer import hosts

    monkeypatch.setattr(hosts, "name", lambda: None)
    assert not hosts.widgets_live()
    monkeypatch.setattr(hosts, "name", lambda: "jupyter")
    assert hosts.widgets_live()
    monkeypatch.setattr(hosts, "name", lambda: "marimo")
    monkeypatch.setattr(comm, "create_comm", comm._create_comm)  # the comm package's no-op: marimo's is not in place
    assert not hosts.widgets_live()
    monkeypatch.setattr(comm, "create_comm", lambda **kw: None)
    assert hosts.widgets_live()


def _hostile_data():
    comp = Compilation(
        compile_id="0/0", frame=Frame(name=XSS, filename=XSS, lineno=1), status="compiled",
        original_bytecode=Bytecode(name=XSS, filename=XSS, firstlineno=1, listing=XSS, source=f"s = '{XSS}'"),
        graph=FxGraph(code=f"# {XSS}\n", num_nodes=1),
        graph_break=GraphBreak(reason=XSS, filename=XSS, lineno=1, source_line=XSS),
        kernels=(Kernel(name="k0", language="cpp", source=f"// {XSS}"),),
        failure=XSS)
    return CaptureData(torch_version="2.13", device=XSS, python_version="3.11", compilations=(comp,), error=XSS)


def test_user_strings_are_escaped_in_the_static_copy_and_data_in_the_payload():
    data = _hostile_data()
    view = ExplorerView(data)
    bundle = view._repr_mimebundle_()
    assert XSS not in bundle["text/html"] and "&lt;img" in bundle["text/html"]
    for key, _ in stage_keys(data.compilations[0]):
        assert XSS not in stage_html(data.compilations[0], **key, report=view.report)
    p = payload_of(view)  # the front end sets these as text (checked in a browser by test_browser.py)
    assert p["report"]["capture"]["device"] == XSS and p["report"]["capture"]["compilations"][0]["failure"] == XSS


def test_a_big_reports_widget_sends_its_first_view_then_the_rest():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))
    from frontend_report import synthetic
    from frontend_side import unpack_texts

    from explorer.present.payload import FIRST_FIELDS, _compilation_dict, build, build_rest
    from explorer.widget import WIDGET_PACK_OVER, decode_payload

    report = synthetic()
    view = ExplorerView(report)
    first = view.payload()
    comp = first["report"]["capture"]["compilations"][0]
    assert first["deferred"] is True and set(comp) <= FIRST_FIELDS and "source" not in comp["kernels"][0]
    assert set(first["lineage"]["compilations"]["0/0"]["blocks"]) <= {"source:0", "original_bytecode:0",
                                                                      "rewritten_bytecode:0", "graph:0", "guards:0"}
    sent = []
    view.widget().send = lambda content, buffers=None: sent.append((content, buffers))
    view._on_msg(view.widget(), {"type": "action", "id": 3, "action": "rest", "args": {}}, [])
    (reply, buffers), = sent
    assert reply["ok"] and "_buffers" not in reply and len(buffers) == 1
    rest = decode_payload(buffers[0], reply["encoding"])
    assert rest == json.loads(json.dumps(build_rest(report, dots={}, pack_over=WIDGET_PACK_OVER)))
    # the pictures are named by the rest (folding the 2,300-node graphs waited for it: the first view draws the
    # graph's text), and drawn on request
    later = rest["compilations"]["0/0"]["view_pictures"]
    assert first["views"][0]["pictures"] == {} and first["views"][0]["boxes"] == {}
    assert {"graph", "aot_inference", "post_grad_graph"} <= set(later["pictures"]) and later["boxes"]["graph"]
    pid = later["pictures"]["post_grad_graph"]
    assert pid in view._dots and pid not in view.widget().pictures
    view._on_msg(view.widget(), {"type": "action", "id": 4, "action": "pictures", "args": {"ids": [pid]}}, [])
    assert sent[-1][0]["ok"] and view.widget().pictures[pid].lstrip().startswith(("<svg", "<?xml"))
    unpack_texts(rest)  # the front end's reading of the packed texts
    merged = dict(comp, **{k: v for k, v in rest["compilations"]["0/0"].items()
                           if k not in ("kernel_sources", "panes", "view_pictures")})
    for k, src in zip(merged["kernels"], rest["compilations"]["0/0"]["kernel_sources"]):
        k["source"] = src
    unpack_texts(merged)  # the first part's texts travel packed too
    assert merged == json.loads(json.dumps(_compilation_dict(report.capture.compilations[0])))
    assert rest["lineage"]["origins"] == first["lineage"]["origins"]  # one index space for both parts
    # the panes: the first view's in the first part (not the kernels pane, a big report's largest), the others
    # in the rest; together they are the whole view model's, block for block
    whole, _ = build(report, pictures="none")
    first_panes, rest_panes = first["views"][0]["panes"], rest["compilations"]["0/0"]["panes"]
    assert "kernels" not in first_panes and "kernels" in rest_panes and not set(first_panes) & set(rest_panes)
    assert dict(first_panes, **rest_panes) == json.loads(json.dumps(whole["views"][0]["panes"]))


def test_a_big_reports_static_copy_and_text_are_the_same_from_its_first_panes_as_from_all():
    """The widget makes a big report's view model with its first panes only; the static copy (which builds the
    panes it draws) and the text come out exactly as from a model with every pane."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))
    from frontend_report import synthetic

    from explorer.present.html import render_fragment
    from explorer.widget import FALLBACK_BUDGET

    report = synthetic()
    view = ExplorerView(report)
    assert view.defer and "kernels" not in view.model["compilations"][0]["panes"]
    assert view.static_html() == render_fragment(report, pictures=False, budget=FALLBACK_BUDGET)
    assert view.summary() == summary(report)
    assert "Left out of this static copy" in view.static_html()  # the budget ran out: later panes are named


def test_big_report_view_is_quick_and_its_static_copy_small():
    """2,300 FX nodes and 100 kernels: making the widget and the static copy stays well under the 0.3 s target."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))
    from frontend_report import synthetic

    report = synthetic()
    widget_class()  # imports anywidget (once per kernel, not per view)
    t0 = time.perf_counter()
    view = ExplorerView(report)
    bundle = view._repr_mimebundle_()
    made_s = time.perf_counter() - t0
    assert view.widget().payload_encoding == "gzip"
    print(f"\nbig report: widget + static copy in {made_s * 1000:.0f} ms;"
          f" payload {len(view.widget().payload) / 1e6:.2f} MB gzipped,"
          f" static copy {len(bundle['text/html']) / 1e6:.2f} MB")
    assert len(bundle["text/html"]) < 1_000_000 and "Left out of this static copy" in bundle["text/html"]
    assert made_s < 1.0, f"the view took {made_s:.2f} s to make"


# ---- the live status line (explorer/progress.py) ----

class _FakeHandle:
    def __init__(self):
        self.shown = []

    def update(self, obj):
        self.shown.append(obj._repr_mimebundle_()["text/plain"] if hasattr(obj, "_repr_mimebundle_") else obj)


def test_progress_line_follows_torch_events_ticks_and_is_replaced(monkeypatch):
    import logging

    from explorer import progress as progress_mod
    from explorer.capturing import torch_door
    from explorer.capturing.session import CaptureSession

    handle = _FakeHandle()
    monkeypatch.setattr(progress_mod, "_display", lambda obj: handle)
    trace = torch_door.logs.trace_logger()
    record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
    trace.handle(record)  # torch's own lazy trace handler removes itself at the first record without TORCH_TRACE
    handlers_before = list(trace.handlers)
    with progress_mod.Progress(tick_s=0.05) as p:
        with CaptureSession():  # entered after the line, as the magic does: the line follows it
            assert len(trace.handlers) == len(handlers_before) + 1, "the recorder is the one listener"
            record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
            record.metadata = {"dynamo_start": {}, "frame_id": 3, "frame_compile_id": 0}
            trace.handle(record)
            time.sleep(0.3)
    assert trace.handlers == handlers_before
    assert any("Dynamo: tracing bytecode [3/0]" in s for s in handle.shown)
    ticks = [s for s in handle.shown if "Dynamo" in s]
    assert len(ticks) >= 2 and ticks[-1] != ticks[0]  # the elapsed time moved without events
    n = len(handle.shown)
    time.sleep(0.15)
    assert len(handle.shown) == n  # the ticker stopped with the block
    assert p.finish("the view") and handle.shown[-1] == "the view"
    assert not p.finish("again")


def test_progress_follows_the_session_it_is_given(monkeypatch):
    from explorer import progress as progress_mod
    from explorer.capturing.session import CaptureSession

    handle = _FakeHandle()
    monkeypatch.setattr(progress_mod, "_display", lambda obj: handle)
    import logging

    from explorer.capturing import torch_door

    session = CaptureSession()
    with session, progress_mod.Progress(tick_s=None, session=session):
        record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
        record.metadata = {"artifact": {"name": "dynamo_graph_break_reason"}, "frame_id": 1,
                           "frame_compile_id": 2, "attempt": 1}
        record.payload = "Graph break in user code at f.py:3"
        torch_door.logs.trace_logger().handle(record)
    assert any("graph break [1/2_1]" in s for s in handle.shown)


def test_progress_never_raises_without_a_front_end(monkeypatch):
    from explorer import progress as progress_mod
    from explorer.capturing.raw import RawEvent

    monkeypatch.setattr(progress_mod, "_display", lambda obj: None)
    with progress_mod.Progress() as p:
        p.on_event(RawEvent(1, "dynamo_start", None, {"dynamo_start": {}}))
    assert p.finish("x") is False


def test_thirty_runs_make_thirty_widgets_at_most():
    """Issue 11 item 6: a %%compile view is one widget (it used to be 34: 1,020 after 30 runs)."""
    pytest.importorskip("torch")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "explorer")
    shell.run_cell("import torch")
    before = live_widgets()
    with capture_output() as cap:
        for i in range(30):
            assert shell.run_cell(f"%%compile --backend eager --no-time\ny = torch.ones(2) * {i}").success
    views = [o for o in cap.outputs if WIDGET_MIME in o.data]
    assert len(views) == 30  # every run showed its view
    assert live_widgets() - before <= 30
