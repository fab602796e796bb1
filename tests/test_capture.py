"""What the capture records for small programs: one test per artifact a user looks at."""

import logging

import pytest
import torch
import torch_state
from programs import basics

import explorer
from explorer.capturing import torch_door

BASICS = basics.__file__


def _line(text: str) -> int:
    """Line number in programs/basics.py of the first line containing text."""
    with open(BASICS) as fh:
        for i, line in enumerate(fh, 1):
            if text in line:
                return i
    raise AssertionError(text)


def _by_id(report, cid):
    """Compilation by compile id relative to the report's first frame ("0/1": first frame, 2nd compile)."""
    frame, n = map(int, cid.split("/"))
    first = int(report.compilations[0].compile_id.split("/")[0])
    return next(c for c in report.compilations if c.compile_id == f"{first + frame}/{n}")


def test_compile_ids_frames_and_resume_functions(breaks_report):
    ids = [tuple(map(int, c.compile_id.split("/"))) for c in breaks_report.compilations]
    first = ids[0][0]  # frame ids count per process; other tests may have compiled before
    assert ids == [(first, 0), (first, 1), (first + 1, 0), (first + 1, 1), (first + 2, 0), (first + 2, 1)]
    names = [c.frame.name for c in breaks_report.compilations]
    assert names[:2] == ["breaks", "breaks"]
    assert all(n.startswith("torch_dynamo_resume_in_breaks_at_") for n in names[2:])
    assert breaks_report.compilations[0].frame.lineno == _line("def breaks")


def test_original_and_rewritten_bytecode_for_every_frame(breaks_report):
    for c in breaks_report.compilations:
        assert c.original_bytecode and c.rewritten_bytecode, c.compile_id
        assert "RETURN_VALUE" in c.original_bytecode.listing  # the whole code (3.10 has no RESUME to start it)
        lines = {i.line for i in c.original_bytecode.instructions if i.line}
        assert lines, "instructions keep their source lines"
    top = _by_id(breaks_report, "0/0")
    assert top.original_bytecode.source.lstrip().startswith("def breaks")
    rewritten = top.rewritten_bytecode
    assert any("__compiled_fn" in i.argrepr for i in rewritten.instructions)
    assert (rewritten.decompiled and "__compiled_fn" in rewritten.decompiled) or rewritten.decompile_error


def test_fx_graph_code_nodes_and_user_lines(breaks_report):
    c = _by_id(breaks_report, "0/0")
    g = c.graph
    assert "sin" in g.code and g.num_nodes == c.metrics["graph_node_count"]
    sin = next(n for n in g.nodes if n.target == "sin")
    assert sin.loc.lineno == _line("y = x.sin() + 1") and sin.loc.code == "y = x.sin() + 1"
    assert sin.loc.filename == BASICS
    assert any(src in {n.name for n in g.nodes} for src in sin.inputs)  # the edges a picture draws


def test_guards_carry_the_user_line_that_made_them(breaks_report):
    c = _by_id(breaks_report, "0/0")
    tensor = [g for g in c.guards if g.kind == "TENSOR_MATCH"]
    assert tensor and tensor[0].subject == "L['x']"
    assert tensor[0].source == "y = x.sin() + 1" and tensor[0].lineno == _line("y = x.sin() + 1")
    assert tensor[0].filename == BASICS
    assert "size=[8]" in tensor[0].code
    assert "TREE_GUARD_MANAGER" in c.guard_tree


def test_recompile_reason_names_the_failed_guard(breaks_report):
    assert _by_id(breaks_report, "0/0").recompile_reason is None
    reason = _by_id(breaks_report, "0/1").recompile_reason
    assert "size mismatch" in reason and "expected 8, actual 16" in reason


def test_graph_breaks_have_line_source_reason_hints(breaks_report):
    b = _by_id(breaks_report, "0/0").graph_break
    assert (b.filename, b.lineno) == (BASICS, _line('print("tick")'))
    assert b.source_line.startswith('print("tick")')
    assert b.reason and b.hints and b.gb_code and b.gb_code.startswith("GB")
    assert b.user_traceback[-1].lineno == b.lineno
    branch = _by_id(breaks_report, "1/0").graph_break
    assert branch.lineno == _line("if y.sum() > 0") and "branch" in branch.reason.lower()
    assert _by_id(breaks_report, "0/0").restarts, "the first trace restarted at the break"


def test_training_step_has_forward_backward_and_both_lowerings(breaks_report):
    c = _by_id(breaks_report, "0/0")
    assert c.aot_forward and c.aot_backward and c.aot_inference is None
    assert "aten.cos" in c.aot_backward.code, "backward of sin is cos, lowered at compile time"
    assert c.post_grad_graph and c.post_grad_graph_backward
    assert [d.graph_kind for d in c.ir_pre_fusion] == ["forward", "backward"]
    assert "SchedulerNode" in c.ir_pre_fusion[0].text and c.ir_post_fusion
    assert [o.graph_kind for o in c.output_code] == ["forward", "backward"]
    assert "def call(" in c.output_code[0].code


def test_kernels_are_split_out_with_language_and_origin(breaks_report):
    c = _by_id(breaks_report, "0/0")
    fwd = [k for k in c.kernels if k.graph_kind == "forward"]
    assert fwd and fwd[0].language == "cpp" and 'extern "C"' in fwd[0].source
    assert set(fwd[0].source_nodes) >= {"sin", "add"}
    assert any(loc.lineno == _line("y = x.sin() + 1") for loc in fwd[0].user_lines)
    assert any(k.graph_kind == "backward" for k in c.kernels)


def test_compile_times_per_stage(breaks_report):
    c = _by_id(breaks_report, "0/0")
    assert c.compile_time_s > 0
    assert c.metrics["inductor_compile_time_s"] <= c.compile_time_s
    assert breaks_report.compile_time_s >= c.compile_time_s


def test_module_inference_graph_and_why_no_backward(module_report):
    assert tuple(module_report.result.shape) == (2, 4)
    c = module_report.compilations[0]
    assert c.aot_inference is not None and c.aot_backward is None
    assert "inference" in c.missing["aot_backward"]
    assert c.kernels and c.output_code[0].graph_kind == "inference"
    assert any("fc1" in (n.target + n.name) for n in c.graph.nodes)


def test_dynamic_shapes_show_symbols(dynamic_report):
    c = dynamic_report.compilations[0]
    assert any(n.op == "placeholder" and n.name.startswith("s") for n in c.graph.nodes)
    assert c.kernels and any("ks0" in k.source or "s" in k.source for k in c.kernels)


def test_frame_without_graph_says_why():
    r = explorer.explore(basics.no_graph, 1, 2, backend="eager")
    assert r.result == 3
    c = r.compilations[0]
    assert c.graph is None and c.original_bytecode is not None
    assert "no PyTorch operations" in c.missing["graph"]


def test_backend_without_inductor_explains_missing_stages():
    r = explorer.explore(basics.simple, torch.randn(3), backend="aot_eager")
    c = r.compilations[0]
    assert c.aot_inference is not None and c.output_code is None
    assert "not Inductor" in c.missing["output_code"]


def _listener_state():
    trace = logging.getLogger(torch_door.logs.TRACE_LOGGER)
    ir = [logging.getLogger(n)
          for n in list(torch_door.inductor.IR_LOGGERS.values()) + [torch_door.dynamo.BYTECODE_LOGGER]]
    from torch._dynamo import convert_frame

    return (list(trace.handlers), [(lg.level, lg.propagate, list(lg.handlers)) for lg in ir],
            len(convert_frame._bytecode_hooks), torch_state.config_snapshot())


def test_nothing_leaks_after_success_or_failure():
    before = _listener_state()
    with explorer.capture():
        torch.compile(basics.simple, backend="eager")(torch.randn(2))
    assert _listener_state() == before

    class Boom(Exception):
        pass

    def bad(x):
        raise Boom("from user code")

    err = Boom("x")
    with pytest.raises(Boom) as info:
        with explorer.capture() as report:
            torch.compile(bad, backend="eager")(torch.randn(2))
    assert _listener_state() == before
    assert report.error.startswith("Boom: from user code")
    assert info.type is Boom and err is not info.value


def test_explore_passes_exceptions_through_with_partial_report():
    def bad(x):
        _ = x * 2  # some traced work before the error
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input") as info:
        explorer.explore(bad, torch.randn(2), backend="eager")
    partial = info.value.explorer_report
    assert partial.data is not None and "ValueError" in partial.error


def test_capture_inside_capture_records_in_both():
    with explorer.capture() as outer:
        with explorer.capture() as inner:
            explorer.explore(basics.simple, torch.randn(4), backend="eager")
        explorer.explore(basics.no_graph, 1, 2, backend="eager")
    assert len(inner.compilations) == 1
    assert len(outer.compilations) == 2


def test_explore_compiles_afresh_each_time():
    counts = [len(explorer.explore(basics.simple, torch.randn(3), backend="eager").compilations)
              for _ in range(2)]
    assert counts == [1, 1]


def test_unknown_events_are_listed_as_other_artifacts_with_count_and_size():
    from explorer.capturing.assemble import assemble
    from explorer.capturing.recorder import Recorder

    rec = Recorder()
    for payload in ("hello", "world!"):
        rec.take_trace({"brand_new_event": {"x": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}, payload)
    rec.take_trace({"report_level_event": {}}, None)
    rec.take_trace({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}, "{}" * 10)
    data = assemble(rec.raw, torch_version="t", device="cpu", python_version="3", wall_time_s=0, notes=[],
                    error=None)
    rows = {(o.name, o.compile_id): o for o in data.other_artifacts}
    new = rows[("brand_new_event", "0/0")]
    assert (new.count, new.size) == (2, len("hello") + len("world!")) and "no decoder" in new.why
    assert rows[("report_level_event", None)].count == 1
    noise = rows[("chromium_event", None)]
    assert (noise.count, noise.size) == (1, 20) and "noise" in noise.why
    assert [e.name for e in rec.raw.events] == ["brand_new_event"] * 2 + ["report_level_event"], "noise is not kept"
    assert [c.compile_id for c in data.compilations] == ["0/0"] and not data.problems


def test_a_malformed_trace_record_mid_run_costs_only_itself():
    """The issue's check: a bad dynamo_start before a compiled call; every stage stays, the record is named."""
    def bad_start():
        return {"stack": "not a list"}

    torch_door.dynamo_cache.forget_compilations(basics.simple)
    with explorer.capture() as report:
        torch._logging.trace_structured("dynamo_start", metadata_fn=bad_start)
        torch.compile(basics.simple)(torch.randn(4))
    c = report.compilations[0]
    assert c.status == "compiled" and c.frame.name == "simple"
    for stage in ("original_bytecode", "rewritten_bytecode", "graph", "aot_inference", "post_grad_graph",
                  "ir_pre_fusion", "ir_post_fusion", "output_code"):
        assert getattr(c, stage) is not None, stage
    assert c.guards and c.kernels and c.compile_time_s
    (problem,) = report.data.problems
    assert (problem.where, problem.event, problem.compile_id) == ("decoder", "dynamo_start", None)
    assert "'stack' is str, expected a list" in problem.message
    assert "dynamo_start" in problem.one_line() and "DecodeError" in problem.one_line()


def test_a_failing_subscriber_is_a_problem_and_the_capture_goes_on():
    from explorer.capturing.session import CaptureSession

    seen = []

    def broken(event):
        seen.append(event)
        raise RuntimeError("subscriber bug")

    torch_door.dynamo_cache.forget_compilations(basics.simple)
    session = CaptureSession(listeners=[broken])
    with session:
        torch.compile(basics.simple, backend="eager")(torch.randn(3))
    assert len(seen) == 1 and seen[0].name and session.data.compilations[0].graph is not None
    (problem,) = session.data.problems
    assert problem.where == "subscriber test_a_failing_subscriber_is_a_problem_and_the_capture_goes_on.<locals>.broken"
    assert "RuntimeError: subscriber bug" in problem.message and "not called again" in problem.message


def test_the_capture_is_the_only_listener_on_the_trace(monkeypatch):
    """The status line and repro collection subscribe to the capture's recorder: one handler, each record once."""
    from explorer import progress as progress_mod
    from explorer.timing.repro import collect_repros

    class Handle:
        def update(self, obj):
            pass

    monkeypatch.setattr(progress_mod, "_display", lambda obj: Handle())
    trace = torch_door.logs.trace_logger()
    before = len(trace.handlers)
    stages = []
    torch_door.dynamo_cache.forget_compilations(basics.simple)
    with progress_mod.Progress(tick_s=None) as progress, collect_repros() as repros:
        monkeypatch.setattr(progress, "_update", lambda: stages.append(progress.stage))
        with explorer.capture() as outer:
            with explorer.capture():
                assert len(trace.handlers) == before + 2  # one per capture, none for the subscribers
                torch.compile(basics.simple)(torch.randn(5))
    assert len(repros) == 1 and repros[0].compile_id == outer.compilations[0].compile_id
    assert stages.count("frame compiled") == 1, "nested captures: the outermost one feeds the subscribers"
    assert len(trace.handlers) == before


def test_fullgraph_failure_is_reported_as_the_break_that_failed_it():
    def f(x):
        y = x + 1
        print("no graph break allowed")
        return y

    with pytest.raises(Exception) as info:
        explorer.explore(f, torch.randn(2), backend="eager", fullgraph=True)
    assert type(info.value).__name__ == "Unsupported", "torch's own exception type, unchanged"
    report = info.value.explorer_report
    brk = report.compilations[0].graph_break
    assert brk.lineno == f.__code__.co_firstlineno + 2 and "print" in brk.source_line
    assert report.compilations[0].status == "failed"


@pytest.fixture
def private_inductor_cache(monkeypatch, tmp_path):
    """A cache dir of the test's own: the machine's shared one gets tmp* folders from other processes' compiles
    (other test runs, notebooks) at any moment, which these tests would count as left behind."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))


def test_capture_removes_its_own_cache_folders_and_no_one_elses(private_inductor_cache):
    """Another process compiling beside the capture (a second notebook, a plain run) keeps its folders."""
    import os
    import tempfile

    from torch._inductor.runtime.cache_dir_utils import cache_dir

    before = torch_door.inductor.fresh_cache_dirs()
    neighbour = []

    @torch._dynamo.disable
    def another_process_compiles():
        neighbour.append(tempfile.mkdtemp(dir=cache_dir()))
        with open(os.path.join(neighbour[0], "kernel.cpp"), "w") as fh:
            fh.write("// not the capture's\n")

    def fn(x):
        y = torch.sin(x)
        another_process_compiles()  # while the capture runs, as another process would
        return y + 1

    report = explorer.explore(fn, torch.randn(8), time=False)
    try:
        assert report.compilations[0].output_code, "an Inductor compile ran"
        assert os.path.exists(os.path.join(neighbour[0], "kernel.cpp"))
        assert torch_door.inductor.fresh_cache_dirs() - before == {neighbour[0]}
    finally:
        import shutil

        shutil.rmtree(neighbour[0], ignore_errors=True)


def test_timing_leaves_no_temporary_folder_in_the_cache_dir(private_inductor_cache):
    """The per-kernel profile compiles the graph again, uncached: that build's folder goes too."""
    before = torch_door.inductor.fresh_cache_dirs()
    report = explorer.explore(lambda x: torch.sin(x) * 2, torch.randn(64), time=True)
    assert "separate profiling build" in report.to_json()  # the second, uncached build ran
    assert torch_door.inductor.fresh_cache_dirs() - before == set()


def test_where_depyf_cannot_decompile_the_reason_names_depyf_and_the_python(monkeypatch):
    """Python 3.13's bytecode is beyond depyf 0.20: the view says which depyf failed on which Python, and why."""
    import sys
    from importlib.metadata import version

    from depyf.decompiler import DecompilationError, Decompiler

    from explorer.capturing import bytecode

    def fails(self, *args):
        raise DecompilationError("Failed to decompile instruction LOAD_FAST_LOAD_FAST")

    # depyf 0.20 on 3.13 can fail already in the constructor (reading a jump label): both fail the same way here
    monkeypatch.setattr(Decompiler, "__init__", fails)
    monkeypatch.setattr(Decompiler, "decompile", fails)
    bc = bytecode.from_code(_line.__code__, decompile=True)
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert bc.decompiled is None and "RETURN_VALUE" in bc.listing
    assert bc.decompile_error == (f"depyf {version('depyf')} could not decompile _line (Python {python} bytecode): "
                                  "DecompilationError: Failed to decompile instruction LOAD_FAST_LOAD_FAST")


@pytest.mark.parametrize("listing", [
    # Python 3.11/3.12: offsets, >> at jump targets
    "  1           0 RESUME                   0\n\n  2           2 LOAD_CONST               1 (0)\n"
    "              4 STORE_GLOBAL             1 (total)\n\n  3     >>    6 FOR_ITER                 5 (to 18)\n"
    "              8 STORE_GLOBAL             2 (i)\n",
    # Python 3.13 as torch prints a frame Dynamo gave up on: no offset column, labels at jump targets
    "  1           RESUME                   0\n\n  2           LOAD_CONST               1 (0)\n"
    "              STORE_GLOBAL             1 (total)\n\n  3   L1:     FOR_ITER                50 (to L2)\n"
    "              STORE_GLOBAL             2 (i)\n",
    # Python 3.13 with offsets (capturing.bytecode.dis_listing)
    "  1          0       RESUME                   0\n\n  2          2       LOAD_CONST               1 (0)\n"
    "             4       STORE_GLOBAL             1 (total)\n\n  3   L1:  6       FOR_ITER                50 (to L2)\n"
    "            10       STORE_GLOBAL             2 (i)\n",
])
def test_a_printed_listing_reads_back_every_instruction_with_its_line(listing):
    """A frame Dynamo gave up on is known only by torch's printed listing: its stores (the cell's names) must be
    read on every Python's layout, or the timing would re-run a loop that rebinds the user's names."""
    from explorer.capturing.bytecode import instructions_of_listing

    rows = [(i.opname, i.argrepr, i.line) for i in instructions_of_listing(listing)]
    assert rows == [("RESUME", "", 1), ("LOAD_CONST", "0", 2), ("STORE_GLOBAL", "total", 2),
                    ("FOR_ITER", rows[3][1], 3), ("STORE_GLOBAL", "i", 3)]
    assert rows[3][1].startswith("to ")
