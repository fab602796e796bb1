"""Bytes a generated C++ kernel moves, read from its loads and stores as the Triton reader reads Triton (issue 36).

Each program is compiled once here, on CPU, and its kernels are read from the code Inductor wrote: an embedding
(a gather of 32 rows from a 1,000-row table), an ``index_select``, a scatter-add (``index_add``) and row-wise
code (a softmax whose three loops load the same rows, a strided slice, a padded copy with masked loads). Each
expected count is worked out by hand from the shapes.
"""

import re

import pytest
import torch
from kernel_bytes import kernel_bytes
from torch._inductor.utils import run_and_get_code

from explorer.capturing import inductor_code as ic
from explorer.capturing.model import Kernel
from explorer.capturing.parse_output_code import parse_kernels
from explorer.timing.traffic import INDIRECT, TOUCHED, cpp_traffic

F32, I64 = 4, 8


def _compile(fn, *args):
    torch._dynamo.reset()
    with torch.no_grad():
        _, codes = run_and_get_code(torch.compile(fn), *args)
    code = codes[0]
    kernels = [k for k in parse_kernels(code, "inference") if k.language == "cpp"]
    assert len(kernels) == 1, [k.name for k in kernels]
    return kernels[0], code


@pytest.fixture(scope="module")
def compiled():
    torch.manual_seed(0)
    table = torch.randn(1000, 64)
    emb = torch.nn.Embedding.from_pretrained(table)
    return {
        "embedding": _compile(lambda i: (emb(i) * 2.0).sum(dim=1), torch.randint(0, 1000, (32,))),
        "index_select": _compile(lambda t, i: torch.index_select(t, 0, i) + 1,
                                 torch.randn(500, 48), torch.randint(0, 500, (20,))),
        "scatter_add": _compile(lambda base, i, src: base.index_add(0, i, src),
                                torch.zeros(100, 16), torch.randint(0, 100, (30,)), torch.randn(30, 16)),
        "rows": _compile(lambda x, y: (x.softmax(-1), y[:, ::2] * 3, torch.nn.functional.pad(y, (1, 2)) + 1),
                         torch.randn(8, 70), torch.randn(16, 30)),
    }


def _traffic(compiled, case):
    kernel, code = compiled[case]
    traffic = cpp_traffic(kernel.name, kernel.source, code)
    assert traffic is not None and all(p.counted for p in traffic), traffic
    nbytes, how = kernel_bytes(kernel.name, kernel, code)
    return {p.arg: p for p in traffic}, nbytes, how


def test_an_embedding_kernel_is_charged_the_rows_its_ids_name_not_the_table(compiled):
    by_arg, nbytes, how = _traffic(compiled, "embedding")
    table = next(p for p in by_arg.values() if p.buffer_elements == 1000 * 64)
    # 32 ids (int64) read, 32 rows of 64 floats gathered from the 1000 x 64 table, 32 sums written
    assert table.indirect and table.gathered_elements == 32 * 64 and table.read_elements == 32 * 64
    assert nbytes == 32 * 64 * F32 + 32 * I64 + 32 * F32  # the whole table (256,000 bytes) before
    assert how.startswith(TOUCHED) and INDIRECT in how
    assert f"{table.param} ({table.arg}) gathered 2,048 of 64,000 elements" in how


def test_an_index_select_kernel_reads_the_selected_rows(compiled):
    by_arg, nbytes, how = _traffic(compiled, "index_select")
    table = next(p for p in by_arg.values() if p.buffer_elements == 500 * 48)
    assert table.gathered_elements == 20 * 48
    # 20 rows of 48 floats gathered, 20 ids read, the 20 x 48 result (+1 fused in) written
    assert nbytes == 20 * 48 * F32 + 20 * I64 + 20 * 48 * F32
    assert "gathered 960 of 24,000 elements" in how


def test_a_scatter_add_kernel_is_charged_the_rows_it_adds_into(compiled):
    by_arg, nbytes, how = _traffic(compiled, "scatter_add")
    out = next(p for p in by_arg.values() if p.param.startswith("out_ptr"))
    # the copy of the 100 x 16 base writes all of it; the 30 rows of 16 added through the index are read and
    # written again inside it (atomic adds), written counted once per element at most
    assert out.scattered_elements == 30 * 16 and out.read_elements == 30 * 16 and out.written_elements == 1600
    assert nbytes == (1600 * F32  # the base, read
                      + 30 * I64 + 30 * 16 * F32  # the index and the rows to add
                      + 30 * 16 * F32 + 1600 * F32)  # the output: the rows added into, read; all of it written
    assert "scattered 480 of 1,600 elements" in how


def test_rows_loaded_in_several_loops_count_once_and_strided_and_masked_loads_count_what_they_reach(compiled):
    by_arg, nbytes, how = _traffic(compiled, "rows")
    x = next(p for p in by_arg.values() if p.buffer_elements == 8 * 70)
    # the softmax's max, sum and normalising loops each load every row of x (a 64-wide vector body and a
    # 6-wide tail per row): x is read once
    assert x.read_elements == 8 * 70 and not x.indirect
    y = next(p for p in by_arg.values() if p.buffer_elements == 16 * 30)
    # y[:, ::2] reaches half of y; the padded copy's masked loads reach all of it: never more than y holds
    assert y.read_elements == 16 * 30
    written = sorted(p.written_elements for p in by_arg.values() if p.written_elements)
    assert written == sorted([8, 8, 8 * 70, 16 * 15, 16 * 33]), written  # max, sum, softmax, slice, pad
    assert INDIRECT not in how


def test_the_reader_follows_loops_and_tmp_values_by_where_they_are():
    body = ic.cpp_body(_TWO_NESTS)
    loops = ic.cpp_loops(body)
    assert [(lp.var, lp.start, lp.end, lp.step) for lp in loops] == [("x0", 0, 6400, 16), ("x0", 0, 32, 1),
                                                                       ("x1", 0, 64, 16)]
    accesses = ic.cpp_accesses(body, ["in_ptr0", "in_ptr1", "out_ptr0"])
    assert [(a.op, a.pointer, a.index) for a in accesses] == [
        ("store", "out_ptr0", "x0"), ("load", "in_ptr0", "x0"), ("load", "in_ptr1", "x0"),
        ("atomic", "out_ptr0", "tmp5")]
    wrapper = "    buf0 = empty_strided_cpu((100, 64), (64, 1), torch.float32)\n" \
              "    assert_size_stride(arg0_1, (32, ), (1, ))\n    assert_size_stride(arg1_1, (32, ), (1, ))\n" \
              "    cpp_fused_k_0(arg0_1, arg1_1, buf0)\n"
    traffic = {p.param: p for p in cpp_traffic("cpp_fused_k_0", _TWO_NESTS, wrapper)}
    # x0 is 6,400 wide in the first nest (the zero fill, capped at the buffer's 6,400) and 32 in the second;
    # tmp0 there is the second nest's own (the first's tmp0 is a constant)
    assert traffic["out_ptr0"].written_elements == 6400 and traffic["out_ptr0"].scattered_elements == 32 * 64
    assert traffic["in_ptr0"].read_elements == 32 and traffic["in_ptr1"].read_elements == 32


def test_an_in_place_buffer_written_under_a_second_name_is_read_through_it():
    # a layer norm's mean, stored through the alias Inductor declares, then read back in the second loop
    src = """extern "C" void kernel(float* in_out_ptr0, const float* in_ptr0)
    {
        auto out_ptr0 = in_out_ptr0;
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
        {
            out_ptr0[static_cast<int64_t>(x0)] = in_ptr0[static_cast<int64_t>(x0)];
        }
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(16L))
        {
            auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0), 16);
            tmp0.store(in_out_ptr0 + static_cast<int64_t>(x0));
        }
    }"""
    wrapper = "    buf0 = empty_strided_cpu((256, ), (1, ), torch.float32)\n" \
              "    assert_size_stride(arg0_1, (64, ), (1, ))\n    cpp_fused_ln_0(buf0, arg0_1)\n"
    traffic = {p.param: p for p in cpp_traffic("cpp_fused_ln_0", src, wrapper)}
    assert traffic["in_out_ptr0"].counted and traffic["in_out_ptr0"].read_elements == 64
    assert traffic["in_out_ptr0"].written_elements == 64  # the same 64 elements, under either name


def test_a_template_kernels_own_pointer_names_are_charged_whole():
    src = 'extern "C" void kernel(const float* X, const float* W, float* Y)\n{\n  micro(&(X[0]), W, Y);\n}'
    wrapper = "    assert_size_stride(arg0_1, (8, 8), (8, 1))\n    assert_size_stride(arg1_1, (8, 8), (8, 1))\n" \
              "    buf0 = empty_strided_cpu((8, 8), (8, 1), torch.float32)\n    cpp_fused_mm_0(arg0_1, arg1_1, buf0)\n"
    traffic = cpp_traffic("cpp_fused_mm_0", src, wrapper)
    assert [p.counted for p in traffic] == [False, False, False]
    assert kernel_bytes("cpp_fused_mm_0", Kernel("cpp_fused_mm_0", "cpp", src), wrapper)[0] == 3 * 64 * F32


_TWO_NESTS = re.sub(r"^ {4}", "", """
    extern "C"  void  kernel(const int64_t* in_ptr0,
                           const float* in_ptr1,
                           float* out_ptr0)
    {
        {
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(6400L); x0+=static_cast<int64_t>(16L))
            {
                auto tmp0 = static_cast<float>(0.0);
                auto tmp1 = at::vec::Vectorized<float>(tmp0);
                tmp1.store(out_ptr0 + static_cast<int64_t>(x0));
            }
        }
        {
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                    auto tmp2 = in_ptr1[static_cast<int64_t>(x0)];
                    auto tmp3 = at::vec::Vectorized<float>(tmp2);
                    auto tmp4 = c10::convert<int64_t>(x1 + 64L*tmp0);
                    auto tmp5 = at::vec::VectorizedN<int64_t,2>::arange(tmp4, 1);
                    atomic_add_vec<float, 2, 1>(out_ptr0, tmp5, tmp3);
                }
            }
        }
    }
""", flags=re.M)


def test_the_timing_view_says_which_buffers_a_kernel_reached_through_indices():
    from explorer.present.viewmodel import timing_blocks
    from explorer.timing.model import GraphTiming, IndirectAccess, KernelTiming, TimingReport

    k = KernelTiming(name="cpp_fused_embedding_mul_sum_0", kind="generated", time_s=2e-6, share_pct=100.0, calls=1,
                     bytes=8576, indirect=(IndirectAccess("in_ptr1", "primals_1", 2048, 0, 6_400_000),))
    g = GraphTiming(index=0, compile_id="0/0", label="graph 0", device="cpu", grad_enabled=False, eager=None,
                    compiled=None, speedup=None, compile_time_s=None, compile_time_source="capture",
                    break_even_calls=None, kernels=(k,))
    blocks = timing_blocks(TimingReport(device="cpu", graphs=(g,)), (g,), (), timeit=False)
    said = [b["r"] for b in blocks if b["t"] == "p" and any(isinstance(r, dict) and r.get("code") == "primals_1"
                                                             for r in b["r"])]
    assert said and " gathers 2,048 of the 6,400,000 elements of " in said[0]
