"""`python -m explorer run SCRIPT`: exit codes, summary, reports (also on failure), argv pass-through.

Most runs call ``explorer.cli.main`` in-process (a subprocess costs a torch import);
the scripts under tests/scripts/ compile with the eager backend to stay fast.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from explorer import cli
from explorer.report import Report

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")


def script(name):
    return os.path.join(SCRIPTS, name)


def line_of(path, text):
    with open(path) as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


def run(capsys, *words):
    code = cli.main(["run", *words])
    out, err = capsys.readouterr()
    return code, out, err


def load(path):
    with open(path) as fh:
        return json.load(fh)


# ---- success, summary, reports ----

def test_break_is_summarised_as_file_line_reason_and_both_reports_are_written(tmp_path, capsys):
    js, html = tmp_path / "r.json", tmp_path / "r.html"
    code, out, err = run(capsys, script("eager_break.py"), "--json", str(js), "--html", str(html))
    assert code == 0
    assert out == "tick\n"  # the script's stdout is left to the script
    line = line_of(script("eager_break.py"), 'print("tick")')
    assert re.search(rf"eager_break\.py:{line}: \S", err), err
    assert re.search(r"compile-explorer: 2 compilations, 2 graphs, 1 graph break,", err), err
    report = load(js)
    assert [c["graph_break"]["lineno"] for c in report["capture"]["compilations"] if c["graph_break"]] == [line]
    assert report["capture"]["error"] is None
    assert "<html" in html.read_text().lower()
    assert f"wrote JSON report: {js}" in err and f"wrote HTML report: {html}" in err


def test_fail_on_break_exits_3_when_a_break_happened(tmp_path, capsys):
    code, _, err = run(capsys, "--fail-on-break", script("eager_break.py"), "--json", str(tmp_path / "r.json"))
    assert code == cli.EXIT_GRAPH_BREAK == 3
    assert "--fail-on-break" in err
    assert (tmp_path / "r.json").exists()


def test_fail_on_break_exits_0_without_breaks(capsys):
    code, out, err = run(capsys, "--fail-on-break", script("eager_clean.py"))
    assert code == 0
    assert out == "[3.0, 3.0, 3.0]\n"
    assert "0 graph breaks" in err and "graph breaks:" not in err


def test_quiet_prints_no_summary(capsys):
    code, _, err = run(capsys, "--quiet", script("eager_clean.py"))
    assert code == 0 and "compilations" not in err


# ---- how the script is launched ----

@pytest.mark.parametrize("words", [
    ["--json", "{js}", "{probe}", "{seen}", "a", "--flag", "b"],  # options before SCRIPT
    ["{probe}", "{seen}", "a", "--flag", "b", "--json", "{js}"],  # options after it (issue's usage)
    ["{probe}", "--json={js}", "{seen}", "a", "--flag", "b"],  # interleaved, --opt=value form
])
def test_script_sees_its_own_argv_name_and_directory(tmp_path, capsys, words):
    seen, js, probe = tmp_path / "seen.json", tmp_path / "r.json", script("argv_probe.py")
    words = [w.format(js=js, probe=probe, seen=seen) for w in words]
    argv_before, path_before = list(sys.argv), list(sys.path)
    code, _, _ = run(capsys, *words)
    assert code == 0
    got = load(seen)
    assert got["argv"] == [probe, str(seen), "a", "--flag", "b"]
    assert got["name"] == "__main__"
    assert got["path0"] == SCRIPTS
    assert got["file"] == probe
    assert js.exists()
    assert sys.argv == argv_before and sys.path == path_before  # restored for the caller


def test_after_double_dash_everything_is_the_scripts(tmp_path, capsys):
    seen = tmp_path / "seen.json"
    code, _, _ = run(capsys, script("argv_probe.py"), str(seen), "--", "--json", "x.json", "--help")
    assert code == 0
    assert load(seen)["argv"][2:] == ["--json", "x.json", "--help"]
    assert not os.path.exists("x.json")


def test_help_after_script_belongs_to_the_script(tmp_path, capsys):
    seen = tmp_path / "seen.json"
    code, out, _ = run(capsys, script("argv_probe.py"), str(seen), "-h")
    assert code == 0 and "usage:" not in out
    assert load(seen)["argv"][2:] == ["-h"]


def test_help_before_script_documents_the_rule_and_exit_codes(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "--fail-on-break" in out and "before or after SCRIPT" in out and "130" in out


# ---- exit codes and bad input ----

def test_exit_code_is_the_scripts_own(tmp_path, capsys):
    js = tmp_path / "r.json"
    code, out, _ = run(capsys, script("exit_with.py"), "7", "--json", str(js))
    assert code == 7
    assert out == "script output\n"
    report = load(js)
    assert len(report["capture"]["compilations"]) == 1 and report["capture"]["error"] == "SystemExit: 7"


def test_script_that_raises_exits_1_with_its_traceback_and_the_partial_report(tmp_path, capsys):
    js, html = tmp_path / "r.json", tmp_path / "r.html"
    code, _, err = run(capsys, script("raises.py"), "--json", str(js), "--html", str(html))
    assert code == 1
    assert "Traceback (most recent call last):" in err
    assert f'File "{script("raises.py")}", line {line_of(script("raises.py"), "    fail()")}, in <module>' in err
    assert err.rstrip().count("ValueError: boom from the script") >= 1
    assert "runpy" not in err and "explorer/cli.py" not in err  # the traceback starts at the script
    report = load(js)
    assert report["capture"]["error"] == "ValueError: boom from the script"
    assert len(report["capture"]["compilations"]) == 1  # what compiled before the error is kept
    assert html.exists()


def test_syntax_error_names_file_and_line_and_still_writes_the_report(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nx = (\n")
    js = tmp_path / "r.json"
    code, _, err = run(capsys, str(bad), "--json", str(js))
    assert code == 1
    assert f'File "{bad}", line 2' in err and "SyntaxError" in err
    assert "Traceback" not in err  # as python: no traceback for a script that does not compile
    assert load(js)["capture"]["error"].startswith("SyntaxError:")


def test_missing_script_is_a_clear_usage_error(tmp_path, capsys):
    js = tmp_path / "r.json"
    code, out, err = run(capsys, str(tmp_path / "nope.py"), "--json", str(js))
    assert code == 2
    assert "can't open file" in err and "nope.py" in err
    assert "Traceback" not in err
    assert not js.exists()


def test_a_folder_without_main_is_a_usage_error_and_one_with_main_runs(tmp_path, capsys):
    code, out, err = run(capsys, str(tmp_path))
    assert code == 2 and f"can't find '__main__' module in '{tmp_path}'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    (tmp_path / "__main__.py").write_text("print('ran as a folder')\n")
    code, out, err = run(capsys, str(tmp_path), "--quiet")
    assert code == 0 and "ran as a folder" in out


def test_missing_report_directory_fails_before_the_script_runs(tmp_path, capsys):
    seen = tmp_path / "seen.json"
    code, _, err = run(capsys, "--json", str(tmp_path / "no" / "r.json"), script("argv_probe.py"), str(seen))
    assert code == 2 and "does not exist" in err
    assert not seen.exists()


@pytest.mark.parametrize("words,message", [
    ([], "no SCRIPT"),
    (["--bogus", "x.py"], "unknown option '--bogus'"),
    (["x.py", "--json"], "--json needs a value"),
])
def test_usage_errors_exit_2(capsys, words, message):
    code, _, err = run(capsys, *words)
    assert code == 2 and message in err


def test_unknown_command_exits_2(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command" in capsys.readouterr().err


def test_backend_crash_keeps_the_partial_report_and_shows_the_failure(tmp_path, capsys):
    js = tmp_path / "r.json"
    code, _, err = run(capsys, script("backend_crash.py"), "--json", str(js))
    assert code == 1  # the script's: torch raised BackendCompilerFailed out of it
    assert "RuntimeError: backend exploded" in err  # in the script's traceback
    summary = err[err.index("compile-explorer: 1 compilation,"):]
    assert re.search(r"failed: \d+/0 f: BackendCompilerFailed", summary), summary  # frame ids count per process
    report = load(js)
    (comp,) = report["capture"]["compilations"]
    assert comp["graph"] is not None  # Dynamo's graph was captured before the backend crashed
    assert "BackendCompilerFailed" in comp["failure"]
    assert report["capture"]["error"].startswith("BackendCompilerFailed")


def test_keyboard_interrupt_exits_130_and_writes_the_report(tmp_path, capsys):
    js = tmp_path / "r.json"
    code, _, err = run(capsys, script("interrupted.py"), "--json", str(js))
    assert code == 130
    assert "KeyboardInterrupt" in err
    assert load(js)["capture"]["error"].startswith("KeyboardInterrupt")


def test_a_failing_html_view_still_leaves_the_json_and_says_so(tmp_path, capsys, monkeypatch):
    def broken(self, path):
        raise RuntimeError("renderer bug")

    monkeypatch.setattr(Report, "save_html", broken)
    js, html = tmp_path / "r.json", tmp_path / "r.html"
    code, _, err = run(capsys, script("eager_clean.py"), "--html", str(html), "--json", str(js))
    assert code == cli.EXIT_REPORT_FAILED == 4
    assert "could not write the HTML report" in err and "renderer bug" in err
    assert js.exists() and not html.exists()


# ---- a true process: python -m explorer ----

def test_python_m_explorer_keeps_stdout_for_the_script_and_its_exit_code(tmp_path):
    js = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "explorer", "run", script("exit_with.py"), "5", "--json", str(js)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout == "script output\n"
    assert "compile-explorer: 1 compilation, 1 graph," in proc.stderr
    assert len(load(js)["capture"]["compilations"]) == 1


def test_sys_exit_0_is_a_normal_end_not_an_error(tmp_path, capsys):
    js = tmp_path / "r.json"
    code, _, err = run(capsys, script("exit_with.py"), "0", "--json", str(js))
    assert code == 0
    assert load(js)["capture"]["error"] is None and "raised" not in err


def test_a_quiet_run_with_breaks_and_inductor_kernels_leaves_stderr_empty_through_interpreter_exit(tmp_path):
    # graph breaks (Dynamo helper globals, resume functions) and Inductor kernels: nothing of the explorer's,
    # nor torch's clean-up of what the capture touched, may print at exit ("Exception ignored ... KeyError")
    proc = subprocess.run([sys.executable, "-m", "explorer", "run", "--quiet", script("trace_breaks.py")],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    if proc.stderr:  # only what torch prints in a plain run too: a CUDA build of torch on a machine without CUDA
        # logs "No CUDA runtime is found, using CUDA_HOME=..." when Inductor builds C++
        plain = subprocess.run([sys.executable, script("trace_breaks.py")], capture_output=True, text=True,
                               timeout=300, cwd=str(tmp_path))
        assert _log_messages(proc.stderr) <= _log_messages(plain.stderr), proc.stderr


def _log_messages(stderr):
    """torch's log lines without their time and process id (``W1204 22:07:48.317000 32272 ``)."""
    return {re.sub(r"^[IWEF]\d{4} [\d:.]+ \d+ ", "", line) for line in stderr.splitlines()}
