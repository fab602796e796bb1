"""torch.compile as real programs use it: warm caches, compiled regions, guard filters, stances, export.

CPU only. Backends are as cheap as each check allows: regions, guard filters and
stances are Dynamo's business (``eager``/``aot_eager``); warm caches need Inductor
(two small compiles into a private cache folder); export runs AOTInductor once for
the module (``exported``, ~30-80 s: it builds a C++ package).
"""

from __future__ import annotations

import json
import os

import jsonschema
import pytest
import torch
from programs import real_usage

import explorer
from explorer import cli
from explorer.capturing.assemble import assemble
from explorer.capturing.compile_id import CompileId
from explorer.capturing.model import OutputCode
from explorer.capturing.raw import RawCapture, RawEvent
from explorer.capturing.regions import _wrapper_functions
from explorer.clinic.guard_filter import dropped_guards, user_name
from explorer.lineage import Origin, lineage_of
from explorer.present import viewmodel as vm
from explorer.present.text import flat
from explorer.report import Report
from explorer.schema import SCHEMA_PATH

PROGRAM = real_usage.__file__


def line_of(text, path=PROGRAM):
    with open(path, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


def view(report, cid=None):
    """The view model of one compilation (the first when ``cid`` is None): what the page, widget and static copy
    draw (tests/test_usage_view.py checks each of them draws it)."""
    comps = vm.build(report)["compilations"]
    return next(c for c in comps if cid is None or c["cid"] == cid)


def valid(report):
    """The report validates against the shipped schema and reads back equal."""
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        jsonschema.validate(json.loads(report.to_json()), json.load(fh))
    assert Report.from_json(report.to_json()) == report


# ---- 1. warm caches ----

@pytest.fixture(scope="module")
def warm_pair(tmp_path_factory):
    """The same function explored twice with --warm, into a cache folder of its own: (first, second)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path_factory.mktemp("inductor_cache")))
    try:
        first = explorer.explore(real_usage.warm_fn, torch.randn(16), warm=True)
        second = explorer.explore(real_usage.warm_fn, torch.randn(16), warm=True)
    finally:
        mp.undo()
    return first, second


def test_the_second_warm_run_shows_the_fx_graph_cache_hit_and_the_cached_output_code(warm_pair):
    first, second = warm_pair
    (c1,), (c2,) = first.compilations, second.compilations
    assert [(c.cache, c.outcome) for c in c1.caches if c.cache == "fx_graph"] == [("fx_graph", "miss")]
    hit = next(c for c in c2.caches if c.cache == "fx_graph")
    assert hit.outcome == "hit" and hit.graph_kind == "inference" and hit.key
    assert hit.key == next(c.key for c in c1.caches if c.cache == "fx_graph")  # the entry the first run wrote
    assert hit.time_saved_s and hit.time_saved_s > 0
    # the stages the hit skipped say so, with the key; the output code shown is the cached one
    for stage in ("ir_pre_fusion", "ir_post_fusion"):
        assert getattr(c2, stage) is None and c1.__getattribute__(stage) is not None
        assert c2.missing[stage].startswith("skipped: ") and "cache hit" in c2.missing[stage]
        assert hit.key in c2.missing[stage]
    assert c2.output_code and c2.output_code[0].code == c1.output_code[0].code
    assert [k.name for k in c2.kernels] == [k.name for k in c1.kernels]
    assert {k.build for k in c1.kernels} == {"built"} and {k.build for k in c2.kernels} == {"loaded"}
    text = second.summary()
    assert "caches: warm" in text and "FX graph cache hit [inference]" in text
    assert "skipped: cache hit: Loop-level IR before fusion" in text and "from the cache:" in text
    assert first.capture.cache_mode == second.capture.cache_mode == "warm"
    v = view(second)
    strip = flat(v["from_where"][0]["r"])
    assert "Dynamo compiled" in strip and "FX graph cache hit [inference]" in strip and hit.key in strip
    assert f"kernels: {len(c2.kernels)} loaded, 0 built" in strip
    assert v["why"]["ir_pre_fusion"] == c2.missing["ir_pre_fusion"]  # the pane says skipped, with the key
    assert v["panes"]["output_code"][0]["cls"] == "cx-missing cx-cached"  # the cached artifact, marked
    assert dict(vm.build(first)["header"]["chips"])["caches"] == "warm: 1 lowered now"
    assert dict(vm.build(second)["header"]["chips"])["caches"] == "warm: 1 served from cache"
    valid(second)


def test_the_default_capture_says_what_the_caches_did(module_report):
    assert module_report.capture.cache_mode == "cold"  # the default mode's name in the JSON
    # the graph caches as a plain run has them: an FX graph cache hit's loop-level IR comes from the stage store
    assert all(c.ir_pre_fusion for c in module_report.compilations if c.output_code)
    (line,) = [x for x in module_report.summary().splitlines() if x.startswith("caches: ")]
    assert " lowered now" in line or " served by torch's graph caches" in line, line
    assert "cold" not in line


def test_warm_is_an_option_of_every_entry_point():
    from IPython.core.magic_arguments import parse_argstring

    from explorer.magic import CompileMagics, options_from_args
    from explorer.options import from_flags

    assert options_from_args(parse_argstring(CompileMagics.compile, "--warm")).warm
    run = cli.split_run_args(cli.run_parser(), ["--warm", "s.py"])
    assert from_flags(run.options, "cli", capture_only=True).warm
    # and --fresh, its opposite (the graph caches off, every graph lowered again)
    assert options_from_args(parse_argstring(CompileMagics.compile, "--fresh")).fresh
    run = cli.split_run_args(cli.run_parser(), ["--fresh", "s.py"])
    assert from_flags(run.options, "cli", capture_only=True).fresh
    with explorer.capture(fresh=True) as report:
        pass
    assert report.capture.cache_mode == "fresh"
    with pytest.raises(ValueError, match="--warm .* and --fresh .* contradict each other"):
        options_from_args(parse_argstring(CompileMagics.compile, "--warm --fresh"))


# ---- 2. compiled regions ----

@pytest.fixture(scope="module")
def regions_report():
    torch.manual_seed(0)
    with torch.no_grad():
        return explorer.explore(real_usage.Stack(4), torch.randn(2, 8), backend="aot_eager")


def test_a_region_used_four_times_is_one_graph_called_four_times(regions_report):
    (comp,) = regions_report.compilations
    (region,) = comp.regions
    assert region.kind == "nested_compile_region" and region.calls == 4
    assert region.graph is not None and region.graph.code.count("def forward") == 1
    assert {n.loc.lineno for n in region.graph.nodes if n.loc} == {line_of("the region's body")}
    assert region.lineno == line_of("each call is an invoke_subgraph")
    assert region.aot_name == "repeated_subgraph0"
    assert "called 4x" in regions_report.summary()
    tree = next(b for b in view(regions_report)["panes"]["graph"] if b.get("cls") == "cx-regions")
    (item,) = tree["items"]
    assert "compiled once, called 4×" in flat(item["r"]) and "repeated_subgraph0" in flat(item["r"])
    valid(regions_report)


def test_a_regions_kernels_are_read_from_its_wrapper_function():
    code = "\n".join([
        "def repeated_subgraph0(args):",
        "    a, b, c = args",
        "    args.clear()",
        "    assert_size_stride(a, (2, 8), (8, 1), 'input')",
        "    buf0 = empty_strided_cpu((2, 8), (8, 1), torch.float32)",
        "    extern_kernels.addmm(c, a, reinterpret_tensor(b, (8, 8), (1, 8), 0), alpha=1, beta=1, out=buf0)",
        "    cpp_fused_add_relu_0(buf0)",
        "    return (buf0, )",
        "",
        "",
        "class Runner:",
        "    pass",
    ])
    found = _wrapper_functions((OutputCode("inference", code),))
    assert found == {"repeated_subgraph0": ("extern_kernels.addmm", "cpp_fused_add_relu_0")}


def test_disabled_and_nonstrict_calls_are_named_in_the_frame_list():
    report = explorer.explore(real_usage.with_skips, torch.randn(4), backend="eager")
    regions = {r.kind: r for c in report.compilations for r in c.regions}
    assert regions["disable"].name == "plain_helper"
    assert regions["disable"].lineno == line_of("runs as plain Python")
    assert regions["nonstrict_trace"].name == "opaque_scale"
    assert regions["nonstrict_trace"].lineno == line_of("called opaquely")
    text = report.summary()
    assert "plain_helper (real_usage.py:" in text and "torch.compiler.disable" in text
    assert "opaque_scale (real_usage.py:" in text and "nonstrict_trace" in text
    labels = " ".join(c["label"] for c in vm.build(report)["compilations"])  # the frame list names them
    assert "disable: plain_helper" in labels and "nonstrict_trace: opaque_scale" in labels


# ---- 3. guard filters ----

def test_a_guard_filter_lists_the_guards_it_dropped_and_what_can_go_wrong():
    report = explorer.explore(real_usage.uses_modules, torch.randn(2, 4), backend="eager",
                              guard_filter=torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe)
    (comp,) = report.compilations
    assert comp.guard_filter == "skip_guard_on_inbuilt_nn_modules_unsafe"
    kept = [g for g in comp.filtered_guards if g.kept]
    dropped = dropped_guards(comp)
    assert any(g.kind == "TENSOR_MATCH" and g.subject == "x" for g in kept)  # the input's guard stays
    assert dropped and all("_modules[" in d.guard.subject for d in dropped)  # only the nn.Modules' ones go
    weight = next(d for d in dropped if d.guard.kind == "TENSOR_MATCH" and "weight" in d.guard.subject)
    assert user_name(weight.guard.subject) == "seq[0].weight"
    assert "wrong results" in weight.risk
    inplace = next(d for d in dropped if d.guard.subject.endswith(".inplace"))
    assert inplace.guard.value == "False" and "it was False" in inplace.risk
    # the guard tree torch built has none of the dropped guards: the filter's own answer was used
    assert "_parameters['weight']" not in (comp.guard_tree or "")
    text = report.summary()
    assert f"kept {len(kept)} of {len(comp.filtered_guards)} guards" in text and "dropped TENSOR_MATCH" in text
    warning, table = view(report)["panes"]["guards"][:2]
    assert "no longer recompiles" in flat(warning["r"]) and len(table["rows"]) == len(dropped)
    valid(report)


# ---- 4. stances ----

def test_a_recompile_refused_by_fail_on_recompile_is_explained_and_the_stance_shown():
    compiled = torch.compile(real_usage.stance_fn, backend="eager")
    compiled(torch.randn(4))
    with torch.compiler.set_stance("fail_on_recompile"):
        with pytest.raises(RuntimeError, match="fail_on_recompile"):
            with explorer.capture() as report:
                compiled(torch.randn(4, 5))
    assert report.capture.stance == "fail_on_recompile"
    (refused,) = report.clinic.recompiles
    assert refused.refused_by == "fail_on_recompile" and refused.frame_name == "stance_fn"
    assert refused.primary.kind == "rank" and (refused.primary.old, refused.primary.new) == ("1", "2")
    line = refused.one_line()
    assert "refused by set_stance('fail_on_recompile')" in line and "number of dims of x: 1 -> 2" in line
    assert "eager_on_recompile" in refused.remedy
    text = report.summary()
    assert "stance: fail_on_recompile" in text and "recompiles: 1" in text
    header = vm.build(report)["header"]
    assert dict(header["chips"])["stance"] == "fail_on_recompile"
    (item,) = next(b for b in header["body"] if b["t"] == "section")["body"][0]["items"]
    assert item["cls"] == "cx-refused" and "refused by set_stance('fail_on_recompile')" in flat(item["r"])
    valid(report)


# ---- 5. export and AOTInductor ----

@pytest.fixture(scope="module")
def exported():
    torch.manual_seed(0)
    model = real_usage.Small()
    x = torch.randn(3, 8)
    batch = torch.export.Dim("batch", min=2, max=64)
    report = explorer.explore_export(model, (x,), dynamic_shapes={"x": {0: batch}})
    return report, model, x


def test_export_shows_the_program_its_signature_and_ranges(exported):
    report, model, x = exported
    (ep,) = report.capture.exports
    assert ep.graph is not None and "aten.sin" in ep.graph.code
    kinds = {s.name: s.kind for s in ep.inputs}
    assert kinds == {"p_lin_weight": "PARAMETER", "p_lin_bias": "PARAMETER", "x": "USER_INPUT"}
    assert next(s.target for s in ep.inputs if s.name == "p_lin_weight") == "lin.weight"
    (rc,) = ep.range_constraints
    assert (rc.low, rc.high, rc.sources) == ("2", "64", ("x.size(0)",))
    linear = next(d for d in ep.decompositions if d.node == "linear")
    assert linear.decomposed and "aten.addmm.default" in linear.into_ops
    assert torch.allclose(report.result, model(x), atol=1e-5)


def test_aotinductor_shows_its_cpp_wrapper_kernels_and_package(exported):
    report, _, _ = exported
    (ep,) = report.capture.exports
    comp = report.compilation(ep.compile_id)
    assert comp.origin == "aoti" and comp.compile_id.startswith("aoti/")
    assert comp.frame.name == "forward" and comp.frame.filename == PROGRAM
    (wrapper,) = comp.output_code
    assert wrapper.language == "cpp" and "AOTInductorModel::run_impl" in wrapper.code
    sin = next(k for k in comp.kernels if "sin" in k.name)
    assert sin.language == "cpp" and sin.source.startswith(("#include", 'extern "C"'))
    names = {f.name.rsplit("/", 1)[-1]: f.size for f in ep.package_files}
    assert any(n.endswith(".so") and s > 0 for n, s in names.items()) and "kernel_information.json" in names
    assert comp.missing["graph"].startswith("an AOTInductor compile")
    text = report.summary()
    assert "export:" in text and "range s" in text and "x.size(0)" in text and "AOTInductor [aoti/" in text
    v = view(report, comp.compile_id)
    tables = {b["cls"]: b for b in v["panes"]["export_graph"] if b["t"] == "table"}
    assert {"cx-export-specs", "cx-ranges", "cx-decomps", "cx-package"} <= set(tables)
    assert len(tables["cx-package"]["rows"]) == len(ep.package_files)
    captions = [flat(b["r"]) for d in v["panes"]["kernels"] for b in (d.get("body") or [d])
                if b.get("cls") == "cx-muted cx-prov"]  # the kernels name their chain's record
    assert captions and all(c.startswith("Chain links from: torch's") for c in captions)
    valid(report)


def test_the_chain_runs_from_a_user_line_to_the_aotinductor_kernel_line(exported):
    report, _, _ = exported
    comp = report.compilation(report.capture.exports[0].compile_id)
    lineage = next(lin for lin in report.lineage if lin.compile_id == comp.compile_id)
    origin = Origin(PROGRAM, line_of("the exported line followed to its kernel"))
    reached = lineage.reached_from(origin)
    stages = {link.stage for link in reached}
    assert {"export_graph", "post_grad_graph", "output_code", "kernels"} <= stages
    sin = next(k for k in comp.kernels if "sin" in k.name)
    kernel_lines = [link for link in reached if link.stage == "kernels" and link.kernel == sin.name]
    source = sin.source.splitlines()
    assert any("sin()" in source[link.line - 1] for link in kernel_lines)
    wrapper = comp.output_code[0].code.splitlines()
    call = next(link for link in reached if link.stage == "output_code" and link.element == sin.name)
    assert wrapper[call.line - 1].strip().startswith(f"{sin.name}(")
    sources = {t.stage: t.source for t in lineage.texts}
    assert sources["output_code"].startswith("torch's provenance debug handles")
    assert sources["kernels"].startswith("torch's")  # provenance, or kernel_information.json's record


def test_run_export_shows_a_scripts_own_exported_program(tmp_path, capsys):
    path = os.path.join(os.path.dirname(__file__), "scripts", "export_only.py")
    out = tmp_path / "r.json"
    code = cli.main(["run", "--export", "--json", str(out), path])
    _, err = capsys.readouterr()
    assert code == 0
    (ep,) = Report.load(out).capture.exports
    assert ep.compile_id is None and "aten.tanh" in ep.graph.code
    assert [(r.low, r.high) for r in ep.range_constraints] == [("1", "32")]
    assert "export:" in err


# ---- 6. newer provenance records ----

def test_a_per_kernel_op_trace_is_read_when_torch_writes_one():
    """The per-kernel op trace proposed in pytorch/pytorch#189270 (not in a released torch): when a record
    keyed by ``kernel:handle`` arrives, its ops are the kernel's; unknown records stay other artifacts."""
    cid = CompileId(0, 0)
    code = "# AOT ID: ['0_inference']\ncpp_fused_sin_0 = async_compile.cpp_pybinding(['float*'], r'''\n" \
           "extern \"C\" void kernel(float* out_ptr0)\n{\n    auto tmp0 = tmp1.sin();\n}\n''')\n"
    trace = {"cpp_fused_sin_0:1": {"ops": [{"op": "load"}, {"op": "sin"}, {"op": "store"}],
                                   "stack_traces": ['File "/u/p.py", line 3, in f\n    return x.sin()']}}
    raw = RawCapture(events=[
        RawEvent(1, "inductor_output_code", cid, {"inductor_output_code": {"filename": "/t/x.py"}}, code),
        RawEvent(2, "artifact:inductor_kernel_trace", cid, {}, json.dumps(trace)),
        RawEvent(3, "artifact:some_future_artifact", cid, {}, "{}"),
    ])
    data = assemble(raw, torch_version="t", device="cpu", python_version="3", wall_time_s=0.0, notes=[], error=None)
    (kernel,) = data.compilations[0].kernels
    assert kernel.op_trace == ("load", "sin", "store")
    assert [(u.filename, u.lineno) for u in kernel.user_lines] == [("/u/p.py", 3)]
    assert [a.name for a in data.other_artifacts] == ["artifact:some_future_artifact"]
    assert "per-kernel op traces from torch: cpp_fused_sin_0" in Report.of(data).summary()
    (lineage,) = lineage_of(data)
    assert "per-kernel record" in next(t.source for t in lineage.texts if t.stage == "kernels")


# ---- the same options in a notebook cell ----

def test_compile_export_shows_the_cells_own_exported_program(ip):
    cell = ("%%compile --export -q -o\n"
            "class Net(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return torch.tanh(x) * 2\n"
            "program = torch.export.export(Net(), (torch.randn(4, 3),))\n")
    result = ip.run_cell(cell)
    assert result.success, result.error_in_exec
    report = result.result
    (ep,) = report.capture.exports
    assert "aten.tanh" in ep.graph.code and [s.kind for s in ep.inputs] == ["USER_INPUT"]
    assert report.options.export and report.options.capture_only
    assert "program" in ip.user_ns  # the cell ran as it is


def test_compile_guard_filter_names_one_of_torchs_filters(ip):
    ip.user_ns["lin"] = torch.nn.Linear(3, 3)
    result = ip.run_cell("%%compile --backend eager --no-time --guard-filter skip_guard_on_all_nn_modules_unsafe "
                         "-q -o\ny = lin(torch.ones(2, 3))\n")
    assert result.success, result.error_in_exec
    (comp,) = [c for c in result.result.compilations if c.filtered_guards]
    assert comp.guard_filter == "skip_guard_on_all_nn_modules_unsafe"
    assert any(not g.kept and "lin" in g.subject for g in comp.filtered_guards)


def test_dynamo_cache_records_outside_a_compilation_are_kept_capture_wide():
    raw = RawCapture(events=[RawEvent(1, "artifact:dynamo_cache_entries", None, {},
                                      json.dumps({"num_entries": 2, "artifacts": {}}))])
    data = assemble(raw, torch_version="t", device="cpu", python_version="3", wall_time_s=0.0, notes=[], error=None)
    (lookup,) = data.cache_events
    assert (lookup.cache, lookup.outcome, lookup.detail) == ("dynamo", "entries", "2 entries")
    assert not data.compilations and not data.other_artifacts
