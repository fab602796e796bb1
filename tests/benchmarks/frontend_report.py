"""The report the front-end benchmark measures: a 2,300-node graph compiled into ~100 kernels.

Two ways to get it:

- ``synthetic()``: built from the dataclasses (no torch), shaped like a real
  capture (FX graphs with ``# File:`` comments, IR dumps, a wrapper module that
  embeds every kernel, C++ kernels) and with a line-level lineage for every
  line, as ``explorer.lineage`` will produce. Deterministic and fast.
- ``real()``: 100 blocks of pointwise ops + a reduction + a matmul with a
  per-block constant, captured with Inductor on CPU (a few minutes on 2 cores;
  cached as JSON, default /tmp/cx_frontend_report.json).

    python tests/benchmarks/frontend_report.py --real   # capture once
"""

from __future__ import annotations

import argparse
import os
import sys
import time

REAL_PATH = "/tmp/cx_frontend_report.json"
USER_FILE = "/home/user/blocks.py"


# ---- synthetic ----

def _fx(n_nodes: int, aten: bool, first_line: int):
    from explorer.capturing.model import FxGraph, FxNode, SourceLoc

    lines = ["class GraphModule(torch.nn.Module):",
             '    def forward(self, L_x_: "f32[64, 64][64, 1]cpu"):' if not aten else
             '    def forward(self, arg0_1: "f32[64, 64][64, 1]cpu"):']
    nodes, prev, links = [FxNode("l_x_", "placeholder", "L_x_", (), "f32[64, 64][64, 1]cpu")], "l_x_", []
    lines.append("        l_x_ = L_x_" if not aten else "        l_x_ = arg0_1")
    ops = ["sin", "mul", "add", "cos", "sub", "exp", "relu", "tanh", "sigmoid", "neg", "abs", "sqrt",
           "add", "mul", "sub", "div", "mul", "add", "sum", "mm", "add", "mul", "sin"]
    for i in range(n_nodes - 2):
        op = ops[i % len(ops)]
        block, j = divmod(i, len(ops))
        lineno = first_line + 1 + (j if j < 18 else 18 + (j - 18))
        loc = SourceLoc(USER_FILE, lineno, "forward", f"x = x.{op}() * {block}")
        name = f"{op}_{i}"
        if j == 0 or lineno != first_line + 1 + (j - 1 if j - 1 < 18 else j - 1):
            lines.append("")
            lines.append(f"        # File: {USER_FILE}:{lineno} in forward, code: {loc.code}")
            links.append((len(lines), loc))
        target = f"torch.ops.aten.{op}.default" if aten else f"torch.{op}"
        lines.append(f'        {name}: "f32[64, 64][64, 1]cpu" = {target}({prev}, {block});  {prev} = None')
        links.append((len(lines), loc, name))
        nodes.append(FxNode(name, "call_function", target, (prev,), "f32[64, 64][64, 1]cpu", loc))
        prev = name
    lines.append(f"        return ({prev},)")
    nodes.append(FxNode("output", "output", "output", (prev,)))
    return FxGraph(code="\n".join(lines) + "\n", num_nodes=len(nodes), nodes=tuple(nodes)), links


def _kernel(i: int):
    from explorer.capturing.model import Kernel, SourceLoc

    body = []
    for j in range(22):
        body.append(f"                auto tmp{j + 1} = tmp{j}.sin()"
                    f" * at::vec::Vectorized<float>(static_cast<float>({i}.0));")
    src = ("#include <torch/csrc/inductor/cpp_prefix.h>\n"
           'extern "C"  void  kernel(const float* in_ptr0,\n                       float* out_ptr0)\n{\n'
           "    #pragma omp parallel num_threads(2)\n    {\n        int tid = omp_get_thread_num();\n        {\n"
           "            #pragma omp for\n"
           "            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4096L);"
           " x0+=static_cast<int64_t>(16L))\n"
           "            {\n"
           "                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0),"
           " static_cast<int64_t>(16));\n"
           + "\n".join(body) +
           "\n                tmp22.store(out_ptr0 + static_cast<int64_t>(x0));\n            }\n        }\n    }\n}\n")
    lines = tuple(SourceLoc(USER_FILE, 11 + j, "forward", f"x = x.op{j}() * {i}") for j in range(18))
    return Kernel(name=f"cpp_fused_add_mul_sin_{i}", language="cpp", source=src, graph_kind="inference",
                  source_nodes=tuple(f"sin_{i * 23 + j}" for j in range(18)), aten_ops=("aten.sin", "aten.mul"),
                  user_lines=lines, wrapper_lineno=40 + i * 45)


def synthetic(num_nodes: int = 2_300, num_kernels: int = 100):
    """A Report (with lineage) like a real one of that size."""
    from explorer.capturing.model import (
        Bytecode,
        CaptureData,
        Compilation,
        Frame,
        Guard,
        Instruction,
        IrDump,
        OutputCode,
    )
    from explorer.lineage import LineLink, Origin
    from explorer.report import Clinic, Report

    first = 10
    src_lines = ["def forward(self, x):"] + [f"    x = x.op{j}() * self.c" for j in range(22)] + ["    return x"]
    source = "\n".join(src_lines) + "\n"
    listing, instrs = [], []
    for j in range(1, len(src_lines)):
        for k, op in enumerate(("LOAD_FAST", "LOAD_ATTR", "PRECALL", "CALL", "STORE_FAST")):
            off = (j * 5 + k) * 2
            listing.append(f"{first + j if k == 0 else '':>3}          {off:>4} {op:<24} 0 (x)")
            instrs.append(Instruction(off, op, "x", first + j))
        listing.append("")
    listing_text = "\n".join(listing)
    graph, g_links = _fx(num_nodes, False, first)
    aot, a_links = _fx(num_nodes, True, first)
    post, p_links = _fx(num_nodes, True, first)
    kernels = tuple(_kernel(i) for i in range(num_kernels))
    ir_pre, ir_pre_links = [], []
    for i in range(num_nodes - 2):
        loc_line = first + 1 + i % 23 if i % 23 < 22 else first + 22
        start = len(ir_pre) + 1
        ir_pre += [f"op{i}: SchedulerNode(ComputedBuffer)",
                   f"op{i}.writes = [MemoryDep('buf{i}', c0, {{c0: 4096}})]",
                   f"op{i}.met_dependencies = [MemoryDep('buf{i - 1}', c0, {{c0: 4096}})]",
                   f"op{i}.outputs = [", f"    buf{i}: ComputedBuffer",
                   f"    buf{i}.layout = FixedLayout('cpu', torch.float32, size=[64, 64], stride=[64, 1])", "]",
                   f"class op{i}_loop_body:", "    var_ranges = {p0: 4096}", "    index0 = p0",
                   "    def body(self, ops):", "        get_index = self.get_index('index0')",
                   f"        load = ops.load('buf{i - 1}', get_index)", "        sin = ops.sin(load)",
                   f"        store = ops.store('buf{i}', get_index, sin, None)", "        return store", ""]
        ir_pre_links += [(start + k, Origin(USER_FILE, loc_line), f"op{i}" if k == 0 else None) for k in range(16)]
    ir_post = [line.replace("SchedulerNode", "FusedSchedulerNode") for line in ir_pre[: len(ir_pre) // 2]]
    wrapper = ["# AOT ID: ['0_inference']", "from ctypes import c_void_p, c_long, c_int", "import torch",
               "async_compile = AsyncCompile()", ""]
    for k in kernels:
        wrapper.append(f"{k.name} = async_compile.cpp_pybinding(['const float*', 'float*'], r'''")
        wrapper += k.source.rstrip("\n").split("\n")
        wrapper += ["''')", ""]
    wrapper += ["async_compile.wait(globals())", "del async_compile", "", "def call(args):",
                "    arg0_1, = args", "    args.clear()"]
    for i, k in enumerate(kernels):
        wrapper += [f"    buf{i} = empty_strided_cpu((64, 64), (64, 1), torch.float32)",
                    f"    {k.name}(arg0_1, buf{i})", f"    buf{i}_mm = extern_kernels.mm(buf{i}, arg1_1)"]
    wrapper += ["    return (buf0, )", ""]
    wrapper_text = "\n".join(wrapper)
    rewritten = Bytecode("forward", USER_FILE, first, listing_text.replace("LOAD_ATTR", "LOAD_GLOBAL"),
                         instrs, decompiled="def forward(self, x):\n    __temp_2, = __compiled_fn_1(x, self.c)\n"
                                            "    return __temp_2\n")
    comp = Compilation(
        compile_id="0/0", frame=Frame("forward", USER_FILE, first), status="compiled",
        original_bytecode=Bytecode("forward", USER_FILE, first, listing_text, instrs, source=source),
        rewritten_bytecode=rewritten, graph=graph, aot_inference=aot, post_grad_graph=post,
        guards=tuple(Guard("TENSOR_MATCH", f"check_tensor(L['self'].c{i}, Tensor, DispatchKeySet(CPU), "
                           "torch.float32, device=None, requires_grad=False, size=[64, 64], stride=[64, 1])",
                           f"L['self'].c{i}", f"x = x.op{i % 22}() * self.c", USER_FILE, first + 1 + i % 22,
                           "forward") for i in range(200)),
        guard_tree="TREE_GUARD_MANAGER:\n" + "".join(f"| +- GuardManager: source=L['self'].c{i}\n" for i in range(200)),
        ir_pre_fusion=(IrDump("inference", "\n".join(ir_pre)),),
        ir_post_fusion=(IrDump("inference", "\n".join(ir_post)),),
        output_code=(OutputCode("inference", wrapper_text, "/tmp/torchinductor_user/ab/cabcdef.py"),),
        kernels=kernels, compile_time_s=95.0, metrics={"inductor_compile_time_s": 80.0})
    data = CaptureData(torch_version="2.13.0+cpu", device="cpu", python_version="3.11.9", compilations=(comp,),
                       wall_time_s=101.0)
    links = []
    for j in range(1, len(src_lines)):
        links.append(LineLink("source", j, (Origin(USER_FILE, first + j),)))
    row = 0
    for text in listing_text.split("\n"):
        row += 1
        at = (Origin(USER_FILE, first + 1 + (row - 1) // 6),) if text else ()
        links.append(LineLink("original_bytecode", row, at))
        links.append(LineLink("rewritten_bytecode", row, at))
    for stage, fx_links in (("graph", g_links), ("aot_inference", a_links), ("post_grad_graph", p_links)):
        for item in fx_links:
            line, loc = item[0], item[1]
            links.append(LineLink(stage, line, (Origin(loc.filename, loc.lineno),),
                                  element=item[2] if len(item) > 2 else None))
    for i in range(len(comp.guards)):
        links.append(LineLink("guards", i + 1, (Origin(USER_FILE, comp.guards[i].lineno),)))
    for line, origin, element in ir_pre_links:
        links.append(LineLink("ir_pre_fusion", line, (origin,), element=element))
        if line <= len(ir_post):
            links.append(LineLink("ir_post_fusion", line, (origin,), element=element))
    for i, k in enumerate(kernels):
        for j in range(22):
            links.append(LineLink("kernels", 14 + j, (Origin(USER_FILE, first + 1 + j),), part=i, kernel=k.name))
    for n in range(1, len(wrapper) + 1):
        links.append(LineLink("output_code", n, ()))
    report = Report(capture=data, clinic=Clinic.of(data), lineage=(as_lineage("0/0", links),), entry="explore")
    return report


def as_lineage(compile_id, links):
    """explorer.lineage.Lineage from one LineLink per line (lines no link names are glue)."""
    from explorer.lineage import Lineage, TextLines

    origins: dict = {}
    sets: dict[tuple, int] = {(): 0}
    texts: dict[tuple, dict[int, tuple]] = {}
    for link in links:
        ids = tuple(sorted(origins.setdefault(o, len(origins)) for o in set(link.origins)))
        idx = sets.setdefault(ids, len(sets))
        texts.setdefault((link.stage, link.part, link.kernel), {})[link.line] = (idx, link.element)
    out = []
    for (stage, part, kernel), lines in texts.items():
        runs: list[int] = []
        for n in range(1, max(lines) + 1):
            idx = lines.get(n, (0, None))[0]
            if runs and runs[-2] == idx:
                runs[-1] += 1
            else:
                runs += [idx, 1]
        elements = {str(n): e for n, (_, e) in lines.items() if e}
        out.append(TextLines(stage, part, kernel, tuple(runs), elements))
    return Lineage(compile_id, tuple(origins), tuple(sets), tuple(out))


# ---- real ----

BLOCK_SRC = '''
import torch


class Block(torch.nn.Module):
    def __init__(self, i):
        super().__init__()
        self.c = float(i + 1) / 100.0
        self.w = torch.nn.Parameter(torch.randn(64, 64) / 8)

    def forward(self, x):
        y = torch.sin(x) * self.c
        y = y + x * 0.5
        y = torch.cos(y) - self.c
        y = y.exp() * 0.1 + torch.tanh(x)
        y = torch.sigmoid(y) * x + self.c
        y = y.abs().sqrt() + y.neg() * self.c
        y = torch.relu(y) - x.sin() * 0.25
        y = y * y + self.c
        y = y - y.sum(dim=-1, keepdim=True) / 64.0
        return y @ self.w


def model():
    return torch.nn.Sequential(*[Block(i) for i in range(100)])
'''


def real(path: str = REAL_PATH, fresh: bool = False):
    from explorer import Report

    if fresh or not os.path.exists(path):
        build_real(path)
    with open(path, encoding="utf-8") as fh:
        return Report.from_json(fh.read())


def build_real(path: str = REAL_PATH) -> str:
    import importlib.util
    import tempfile

    import torch

    import explorer

    folder = tempfile.mkdtemp(prefix="cx_blocks_")
    file = os.path.join(folder, "blocks.py")
    with open(file, "w") as fh:
        fh.write(BLOCK_SRC)
    spec = importlib.util.spec_from_file_location("blocks", file)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["blocks"] = mod  # Dynamo imports the module of the code it traces
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    m = mod.model().eval()
    t0 = time.perf_counter()
    with torch.no_grad():
        report = explorer.explore(m, torch.randn(64, 64))
    c = report.compilations[0]
    print(f"captured in {time.perf_counter() - t0:.0f} s: graph {c.graph.num_nodes} nodes, "
          f"post-grad {c.post_grad_graph.num_nodes if c.post_grad_graph else 0}, {len(report.kernels)} kernels",
          file=sys.stderr)
    report.save_json(path)
    return path


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--real", action="store_true")
    p.add_argument("--out", default=REAL_PATH)
    a = p.parse_args()
    if a.real:
        build_real(a.out)
    else:
        r = synthetic()
        print(len(r.to_json(indent=None)) / 1e6, "MB of JSON")
