"""A model's own code in the Source pane, and a compiled module named as the module.

Dynamo inlines each module's ``forward`` and every helper into the compiled frame, so the graph's operations come
from lines of those functions. The Source pane shows them after the frame, each once however many layers call it,
linked through the chain: a line of ``Block.forward`` lights its nodes in every layer and every stage. A
torch.nn module torch.compile wraps in its own frame (``inner``) is named by the module's forward and the user's
line that ran it, torch's frame kept as a detail.
"""

import os
import re
import subprocess
import sys

import pytest

import explorer
from explorer.capturing import torch_door
from explorer.capturing.inlined import entry_of, inlined_of
from explorer.capturing.model import (
    Bytecode,
    CaptureData,
    Compilation,
    Entry,
    Frame,
    GraphBreak,
    InlinedFunction,
    Instruction,
    SourceLoc,
)
from explorer.lineage import Origin, lineage_of
from explorer.present import structure_view
from explorer.present import viewmodel as vm
from explorer.present.context import pane_context
from explorer.present.panes import stage_pane
from explorer.present.structure_view import structure_for
from explorer.report import Report

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "programs", "stacked", "model.py")
LLAMA = os.path.join(HERE, "programs", "llama_blocks.py")


def model_line(text, after=0):
    """The first line of tests/programs/stacked/model.py holding ``text`` past line ``after``."""
    with open(MODEL, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line and i > after)


def fn(name, filename, first, source, calls=1):
    return InlinedFunction(name, filename, first, source, calls)


# ---- the functions inlined, each once ----

def test_each_inlined_function_is_kept_once_with_how_many_times_it_was_inlined():
    frame, block, mlp, linear = (fn("Decoder.forward", "/m.py", 50, "x"), fn("Block.forward", "/m.py", 20, "x"),
                                 fn("MLP.forward", "/m.py", 10, "x"), fn("Linear.forward", "/t/linear.py", 1, "x"))
    traced = (frame, linear, mlp, block, linear, mlp, block, linear, mlp, block)  # three layers, as Dynamo lists them
    assert [(f.name, f.calls) for f in inlined_of(traced)] == [("Linear.forward", 3), ("MLP.forward", 3),
                                                              ("Block.forward", 3)]
    assert inlined_of((frame,)) == ()


def test_a_wrapper_frame_is_named_by_the_module_it_called_and_the_users_line():
    torch_dir = torch_door.version.torch_dir()
    ours = os.path.dirname(os.path.abspath(explorer.__file__))
    wrapper = fn("wrap_inline.<locals>.inner", os.path.join(torch_dir, "_dynamo", "external_utils.py"), 67, "x")
    seq = fn("Sequential.forward", os.path.join(torch_dir, "nn", "modules", "container.py"), 248, "x")
    linear = fn("Linear.forward", os.path.join(torch_dir, "nn", "modules", "linear.py"), 130, "x")
    stack = (SourceLoc("/u/train.py", 5, "<module>", "y = model(x)"), SourceLoc(os.path.join(ours, "api.py"), 70),
             SourceLoc(os.path.join(torch_dir, "_dynamo", "eval_frame.py"), 511, "__call__"),
             SourceLoc(wrapper.filename, 67, "inner"))
    entry = entry_of((wrapper, linear, seq), stack)
    assert (entry.name, entry.wrapper, entry.called_at.filename, entry.called_at.lineno) == \
        ("Sequential.forward", True, "/u/train.py", 5)
    comp = Compilation("0/0", Frame("inner", wrapper.filename, 67), "compiled", entry=entry)
    assert comp.label == "0/0 Sequential.forward (called at train.py:5)"
    assert comp.frame_text == "inner (external_utils.py:67)"
    # a user's own module is its frame: named by its qualified name
    mine = fn("Net.forward", "/u/net.py", 9, "x")
    assert entry_of((mine, linear), stack) == Entry("Net.forward", "/u/net.py", 9)


def test_torch_and_python_code_is_hidden_but_an_installed_models_code_is_not():
    import sysconfig

    from explorer.clinic.locate import is_torch_or_python_file

    site = sysconfig.get_paths()["purelib"]
    assert is_torch_or_python_file(os.path.join(site, "torch", "nn", "modules", "linear.py"))
    assert is_torch_or_python_file(os.path.join(sysconfig.get_paths()["stdlib"], "functools.py"))
    assert is_torch_or_python_file("<frozen runpy>")
    assert not is_torch_or_python_file(os.path.join(site, "transformers", "models", "llama", "modeling_llama.py"))
    assert not is_torch_or_python_file(MODEL) and not is_torch_or_python_file("<ipython-input-3-0f1e>")


# ---- the Source pane and the chain, on data ----

GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_

         # File: /u/blocks.py:4 in forward, code: y = x.sin()
        y: "f32[4]" = l_x_.sin();  l_x_ = None

         # File: /u/blocks.py:4 in forward, code: y = x.sin()
        y_1: "f32[4]" = y.sin();  y = None

         # File: /torch/nn/modules/activation.py:9 in forward, code: return F.relu(x)
        relu: "f32[4]" = torch.relu(y_1);  y_1 = None
        return (relu,)
'''
BLOCK = "    def forward(self, x):\n        y = x.sin()\n        return self.act(y)\n"


def _comp(**kw):
    from explorer.capturing.parse_fx import parse_graph

    top = Bytecode("forward", "/u/net.py", 20, "  20           0 RESUME                   0\n",
                   (Instruction(0, "RESUME", "", 20),), source="def forward(self, x):\n    for b in self.blocks:\n"
                   "        x = b(x)\n    return x\n")
    inlined = (fn("ReLU.forward", "/venv/lib/python3.11/site-packages/torch/nn/modules/activation.py", 8, "x", 2),
               fn("Block.forward", "/u/blocks.py", 3, BLOCK, 2),
               fn("Block.forward.<locals>.<genexpr>", "/u/blocks.py", 4, "        y = x.sin()\n", 2))
    g = parse_graph(GRAPH)
    return Compilation("0/0", Frame("forward", "/u/net.py", 20), "compiled", original_bytecode=top, graph=g,
                       inlined=inlined, **kw)


def source_pane(comp, report=None):
    """The Source pane of ``comp`` (of ``report``, else a report of it alone), as every view shows it."""
    report = report if report is not None else Report.of(CaptureData("2.13", "cpu", "3.11", compilations=(comp,)))
    return stage_pane(pane_context(comp, Report.of(report)), "source")


def test_the_source_pane_shows_each_inlined_function_of_the_users_once_linked_by_its_lines():
    comp = _comp()
    blocks = source_pane(comp)
    codes = [b for b in blocks if b["t"] == "code"]
    assert [(b["key"], b["src"], b["first"], b["file"]) for b in codes] == [
        ("source:0", "original_bytecode.source", 20, "/u/net.py"), ("source:2", "inlined.1.source", 3, "/u/blocks.py")]
    text = " ".join(str(b.get("r")) for b in blocks)
    assert "Block.forward" in text and "inlined 2×" in text
    assert "1 more function of torch and Python was inlined, not shown: ReLU.forward ×2" in text
    assert "1 more function was inlined within the lines above: Block.forward.<locals>.<genexpr> ×2" in text
    # the chain: the inlined function's line 4 is a user line, and it reaches both layers' graph nodes
    (lin,) = lineage_of(CaptureData("2.13", "cpu", "3.11", compilations=(comp,)))
    assert [(t.stage, t.part) for t in lin.texts if "source" in t.stage or "bytecode" in t.stage] == [
        ("source", 0), ("source", 1), ("source", 2), ("source", 3), ("original_bytecode", 0)]  # one part per function
    assert lin.origins_at("source", 2, part=2) == (Origin("/u/blocks.py", 4),)
    graph_nodes = [link.element for link in lin.reached_from(Origin("/u/blocks.py", 4)) if link.stage == "graph"]
    assert [n for n in graph_nodes if n] == ["y", "y_1"]


def test_a_graph_break_in_an_inlined_function_is_marked_there():
    comp = _comp(graph_break=GraphBreak("print", filename="/u/blocks.py", lineno=5))
    code = next(b for b in source_pane(comp) if b.get("key") == "source:2")
    assert code["marks"] == [3]  # /u/blocks.py:5 is the third line of Block.forward (line 3)


def test_the_static_copy_shows_the_inlined_functions():
    from explorer.present.html import stage_html

    html = stage_html(_comp(), "source")
    assert "Block.forward" in html and "return self.act(y)" in html


def test_a_trace_without_dynamos_list_finds_the_functions_from_the_graphs_stack_traces():
    """A trace read from a file has no tracing context to read: the graph's ``# File:`` comments name the lines."""
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.fold import Fold
    from explorer.capturing.parse_fx import parse_graph
    from explorer.capturing.records import DynamoGraph

    attention, split = model_line("scaled_dot_product_attention"), model_line("return z.view(")
    layer = (f"        # File: {MODEL}:{split} in split_heads, code: return z.view(b, t, heads, c)\n"
             '        q: "f32[2]" = l_x_.view(2)\n'
             f"        # File: {MODEL}:{attention} in forward, code: y = F.scaled_dot_product_attention(q, k, v)\n"
             '        y: "f32[2]" = torch.sin(q)\n\n')
    text = ('class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: "f32[2]"):\n        l_x_ = L_x_\n\n'
            + layer + layer.replace(" y:", " y_1:").replace(" q:", " q_1:") + "        return (y_1,)\n")
    fold = Fold(CompileId(0, 0))
    fold.add(DynamoGraph(parse_graph(text)))
    comp = fold.build()
    assert [(f.name, f.firstlineno, f.calls) for f in comp.inlined] == [
        ("split_heads", model_line("def split_heads"), 2),
        ("Block.forward", model_line("def forward(self, x)", after=model_line("class Block")), 2)]
    assert "scaled_dot_product_attention" in comp.inlined[1].source and comp.entry is None



def test_a_resume_functions_trace_does_not_list_the_function_it_resumes_as_inlined():
    """A resume function's frame is the rest of the function that broke: its graph's lines lie in that function,
    past what the trace quotes of the frame, and are the frame's own code, not an inlined function's."""
    from explorer.capturing.inlined import inlined_from_graph
    from explorer.capturing.model import Frame
    from explorer.capturing.parse_fx import parse_graph

    first = model_line("def forward(self, x)", after=model_line("class Block"))
    attention = model_line("scaled_dot_product_attention")
    text = ('class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: "f32[2]"):\n        l_x_ = L_x_\n'
            f"        # File: {MODEL}:{attention} in forward, code: y = F.scaled_dot_product_attention(q, k, v)\n"
            '        y: "f32[2]" = torch.sin(l_x_)\n        return (y,)\n')
    resume = Frame(name="torch_dynamo_resume_in_forward_at_1", filename=MODEL, lineno=first)
    assert inlined_from_graph(parse_graph(text), resume, "    pass\n") == ()


# ---- a real model: N identical blocks and one that differs ----

def llama_line(text, after=0):
    """The first line of tests/programs/llama_blocks.py holding ``text`` past line ``after``."""
    with open(LLAMA, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line and i > after)


def test_a_models_blocks_show_in_the_source_pane_and_light_every_layer(llama_report):
    """tests/programs/llama_blocks.py compiled whole (the ``llama_report`` fixture): four blocks, the third with GELU
    for SiLU; each block's forward, its attention's and MLP's, and the ``rotary`` helper inlined once per call."""
    (comp,) = [c for c in llama_report.compilations if c.graph is not None]
    assert comp.label == f"{comp.compile_id} Llama.forward (llama_blocks.py:{llama_line('def forward(self, tokens)')})"
    calls = {f.name: f.calls for f in comp.inlined}
    assert calls["Block.forward"] == 4 and calls["MLP.forward"] == 4 and calls["rotary"] == 8
    pane = source_pane(comp)
    k = next(i for i, f in enumerate(comp.inlined) if f.name == "Attention.forward")
    block = next(b for b in pane if b.get("key") == f"source:{k + 1}")
    assert block["first"] == llama_line("def forward(self, x, cos, sin)", after=llama_line("class Attention"))
    assert block["file"] == LLAMA
    (lin,) = [x for x in llama_report.lineage if x.compile_id == comp.compile_id]
    attention = Origin(LLAMA, llama_line("scaled_dot_product_attention"))
    line = attention.line - block["first"] + 1
    assert lin.origins_at("source", line, part=k + 1) == (attention,)
    reached = lin.reached_from(attention)
    sdpa = [x.element for x in reached if x.stage == "graph" and x.element]
    assert len(sdpa) == 4, sdpa  # every layer's attention
    stages = {x.stage for x in reached}
    assert {"graph", "aot_forward", "aot_backward", "post_grad_graph", "output_code"} <= stages, stages
    # the block that differs: the MLP's line became SiLU in three layers and GELU in one
    mlp = {x.element for x in lin.reached_from(Origin(LLAMA, llama_line("self.w2(self.act("))) if x.stage == "graph"}
    acts = sorted(re.sub(r"_\d+$", "", n) for n in mlp if n and n.startswith(("gelu", "silu")))
    assert acts == ["gelu"] + ["silu"] * 3, acts


# ---- a compiled module named as the module, by every entry point ----

def test_torch_compile_of_a_torch_nn_module_is_named_by_the_module():
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    with explorer.capture() as report:
        torch.compile(model, backend="eager")(torch.randn(2, 4)); here = sys._getframe().f_lineno  # noqa: E702
    (comp,) = report.compilations
    assert comp.frame.name == "inner" and comp.entry.wrapper
    assert comp.label == f"{comp.compile_id} Sequential.forward (called at test_inlined.py:{here})"
    summary = vm.compilation(comp, explorer.report.Report.of(report.capture))["summary"]
    assert "Sequential.forward" in str(summary) and "torch's frame: inner (external_utils.py:" in str(summary)


def test_explore_of_a_torch_nn_module_is_named_by_the_module():
    import torch

    report = explorer.explore(torch.nn.Linear(4, 4), torch.randn(2, 4), backend="eager"); here = sys._getframe().f_lineno  # noqa: E702,E501
    (comp,) = report.compilations
    assert comp.name == "Linear.forward"
    assert (comp.entry.called_at.filename, comp.entry.called_at.lineno) == (__file__, here)


def test_the_cli_names_a_compiled_torch_nn_module_by_the_module(tmp_path):
    import json

    script = tmp_path / "wrapped.py"
    script.write_text("import torch\nmodel = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())\n"
                      "torch.compile(model, backend='eager')(torch.randn(2, 4))\n")
    out = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-m", "explorer", "run", "--quiet", "--json", str(out),
                    str(script)], check=True, env=env, capture_output=True)
    (comp,) = json.loads(out.read_text())["capture"]["compilations"]
    assert comp["entry"]["name"] == "Sequential.forward"
    assert (comp["entry"]["called_at"]["filename"], comp["entry"]["called_at"]["lineno"]) == (str(script), 3)


def test_a_cell_shows_the_forward_of_a_module_defined_in_an_earlier_cell():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "explorer")
    assert ip.run_cell("import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
                       "        return x.sin() * 2\nnet = Net()").success
    with capture_output():
        report = ip.run_cell_magic("compile", "--backend eager -q -o", "y = net(torch.ones(3))")
    comp = next(c for c in report.compilations if c.graph is not None)
    (net,) = [f for f in comp.inlined if f.name == "Net.forward"]
    assert "return x.sin() * 2" in net.source
    code = [b for b in source_pane(comp) if b["t"] == "code"]
    assert [b["src"] for b in code][1:] == [f"inlined.{comp.inlined.index(net)}.source"]


# ---- a module whose forward a decorator wraps: named, shown and mapped as the module ----

DECORATED = os.path.join(HERE, "programs", "decorated.py")


def decorated_line(cls):
    """The first line of ``cls.forward`` in tests/programs/decorated.py: its first decorator's (where its code
    starts)."""
    with open(DECORATED, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"class {cls}("))
    return next(i for i, line in enumerate(lines[start:], start + 1) if line.strip().startswith("@"))


@pytest.mark.parametrize("cls, frame, module_source, owner", [
    ("DecoratedNet", "wrapped_func", "L['args'][0]", "DecoratedNet"),  # through functools.wraps' __wrapped__
    ("Renamed", "wrapped_func", "L['args'][0]", "DecoratedNet"),  # the MRO's forward
    ("OnlyPassedOn", "wrapper", "L['self']", "OnlyPassedOn"),  # no __wrapped__: by its name
])
def test_a_compiled_module_whose_forward_a_decorator_wraps_is_named_by_its_class_and_forward(cls, frame,
                                                                                             module_source, owner):
    """Dynamo compiles the outermost decorator's wrapper, which holds the module in an argument: the compilation
    is named, shown and its modules mapped as for the module's ``forward`` itself."""
    import torch
    from programs import decorated

    report = explorer.explore(getattr(decorated, cls)(), torch.randn(4, 8), backend="eager")
    (comp,) = report.compilations
    first = decorated_line(owner)
    assert comp.frame.name == frame
    assert (comp.name, comp.entry.decorated, comp.entry.module_source) == (f"{owner}.forward", True, module_source)
    assert comp.label == f"{comp.compile_id} {owner}.forward (decorated.py:{first})"
    summary = str(vm.compilation(comp, report)["summary"])
    assert f"decorated.py:{first}" in summary and f"compiled frame: {frame} (decorated.py:" in summary
    # the Source pane opens on the forward; the wrapper Dynamo compiled, and what it inlined, after it
    pane = source_pane(comp)
    code = [b for b in pane if b["t"] == "code"]
    k = next(i for i, f in enumerate(comp.inlined) if f.name == comp.name)
    assert (code[0]["src"], code[0]["first"]) == (f"inlined.{k}.source", first)
    assert code[1]["src"] == "original_bytecode.source"
    assert [b["src"] for b in code].count(f"inlined.{k}.source") == 1
    # module paths as the user writes them, with their classes: no `args_0.` in front
    (s,) = report.structure
    assert s.classes[""] == f"programs.decorated.{cls}"
    paths = {p for st in s.stages for p in st.paths}
    assert not any("args" in p for p in paths), paths
    if cls != "OnlyPassedOn":
        assert s.classes["layers.0"] == "programs.decorated.Block" and s.classes["head"].endswith("Linear")
        assert {"layers.0.lin", "layers.1.lin", "head"} <= paths, paths
        lines = structure_view.summary(structure_for(report, comp), comp)
        assert any("2× Block (layers.0–1)" in line for line in lines)
    else:
        assert "lin" in paths and s.classes["lin"].endswith("Linear")


def test_a_decorated_forward_that_breaks_before_any_graph_is_named_by_its_class_in_every_frame(capsys):
    """A break before any tensor op: Dynamo tries each wrapper's frame and the forward's own, and none writes a graph
    (so none lists what it inlined); each is still named by the forward, the frame kept as a detail."""
    import torch
    from programs import decorated

    report = explorer.explore(decorated.Chatty(), torch.randn(4, 8), backend="eager")
    first = decorated_line("Chatty")
    named = {c.frame.name: (c.name, c.graph is not None) for c in report.compilations}
    assert {f: named.get(f) for f in ("wrapped_func", "wrapper", "forward")} == dict.fromkeys(
        ("wrapped_func", "wrapper", "forward"), ("Chatty.forward", False)), named
    first_comp = report.compilations[0]
    assert first_comp.label == f"{first_comp.compile_id} Chatty.forward (decorated.py:{first})"
    assert report.break_count == 1 and "decorated.Chatty" in capsys.readouterr().out


def test_a_decorated_forward_is_found_by_name_where_its_class_is_not_loaded():
    from explorer.capturing.inlined import first_argument
    from explorer.capturing.model import Guard

    wrapper = fn("deprecate.<locals>.wrapped", "/lib/deprecation.py", 126, "x")
    forward = fn("Model.forward", "/lib/model.py", 40, "x")
    helper = fn("Cache.update", "/lib/cache.py", 9, "x")
    typed = Guard("TYPE_MATCH", "___check_type_id(L['args'][0], 1), type=<class 'nowhere.models.Model'>",
                  subject="L['args'][0]")
    entry = entry_of((wrapper, forward, helper), (), "L['args'][0]", (typed,))
    assert entry == Entry("Model.forward", "/lib/model.py", 40, decorated=True, module_source="L['args'][0]")
    # a frame that is no decorator's wrapper keeps its own name, whatever it calls
    assert entry_of((wrapper, forward), (), None, (typed,)) == Entry(wrapper.name, wrapper.filename, 126)

    def train_step(model, x):
        return model(x)

    def outer(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        def wrapper_with_self(self, *args):
            return fn(self, *args)
        return wrapper, wrapper_with_self

    a, b = outer(None)
    assert (first_argument(train_step.__code__), first_argument(a.__code__), first_argument(b.__code__)) == \
        (None, "L['args'][0]", "L['self']")
