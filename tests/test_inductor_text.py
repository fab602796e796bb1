"""The typed readings of Inductor's text (explorer/capturing/inductor_code/) on snippets as Inductor writes them."""

from __future__ import annotations

from explorer.capturing.inductor_code import kernels, loop_ir, triton, wrapper

WRAPPER = '''# AOT ID: ['0_forward']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()

# kernel path: /tmp/xx/cxx.py
# Topologically Sorted Source Nodes: [sin, mul], Original ATen: [aten.sin, aten.mul]
# Source node to ATen node mapping:
#   mul => mul
#   sin => sin
cpp_fused_mul_sin_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r\'\'\'
#include "x.h"
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
    auto tmp1 = std::sin(tmp0);
    out_ptr0[static_cast<int64_t>(x0)] = tmp1;
}
\'\'\')


def call(args):
    primals_1, = args
    args.clear()
    assert_size_stride(primals_1, (8, 16), (16, 1))
    buf0 = empty_strided_cpu((8, 16), (16, 1), torch.float32)
    # [Provenance debug handles] cpp_fused_mul_sin_0:1
    cpp_fused_mul_sin_0(primals_1, buf0)
    buf1 = buf0; del buf0  # reuse
    # [Provenance debug handles] extern_kernels.mm:2
    extern_kernels.mm(buf1, primals_1, out=buf2)
    return (buf2, )
'''

IR = '''BEFORE FUSION
op0: SchedulerNode(ComputedBuffer)
op0.writes = [MemoryDep('buf0', c0, {c0: 128})]
op0.met_dependencies = [MemoryDep('primals_1', c0, {c0: 128})]
op0.outputs = [
    buf0: ComputedBuffer
    buf0.layout = FixedLayout('cpu', torch.float32, size=[8, 16], stride=[16, 1])
]
op0.group.device = cpu
class op0_loop_body:
    var_ranges = {p0: 128}
    index0 = p0
    def body(self, ops):
        get_index = self.get_index('index0')
        load = ops.load('primals_1', get_index)
        sin = ops.sin(load)
        get_index_1 = self.get_index('index0')
        store = ops.store('buf0', get_index_1, sin, None)
        return store
op1: NopKernelSchedulerNode(ConcatKernel)
op1.writes = [StarDep(name='buf1', mode=None)]
op1.outputs = [
    buf1: ConcatKernel
]
'''


def test_the_wrapper_s_header_definitions_and_handles() -> None:
    assert wrapper.graph_kind(WRAPPER) == "forward" and wrapper.aot_id(WRAPPER) == "0_forward"
    (defn,) = wrapper.kernel_definitions(WRAPPER)
    assert (defn.name, defn.language) == ("cpp_fused_mul_sin_0", "cpp") and "void  kernel(" in defn.source
    lines = WRAPPER.splitlines()
    assert wrapper.source_nodes(lines, defn.line) == (["sin", "mul"], ["aten.sin", "aten.mul"])
    span = wrapper.kernel_span(lines, defn.name, defn.line, defn.source)
    assert span is not None and lines[span.head].startswith("# kernel path") and span.start == defn.line - 1
    assert [wrapper.header_line(lines[r]) for r in range(span.head, span.start)][-2:] == [
        wrapper.HeaderLine("aten", ("mul",)), wrapper.HeaderLine("aten", ("sin",))]
    assert wrapper.provenance_handles(WRAPPER) == ["cpp_fused_mul_sin_0:1", "extern_kernels.mm:2"]


def test_the_wrapper_s_calls_buffers_and_aliases() -> None:
    lines = WRAPPER.splitlines()
    calls, aliases = wrapper.call_lines(lines, {"cpp_fused_mul_sin_0"}, set())
    assert [(c.callee, c.kernel, c.handle, c.args) for c in calls] == [
        ("cpp_fused_mul_sin_0", True, "cpp_fused_mul_sin_0:1", ("primals_1", "buf0")),
        ("extern_kernels.mm", False, "extern_kernels.mm:2", ("buf1", "primals_1", "out=buf2"))]
    assert aliases == [("buf1", "buf0")]
    assert wrapper.extern_op("extern_kernels.mm") == "mm" and wrapper.profiler_name("extern_kernels.mm") == "aten::mm"
    assert wrapper.is_out_argument("out=buf2") and wrapper.assigned_buffer("buf1 = buf0; del buf0") == "buf1"
    assert wrapper.buffer_sizes(WRAPPER) == {"primals_1": 128, "buf0": 128, "buf1": 128}
    assert wrapper.call_function_rows(WRAPPER) == [next(i for i, x in enumerate(lines) if x.startswith("def call"))]
    assert wrapper.extern_call_counts(WRAPPER) == {"extern_kernels.mm": 1}


def test_an_aoti_wrapper_s_calls() -> None:
    lines = ["    // [Provenance debug handles] cpp_fused_0:1",
             "    cpp_fused_0((const float*)(arg0_1_handle), (float*)(buf0_handle));",
             "    // [Provenance debug handles] aoti_torch_cpu_mm_out:2",
             "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf1, buf0, arg1_1));",
             "    not_marked(buf9);"]
    calls = wrapper.cpp_call_lines(lines, {"cpp_fused_0"})
    assert [(c.row, c.callee, c.kernel, c.handle) for c in calls] == [
        (1, "cpp_fused_0", True, "cpp_fused_0:1"), (3, "aoti_torch_cpu_mm_out", False, "aoti_torch_cpu_mm_out:2")]
    assert wrapper.writes_first_argument("aoti_torch_cpu_mm_out") and calls[1].args[0] == "buf1"
    assert wrapper.cpp_buffer_mention(lines[1]) == "buf0" and wrapper.cpp_buffer_mention(lines[0]) is None


def test_a_loop_ir_dump_s_scheduler_nodes() -> None:
    blocks, n = loop_ir.scheduler_nodes(IR)
    assert list(blocks) == ["op0", "op1"] and n == len(IR.splitlines())
    op0, op1 = blocks["op0"], blocks["op1"]
    assert (op0.node_class, op0.buffers, op0.computes_nothing) == ("SchedulerNode", ("buf0",), False)
    assert op1.computes_nothing and op1.span == (loop_ir.scheduler_node_rows(IR)[1], n)
    assert op0.body is not None and [b.kind for b in loop_ir.body_lines(tuple(op0.body_text.split("\n")))] == [
        "index", "load", "op", "index", "store", "return"]
    assert loop_ir.node_listing(IR.splitlines(), *op0.span)[:2] == ["op: SchedulerNode(ComputedBuffer)",
                                                                    "load = ops.load('primals_', get_index)"]


def test_kernel_statements_names_and_triton_metadata() -> None:
    src = ["def triton_poi_fused_sin_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
           "    tmp0 = tl.load(in_ptr0 + (x0), xmask)", "    tmp1 = tl_math.sin(tmp0)",
           "    tl.store(out_ptr0 + (x0), tmp1, xmask)"]
    stmts, signature = kernels.kernel_statements(src)
    assert signature == 0 and [(s.defs, s.uses, s.kind) for s in stmts] == [
        (("tmp0",), (), "load"), (("tmp1",), ("tmp0",), "op"), ((), ("tmp1",), "store")]
    assert kernels.unnumbered("triton_poi_fused_sin_0") == "triton_poi_fused_sin"
    assert kernels.is_template("triton_tem_fused_mm_0") and kernels.is_generated("cpp_fused_0")
    assert triton.index_root("r0_index") == "r0_" and triton.index_form("(x1 // 16) % 4") == ("x1", 16, 4)
    assert triton.kernel_num_gb("inductor_meta={'kernel_num_gb': 0.25}") == 0.25
    assert triton.arg_role("in_out_ptr0", "*fp32", set()) == "in/out"
    assert triton.arg_role("xnumel", "i32", set()) == "size"
