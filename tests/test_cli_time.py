"""`python -m explorer run --time`: each Inductor graph of a script timed eager vs compiled,
from torch's fx_graph_runnable repro of it.

One Inductor run (tests/scripts/time_me.py: two graphs split by a print) is shared
by the tests below: it costs two compiles for the script and two for timing.
"""

import contextlib
import importlib
import json
import logging
import os

import pytest

from explorer import cli
from explorer.capturing import torch_door
from explorer.capturing.session import CaptureSession
from explorer.timing.repro import Repro, collect_repros, time_script_capture

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")


def _configs():
    return {m: importlib.import_module(m).get_config_copy() for m in torch_door.config.REPRO_CONFIG_MODULES}


@pytest.fixture(scope="module")
def timed_run(tmp_path_factory):
    """(exit code, report JSON, stderr, stdout, config before, config after, env before, env after)."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("time") / "r.json"
    before, env_before = _configs(), dict(os.environ)
    err, std = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
        code = cli.main(["run", "--time", "--json", str(out), os.path.join(SCRIPTS, "time_me.py")])
    with open(out) as fh:
        doc = json.load(fh)
    return code, doc, err.getvalue(), std.getvalue(), before, _configs(), env_before, dict(os.environ)


def test_each_graph_is_timed_eager_and_compiled_with_positive_medians(timed_run):
    code, doc, err, out, *_ = timed_run
    assert code == 0
    assert out == "tick\n" * 3  # the script's own stdout, untouched by timing
    graphs = doc["timing"]["graphs"]
    assert len(graphs) == 2  # one timing per Dynamo graph (the print splits the function)
    for g in graphs:
        assert g["eager"]["median_s"] > 0 and g["compiled"]["median_s"] > 0, g["notes"]
        # eager and compiled interleaved repeat by repeat: the speedup is the median of the per-repeat ratios
        assert g["speedup"] == pytest.approx(g["ratio"]["value"]) and len(g["ratio"]["ratios"]) == \
            g["compiled"]["repeats"]
        ratios = [e / c for e, c in zip(g["eager"]["times_s"], g["compiled"]["times_s"])]
        assert g["ratio"]["ratios"] == pytest.approx(ratios)
        assert any("random inputs of the same shapes" in n for n in g["notes"])


def test_timings_carry_the_compile_ids_and_compile_times_of_the_capture(timed_run):
    _, doc, *_ = timed_run
    compilations = {c["compile_id"]: c for c in doc["capture"]["compilations"]}
    timed = [g["compile_id"] for g in doc["timing"]["graphs"]]
    assert timed == [c for c in compilations if compilations[c]["graph"]]
    for g in doc["timing"]["graphs"]:
        assert g["compile_time_s"] == pytest.approx(compilations[g["compile_id"]]["compile_time_s"])


def test_the_summary_on_stderr_shows_the_timing(timed_run):
    _, doc, err, *_ = timed_run
    assert "Timing on cpu: median per call" in err
    for g in doc["timing"]["graphs"]:
        assert f"{g['label']}: eager " in err
    for w in doc["timing"]["warnings"]:
        assert err.count(w) == 1, w  # each graph's warning is said once, not once per list it sits in


def test_timing_leaves_compiler_config_and_environment_as_they_were(timed_run):
    *_, before, after, env_before, env_after = timed_run
    assert after == before  # the repro scripts set config values (and the capture its own)
    # the repros set TORCHINDUCTOR_CACHE_DIR; torch itself may add private "_TORCHINDUCTOR..." keys
    assert env_after.get("TORCHINDUCTOR_CACHE_DIR") == env_before.get("TORCHINDUCTOR_CACHE_DIR")
    assert {k: v for k, v in env_after.items() if not k.startswith("_TORCH")} == \
        {k: v for k, v in env_before.items() if not k.startswith("_TORCH")}


def test_without_time_the_report_has_no_timing(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main(["run", "--json", str(out), os.path.join(SCRIPTS, "eager_break.py")]) == 0
    assert json.loads(out.read_text())["timing"] is None
    assert "timing on" not in capsys.readouterr().err


def test_a_script_without_inductor_graphs_gets_an_empty_timing_with_a_reason(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main(["run", "--time", "--json", str(out), os.path.join(SCRIPTS, "eager_break.py")]) == 0
    timing = json.loads(out.read_text())["timing"]
    assert timing["graphs"] == []
    assert any("no graph was lowered by Inductor" in n for n in timing["notes"])


def test_a_repro_that_cannot_run_becomes_a_note_not_an_exception():
    bad = Repro("0/0", 0, "raise RuntimeError('torch changed the format')\n")
    report = time_script_capture([bad], None)
    (g,) = report.graphs
    assert g.eager is None and g.compiled is None and g.compile_id == "0/0"
    assert any("RuntimeError: torch changed the format" in n for n in g.notes)


def test_backward_lowerings_are_skipped_and_said_so():
    fwd = Repro("0/0", 0, "def forward(self, primals_1):\n    raise ValueError\n")
    bwd = Repro("0/0", 1, "def forward(self, primals_1, tangents_1):\n    pass\n")
    assert (fwd.kind, bwd.kind) == ("forward", "backward")
    report = time_script_capture([fwd, bwd], None)
    assert [g.label for g in report.graphs] == ["graph 0 (0/0) forward"]
    assert any("1 backward graph(s) not timed" in n for n in report.notes)


def _emit(name, frame, payload):
    """A structured-trace record as torch's trace_structured makes it."""
    record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
    record.metadata = {"artifact": {"name": name, "encoding": "string"}, "frame_id": frame,
                       "frame_compile_id": 0, "attempt": 0}
    record.payload = payload
    torch_door.logs.trace_logger().handle(record)


def test_collect_repros_adds_no_handler_of_its_own_and_lets_exceptions_through():
    logger = torch_door.logs.trace_logger()
    _emit("warm-up", None, None)  # torch's lazy trace handler removes itself at a first record without TORCH_TRACE
    handlers = list(logger.handlers)
    with pytest.raises(KeyError, match="theirs"):
        with collect_repros() as repros:
            assert logger.handlers == handlers, "the capture's recorder is the one listener"
            raise KeyError("theirs")
    with CaptureSession():
        _emit("fx_graph_runnable", 3, "after the block")
    assert repros == [] and logger.handlers == handlers


@pytest.mark.parametrize("given", [False, True], ids=["any capture", "its session"])
def test_collect_repros_keeps_only_fx_graph_runnable_artifacts_with_their_compile_ids(given):
    session = CaptureSession()
    with contextlib.ExitStack() as stack:
        repros = stack.enter_context(collect_repros(session if given else None))
        stack.enter_context(session)
        _emit("fx_graph_runnable", 3, "first")
        _emit("before_joint_graph", 3, "not a repro")
        _emit("fx_graph_runnable", 3, "second")
    assert [(r.compile_id, r.lowering, r.payload) for r in repros] == [("3/0", 0, "first"), ("3/0", 1, "second")]
    kept = [o for o in session.data.other_artifacts if o.name == "artifact:fx_graph_runnable"]
    assert kept and kept[0].count == 2 and "subscriber" in kept[0].why, "counted, not kept, by the capture"
