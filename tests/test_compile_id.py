"""One compile-id type end to end: every printed form parses to the same value, and what the report
names (a finding, a recompile's cached entry) is a compilation the report has."""

import pytest

from explorer.capturing.compile_id import CompileId
from explorer.capturing.model import CaptureData, Compilation, Frame, Problem


def test_every_printed_form_names_one_compilation():
    forms = ["0/1", "[0/1]", "0/1_2", "[0/1_2]", " 0/1 "]
    assert {CompileId.key_of(f) for f in forms} == {"0/1"}
    assert CompileId.key_of("[g2 3/0_1]") == "g2 3/0"
    assert CompileId.key_of("aoti/0") == "aoti/0"  # not Dynamo's: kept as it is
    assert CompileId.parse("0/1").in_generation(1).key == "g1 0/1"
    assert CompileId.parse("g1 0/0").same_frame(CompileId(0, 5, generation=1))
    assert not CompileId.parse("0/0").same_frame(CompileId(0, 5, generation=1))


def test_a_capture_names_only_its_own_compilations():
    data = CaptureData("2.13", "cpu", "3.11", compilations=(Compilation("0/0", Frame("f", "f.py", 1), "ok"),
                                                           Compilation("g1 0/0", Frame("f", "f.py", 1), "ok")))
    assert data.compilation_key("[0/0_1]") == "0/0"  # an attempt folds into its compilation
    assert data.compilation_key("[g1 0/0]") == "g1 0/0"
    assert data.compilation_key("1/0") is None and data.compilation_key("?") is None
    assert data.compilation_key(None) is None


def test_a_compilation_holds_its_id_as_a_value():
    """Above the capture, code orders and matches compilations by ``cid``; a key is never split by hand."""
    later, first = (Compilation(k, Frame("f", "f.py", 1), "ok") for k in ("g1 0/2", "3/0"))
    assert later.cid == CompileId(0, 2, generation=1) and first.cid == CompileId(3, 0)
    assert first.cid < later.cid  # a reset's generation comes after every id before it
    assert Compilation("aoti/0", Frame("<AOTInductor>", "?", 0), "ok").cid is None  # no Dynamo id names it


def test_a_problem_names_its_compilation_by_key_and_the_attempt_beside_it():
    p = Problem.of_record("decoder", "bad record", "dynamo_output_graph", CompileId(0, 1, attempt=2))
    assert (p.compile_id, p.attempt) == ("0/1", 2)
    assert p.one_line() == "decoder [0/1_2] dynamo_output_graph: bad record"  # as torch prints a restart
    assert Problem.of_record("decoder", "bad", "x", CompileId(0, 1, generation=1)).compile_id == "g1 0/1"
    assert Problem.of_record("decoder", "bad", "x", None).compile_id is None


def test_torchs_printed_id_is_read_in_the_generation_of_its_text():
    assert CompileId.from_torch("[0/1_2]", 1) == CompileId(0, 1, 2, generation=1)
    assert CompileId.from_torch("0/0").key == "0/0"
    assert CompileId.from_torch("?") is None


torch = pytest.importorskip("torch")
pytest.importorskip("IPython")


def _report(ip, flags, source):
    from IPython.utils.capture import capture_output

    assert ip.run_cell("import torch").success
    with capture_output():
        res = ip.run_cell(f"%%compile {flags} -o\n{source}")
    assert res.error_in_exec is None, res.error_in_exec
    return res.result


def test_findings_name_compilations_the_report_has(ip):
    report = _report(ip, "--no-time", "x = torch.ones(8)\nassert x.sum() > 0\ny = torch.rand(8) + x\ny.shape")
    ids = {c.compile_id for c in report.compilations}
    named = [f for f in report.findings if f.compile_id]
    assert len(named) >= 2, report.findings  # the assert's graph break, Inductor's random numbers
    assert {f.compile_id for f in named} <= ids


def test_a_recompile_after_a_reset_is_explained_against_its_own_generation(ip):
    report = _report(ip, "--backend eager --no-time --capture-only",
                     "def f(x):\n    return x.sin() + 1\nopt_f = torch.compile(f, backend='eager')\n"
                     "a = opt_f(torch.ones(3))\ntorch._dynamo.reset()\nb = opt_f(torch.ones(3))\n"
                     "c = opt_f(torch.ones(3, 4))")
    ids = [c.compile_id for c in report.compilations]
    explained = [e for e in report.clinic.recompiles if e.compile_id.startswith("g1 ")]
    assert explained, (ids, report.clinic.recompiles)
    against = {f.against for e in explained for f in e.failures}
    assert against and all(a.startswith("g1 ") and a in ids for a in against), (against, ids)
