"""A report of every part of real programs' use of torch.compile, built from records (no torch run): a warm
capture whose second compile hit the caches, a frame with compiled regions, a guard filter, a stance that
refused a recompile, and an exported program with its AOTInductor compile and package.

The view tests (tests/test_usage_view.py) and the browser's check draw it; tests/test_real_usage.py checks the
same records against torch itself.
"""

from __future__ import annotations

from explorer.capturing.model import (
    CacheLookup,
    CaptureData,
    Compilation,
    Decomposition,
    ExportedProgram,
    ExportSpec,
    FilteredGuard,
    Frame,
    FxGraph,
    Guard,
    Kernel,
    OutputCode,
    PackageFile,
    RangeConstraint,
    Region,
)
from explorer.report import Report

PROG = "/home/u/prog.py"
KEY = "fabc1234567890deadbeef"
EVIL = "<img src=x onerror=window.__cx_xss=1>"
GRAPH = "def forward(self, L_x_):\n    sin = torch.sin(L_x_)\n    return (sin,)\n"
REGION_GRAPH = "def forward(self, x):\n    relu = torch.relu(x)\n    return (relu,)\n"
KERNEL = ('extern "C" void cpp_fused_sin_0(const float* in_ptr0, float* out_ptr0)\n'
          "{\n    out_ptr0[0] = sin(in_ptr0[0]);\n}\n")
WRAPPER = "def call(args):\n    cpp_fused_sin_0(arg0_1, buf0)\n    return (buf0, )\n"
CPP_WRAPPER = "void AOTInductorModel::run_impl(...) {\n    cpp_fused_sin_0(arg0, buf0);\n}\n"
REFUSED = ("RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. "
           f"filename: '{PROG}', function name: 'stance_fn', line number: 30\n"
           "triggered by the following guard failure(s):\n- 1/0: tensor 'x' rank mismatch. expected 1, actual 2")


def warm_comp() -> Compilation:
    """0/0: Dynamo traced it; AOTAutograd and the FX graph cache hit; its kernel loaded; the IR skipped."""
    caches = (CacheLookup("aotautograd", "hit", key="aot" + KEY, time_saved_s=2.5),
              CacheLookup("fx_graph", "hit", key=KEY, graph_kind="inference", time_saved_s=2.0))
    return Compilation("0/0", Frame("warm_fn", PROG, 3), "compiled", graph=FxGraph(GRAPH, 2),
                       guards=(Guard("TENSOR_MATCH", "check_tensor(L['x'])", "L['x']"),),
                       output_code=(OutputCode("inference", WRAPPER),),
                       kernels=(Kernel("cpp_fused_sin_0", "cpp", KERNEL, "inference", build="loaded",
                                       op_trace=("aten.sin",)),),
                       compile_time_s=0.4, caches=caches, stance="default")


def regions_comp() -> Compilation:
    """0/1 ... a frame calling one nested_compile_region 4x, a disabled helper and a nonstrict_trace function."""
    regions = (Region("nested_compile_region", "subgraph_0", calls=4, graph=FxGraph(REGION_GRAPH, 3),
                      aot_name="repeated_subgraph0", kernels=("cpp_fused_relu_0",), filename=PROG, lineno=12),
               Region("disable", "plain_helper", calls=1, filename=PROG, lineno=15),
               Region("nonstrict_trace", "opaque_scale", calls=1, filename=PROG, lineno=16))
    return Compilation("1/0", Frame("Stack.forward", PROG, 10), "compiled", graph=FxGraph(GRAPH, 2),
                       guards=(Guard("TENSOR_MATCH", "check_tensor(L['x'])", "L['x']"),
                               Guard("ID_MATCH", "___check_obj_id(G['m'])", "G['m']")),
                       regions=regions, guard_filter="skip_guard_on_inbuilt_nn_modules_unsafe",
                       filtered_guards=(
                           FilteredGuard(True, "TENSOR_MATCH", "x", filename=PROG, lineno=11),
                           FilteredGuard(False, "TENSOR_MATCH", "G['m']._modules['0']._parameters['weight']",
                                         filename=PROG, lineno=12),
                           FilteredGuard(False, "CONSTANT_MATCH", f"G['m']._modules['1'].{EVIL}", value="False")),
                       stance="fail_on_recompile")


def aoti_comp() -> Compilation:
    """aoti/0: AOTInductor's compile of an exported program: its graph, C++ wrapper and kernel."""
    return Compilation("aoti/0", Frame("forward", PROG, 20), "compiled", origin="aoti",
                       export_graph=FxGraph(GRAPH, 2), output_code=(OutputCode("inference", CPP_WRAPPER,
                                                                              language="cpp"),),
                       kernels=(Kernel("cpp_fused_sin_0", "cpp", KERNEL, "inference"),), compile_time_s=3.0)


def export() -> ExportedProgram:
    return ExportedProgram(
        "ExportedProgram: ...", graph=FxGraph(GRAPH, 2),
        inputs=(ExportSpec("PARAMETER", "p_lin_weight", "lin.weight", "f32[8, 8]"),
                ExportSpec("USER_INPUT", "x", None, "f32[s77, 8]")),
        outputs=(ExportSpec("USER_OUTPUT", "sin", None, "f32[s77, 8]"),),
        range_constraints=(RangeConstraint("s77", "2", "64", ("x.size(0)",)),), compile_id="aoti/0",
        decompositions=(Decomposition("linear", "aten.linear.default", ("permute", "addmm"),
                                      ("aten.permute.default", "aten.addmm.default")),),
        package_path="/tmp/model.pt2",
        package_files=(PackageFile("model/data/aotinductor/model/model.so", 123_456),
                       PackageFile("model/data/aotinductor/model/kernel_information.json", 789)))


def usage_report() -> Report:
    data = CaptureData("2.13.0", "cpu", "3.11.9", compilations=(warm_comp(), regions_comp(), aoti_comp()),
                       cache_mode="warm", stance="fail_on_recompile", exports=(export(),), error=REFUSED)
    return Report.of(data)
