"""torch's other artifacts and what the partitioner saved, on records torch wrote (no compile here).

Tapes of trace_programs.py (``fixtures/traces``: ``budget`` has the partitioner's knapsack, recorded with
AOT_PARTITIONER_DEBUG=1; ``collectives`` Inductor's collective schedule, the graph execution order and
Dynamo's trace_call lines; ``train`` a plain training step) and records copied from tlparse's test inputs
(``fixtures/tlparse``: Triton kernels' compile times, which this CPU machine cannot write).
"""

import json
import os

import jsonschema
from fixtures import tape

from explorer.capturing.assemble import assemble
from explorer.capturing.decoders import DecodeContext, decode
from explorer.capturing.model import Problem
from explorer.capturing.raw import RawEvent
from explorer.distributed.collectives import compilation_collectives
from explorer.lineage.saved import saved_tensors, size_of
from explorer.present import saved_view
from explorer.present import viewmodel as vm
from explorer.report import Report
from explorer.schema import SCHEMA_PATH
from explorer.stages import STAGES

HERE = os.path.dirname(__file__)
PROGRAM = os.path.join(HERE, "fixtures", "trace_programs.py")
TLPARSE = os.path.join(HERE, "fixtures", "tlparse", "collectives_parity_rank_0.log")


def _line(text):
    with open(PROGRAM, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


def _data(lines):
    rec = tape.replay(lines)
    return assemble(rec.raw, torch_version="t", device="cpu", python_version="3", wall_time_s=0.0, notes=[],
                    error=None)


def _tlparse_lines(path):
    """A TORCH_TRACE file's records as tape lines: the metadata after the glog prefix, the tab-indented payload."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh.read().splitlines():
            if line.startswith("\t"):
                out[-1]["payload"] = (out[-1]["payload"] + "\n" if out[-1]["payload"] else "") + line[1:]
            elif line.strip():
                out.append({"source": "trace", "metadata": json.loads(line.split("] ", 1)[1]), "payload": ""})
    return out


# ---- what the partitioner saved ----

def test_a_training_step_saves_its_input_weight_and_activation_and_recomputes_a_transpose():
    (c,) = _data("train").compilations
    st = saved_tensors(c)
    line = _line("return self.fc2(torch.relu(self.fc1(x)))")
    assert [(s.name, s.kind, s.input_name, s.type, s.size.known) for s in st.saved] == [
        ("primals_3", "input", "x", "f32[4, 8]", 128), ("primals_4", "input", "self.fc2.weight", "f32[4, 16]", 256),
        ("relu", "activation", None, "f32[4, 16]", 256)]
    relu = st.saved[2]
    assert (relu.op, relu.in_joint, relu.loc.filename, relu.loc.lineno) == ("aten.relu.default", True, PROGRAM, line)
    assert [(r.name, r.op, r.loc.lineno) for r in st.recomputed] == [("permute_1", "aten.permute.default", line)]
    assert st.activations.known == 256 and st.inputs.known == 384


def test_the_saved_tensors_stage_follows_the_partitioned_graphs_and_its_rows_lead_to_the_joint_graph():
    order = [s.id for s in STAGES]
    assert order.index("saved_tensors") == order.index("aot_backward") + 1
    (c,) = _data("train").compilations
    view = vm.compilation(c, Report.of(_data("train")))
    assert "saved_tensors" in view["present"]
    pane = view["panes"]["saved_tensors"]
    saved, recomputed = [b for b in pane if b["t"] == "table"]
    relu = next(r for r in saved["rows"] if r["c"][0]["code"] == "relu")
    assert relu["c"][0]["go"] == {"stage": "aot_joint"}
    assert relu["origin"] == {"file": PROGRAM, "line": _line("self.fc2(torch")}
    assert "256 B" in relu["text"] and "aten.relu.default" in relu["text"]
    assert [r["c"][0]["code"] for r in recomputed["rows"]] == ["permute_1"]
    assert "The forward saves 3 values" in "".join(str(x) for x in pane[0]["r"])


def test_an_inference_graph_has_no_saved_tensors_and_says_why():
    c = _data("breaks").compilations[0]
    view = vm.compilation(c, Report.of(_data("breaks")))
    assert "saved_tensors" not in view["present"]
    assert view["why"]["saved_tensors"].startswith("no partition to read (AOT forward graph not captured): ")


def test_symbolic_sizes_stay_symbolic():
    assert size_of("f32[s0, 32][32, 1]cpu").terms == {"s0": 128}
    assert saved_view.size_text(size_of("bf16[2*s0, s1, 4]")) == "8·(2*s0)·s1 B"
    assert saved_view.size_text(size_of("f32[64, 64]") + size_of("f32[s0]")) == "16.0 KiB + 4·s0 B"
    assert size_of("Sym(s0)") is None


def test_the_partitioners_knapsack_is_decoded_and_shown_beside_the_rows_it_decided():
    data = _data("budget")
    mc = data.compilations[0].min_cut
    assert mc.memory_budget == 0.5 and mc.joint_nodes > 0
    assert [(x.name, x.memory_bytes, x.saved, x.recomputed) for x in mc.candidates] == [
        ("addmm", 32768, True, False), ("addmm_1", 8192, False, True)]
    assert mc.saved_values[-1] == "addmm" and mc.min_activation_gb < mc.saved_activation_gb < mc.max_activation_gb
    st = saved_tensors(data.compilations[0])
    assert next(s for s in st.saved if s.name == "addmm").candidate.saved
    assert next(r for r in st.recomputed if r.name == "addmm_1").candidate.recomputed
    text = Report.of(data).stage("saved_tensors", "0/0").__repr__()
    assert "activation memory budget 0.5" in text and "addmm_1" in text and "recomputed by the knapsack" in text


def test_without_the_knapsack_the_pane_says_how_to_make_torch_log_it():
    (c,) = _data("train").compilations
    assert c.min_cut is None
    assert "AOT_PARTITIONER_DEBUG=1" in Report.of(_data("train")).stage("saved_tensors", "0/0").__repr__()


# ---- Inductor's other artifacts ----

def test_triton_kernel_info_gives_each_kernels_compile_time_in_the_kernels_pane():
    data = _data(_tlparse_lines(TLPARSE))
    (c,) = data.compilations
    by_name = {k.name: k for k in c.kernel_compile}
    norm = by_name["triton_per_fused_all_reduce_gelu_native_layer_norm_0"]
    assert (norm.compile_time_s, norm.autotune_cache, norm.only_config) == (
        0.190461, "only 1 config", {"XBLOCK": 1, "num_warps": 8, "num_stages": 1})
    relu = by_name["triton_poi_fused_all_gather_into_tensor_relu_1"]
    assert relu.num_configs == 2 and relu.autotune_cache == "miss"
    # no output code in these records: the kernels pane is absent, the times are the compilation's
    assert not data.problems


def test_inductors_collective_schedule_is_kept_per_lowered_graph_and_shown_with_the_wrapper():
    (c,) = _data(_tlparse_lines(TLPARSE)).compilations
    (sched,) = c.collective_schedule
    assert sched.ops[:3] == ("torch.ops._c10d_functional.all_reduce_.default",
                             "torch.ops._c10d_functional.wait_tensor.default",
                             "torch.ops._c10d_functional.all_gather_into_tensor.default")
    ours = _data("collectives").compilations[0]
    (mine,) = ours.collective_schedule
    assert mine.graph_kind == "inference" and [op.split(".")[-2] for op in mine.ops] == [
        "all_reduce_", "all_reduce_", "wait_tensor", "wait_tensor"]  # Inductor issues both before either wait
    pane = vm.compilation(ours, Report.of(_data("collectives")))["panes"]["output_code"]
    assert pane[0]["text"].startswith("collective schedule (inference): _c10d_functional.all_reduce_.default")


def test_the_order_graphs_ran_in_is_a_header_section():
    data = _data("collectives")
    assert data.graph_execution == ("0/0", "0/0")
    (section,) = [b for b in vm.header(Report.of(data))["body"] if b.get("title", "").startswith("Graphs in the")]
    assert section["text"] == "graph order (2 calls): 0/0 ×2"


# ---- where a collective was called from ----

def test_dynamos_call_stacks_give_each_library_made_collective_its_user_line_and_input():
    (c,) = _data("collectives").compilations
    assert [s.op for s in c.call_sites] == ["all_reduce", "all_reduce"]
    assert all(s.stack[-1].filename.endswith("_functional_collectives.py") for s in c.call_sites)
    (gc, *_) = compilation_collectives(0, c, "k")
    assert gc.stage == "graph"
    assert [(x.operand, x.lineno, x.line_from, x.code) for x in gc.collectives] == [
        ("b", _line("    dist.all_reduce(b)"), "call", "dist.all_reduce(b)"),
        ("a", _line("    dist.all_reduce(a)"), "call", "dist.all_reduce(a)")]
    # the printed graph alone names the library's line (a trace written elsewhere has no trace_call lines)
    plain = c.__class__(**{**c.__dict__, "call_sites": ()})
    (gc, *_) = compilation_collectives(0, plain, "k")
    assert {x.filename.rsplit("/", 1)[-1] for x in gc.collectives} == {"_functional_collectives.py"}
    assert [x.operand for x in gc.collectives] == ["b", "a"]


def test_a_restarted_trace_keeps_only_the_last_attempts_call_stacks():
    lines = [dict(line) for line in tape.lines("collectives")]
    calls = [line for line in lines if line["source"] == "trace_call"]
    retry = [dict(line, compile_id="0/0_1") for line in calls if "inlined call" in line["payload"]][:1]
    (c,) = _data(lines + retry).compilations
    assert c.call_sites == ()  # attempt 1 made no collective (yet): attempt 0's are gone


# ---- odd records ----

def test_an_odd_record_of_each_kind_is_a_problem_naming_it():
    ctx = DecodeContext()
    for name, payload in [("artifact:min_cut_information", '{"Joint Graph Size": 3}'),
                          ("artifact:triton_kernel_info", "[1, 2]"),
                          ("artifact:inductor_collective_schedule", '{"a": 1}'),
                          ("artifact:graph_execution", "{}"),
                          ("trace_call", "something else entirely")]:
        result = decode(RawEvent(1, name, None, {}, payload), ctx)
        assert isinstance(result, Problem) and result.event == name, (name, result)


def test_a_report_with_the_artifacts_round_trips_and_validates():
    for lines in ("budget", "collectives", _tlparse_lines(TLPARSE)):
        report = Report.of(_data(lines))
        again = Report.from_json(report.to_json())
        assert again.capture == report.capture
        with open(SCHEMA_PATH, encoding="utf-8") as fh:
            jsonschema.validate(json.loads(report.to_json()), json.load(fh))
