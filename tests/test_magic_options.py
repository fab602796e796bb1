"""The magic's options reach the pipeline under the same names as explore() and the CLI.

Through IPython's own shell: default timing, --timeit, --compare, --mode, --dynamic,
--fullgraph (the break lands in the report and the error), --json, --capture-only.
"""

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("IPython")

from IPython.utils.capture import capture_output  # noqa: E402

BREAKING_CELL = "x = torch.ones(4)\ny = x.sin()\nprint('break here')\nz = y + 1"


def _report(ip, flags, cell):
    with capture_output():
        result = ip.run_cell(f"%%compile -o {flags}\n{cell}")
    assert result.success, result.error_in_exec
    return result.result


def test_default_timing_times_each_graph(ip):
    report = _report(ip, "--backend eager", "a = torch.randn(8)\nb = a.cos() * 2")
    assert report.timing is not None and report.timing.graphs
    g = report.timing.graphs[0]
    assert g.eager.median_s > 0 and g.compiled.median_s > 0
    assert report.options.time and report.entry == "magic"


def test_no_time_skips_timing(ip):
    assert _report(ip, "--backend eager --no-time", "a = torch.randn(8)\nb = a.cos()").timing is None


def test_timeit_times_the_whole_cell(ip):
    report = _report(ip, "--backend eager --timeit", "a = torch.randn(8)\nb = a.cos()")
    assert report.timing.timeit is not None and report.timing.timeit.label == "whole call"
    assert "side effects repeated" in report.timing.timeit.notes[0]


@pytest.mark.slow
def test_compare_fills_the_comparisons(ip):
    report = _report(ip, "--compare default", "a = torch.randn(8)\nb = (a.cos() * 2).relu()")
    assert [c.mode for c in report.comparisons] == ["default"]
    assert report.comparisons[0].error is None and report.comparisons[0].compiled_s > 0


def test_mode_and_dynamic_reach_torch_compile(ip):
    ip.run_cell("w = torch.randn(8)")
    report = _report(ip, "--backend eager --no-time --dynamic", "b = w.cos()")
    assert report.options.dynamic is True
    inputs = [n.type or "" for n in report.capture.compilations[0].graph.nodes if n.op == "placeholder"]
    assert any(t.startswith("f32[s") for t in inputs), inputs  # a symbolic size, not [8]
    report = _report(ip, "--backend eager --no-time --no-dynamic", "b = w.cos()")
    assert report.options.dynamic is False
    inputs = [n.type or "" for n in report.capture.compilations[0].graph.nodes if n.op == "placeholder"]
    assert any(t.startswith("f32[8]") for t in inputs), inputs
    with capture_output():
        result = ip.run_cell("%%compile -o --no-time --mode max-autotune-no-cudagraphs\na = torch.randn(8)\nb = a + 1")
    assert result.success and result.result.options.mode == "max-autotune-no-cudagraphs"


def test_fullgraph_puts_the_break_with_its_line_into_the_report_and_the_error(ip, tmp_path):
    out = tmp_path / "r.json"
    with capture_output():
        result = ip.run_cell(f"%%compile --backend eager --no-time --fullgraph -q --json {out}\n{BREAKING_CELL}")
    error = result.error_in_exec
    assert error is not None and "print" in str(error)
    report = error.explorer_report
    (comp, brk), = report.capture.graph_breaks
    assert brk.lineno == 4 and "print" in (brk.source_line or "")  # the %%compile line is line 1
    assert report.clinic.fix_list and report.clinic.fix_list[0].lineno == 4
    doc = json.loads(out.read_text())
    assert [c["graph_break"]["lineno"] for c in doc["capture"]["compilations"] if c["graph_break"]] == [4]


def test_capture_only_compiles_nothing_but_captures_the_cells_own_compile(ip):
    cell = "def g(t):\n    return t.sin() + 1\nout = torch.compile(g, backend='eager')(torch.ones(3))"
    report = _report(ip, "--capture-only --no-time", cell)
    assert [c.frame.name for c in report.capture.compilations] == ["g"]
    assert ip.user_ns["out"].tolist() == (torch.ones(3).sin() + 1).tolist()


def test_cli_puts_a_scripts_fullgraph_break_into_the_report(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "fg.py"
    script.write_text("import torch\n\ndef f(x):\n    y = x.sin()\n    print('no')\n    return y\n\n"
                      "torch.compile(f, backend='eager', fullgraph=True)(torch.ones(3))\n")
    out = tmp_path / "r.json"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-m", "explorer", "run", "--json", str(out), str(script)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": root})
    assert proc.returncode == 1
    doc = json.loads(out.read_text())
    assert [c["graph_break"]["lineno"] for c in doc["capture"]["compilations"] if c["graph_break"]] == [5]
    assert "1 graph break," in proc.stderr and "fg.py:5" in proc.stderr
