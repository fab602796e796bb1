"""The explorer view: header, compile-id picker, two panes with stage pickers, lazy panes."""

import time

import pytest

pytest.importorskip("ipywidgets")

import explorer.widget as widget_mod  # noqa: E402
from explorer.capturing.model import (  # noqa: E402
    Bytecode, CaptureData, Compilation, FxGraph, Frame, GraphBreak, Kernel)
from explorer.present.html import render_fragment, stage_html  # noqa: E402
from explorer.present.text import summary  # noqa: E402
from explorer.widget import PRESETS, ExplorerView, NotebookReport  # noqa: E402

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
XSS = "<img src=x onerror=alert(1)>"


def _all_html(w):
    """Every HTML string under a widget tree (what the front end would insert)."""
    import ipywidgets

    out = []
    if isinstance(w, ipywidgets.HTML):
        out.append(w.value)
    for child in getattr(w, "children", ()):
        out.extend(_all_html(child))
    return out


def _parts(view):
    root = view.widget()
    header, controls, panes = root.children
    picker = controls.children[0]
    buttons = controls.children[1:]
    (lbox, rbox) = panes.children
    return header, picker, buttons, lbox.children, rbox.children


def test_bundle_carries_widget_static_html_and_text(breaks_report):
    bundle = ExplorerView(breaks_report.data)._repr_mimebundle_()
    assert bundle[WIDGET_MIME]["model_id"]
    assert bundle["text/html"] == render_fragment(breaks_report.data)
    assert bundle["text/plain"] == summary(breaks_report.data)


def test_header_and_compile_picker(breaks_report):
    data = breaks_report.data
    header, picker, buttons, _, _ = _parts(ExplorerView(data))
    for word in ("compilations", "graphs", "graph breaks", "recompiles", "kernels", "compile time",
                 data.device, data.torch_version):
        assert word in header.value, word
    assert [label for label, _ in picker.options] == [c.label for c in data.compilations]
    assert {b.description for b in buttons} == set(PRESETS)


def test_default_panes_compare_original_and_rewritten_bytecode(breaks_report):
    data = breaks_report.data
    _, _, _, (lpick, lhtml), (rpick, rhtml) = _parts(ExplorerView(data))
    assert (lpick.value, rpick.value) == ("original_bytecode", "rewritten_bytecode")
    comp = data.compilations[0]
    assert stage_html(comp, "original_bytecode") in lhtml.value
    assert stage_html(comp, "rewritten_bytecode") in rhtml.value
    assert "overflow:auto" in lhtml.value and "max-height" in lhtml.value  # long text scrolls in the pane


def test_panes_render_lazily_and_once(breaks_report, monkeypatch):
    calls = []
    real = widget_mod.stage_html
    monkeypatch.setattr(widget_mod, "stage_html", lambda comp, key, **kw: calls.append(key) or real(comp, key, **kw))
    view = ExplorerView(breaks_report.data)
    _, _, _, (lpick, lhtml), _ = _parts(view)
    assert sorted(calls) == ["original_bytecode", "rewritten_bytecode"]  # only what is shown
    lpick.value = "guards"
    assert calls[-1] == "guards" and stage_html(breaks_report.data.compilations[0], "guards") in lhtml.value
    lpick.value = "original_bytecode"
    lpick.value = "guards"
    assert calls.count("guards") == 1 and calls.count("original_bytecode") == 1  # cached


def test_picking_a_compilation_updates_panes_and_kernel_entries(breaks_report):
    data = breaks_report.data
    with_kernels = next(i for i, c in enumerate(data.compilations) if c.kernels)
    view = ExplorerView(data)
    _, picker, _, (lpick, lhtml), _ = _parts(view)
    picker.value = with_kernels
    comp = data.compilations[with_kernels]
    assert stage_html(comp, "original_bytecode") in lhtml.value
    kernel_keys = [k for _, k in lpick.options if k.startswith("kernel:")]
    assert len(kernel_keys) == len(comp.kernels)
    lpick.value = kernel_keys[0]
    assert comp.kernels[0].name in lhtml.value
    # a compilation without that kernel: the pane falls back instead of showing nothing
    without = next((i for i, c in enumerate(data.compilations) if not c.kernels), None)
    if without is not None:
        picker.value = without
        assert lpick.value == "kernels" and lhtml.value


def test_preset_fx_graph_vs_kernels(breaks_report):
    data = breaks_report.data
    view = ExplorerView(data)
    _, picker, buttons, (lpick, _), (rpick, rhtml) = _parts(view)
    i = next(i for i, c in enumerate(data.compilations) if c.kernels)
    picker.value = i
    button = next(b for b in buttons if b.description == "FX graph vs kernels")
    button.click()
    assert (lpick.value, rpick.value) == ("graph", "kernels")
    assert stage_html(data.compilations[i], "kernels") in rhtml.value


def test_missing_stage_says_why(module_report):
    view = ExplorerView(module_report.data)
    html = view.pane_html(0, "aot_backward")  # inference: there is no backward graph
    assert "cx-missing" in html


def test_no_compilations_says_so():
    data = CaptureData(torch_version="2.13", device="cpu", python_version="3.11")
    root = ExplorerView(data).widget()
    assert "No compilation happened" in "".join(_all_html(root))


def test_notebook_report_displays_as_the_view(module_report):
    bundle = NotebookReport(module_report.data)._repr_mimebundle_()
    assert WIDGET_MIME in bundle and "text/html" in bundle


def _hostile_data():
    comp = Compilation(
        compile_id="0/0", frame=Frame(name=XSS, filename=XSS, lineno=1), status="compiled",
        original_bytecode=Bytecode(name=XSS, filename=XSS, firstlineno=1, listing=XSS, source=f"s = '{XSS}'"),
        graph=FxGraph(code=f"# {XSS}\n", num_nodes=1),
        graph_break=GraphBreak(reason=XSS, filename=XSS, lineno=1, source_line=XSS),
        kernels=(Kernel(name="k0", language="cpp", source=f"// {XSS}"),),
        failure=XSS)
    return CaptureData(torch_version="2.13", device=XSS, python_version="3.11", compilations=(comp,), error=XSS)


def test_user_strings_are_escaped_everywhere():
    data = _hostile_data()
    view = ExplorerView(data)
    bundle = view._repr_mimebundle_()
    assert XSS not in bundle["text/html"]
    for key in [k for _, k in view.stage_options(0)]:
        view.select(left=key)
    assert all(XSS not in h for h in _all_html(view.widget()))
    assert all(XSS not in h for h in view._cache.values())
    assert "&lt;img" in view.pane_html(0, "source")


def _big_data(nodes=1500, kernels=100):
    code = "".join(f"    add_{i}: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(add_{i - 1}, 1)"
                   f"  # File: model.py:{i % 300} in forward\n" for i in range(nodes))
    graph = FxGraph(code=f"def forward(self, x):\n{code}    return (add_{nodes - 1},)\n", num_nodes=nodes)
    ks = tuple(Kernel(name=f"cpp_fused_add_{i}", language="cpp", graph_kind="inference",
                      source="extern \"C\" void kernel(const float* in_ptr0, float* out_ptr0)\n{\n"
                             + "    out_ptr0[0] = in_ptr0[0] + 1;\n" * 40 + "}\n") for i in range(kernels))
    comp = Compilation(compile_id="0/0", frame=Frame(name="forward", filename="model.py", lineno=1),
                       status="compiled", graph=graph, kernels=ks,
                       original_bytecode=Bytecode(name="forward", filename="model.py", firstlineno=1,
                                                  listing="  1           0 RESUME 0\n" * 400),
                       rewritten_bytecode=Bytecode(name="forward", filename="model.py", firstlineno=1,
                                                   listing="  1           0 RESUME 0\n" * 400))
    return CaptureData(torch_version="2.13", device="cpu", python_version="3.11", compilations=(comp,))


def test_big_report_view_opens_fast():
    """1,500 FX nodes and 100 kernels: building the widget renders two panes, not everything."""
    view = ExplorerView(_big_data())
    t0 = time.perf_counter()
    view.widget()
    build_s = time.perf_counter() - t0
    assert len(view._cache) == 2
    assert build_s < 1.0, f"widget build took {build_s:.2f} s"
    t0 = time.perf_counter()
    view.select(left="graph", right="kernels")
    switch_s = time.perf_counter() - t0
    print(f"\nbig report: widget build {build_s * 1000:.0f} ms, FX graph + kernels panes {switch_s * 1000:.0f} ms")


# ---- the live status line (explorer/progress.py) ----

class _FakeHandle:
    def __init__(self):
        self.shown = []

    def update(self, obj):
        self.shown.append(obj._repr_mimebundle_()["text/plain"] if hasattr(obj, "_repr_mimebundle_") else obj)


def test_progress_line_follows_torch_events_ticks_and_is_replaced(monkeypatch):
    import logging

    from explorer import progress as progress_mod
    from explorer.capturing import torch_compat
    from explorer.capturing.session import CaptureSession

    handle = _FakeHandle()
    monkeypatch.setattr(progress_mod, "_display", lambda obj: handle)
    trace = torch_compat.trace_logger()
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

    from explorer.capturing import torch_compat

    session = CaptureSession()
    with session, progress_mod.Progress(tick_s=None, session=session):
        record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
        record.metadata = {"artifact": {"name": "dynamo_graph_break_reason"}, "frame_id": 1,
                           "frame_compile_id": 2, "attempt": 1}
        record.payload = "Graph break in user code at f.py:3"
        torch_compat.trace_logger().handle(record)
    assert any("graph break [1/2_1]" in s for s in handle.shown)


def test_progress_never_raises_without_a_front_end(monkeypatch):
    from explorer import progress as progress_mod
    from explorer.capturing.raw import RawEvent

    monkeypatch.setattr(progress_mod, "_display", lambda obj: None)
    with progress_mod.Progress() as p:
        p.on_event(RawEvent(1, "dynamo_start", None, {"dynamo_start": {}}))
    assert p.finish("x") is False
