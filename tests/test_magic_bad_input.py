"""Every bad input to the magic gets one line, and a notebook cell is named ``cell [N]`` wherever a view names a
place in it. Through IPython's own shell (the ``ip`` fixture), as in tests/test_magic.py."""

import json
import re

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from explorer.magic import EMPTY_CELL  # noqa: E402
from explorer.present import viewmodel as vm  # noqa: E402
from explorer.present.text import summary  # noqa: E402

BREAKING = "x = torch.ones(4)\ny = x.sin()\nprint('break here')\nz = y + 1"


def _run(ip, source):
    with capture_output() as out:
        result = ip.run_cell(source, store_history=True)
    return result, out


def _one_line_usage_error(result, out):
    """The cell failed with a UsageError shown as one line, and no traceback of the explorer's."""
    assert isinstance(result.error_in_exec or result.error_before_exec, UsageError), (result, out.stdout)
    said = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith("UsageError: "), out.stderr
    assert "Traceback" not in out.stdout + out.stderr and "explorer/" not in out.stdout + out.stderr
    return said[0]


def test_why_on_an_undefined_name_says_the_name_error_in_one_line(ip):
    line = _one_line_usage_error(*_run(ip, "%compile --why never_defined_fn(x)"))
    assert "NameError: name 'never_defined_fn' is not defined" in line


def test_why_on_something_it_cannot_check_says_so_in_one_line(ip):
    line = _one_line_usage_error(*_run(ip, "%compile --why len([1])"))
    assert "needs a Python function" in line


@pytest.mark.parametrize("source", ["%%compile --help", "%%compile --help\n", "%%compile -h\n",
                                    "%%compile --help\nnot_run_by_help = 1\n", "%compile --help", "%compile -h"])
def test_help_prints_the_options_with_or_without_a_cell_body(ip, source):
    ip.user_ns.pop("not_run_by_help", None)
    result, out = _run(ip, source)
    assert result.success, (result.error_before_exec, result.error_in_exec, out.stderr)
    assert "--backend" in out.stdout and "--why" in out.stdout and "-q" in out.stdout  # the options, with their help
    assert "cell body is empty" not in out.stdout + out.stderr
    assert "not_run_by_help" not in ip.user_ns  # --help runs nothing


@pytest.mark.parametrize("source", ["%%compile", "%%compile\n", "%%compile --backend eager\n\n   \n",
                                    "%%compile -q\n# only a comment\n"])
def test_an_empty_cell_is_one_clear_line(ip, source):
    line = _one_line_usage_error(*_run(ip, source))
    assert line == f"UsageError: {EMPTY_CELL}"


def _named_report(ip):
    result, out = _run(ip, "%%compile --backend eager -q -o\n" + BREAKING)
    assert result.success, (result.error_in_exec, out.stderr)
    return result.result, result.execution_count


def _assert_named_by_cell(report, n):
    cell = f"cell [{n}]"
    view = vm.build(report)
    labels = [c["label"] for c in view["compilations"]]
    # the compilation picker: the cell's own code, then the resume function Dynamo made at its break, by the cell
    assert [label.split(" ", 1)[1] for label in labels] == [cell, f"{cell}, resumed after line 4"], labels
    source = view["compilations"][0]["panes"]["source"][0]["r"]
    assert source.startswith(f"{cell}, line 1"), source  # the Source pane: the cell from its top
    text = summary(report)
    assert f"{cell}, line 4" in text  # the summary and the fix list
    assert not re.search(r"ipykernel_|<ipython-input|\.py:\d", "\n".join(labels) + source + text), (labels, source)
    words = json.dumps(vm.fix_list(report.clinic.fix_list))
    assert f"execution then continued in {cell}, resumed after line 4 (compilation" in words, words
    assert "compiled_cell" not in "\n".join(labels) + text + words  # the function the explorer wraps the cell in


def test_a_cell_is_named_cell_n_in_every_place_a_view_names(ip):
    report, n = _named_report(ip)
    _assert_named_by_cell(report, n)


def test_a_cell_is_named_cell_n_where_jupyter_runs_it_from_a_temporary_file(ip):
    """ipykernel names each cell's code by a temporary file (``/tmp/ipykernel_<pid>/<hash>.py``), not IPython's
    ``<ipython-input-N-...>``: the views name it ``cell [N]`` all the same, as the docs promise."""
    compiler = pytest.importorskip("ipykernel.compiler")
    before = ip.compile
    ip.compile = compiler.XCachingCompiler()
    try:
        report, n = _named_report(ip)
    finally:
        ip.compile = before
    assert "ipykernel_" in report.compilations[0].frame.filename  # the file Jupyter's kernel gave the cell
    _assert_named_by_cell(report, n)


def test_one_graph_break_is_said_in_the_singular(ip):
    report, _ = _named_report(ip)
    text = summary(report)
    assert re.search(r"compile-explorer: 2 compilations, 2 graphs, 1 graph break, 0 recompiles", text), text
    assert "1 graph breaks" not in text and "(1 breaks)" not in text and "(1 break)" in text
    assert ["graph break", 1] in vm.build(report)["header"]["chips"]  # the widget's and the page's chip
