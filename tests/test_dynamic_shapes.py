"""The dynamic-shapes view against torch's own structured trace of the same program.

Each program in tests/scripts/ (``shapes_*.py``) runs twice in fresh processes: plainly with TORCH_TRACE set, and
under ``python -m explorer run --json``. The symbols, specializations and guards added the explorer shows (each at
its user line) must be the ones torch wrote (``create_symbol``, ``create_unbacked_symbol``,
``symbolic_shape_specialization``, ``guard_added_fast``), at the lines the programs mark; opening the plain run's
TORCH_TRACE must give the same rows as the live capture; the pane says the fix in the user's terms.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capturing.shapes import DynamicShapes
from explorer.present import text
from explorer.report import Report
from explorer.serial import to_jsonable
from explorer.stages import stage
from explorer.traces import open_trace

SCRIPTS = Path(__file__).parent / "scripts"
PROGRAMS = ("shapes_specialized.py", "shapes_unbacked.py")
_ENVELOPE = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+:\d+\] (\{.*\})\s*$")
KINDS = ("create_symbol", "create_unbacked_symbol", "symbolic_shape_specialization", "guard_added_fast")


def line_of(program: str, marker: str) -> int:
    lines = (SCRIPTS / program).read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if f"# {marker}" in line)


def torch_rows(folder: Path) -> dict[str, list[tuple]]:
    """torch's own records of the four kinds, as (what it says, user file, user line): the innermost frame of its
    ``user_stack``, whose file torch names by a number of its ``str`` table."""
    rows: dict[str, list[tuple]] = {k: [] for k in KINDS}
    files = glob.glob(str(folder / "*.log"))
    assert files, f"torch wrote no trace into {folder}"
    for path in files:
        strings: dict[int, str] = {}
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            m = _ENVELOPE.match(line)
            if not m:
                continue
            env = json.loads(m.group(1))
            if "str" in env:
                strings[env["str"][1]] = env["str"][0]
            for kind in KINDS:
                if kind in env:
                    user = env[kind]["user_stack"][-1]
                    rows[kind].append((*_says(kind, env[kind]), strings[user["filename"]], user["line"]))
    return rows


def _says(kind: str, rec: dict) -> tuple:
    if kind == "create_symbol":
        return rec["symbol"], rec["source"], rec["vr"], True
    if kind == "create_unbacked_symbol":
        return rec["symbol"], None, rec["vr"], False
    if kind == "symbolic_shape_specialization":
        return rec["symbol"], rec["value"], rec["reason"]
    return (rec["expr"],)


def our_rows(shapes: dict) -> dict[str, list[tuple]]:
    """The report's rows (JSON), in the same shape."""
    def at(r: dict) -> tuple:
        return r["user_loc"]["filename"], r["user_loc"]["lineno"]
    return {"create_symbol": [(s["name"], s["source"], s["range"], True, *at(s))
                              for s in shapes["symbols"] if s["backed"]],
            "create_unbacked_symbol": [(s["name"], None, s["range"], False, *at(s))
                                       for s in shapes["symbols"] if not s["backed"]],
            "symbolic_shape_specialization": [(s["symbol"], s["value"], s["reason"], *at(s))
                                              for s in shapes["specializations"]],
            "guard_added_fast": [(g["expression"], *at(g)) for g in shapes["guards"]]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each program plain under TORCH_TRACE and under the CLI, the pair run concurrently."""
    out = {}
    for program in PROGRAMS:
        tmp = tmp_path_factory.mktemp(program.replace(".py", ""))
        path = str(SCRIPTS / program)
        env = {k: v for k, v in os.environ.items() if k not in ("TORCH_LOGS", "TORCH_TRACE")}
        plain = subprocess.Popen([sys.executable, path], env={**env, "TORCH_TRACE": str(tmp / "trace")},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp))
        cli = subprocess.Popen([sys.executable, "-m", "explorer", "run", path, "--json", str(tmp / "r.json")],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp))
        p_out, p_err = plain.communicate(timeout=600)
        c_out, c_err = cli.communicate(timeout=600)
        assert plain.returncode == 0, p_err[-3000:]
        assert cli.returncode == 0, c_err[-3000:]
        assert c_out.startswith(p_out.strip()), (p_out, c_out)  # the program prints the same under the explorer
        report = Report.load(tmp / "r.json")
        comp = next(c for c in report.compilations if c.dynamic_shapes is not None)
        out[program] = (tmp / "trace", json.loads((tmp / "r.json").read_text())["capture"], report, comp)
    return out


def _shapes_json(capture: dict) -> dict:
    return next(c["dynamic_shapes"] for c in capture["compilations"] if c["dynamic_shapes"])


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_rows_are_torchs_own_records_at_the_same_lines(runs, program):
    folder, capture, _, _ = runs[program]
    assert our_rows(_shapes_json(capture)) == torch_rows(folder)


def test_a_dimension_marked_dynamic_is_specialized_at_the_comparison_line(runs):
    _, capture, report, comp = runs["shapes_specialized.py"]
    program, line = str(SCRIPTS / "shapes_specialized.py"), line_of("shapes_specialized.py", "SPECIALIZES")
    rows = our_rows(_shapes_json(capture))
    assert rows["create_symbol"] == [(comp.dynamic_shapes.symbols[0].name, "L['x'].size()[0]", "[2, int_oo]", True,
                                      program, line)]
    symbol = comp.dynamic_shapes.symbols[0].name
    assert rows["symbolic_shape_specialization"] == [(symbol, "8", "range_refined_to_singleton", program, line)]
    assert rows["guard_added_fast"] == [(f"Eq({symbol}, 8)", program, line)]
    # torch's framework frame beside the user line: Dynamo's evaluation of the comparison
    assert "_dynamo/variables/" in comp.dynamic_shapes.guards[0].framework.filename
    said = text.stage_text(report, stage("dynamic_shapes"), comp)
    assert "specialized (range_refined_to_singleton)" in said
    assert "fix: this line compares x.size(0) with the constant 8" in said
    assert "torch._dynamo.mark_dynamic(x, 0)" in said


def test_an_unbacked_symbol_meets_a_data_dependent_check_at_its_line(runs):
    _, capture, report, comp = runs["shapes_unbacked.py"]
    program = str(SCRIPTS / "shapes_unbacked.py")
    rows = our_rows(_shapes_json(capture))
    (symbol,) = [s.name for s in comp.dynamic_shapes.symbols if not s.backed]
    assert symbol.startswith("u")
    assert rows["create_unbacked_symbol"] == [(symbol, None, "[-int_oo, int_oo]", False, program,
                                               line_of("shapes_unbacked.py", "UNBACKED"))]
    assert (f"{symbol} >= 2", program, line_of("shapes_unbacked.py", "CHECKED")) in rows["guard_added_fast"]
    said = text.stage_text(report, stage("dynamic_shapes"), comp)
    assert "unbacked (data-dependent" in said and "asserts this at run time" in said


@pytest.mark.parametrize("program", PROGRAMS)
def test_opening_the_torch_trace_gives_the_live_captures_rows(runs, program):
    folder, capture, _, _ = runs[program]
    opened = [c.dynamic_shapes for c in open_trace(str(folder)).compilations if c.dynamic_shapes is not None]
    assert len(opened) == 1 and isinstance(opened[0], DynamicShapes)
    assert to_jsonable(opened[0]) == _shapes_json(capture)
