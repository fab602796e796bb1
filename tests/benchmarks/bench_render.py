"""How long the HTML views take on a big report (1,500-node graphs, 100 kernels).

Built from the dataclasses directly (no torch compile), so it measures rendering
only. Pictures are skipped by the node limit, as they would be for such a graph.

    python tests/benchmarks/bench_render.py [repeats]

prints, per view, the median time of N runs and the HTML size; the second
block shows the same with a small graph (pictures drawn, if `dot` exists).
"""

from __future__ import annotations

import statistics
import sys
import time

from explorer.capturing.model import (
    Bytecode,
    CaptureData,
    Compilation,
    Frame,
    FxGraph,
    FxNode,
    Guard,
    IrDump,
    Kernel,
    OutputCode,
    SourceLoc,
)

USER_FILE = "/home/user/model.py"


def fx_graph(n: int, prefix: str = "") -> FxGraph:
    """A chain of ``n`` nodes with readable code and a node table (its picture is drawn from it), like torch's."""
    nodes, code = [], ["class GraphModule(torch.nn.Module):", '    def forward(self, L_x_: "f32[8, 128][128, 1]cpu"):']
    prev = "l_x_"
    nodes.append(FxNode("l_x_", "placeholder", "L_x_", (), "f32[8, 128][128, 1]cpu"))
    for i in range(1, n - 1):
        name = f"{prefix}add_{i}"
        loc = SourceLoc(USER_FILE, 10 + i % 200, "forward", f"h = h + self.layer{i % 50}(h)")
        nodes.append(FxNode(name, "call_function", "torch.ops.aten.add.Tensor", (prev,), "f32[8, 128][128, 1]cpu", loc))
        if i % 10 == 1:
            code.append(f"\n        # File: {USER_FILE}:{loc.lineno} in forward, code: {loc.code}")
        code.append(f'        {name}: "f32[8, 128][128, 1]cpu" = torch.ops.aten.add.Tensor({prev}, 1.0);'
                    f'  {prev} = None')
        prev = name
    nodes.append(FxNode("output", "output", "output", (prev,)))
    code.append(f"        return ({prev},)")
    return FxGraph(code="\n".join(code), num_nodes=len(nodes), nodes=tuple(nodes))


def kernel(i: int) -> Kernel:
    body = "\n".join(f"        auto tmp{j} = in_ptr0[static_cast<int64_t>(x0 + {j}L)] * static_cast<float>({j}.0);"
                     for j in range(30))
    src = ('#include <torch/csrc/inductor/cpp_prefix.h>\n'
           'extern "C" void kernel(const float* in_ptr0, float* out_ptr0)\n{\n'
           "    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(1024L);"
           " x0+=static_cast<int64_t>(16L))\n"
           f"    {{\n{body}\n    }}\n}}\n")
    return Kernel(name=f"cpp_fused_add_mul_{i}", language="cpp", source=src, graph_kind="forward",
                  source_nodes=(f"add_{i}", f"mul_{i}"),
                  user_lines=(SourceLoc(USER_FILE, 10 + i, "forward", "h = h * 2"),))


def big_report(num_nodes: int = 1_500, num_kernels: int = 100) -> CaptureData:
    kernels = tuple(kernel(i) for i in range(num_kernels))
    wrapper = "\n\n".join(f"{k.name} = async_compile.cpp_pybinding(['const float*', 'float*'], r'''\n{k.source}''')"
                          for k in kernels)
    src = "def forward(self, x):\n" + "\n".join(f"    h = h + self.layer{i}(h)" for i in range(200)) + "\n"
    comp = Compilation(
        compile_id="0/0", frame=Frame("forward", USER_FILE, 9), status="compiled",
        original_bytecode=Bytecode("forward", USER_FILE, 9, "  9           0 RESUME                   0\n" * 2000,
                                   source=src),
        rewritten_bytecode=Bytecode("forward", USER_FILE, 9, "  9           0 RESUME                   0\n" * 2000,
                                    decompiled="def forward(self, x):\n    return __compiled_fn_1(x)\n"),
        graph=fx_graph(num_nodes), aot_forward=fx_graph(num_nodes, "f_"), post_grad_graph=fx_graph(num_nodes, "p_"),
        guards=tuple(Guard("TENSOR_MATCH", f"check_tensor(L['self'].layer{i}.weight, ...)",
                           f"L['self'].layer{i}.weight", "h = h + self.layer(h)", USER_FILE, 10 + i, "forward")
                     for i in range(300)),
        ir_pre_fusion=(IrDump("forward", "op0: SchedulerNode(ComputedBuffer)\n" * 3000),),
        ir_post_fusion=(IrDump("forward", "op0_op1: FusedSchedulerNode(...)\n" * 2000),),
        output_code=(OutputCode("forward", wrapper, "/tmp/torchinductor/out.py"),),
        kernels=kernels, compile_time_s=42.0,
    )
    return CaptureData(torch_version="2.13.0+cpu", device="cpu", python_version="3.11.7", compilations=(comp,))


def _times(fn, repeats: int) -> tuple[float, float, int]:
    """Median wall time, least CPU time of this process (steadier on a shared machine;
    it leaves out the `dot` subprocess), and the HTML size."""
    wall, cpu, size = [], [], 0
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        size = len(out)
    return statistics.median(wall), min(cpu), size


def main(repeats: int = 5) -> None:
    import os
    import shutil

    from explorer.present.html import render_fragment, render_page, stage_html

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; dot: {shutil.which('dot')}")
    for label, data in (("1,500 nodes x3 graphs, 100 kernels", big_report()),
                        ("100 nodes, 5 kernels", big_report(100, 5))):
        comp = data.compilations[0]
        print(f"== {label} (median of {repeats})")
        for name, fn in (("render_fragment", lambda data=data: render_fragment(data)),
                         ("render_page", lambda data=data: render_page(data)),
                         ("stage_html graph", lambda comp=comp: stage_html(comp, "graph")),
                         ("stage_html kernels", lambda comp=comp: stage_html(comp, "kernels")),
                         ("stage_html output_code", lambda comp=comp: stage_html(comp, "output_code"))):
            wall, cpu, size = _times(fn, repeats)
            print(f"  {name:<24} wall {wall * 1000:7.1f} ms  cpu {cpu * 1000:7.1f} ms  {size / 1e6:6.2f} MB")
    if shutil.which("dot"):
        pictures_parallel_vs_sequential(repeats)


def pictures_report(num_comps: int = 10, nodes: int = 40) -> CaptureData:
    """Many small graphs, each drawn: what prefetching pictures in parallel is for."""
    comps = tuple(Compilation(compile_id=f"{i}/0", frame=Frame(f"f{i}", USER_FILE, 9), status="compiled",
                              graph=fx_graph(nodes, f"g{i}_"), aot_forward=fx_graph(nodes, f"a{i}_"),
                              post_grad_graph=fx_graph(nodes, f"p{i}_")) for i in range(num_comps))
    return CaptureData(torch_version="2.13.0+cpu", device="cpu", python_version="3.11.7", compilations=comps)


def pictures_parallel_vs_sequential(repeats: int) -> None:
    """The same render with `dot` runs overlapped (default) or one after another, interleaved."""
    from explorer.present import html as stages
    from explorer.present.html import render_fragment as render_page

    data = pictures_report()
    real = stages.Ctx.prefetch_pictures
    par, seq = [], []
    for _ in range(repeats):
        for bucket, prefetch in ((par, real), (seq, lambda self, graphs: None)):
            stages.Ctx.prefetch_pictures = prefetch
            t = time.perf_counter()
            render_page(data)
            bucket.append(time.perf_counter() - t)
    stages.Ctx.prefetch_pictures = real
    p, s = statistics.median(par), statistics.median(seq)
    print(f"== 30 graphs of 40 nodes, pictures drawn (median of {repeats}, interleaved)")
    print(f"  parallel dot {p * 1000:7.1f} ms  sequential dot {s * 1000:7.1f} ms  ratio {p / s:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
