"""Inductor's own runtime estimate beside the measurement (issue 36).

With ``torch._inductor.config.log_tlparse`` on (the capture turns it on, and back off) Inductor logs
``inductor_runtime_and_tensor_meta``: each op it scheduled, in order, with its cost model's runtime. The decoder
reads it, the fold ties each op to the wrapper call it became, the timing gives each kernel row its estimate and
the view sets the measurement beside it. Two traces: the CPU one recorded in tests/fixtures/traces/estimates.jsonl
(Inductor estimates 0 off the GPU), and a GPU job's records as torch 2.13 writes them, numbers in milliseconds.
The GPU half, live: tests/test_estimates_gpu.py.
"""

import json

import pytest
from fixtures import tape

from explorer.capturing import torch_door
from explorer.capturing.assemble import assemble
from explorer.capturing.decoders import DecodeContext, decode
from explorer.capturing.inductor_code import match_estimates
from explorer.capturing.model import Problem
from explorer.capturing.raw import RawEvent
from explorer.capturing.records import RuntimeEstimates
from explorer.present import viewmodel
from explorer.report import Report
from explorer.timing.kernels import Estimates, Row
from explorer.timing.model import GraphTiming, KernelTiming, TimingReport

EVENT = "artifact:inductor_runtime_and_tensor_meta"


def _data(recorder, version):
    return assemble(recorder.raw, torch_version=version, device="cpu", python_version="3", wall_time_s=0.0,
                    notes=[], error=None)


# ---- the recorded CPU trace ----

def test_the_recorded_estimates_decode_and_each_op_names_the_kernel_it_became():
    rec = tape.replay("estimates")
    ctx = DecodeContext(rec.raw.strings, "2.13.0+cpu")
    [record] = [decode(ev, ctx) for ev in rec.raw.events if ev.name == EVENT]
    assert isinstance(record, RuntimeEstimates)
    data = _data(rec, "2.13.0+cpu")
    assert not data.problems and EVENT not in {a.name for a in data.other_artifacts}
    [comp] = [c for c in data.compilations if c.op_estimates]
    ops = {e.name: e for e in comp.op_estimates}
    kernels = {k.name for k in comp.kernels}
    # the embedding's kernel, the linear's addmm, the relu + softmax fused into one node: each its wrapper call
    assert ops["extern_kernels.addmm"].kernel == "extern_kernels.addmm"
    assert {e.kernel for e in comp.op_estimates if "." not in e.name} == kernels and len(kernels) == 2
    assert all(e.graph_kind == "inference" and e.estimate_s == 0.0 and e.unit.startswith("ms")
               for e in comp.op_estimates)
    assert ops["extern_kernels.addmm"].outputs == ("float32[8, 64]",)
    # opened, nothing measured: the kernels pane says Inductor estimated nothing off the GPU
    pane = viewmodel.build(Report(capture=data))["compilations"][data.compilations.index(comp)]["panes"]["kernels"]
    assert any(b["t"] == "p" and "estimates runtimes for GPUs only" in b["r"] for b in pane)


def test_the_estimates_unit_follows_the_torch_that_wrote_them():
    assert torch_door.inductor.runtime_estimate_unit("2.13.0+cpu")[0] == 1e-3
    assert torch_door.inductor.runtime_estimate_unit("2.10.0")[0] == 1e-3
    assert torch_door.inductor.runtime_estimate_unit("2.8.0")[0] == 1e-9
    # a trace that names no torch (torch 2.11 writes no version record): read as every torch read here writes it
    scale, said = torch_door.inductor.runtime_estimate_unit(None)
    assert scale == 1e-3 and "not named" in said


def test_a_record_that_is_not_torchs_is_a_problem_naming_it():
    for payload in ("not json", json.dumps({"nodes": []}), json.dumps({"ops": [{"name": "op0"}]})):
        got = decode(RawEvent(0, EVENT, None, {}, payload), DecodeContext())
        assert isinstance(got, Problem), payload


# ---- a GPU job's trace (torch 2.13: milliseconds under estimated_runtime_ns) ----

_TRITON = "'''\n@triton.jit\ndef {0}(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    pass\n'''"
_WRAPPER = f'''# AOT ID: ['0_inference']
triton_poi_fused_silu_0 = async_compile.triton('triton_poi_fused_silu_0', {_TRITON.format("triton_poi_fused_silu_0")},
    device_str='cuda')
triton_poi_fused_relu_1 = async_compile.triton('triton_poi_fused_relu_1', {_TRITON.format("triton_poi_fused_relu_1")},
    device_str='cuda')


def call(args):
    arg0_1, arg1_1, arg2_1 = args
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided_cuda((1024, 1024), (1024, 1), torch.float16)
        extern_kernels.mm(arg1_1, arg0_1, out=buf0)
        buf1 = buf0; del buf0  # reuse
        triton_poi_fused_silu_0.run(buf1, 1048576, stream=stream0)
        torch.ops._c10d_functional.all_reduce_.default(buf1, 'avg', '0')
        torch.ops._c10d_functional.wait_tensor.default(buf1)
        buf6 = empty_strided_cuda((1024, 1024), (1024, 1), torch.float16)
        extern_kernels.mm(buf1, arg2_1, out=buf6)
        triton_poi_fused_relu_1.run(buf6, 1048576, stream=stream0)
    return (buf6, )
'''
_OPS = [("extern_kernels.mm", "compute", 0.0022), ("op1", "compute", 0.0021), (
    "torch.ops._c10d_functional.all_reduce_.default", "collective", 0.030), (
    "torch.ops._c10d_functional.wait_tensor.default", "compute", 0), ("extern_kernels.mm", "compute", 0.0022), (
    "op5", "compute", 0.0021)]


def _gpu_trace():
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    estimates = {"ops": [{"name": n, "type": t, "estimated_runtime_ns": v,
                          "outputs": [{"shape": [1024, 1024], "stride": [1024, 1], "dtype": "float16"}]}
                         for n, t, v in _OPS]}
    lines = [{"source": "trace", "metadata": {"inductor_output_code": {"filename": "w.py"}, **ids},
              "payload": _WRAPPER},
             {"source": "trace", "metadata": {"artifact": {"name": "inductor_runtime_and_tensor_meta",
                                                           "encoding": "json"}, **ids},
              "payload": json.dumps(estimates)}]
    return _data(tape.replay(lines), "2.13.0")


def test_an_opened_gpu_trace_shows_each_kernel_with_its_estimate_labelled_as_one():
    data = _gpu_trace()
    [comp] = data.compilations
    became = [(e.name, e.kernel, e.estimate_s) for e in comp.op_estimates]
    assert became == [("extern_kernels.mm", "extern_kernels.mm", pytest.approx(2.2e-6)),
                      ("op1", "triton_poi_fused_silu_0", pytest.approx(2.1e-6)),
                      ("torch.ops._c10d_functional.all_reduce_.default",
                       "torch.ops._c10d_functional.all_reduce_.default", pytest.approx(30e-6)),
                      ("torch.ops._c10d_functional.wait_tensor.default",
                       "torch.ops._c10d_functional.wait_tensor.default", 0.0),
                      ("extern_kernels.mm", "extern_kernels.mm", pytest.approx(2.2e-6)),
                      ("op5", "triton_poi_fused_relu_1", pytest.approx(2.1e-6))]
    pane = viewmodel.build(Report(capture=data))["compilations"][0]["panes"]["kernels"]
    [table] = [b for b in pane if b.get("cls") == "cx-estimates"]
    assert "estimates, not measurements" in table["caption"]
    kernel_rows = {r["c"][1]["code"]: r["c"][4].replace("µ", "u") for r in table["rows"]}
    assert kernel_rows["triton_poi_fused_silu_0"] == "2.1 us" and kernel_rows["triton_poi_fused_relu_1"] == "2.1 us"


def test_a_node_that_launched_nothing_leaves_the_nodes_unmatched_not_misnamed():
    names = ["extern_kernels.mm", "op1", "op2", "op3"]  # three nodes, two kernel calls
    assert match_estimates(names, _WRAPPER, {"triton_poi_fused_silu_0", "triton_poi_fused_relu_1"}) == [
        "extern_kernels.mm", None, None, None]


def test_beside_a_measurement_each_row_has_its_estimate_and_the_ratio_and_a_misjudged_graph_is_listed():
    [comp] = _gpu_trace().compilations
    rows = {"triton_poi_fused_silu_0": Row(), "triton_poi_fused_relu_1": Row(), "sm90_xmma_gemm_f16": Row()}
    rows["sm90_xmma_gemm_f16"].by_op["aten::mm"] = [2.0, 0.0, 0.0]  # the only row the two mm calls launched
    est = Estimates(comp, rows)
    assert est.of("triton_poi_fused_silu_0", rows["triton_poi_fused_silu_0"]) == pytest.approx(2.1e-6)
    assert est.of("sm90_xmma_gemm_f16", rows["sm90_xmma_gemm_f16"]) == pytest.approx(4.4e-6)  # both mm calls
    assert est.total == pytest.approx(38.6e-6)
    measured = {"triton_poi_fused_silu_0": 6.3e-6, "triton_poi_fused_relu_1": 6.3e-6, "sm90_xmma_gemm_f16": 13.2e-6}
    kernels = tuple(KernelTiming(name=n, kind="generated" if n.startswith("triton") else "extern", time_s=t,
                                 share_pct=30.0, calls=1, estimate_s=est.of(n, rows[n])) for n, t in measured.items())
    g = GraphTiming(index=0, compile_id="0/0", label="graph 0 (0/0)", device="cuda:0", grad_enabled=False, eager=None,
                    compiled=None, speedup=None, compile_time_s=None, compile_time_source="capture",
                    break_even_calls=None, kernels=kernels, estimate_s=est.total)
    blocks = viewmodel.timing_blocks(TimingReport(device="cuda:0", graphs=(g,)), (g,), (), timeit=False)
    [table] = [b for b in blocks if b.get("cls") == "cx-ktimes"]
    assert table["head"][-2:] == ["Inductor's estimate", "measured / estimate"]
    assert [r["c"][-1] for r in table["rows"]] == ["3.00x", "3.00x", "3.00x"]
    [said] = [b["r"] for b in blocks if b["t"] == "note" and "misjudged" in b["r"]]
    assert "graph 0 (0/0) (measured 3.00x its estimate)" in said
