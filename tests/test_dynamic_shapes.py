"""The dynamic-shapes view against torch's own structured trace of the same program.

Each program in tests/scripts/ (``shapes_*.py``) runs twice in fresh processes: plainly with TORCH_TRACE set, and
under ``python -m explorer run --json``. The symbols, specializations and guards added the explorer shows (each at
its user line) must be the ones torch wrote (``create_symbol``, ``create_unbacked_symbol``,
``symbolic_shape_specialization``, ``guard_added_fast``, ``propagate_real_tensors``), at the lines the programs
mark; opening the plain run's TORCH_TRACE must give the same rows as the live capture; the pane says the fix in the
user's terms. A size recompile links to the specialization (or guard added) of the compilation whose check failed,
and back, as torch's own recompile reason and records say, live and from the opened trace.
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
PROGRAMS = ("shapes_specialized.py", "shapes_unbacked.py", "shapes_recompile.py", "shapes_real.py")
_ENVELOPE = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+:\d+\] (\{.*\})\s*$")
KINDS = ("create_symbol", "create_unbacked_symbol", "symbolic_shape_specialization", "guard_added_fast",
         "propagate_real_tensors")


def line_of(program: str, marker: str) -> int:
    lines = (SCRIPTS / program).read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if f"# {marker}" in line)


def torch_records(folder: Path) -> list[dict]:
    """torch's own structured records, in the order written (its ``str`` table resolved into ``"file"``)."""
    out = []
    files = glob.glob(str(folder / "*.log"))
    assert files, f"torch wrote no trace into {folder}"
    for path in files:
        strings: dict[int, str] = {}
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            m = _ENVELOPE.match(line)
            if not m:
                continue
            env = json.loads(m.group(1))
            if "str" in env:
                strings[env["str"][1]] = env["str"][0]
            env["payload"] = lines[i + 1].strip() if env.get("has_payload") and i + 1 < len(lines) else ""
            for rec in env.values():
                for frame in rec.get("user_stack") or () if isinstance(rec, dict) else ():
                    frame["file"] = strings[frame["filename"]]
            out.append(env)
    return out


def torch_rows(folder: Path) -> dict[str, list[tuple]]:
    """torch's own records of the five kinds, as (what it says, user file, user line): the innermost frame of its
    ``user_stack``, whose file torch names by a number of its ``str`` table (``propagate_real_tensors`` has none)."""
    rows: dict[str, list[tuple]] = {k: [] for k in KINDS}
    for env in torch_records(folder):
        for kind in KINDS:
            if kind in env:
                if kind == "propagate_real_tensors":
                    rows[kind].append((env[kind]["expr"], env[kind]["result"]))
                    continue
                user = env[kind]["user_stack"][-1]
                rows[kind].append((*_says(kind, env[kind]), user["file"], user["line"]))
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
            "guard_added_fast": [(g["expression"], *at(g)) for g in shapes["guards"]],
            "propagate_real_tensors": [(r["expression"], r["result"]) for r in shapes["real_values"]]}


def all_rows(capture: dict) -> dict[str, list[tuple]]:
    """Every compilation's rows, in compile order (the order torch wrote them)."""
    out: dict[str, list[tuple]] = {k: [] for k in KINDS}
    for c in capture["compilations"]:
        if c["dynamic_shapes"]:
            for kind, rows in our_rows(c["dynamic_shapes"]).items():
                out[kind] += rows
    return out


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
    assert all_rows(capture) == torch_rows(folder)


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
    assert "unbacked (data-dependent" in said
    assert "this line's torch._check states" in said and "asserts it at run time" in said  # a fact, nothing to fix


@pytest.mark.parametrize("program", PROGRAMS)
def test_opening_the_torch_trace_gives_the_live_captures_rows(runs, program):
    folder, capture, _, _ = runs[program]
    opened = [c.dynamic_shapes for c in open_trace(str(folder)).compilations if c.dynamic_shapes is not None]
    assert opened and all(isinstance(o, DynamicShapes) for o in opened)
    assert [to_jsonable(o) for o in opened] == [c["dynamic_shapes"] for c in capture["compilations"]
                                                if c["dynamic_shapes"]]


def _links(report) -> list[tuple]:
    """(recompile, compilation whose check failed, row kind, (symbol, what), user line) of every shape cause."""
    return [(e.compile_id, f.against, f.shape_cause.row, f.shape_cause.what, f.shape_cause.user_loc.lineno)
            for e in report.clinic.recompiles for f in e.failures if f.shape_cause is not None]


def test_a_size_recompile_links_to_the_specialization_and_guard_that_made_the_size_matter(runs):
    """torch's own trace says: compilation 0/0 specialized x.size(0) to 8 at SPECIALIZES, and 0/1 recompiled because
    0/0's size check failed; 1/0 guarded x.size(0) > 4 at GUARDS, and 1/1 recompiled because 1/0's shape guard
    failed at that line. The report links each recompile to that row and the row back, live and opened."""
    program = "shapes_recompile.py"
    folder, _, report, _ = runs[program]
    records = torch_records(folder)

    def of(kind: str, frame: int, n: int) -> list[dict]:
        return [e for e in records if kind in e and (e.get("frame_id"), e.get("frame_compile_id")) == (frame, n)]
    (spec,) = of("symbolic_shape_specialization", 0, 0)
    assert spec["symbolic_shape_specialization"]["sources"] == ["L['x'].size()[0]"]
    assert spec["symbolic_shape_specialization"]["user_stack"][-1]["line"] == line_of(program, "SPECIALIZES")
    (guard,) = of("guard_added_fast", 1, 0)
    assert guard["guard_added_fast"]["user_stack"][-1]["line"] == line_of(program, "GUARDS")
    reasons = {(e["frame_id"], e["frame_compile_id"]): e["payload"] for e in records
               if e.get("artifact", {}).get("name") == "recompile_reasons"}
    assert reasons[(0, 1)].startswith("0/0: tensor 'x' size mismatch at index 0")
    assert reasons[(1, 1)].startswith("1/0: ") and "x.size()[0]" in reasons[(1, 1)]
    s77 = spec["symbolic_shape_specialization"]["symbol"]
    want = [("0/1", "0/0", "specialization", f"{s77} = {spec['symbolic_shape_specialization']['value']}",
             line_of(program, "SPECIALIZES")),
            ("1/1", "1/0", "guard", guard["guard_added_fast"]["expr"], line_of(program, "GUARDS"))]
    assert _links(report) == want
    assert _links(Report.of(open_trace(str(folder)))) == want  # the same from torch's trace, opened
    # the words each view shows, both ways: the row names the recompile, the recompile names the row
    first, second = (next(c for c in report.compilations if c.compile_id == k) for k in ("0/0", "0/1"))
    assert "caused recompile [0/1]" in text.stage_text(report, stage("dynamic_shapes"), first)
    back = text.stage_text(report, stage("graph_break"), second)
    assert f"made by the specialization {s77} = 8 at " in back and f":{line_of(program, 'SPECIALIZES')}" in back
    assert "(in [0/0])" in back
    # the static copy (GitHub, nbviewer): each link is an anchor to the other compilation's stage, which has that id
    from explorer.present.html import render_fragment

    static = render_fragment(report, pictures=False)
    for cid, stage_id in (("0/1", "graph_break"), ("0/0", "dynamic_shapes"), ("1/1", "graph_break")):
        anchor = f"cx-s-{cid.replace('/', '_')}-{stage_id}"
        assert f'<a href="#{anchor}"><code>[{cid}]</code></a>' in static and f'id="{anchor}"' in static, anchor
    # the recompile's fix says what torch does, not "mark it dynamic": that line would then raise
    fix = report.clinic.recompiles[0].remedy
    assert "ConstraintViolationError" in fix and "mark the dimension dynamic" not in fix
    guard_fix = report.clinic.recompiles[1].remedy
    assert guard_fix.startswith("the size is already dynamic")


def test_a_specialization_says_what_mark_dynamic_would_do_as_torch_does_it(runs):
    """The specialization's fix says mark_dynamic makes torch raise ConstraintViolationError at that line: checked
    against torch itself, the same program with mark_dynamic."""
    import torch

    _, _, report, comp = runs["shapes_specialized.py"]
    said = text.stage_text(report, stage("dynamic_shapes"), comp)
    assert "torch._dynamo.mark_dynamic(x, 0) makes torch raise ConstraintViolationError at this line" in said
    assert "dynamic=True and maybe_mark_dynamic do not stop this" in said

    def f(x):
        if x.size(0) == 8:
            return x * 2
        return x + 1
    x = torch.randn(8, 3)
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.reset()
    try:
        with pytest.raises(Exception) as raised:
            torch.compile(f, backend="eager")(x)
    finally:
        torch._dynamo.reset()
    assert "ConstraintViolationError" in type(raised.value).__name__ + repr(raised.value)
    assert "specialized it to be a constant (8)" in str(raised.value)


def test_an_answer_from_the_real_tensors_explains_the_unbacked_symbol(runs):
    """propagate_real_tensors: torch answered `u0 > 3` from the real tensors (its record), kept it as a runtime
    assertion at the branch's line; the symbol's row shows the answer, the guard's says what that means."""
    program = "shapes_real.py"
    folder, _, report, comp = runs[program]
    (rec,) = [e["propagate_real_tensors"] for e in torch_records(folder) if "propagate_real_tensors" in e]
    shapes = comp.dynamic_shapes
    assert [(r.expression, r.result) for r in shapes.real_values] == [(rec["expr"], rec["result"])]
    assert any(g.expression == rec["expr"] and g.user_loc.lineno == line_of(program, "BRANCH") for g in shapes.guards)
    said = text.stage_text(report, stage("dynamic_shapes"), comp)
    assert f"on the real tensors: {rec['expr']} → {rec['result']}" in said
    assert "took the real tensors' answer" in said and "raises at run time" in said
