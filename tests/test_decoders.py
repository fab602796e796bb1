"""Each decoder, and the fold, on raw traces recorded once (tests/fixtures/traces), tlparse-style.

Nothing here compiles: the records are replayed into the recorder's intake
(``fixtures/tape.py``), so a decoder's behaviour on torch's real output is
pinned in milliseconds. Refresh the recordings on a new torch with
``PYTHONPATH=. python tests/fixtures/record_traces.py``.
"""

import json
import logging
import os

import pytest
from fixtures import tape

from explorer.capturing import fold as fold_mod
from explorer.capturing.assemble import NO_DECODER, assemble
from explorer.capturing.decode_usage import KERNEL_TRACE_NAMES
from explorer.capturing.decoders import DECODERS, UNKNOWN, DecodeContext, decode, decoder_for
from explorer.capturing.elements import Partly
from explorer.capturing.model import Problem, SourceLoc
from explorer.capturing.raw import RawEvent
from explorer.capturing.recorder import NOISE, Recorder, _ListHandler
from explorer.capturing.records import (
    AotGraph,
    BytecodeListing,
    CollectiveScheduleRecord,
    DynamoGraph,
    FrameStart,
    GraphBreakReason,
    GraphExecution,
    GuardTree,
    IrText,
    Metrics,
    MinCutRecord,
    OutputCodeText,
    PostGradGraph,
    Provenance,
    RecompileReasons,
    TraceCall,
)
from explorer.capturing.session import read

PROGRAM = os.path.join(os.path.dirname(__file__), "fixtures", "trace_programs.py")
TRACES = ["breaks", "train", "recompile"]
ALL_TRACES = TRACES + ["budget", "collectives"]  # and torch's other artifacts (tests/test_artifacts.py)
EXPECTED = {"dynamo_start": FrameStart, "dynamo_output_graph": DynamoGraph, "dynamo_cpp_guards_str": GuardTree,
            "artifact:dynamo_graph_break_reason": GraphBreakReason, "artifact:recompile_reasons": RecompileReasons,
            "compilation_metrics": Metrics, "bytecode_log": BytecodeListing, "aot_joint_graph": AotGraph,
            "aot_forward_graph": AotGraph, "aot_backward_graph": AotGraph, "aot_inference_graph": AotGraph,
            "artifact:inductor_post_grad_graph": PostGradGraph, "ir_pre_fusion": IrText, "ir_post_fusion": IrText,
            "inductor_output_code": OutputCodeText, "artifact:inductor_provenance_tracking_node_mappings": Provenance,
            "artifact:inductor_provenance_tracking_kernel_stack_traces": Provenance,
            "artifact:min_cut_information": MinCutRecord, "artifact:graph_execution": GraphExecution,
            "artifact:inductor_collective_schedule": CollectiveScheduleRecord, "trace_call": TraceCall}


def _line(text):
    with open(PROGRAM, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


def _data(recorder):
    return assemble(recorder.raw, torch_version="t", device="cpu", python_version="3", wall_time_s=0.0, notes=[],
                    error=None)


def _decoded(name):
    """(event, decode result) for every record a replay of the trace keeps."""
    rec = tape.replay(name)
    ctx = DecodeContext(rec.raw.strings)
    return [(ev, decode(ev, ctx)) for ev in rec.raw.events]


def _records(name, event, compile_id=None):
    return [r for ev, r in _decoded(name)
            if ev.name == event and (compile_id is None or ev.compile_id.trace_key == compile_id)]


def _replay_changed(name, change):
    """A replay of the trace with ``change(line)`` applied to each line."""
    return tape.replay([change(dict(line)) for line in tape.lines(name)])


def _is(line, event, frame=None):
    md = line.get("metadata") or {}
    if line["source"] != "trace":
        return line["source"] == event and (frame is None or (line["compile_id"] or "").startswith(f"{frame}/"))
    name = f"artifact:{md['artifact']['name']}" if isinstance(md.get("artifact"), dict) else next(iter(md), "")
    return name == event and (frame is None or md.get("frame_id") == frame)


# ---- every decoder on torch's real records ----

@pytest.mark.parametrize("name", ALL_TRACES)
def test_every_recorded_event_has_a_decoder_and_decodes_cleanly(name):
    """A new torch that adds an event or changes a format fails here first (after re-recording)."""
    results = _decoded(name)
    assert results
    for ev, result in results:
        assert result is not UNKNOWN, f"no decoder for {ev.name}"
        assert not isinstance(result, Problem), result
        expected = EXPECTED.get(ev.name, BytecodeListing)  # the resume frames' *_BYTECODE artifacts
        assert result is None or isinstance(result, expected), (ev.name, result)


def test_the_table_has_one_entry_per_event_kind():
    assert set(EXPECTED) <= set(DECODERS)
    assert decoder_for("artifact:torch_dynamo_resume_in_f_at_3_ORIGINAL_BYTECODE") is DECODERS[
        "artifact:*_ORIGINAL_BYTECODE"]
    assert decoder_for("artifact:never_heard_of_it") is None
    assert not set(DECODERS) & set(NOISE), "a record is either decoded or dropped as noise"


def test_dynamo_graph_keeps_nodes_with_their_user_lines():
    (graph,) = [r.graph for r in _records("breaks", "dynamo_output_graph", "0/0_1")]
    sin = next(n for n in graph.nodes if n.target == "sin")
    assert (sin.loc.filename, sin.loc.lineno, sin.loc.code) == (PROGRAM, _line("y = x.sin() + 1"), "y = x.sin() + 1")
    assert graph.nodes[0].op == "placeholder" and graph.nodes[-1].op == "output"


def test_guard_tree_keeps_the_text_that_folds_into_guards_with_user_lines():
    (tree,) = _records("breaks", "dynamo_cpp_guards_str", "0/0_1")
    assert tree.text.startswith("TREE_GUARD_MANAGER")
    c = _data(tape.replay("breaks")).compilations[0]
    tensor = next(g for g in c.guards if g.kind == "TENSOR_MATCH")
    assert (tensor.subject, tensor.filename, tensor.lineno) == ("L['x']", PROGRAM, _line("y = x.sin() + 1"))


def test_a_type_check_keeps_its_line_through_torchs_hint():
    # torch writes "# ...  # trace_programs.py:20 in forward (HINT: type Linear)": the line is still the user's
    (c,) = _data(tape.replay("train")).compilations
    fc1 = next(g for g in c.guards if g.kind == "TYPE_MATCH" and g.subject == "L['self']._modules['fc1']")
    line = "return self.fc2(torch.relu(self.fc1(x)))"
    assert (fc1.filename, fc1.lineno, fc1.function, fc1.source) == (PROGRAM, _line(line), "forward", line)
    typed = [g for g in c.guards if g.kind == "TYPE_MATCH" and g.source]
    assert typed and all(g.lineno for g in typed), [g.subject for g in typed if not g.lineno]


def test_graph_breaks_carry_line_reason_and_gb_code():
    (printed,) = _records("breaks", "artifact:dynamo_graph_break_reason", "0/0")
    (branch,) = _records("breaks", "artifact:dynamo_graph_break_reason", "1/0")
    assert printed.graph_break.lineno == _line('print("tick")') and printed.graph_break.filename == PROGRAM
    assert printed.graph_break.gb_code.startswith("GB") and printed.graph_break.hints
    assert branch.graph_break.lineno == _line("if y.sum() > 0") and "branch" in branch.graph_break.reason.lower()


def test_dynamo_start_names_the_frame_through_the_interned_file_names():
    (start,) = _records("breaks", "dynamo_start", "0/0")
    assert (start.frame.name, start.frame.filename, start.frame.lineno) == ("breaks", PROGRAM, _line("def breaks"))


def test_metrics_carry_the_frame_times_and_restarts():
    (m,) = _records("breaks", "compilation_metrics", "0/0_1")
    assert m.frame.name == "breaks" and m.compile_time_s > 0 and m.failure is None
    assert len(m.restart_reasons) == 1 and "print" in m.restart_reasons[0]
    assert m.values["graph_node_count"] > 0 and "co_name" not in m.values
    assert m.failed_at is None


def test_a_failed_compiles_metrics_name_the_user_line_it_failed_at():
    metrics = {"co_name": "f", "co_filename": "/u/t.py", "co_firstlineno": 3, "fail_type": "Unsupported",
               "fail_reason": "no", "fail_user_frame_filename": "/u/t.py", "fail_user_frame_lineno": 5}
    m = decode(RawEvent(0, "compilation_metrics", None, {"compilation_metrics": metrics}), DecodeContext())
    assert m.failure == "Unsupported: no" and m.failed_at == SourceLoc("/u/t.py", 5)


def test_recompile_reason_names_the_failed_guard():
    (r,) = _records("recompile", "artifact:recompile_reasons", "0/1")
    assert "size mismatch" in r.text and "expected 8, actual 16" in r.text


def test_bytecode_listings_from_the_logger_and_the_resume_artifacts():
    whiches = [r.which for r in _records("breaks", "bytecode_log", "1/0")]
    assert whiches == ["ORIGINAL", "MODIFIED"]
    (resume,) = [r for ev, r in _decoded("breaks") if ev.name.endswith("_at_7_ORIGINAL_BYTECODE")]
    assert resume.which == "ORIGINAL" and "RESUME" in resume.listing


def test_aot_inductor_and_provenance_records_of_a_training_step():
    kinds = [r.kind for ev, r in _decoded("train") if isinstance(r, AotGraph)]
    assert kinds == ["aot_joint", "aot_forward", "aot_backward"]
    assert [r.graph_kind for r in _records("train", "inductor_output_code")] == ["forward", "backward"]
    assert [r.fusion for r in _records("train", "ir_pre_fusion")] == ["pre", "pre"]
    (nodes, _) = _records("train", "artifact:inductor_provenance_tracking_node_mappings")
    assert nodes.kind == "node_mappings" and "preToPost" in nodes.value


# ---- the fold ----

def test_fold_breaks_three_frames_attempts_folded_restart_listed():
    data = _data(tape.replay("breaks"))
    comps = data.compilations
    assert [c.compile_id for c in comps] == ["0/0", "1/0", "2/0"] and not data.problems
    assert [c.frame.name for c in comps] == ["breaks", "torch_dynamo_resume_in_breaks_at_7",
                                             "torch_dynamo_resume_in_breaks_at_8"]
    first = comps[0]
    assert first.status == "compiled" and len(first.restarts) == 1
    assert first.graph_break.lineno == _line('print("tick")'), "attempt 0's break, attempt 1's graph"
    assert first.graph is not None and first.aot_inference is not None and first.kernels
    assert first.original_bytecode.listing and first.rewritten_bytecode.listing, "from Dynamo's listings"
    assert comps[2].graph_break is None and comps[2].kernels


def test_fold_training_step_splits_forward_and_backward_lowerings():
    (c,) = _data(tape.replay("train")).compilations
    assert c.aot_forward and c.aot_backward and c.aot_joint and c.aot_inference is None
    assert c.post_grad_graph and c.post_grad_graph_backward
    assert [d.graph_kind for d in c.ir_pre_fusion] == ["forward", "backward"]
    assert [o.graph_kind for o in c.output_code] == ["forward", "backward"]
    assert {k.graph_kind for k in c.kernels} == {"forward", "backward"}
    assert any(loc.filename == PROGRAM for k in c.kernels for loc in k.user_lines), "provenance links user lines"
    assert "aot_backward" not in c.missing and "graph" not in c.missing


def test_fold_recompile_gives_the_second_compilation_its_reason():
    data = _data(tape.replay("recompile"))
    assert [c.compile_id for c in data.compilations] == ["0/0", "0/1"]
    assert data.compilations[0].recompile_reason is None
    assert "size mismatch" in data.compilations[1].recompile_reason


def test_noise_is_counted_with_its_size_and_not_kept():
    lines = tape.lines("breaks")
    chromium = [line for line in lines if _is(line, "chromium_event")]
    rec = tape.replay("breaks")
    assert not any(ev.name == "chromium_event" for ev in rec.raw.events)
    (row,) = [o for o in _data(rec).other_artifacts if o.name == "chromium_event"]
    assert row.count == len(chromium) and row.size == sum(line["payload_size"] for line in chromium)
    assert row.compile_id is None and "dropped as noise" in row.why


# ---- malformed records: each costs only itself ----

def _garbage(event, payload=None, metadata=None, frame=0):
    def change(line):
        if _is(line, event, frame):
            if payload is not None:
                line["payload"] = payload
            if metadata is not None:
                line["metadata"] = {**line["metadata"], **metadata}
        return line

    return change


def test_graph_payload_garbage_is_a_problem_and_the_other_stages_stay():
    data = _data(_replay_changed("breaks", _garbage("dynamo_output_graph", payload="garbage\x00 not a graph")))
    (p,) = data.problems
    # the compilation's key, and the restart it came from beside it (one key form in the JSON)
    assert (p.where, p.event, p.compile_id, p.attempt) == ("decoder", "dynamo_output_graph", "0/0", 1)
    assert "[0/0_1]" in p.one_line()
    assert "not an FX graph" in p.message and "garbage" in p.message
    c = data.compilations[0]
    assert c.graph is None and "could not read its dynamo_output_graph record" in c.missing["graph"]
    assert c.guards and c.aot_inference and c.kernels and c.output_code and c.graph_break
    assert all(x.graph is not None for x in data.compilations[1:])


def test_guards_payload_garbage_is_a_problem_and_the_graph_stays():
    data = _data(_replay_changed("breaks", _garbage("dynamo_cpp_guards_str", payload="}{ nothing like a tree")))
    (p,) = data.problems
    assert (p.event, p.compile_id, p.attempt) == ("dynamo_cpp_guards_str", "0/0", 1) and "guard" in p.message
    c = data.compilations[0]
    assert c.guards == () and c.guard_tree is None and c.graph is not None
    assert data.compilations[1].guards


def test_a_bad_dynamo_start_inside_a_compilation_keeps_its_frame_from_the_metrics():
    data = _data(_replay_changed("train", _garbage("dynamo_start", metadata={"dynamo_start": {"stack": "not a list"}})))
    (p,) = data.problems
    assert (p.where, p.event, p.compile_id) == ("decoder", "dynamo_start", "0/0")
    assert p.message == "DecodeError: 'stack' is str, expected a list of frames"
    assert data.compilations[0].frame.name == "forward" and data.compilations[0].kernels


def test_metrics_of_the_wrong_shape_leave_the_frame_to_dynamo_start():
    data = _data(_replay_changed("train", _garbage("compilation_metrics", metadata={"compilation_metrics": [1, 2]})))
    (p,) = data.problems
    assert p.event == "compilation_metrics" and "expected a dict" in p.message
    c = data.compilations[0]
    assert c.frame.name == "forward" and c.compile_time_s is None and c.status == "compiled"


def test_provenance_that_is_not_json_costs_the_user_lines_only():
    event = "artifact:inductor_provenance_tracking_kernel_stack_traces"
    data = _data(_replay_changed("recompile", _garbage(event, payload="{not json")))
    assert [p.event for p in data.problems] == [event, event]  # one per lowering of the frame's two compiles
    c = data.compilations[0]
    assert c.kernels and c.kernels[0].source_nodes and not c.kernels[0].user_lines


def test_output_code_that_is_not_python_keeps_the_code_and_loses_the_kernel_table():
    data = _data(_replay_changed("recompile", _garbage("inductor_output_code", payload="def (:\n  not python")))
    assert {(p.where, p.event) for p in data.problems} == {("fold: kernels", "inductor_output_code")}
    c = data.compilations[0]
    assert c.output_code[0].code.startswith("def (:") and c.kernels == ()


def test_unknown_events_become_other_artifacts_per_compilation():
    def add_unknown(line):
        if _is(line, "dynamo_start"):
            frame = line["metadata"]["frame_id"]
            return [line, {"source": "trace", "payload": "abc" * frame,
                           "metadata": {"shiny_new_event": {}, "frame_id": frame, "frame_compile_id": 0}}]
        return [line]

    data = _data(tape.replay([x for line in tape.lines("breaks") for x in add_unknown(line)]))
    rows = {o.compile_id: o for o in data.other_artifacts if o.name == "shiny_new_event"}
    assert sorted(rows) == ["0/0", "1/0", "2/0"]
    assert (rows["2/0"].count, rows["2/0"].size, rows["2/0"].why) == (1, 6, NO_DECODER)
    assert len(data.compilations) == 3 and not data.problems


def test_a_failing_fold_step_keeps_the_other_stages(monkeypatch):
    def broken(self):
        raise RuntimeError("lowering bug")

    monkeypatch.setattr(fold_mod.Fold, "_apply_lowerings", broken)
    data = _data(tape.replay("train"))
    (p,) = data.problems
    assert (p.where, p.compile_id) == ("fold: lowerings", "0/0") and "RuntimeError: lowering bug" in p.message
    c = data.compilations[0]
    assert c.graph and c.aot_backward and c.guards and c.output_code is None


def test_a_bug_in_the_assembly_loop_keeps_the_compilations_built_before_it(monkeypatch):
    build = fold_mod.Fold.build

    def broken(self):
        if self.compile_id.frame_id == 1:
            raise RuntimeError("assembly bug")
        return build(self)

    monkeypatch.setattr(fold_mod.Fold, "build", broken)
    data = read(tape.replay("breaks").raw, notes=["a note"], wall_time_s=1.0, error=None)
    assert [c.compile_id for c in data.compilations] == ["0/0"] and data.compilations[0].graph
    (p,) = data.problems
    assert p.where == "assemble" and "assembly bug" in p.message
    assert data.notes == ("a note",) and any(o.name == "chromium_event" for o in data.other_artifacts)


# ---- the recorder: a failure while recording is a Problem, never an exception ----

def _log_record(metadata, payload=None):
    record = logging.LogRecord("torch.__trace", logging.DEBUG, __file__, 1, "", None, None)
    record.metadata, record.payload = metadata, payload
    return record


def test_a_record_the_recorder_cannot_take_is_a_problem_counted_once():
    rec = Recorder()
    handler = _ListHandler(rec, "trace")
    for _ in range(3):
        handler.emit(_log_record({"str": "not a pair"}))
    handler.emit(_log_record({"dynamo_start": {}, "frame_id": 2, "frame_compile_id": 0}))
    (p,) = rec.raw.problems
    assert p.where == "recorder" and p.event == "str" and "ValueError" in p.message
    assert "2 more times" in p.message and [e.name for e in rec.raw.events] == ["dynamo_start"]


def test_an_undo_that_fails_in_close_is_a_problem_and_the_rest_are_undone():
    rec = Recorder()
    done = []
    rec._undo += [lambda: done.append("first"), lambda: 1 / 0, lambda: done.append("last")]
    rec.close()
    assert done == ["last", "first"]
    (p,) = rec.raw.problems
    assert p.where == "recorder.close" and "ZeroDivisionError" in p.message


def test_subscribers_see_kept_records_live_and_noise_only_when_they_ask():
    plain, asking = [], []
    rec = Recorder(listeners=[plain.append])
    rec.subscribe(asking.append, keep=["artifact:fx_graph_runnable"])
    envelope = {"frame_id": 1, "frame_compile_id": 2, "attempt": 1}
    rec.take_trace({"dynamo_start": {}, **envelope}, None)
    rec.take_trace({"artifact": {"name": "fx_graph_runnable"}, **envelope}, "repro")
    rec.take_trace({"chromium_event": {}, **envelope}, "{}")
    assert [e.name for e in plain] == ["dynamo_start"]
    assert [(e.name, e.payload) for e in asking] == [("dynamo_start", None), ("artifact:fx_graph_runnable", "repro")]
    assert str(asking[1].compile_id) == "[1/2_1]"
    rows = {o.name: o for o in _data(rec).other_artifacts}
    assert "subscriber" in rows["artifact:fx_graph_runnable"].why and "noise" in rows["chromium_event"].why


def test_the_fixture_format_round_trips_through_json():
    """The tape is plain JSON lines: what record_traces.py writes, tape.py reads."""
    for name in TRACES:
        lines = tape.lines(name)
        assert all(json.loads(json.dumps(line)) == line for line in lines[:20])
        assert {line["source"] for line in lines} >= {"trace", "ir_pre_fusion", "ir_post_fusion", "bytecode_log"}


def _wrappers_in(node):
    if isinstance(node, dict):
        if isinstance(node.get("code"), str) and "async_compile" in node["code"]:
            yield node["code"]
        for v in node.values():
            yield from _wrappers_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from _wrappers_in(v)


def test_kernel_scanner_reads_what_a_whole_module_parse_reads():
    """Kernels are read statement by statement (fast); the result must be the full parse's, Triton and C++."""
    import ast
    import json
    import os

    from explorer.capturing.inductor_code import wrapper as p

    with open(os.path.join(os.path.dirname(__file__), "data", "cuda_lineage.json")) as fh:
        codes = list(_wrappers_in(json.load(fh)))
    escaped = ("x = 1\ntriton_k = async_compile.triton('triton_k', '''\nprint('a\\\\tb')\n''', "
               "device_str='cuda')  # trailing\nk2 = async_compile.cpp_pybinding(['float*'], r'''\n"
               "#include <x>\nint f() { return 1; }\n''')\n")
    assert codes, "the recorded H200 report holds wrappers"
    for code in [*codes, escaped]:
        tree = ast.parse(code)
        want = [(st.lineno, *k) for st in tree.body if (k := p._kernel_assignment(st))]
        assert want and p.scan_kernels(code) == want
    assert p.scan_kernels(escaped)[0][3] == "print('a\\tb')"
    assert p.scan_kernels("k = async_compile.cpp(no_source)\n") is None  # not recognised: parsed whole


# ---- one odd element costs only itself: the record keeps the others and says what it kept, in one line ----

def _code_of_two():
    def first():
        return 1

    def second():
        return 2

    return first.__code__, second.__code__


_FIRST, _SECOND = _code_of_two()
_MIN_CUT = {"Memory Budget": 0.5, "Recomputable Banned Nodes Order": ["mm", "relu"],
            "Joint Graph Node Information": {
                "mm": {"target": "aten.mm", "recomputable_candidate_info": {"memory": 64, "runtime": 2.0}},
                "relu": {"target": "aten.relu"}}}  # relu: no recomputable_candidate_info
# (event, its fields, its payload, what the kept record holds, the one line naming the odd element)
ODD_ELEMENTS = {
    "an op with no name (torch writes None for an op with no scheduler node)": (
        "artifact:inductor_runtime_and_tensor_meta", {},
        {"ops": [{"name": "op0", "estimated_runtime_ns": 1.0, "outputs": [{"shape": [2], "dtype": "float32"}]},
                 {"name": None, "type": "compute", "estimated_runtime_ns": 0, "outputs": [{"shape": [2, 4]}]},
                 {"name": "extern_kernels.mm", "estimated_runtime_ns": 2.0}]},
        lambda r: [(o.name, o.outputs) for o in r.ops] == [
            ("op0", ("float32[2]",)), ("?", ("?[2, 4]",)), ("extern_kernels.mm", ())],
        "1 of 3 ops had no name: kept as `?`"),
    "an op with no number for its estimate": (
        "artifact:inductor_runtime_and_tensor_meta", {},
        {"ops": [{"name": "op0", "estimated_runtime_ns": 1.0}, {"name": "op1", "estimated_runtime_ns": "fast"}]},
        lambda r: [o.name for o in r.ops] == ["op0"], "1 of 2 ops had no number for its estimate: left out"),
    "a frame of dynamo_start's stack that is no object": (
        "dynamo_start", {"dynamo_start": {"stack": [None, {"filename": 1, "line": 7, "name": "f", "loc": "f(x)"}]}},
        None, lambda r: (r.frame.name, r.frame.lineno, [s.filename for s in r.stack]) == ("f", 7, ["?", "/u/a.py"]),
        "1 of 2 frames held no fields (not a JSON object): kept as `?`"),
    "a node mapping to no list of names": (
        "artifact:inductor_provenance_tracking_node_mappings", {},
        {"preToPost": {"linear": ["addmm"], "relu": None}, "cppCodeToPost": {"cpp_0:1": ["relu"]}, "version": 2.0},
        lambda r: r.value == {"preToPost": {"linear": ["addmm"]}, "cppCodeToPost": {"cpp_0:1": ["relu"]}, "version": 2},
        "1 of 3 mappings mapped to no list of names: left out"),
    "a kernel with no list of stack traces": (
        "artifact:inductor_provenance_tracking_kernel_stack_traces", {},
        {"cpp_fused_0:1": ['  File "/u/a.py", line 3, in f\n    y = x.sin()\n'], "extern_kernels.mm:2": 7},
        lambda r: list(r.value) == ["cpp_fused_0:1"], "1 of 2 kernels had no list of stack traces: left out"),
    "a min-cut candidate with nothing its decision was made on": (
        "artifact:min_cut_information", {}, _MIN_CUT,
        lambda r: [c.name for c in r.min_cut.candidates] == ["mm"] and r.min_cut.memory_budget == 0.5,
        "1 of 2 candidates had no recomputable_candidate_info: left out"),
    "a kernel's compile info that is no object": (
        "artifact:triton_kernel_info", {},
        {"triton_poi_0": {"compile_time_us": 2000, "num_configs": 1}, "triton_poi_1": "cached"},
        lambda r: [(k.name, k.compile_time_s) for k in r.kernels] == [("triton_poi_0", 0.002)],
        "1 of 2 kernels held no fields (not a JSON object): left out"),
    "a collective with no name": (
        "artifact:inductor_collective_schedule", {}, ["torch.ops._c10d_functional.all_reduce_.default", None],
        lambda r: r.ops == ("torch.ops._c10d_functional.all_reduce_.default", "?"),
        "1 of 2 collectives had no name: kept as `?`"),
    "a graph run that names no compilation": (
        "artifact:graph_execution", {}, {"graph_execution_order": [{"compile_id": "0/0"}, {}, {"compile_id": "1/0"}]},
        lambda r: r.order == ("0/0", "?", "1/0"), "1 of 3 graph runs named no compilation: kept as `?`"),
    "a per-kernel record that is no object": (
        "artifact:inductor_kernel_information", {}, {"triton_poi_0:1": {"ops": ["aten.sin"]}, "triton_poi_1:2": []},
        lambda r: list(r.kernels) == ["triton_poi_0:1"], "1 of 2 kernels held no fields (not a JSON object): left out"),
    "a traced function that is no code object": (
        "traced_code", {}, (_FIRST, "not code", _SECOND),
        lambda r: [f.name.rsplit(".", 1)[-1] for f in r.functions] == ["first", "second"],
        "1 of 3 traced functions held no code object: left out"),
}


@pytest.mark.parametrize("case", list(ODD_ELEMENTS))
def test_a_record_with_one_odd_element_keeps_the_others_and_names_it_in_one_line(case):
    name, fields, payload, holds, line = ODD_ELEMENTS[case]
    text = payload if isinstance(payload, tuple) or payload is None else json.dumps(payload)
    got = decode(RawEvent(0, name, None, fields, text), DecodeContext({1: "/u/a.py"}))
    assert isinstance(got, Partly), got
    assert got.note == line
    assert holds(got.record), got.record


def test_every_decoder_that_reads_a_list_has_an_odd_element_case():
    """A decoder that reads elements one by one (``elements.Elements``) is in ``ODD_ELEMENTS``."""
    import inspect

    read_in_part = {name for name, fn in DECODERS.items() if "Elements(" in inspect.getsource(fn)
                    or "_provenance" in getattr(fn, "__qualname__", "")}
    tested = {event for event, *_ in ODD_ELEMENTS.values()}
    assert read_in_part - tested <= {f"artifact:{n}" for n in KERNEL_TRACE_NAMES if n != "inductor_kernel_information"}


def test_a_list_none_of_whose_elements_can_be_read_is_still_a_problem():
    payload = json.dumps({"ops": [{"name": "op0"}, {"name": "op1", "estimated_runtime_ns": None}]})
    got = decode(RawEvent(0, "artifact:inductor_runtime_and_tensor_meta", None, {}, payload), DecodeContext())
    assert isinstance(got, Problem) and "none of its 2 ops could be read" in got.message


def test_an_op_torch_wrote_without_a_name_is_no_problem_and_is_said_beside_the_estimates():
    """A Hugging Face model's attention (torch writes None for the op that has no node): the report has no problem,
    the estimates keep every op, and the kernels pane (where they are shown) and the JSON say what was kept."""
    from explorer.present import viewmodel
    from explorer.report import Report

    def unname(line):
        if _is(line, "artifact:inductor_runtime_and_tensor_meta"):
            ops = json.loads(line["payload"])
            ops["ops"][0]["name"] = None
            line["payload"] = json.dumps(ops)
        return line

    data = _data(_replay_changed("estimates", unname))
    assert data.problems == ()
    (read,) = data.partial_reads
    assert read.event == "artifact:inductor_runtime_and_tensor_meta" and read.compile_id
    assert read.message.startswith("1 of ") and read.message.endswith(" ops had no name: kept as `?`")
    comp = next(c for c in data.compilations if c.op_estimates)
    assert comp.compile_id == read.compile_id and comp.op_estimates[0].name == "?"
    assert comp.op_estimates[0].kernel is None  # an op with no name became no call
    report = Report.of(data)
    view = viewmodel.build(report)
    header = view["header"]["body"]
    assert not [b for b in header if "cx-problem" in (b.get("cls") or "")]
    assert not [b for b in header if "cx-partial" in (b.get("cls") or "")]  # said where the estimates are
    pane = next(v for v in view["compilations"] if v["cid"] == comp.compile_id)["panes"]["kernels"]
    (note,) = [b for b in pane if "cx-partial" in (b.get("cls") or "")]
    assert "Inductor's runtime estimates" in str(note["r"]) and read.message in note["r"]
    assert json.loads(report.to_json())["capture"]["partial_reads"][0]["message"] == read.message


def test_an_answer_from_the_real_tensors_decodes_and_one_without_its_answer_is_a_problem():
    """``propagate_real_tensors`` (torch/fx/experimental/symbolic_shapes.py): ``expr``, ``result`` and a framework
    stack; a record missing its answer is a problem that names the field, not a row made up."""
    from explorer.capturing.records import ShapeRecord
    from explorer.capturing.shapes import RealValue

    stack = [{"filename": 1, "line": 11, "name": "<module>", "loc": "print(f(x))"},
             {"filename": 2, "line": 1603, "name": "step", "loc": "self.dispatch_table[inst.opcode](self, inst)"},
             {"filename": 3, "line": 8159, "name": "_log_real_tensor_propagation", "loc": "trace_structured("}]
    ctx = DecodeContext({1: "/u/a.py", 2: "/t/torch/_dynamo/symbolic_convert.py",
                         3: "/t/torch/fx/experimental/symbolic_shapes.py"})
    fields = {"propagate_real_tensors": {"expr": "u0 > 3", "result": "True", "stack": stack}}
    got = decode(RawEvent(0, "propagate_real_tensors", None, fields, None), ctx)
    assert isinstance(got, ShapeRecord), got
    assert got.row == RealValue("u0 > 3", "True", SourceLoc("/t/torch/_dynamo/symbolic_convert.py", 1603, "step",
                                                            "self.dispatch_table[inst.opcode](self, inst)"))
    del fields["propagate_real_tensors"]["result"]
    bad = decode(RawEvent(0, "propagate_real_tensors", None, fields, None), ctx)
    assert isinstance(bad, Problem) and "'result'" in bad.message, bad
