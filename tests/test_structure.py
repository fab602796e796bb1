"""A model of repeated blocks, folded: the alike members in one entry, the odd one called out, in every view.

tests/programs/llama_blocks.py at four layers, the third (``layers.2``) with GELU where the others have
SiLU (the ``llama_report`` fixture): the graph panes, the guards, the kernels, the picture and the text summary
each say "3× Block (layers.0–1, 3)" and call ``layers.2`` out with what differs. The capture-free
tests below build the records by hand: the module of each node read from Dynamo's names, the guard tree's dict
entries, a big graph drawn folded.
"""

from __future__ import annotations

from explorer.capturing.model import Compilation, Frame, FxGraph, FxNode, Guard, SourceLoc
from explorer.capturing.parse_fx import parse_graph
from explorer.capturing.parse_guards import parse_guards
from explorer.report import Report
from explorer.structure import compilation_structure
from explorer.structure.build import returned

ALIKE, ODD = ("0", "1", "3"), ("2",)


def family(report, stage):
    (s,) = [x for x in report.structure if x.compile_id == report.compilations[0].compile_id]
    (r,) = [r for r in s.repeats if r.stage == stage and r.parent == "layers"]
    return r


def blocks_of(bs):
    """Every block, nested ones too."""
    for b in bs:
        yield b
        for key in ("body", "items"):
            for x in b.get(key, ()):
                yield from blocks_of([x] if "t" in x else x.get("body", []))
        if b.get("t") == "graph":
            yield b["code"]


def diff_of(group, *sides):
    """The lines of a member group's diff on these sides (`` `` alike, ``-`` the first group's, ``+`` this group's),
    as (side, text)."""
    return [(side, line) for h in group.diff for side, line in zip(h.sides, h.lines) if side in sides]


def text_of(runs):
    from explorer.present.text import flat

    return flat(runs)


# ---- the real model ----

def test_the_forward_graphs_fold_three_alike_blocks_and_call_out_the_odd_one(llama_report):
    for stage in ("graph", "aot_forward", "post_grad_graph"):
        r = family(llama_report, stage)
        assert r.kind == "Block", stage
        assert [g.members for g in r.groups] == [ALIKE, ODD], stage
        changed = " ".join(text for _, text in diff_of(r.groups[1], "-", "+"))
        assert ("silu" in changed and "gelu" in changed) or "erf" in changed, (stage, r.groups[1].diff)


def test_the_backward_graphs_call_out_the_odd_block_too(llama_report):
    for stage in ("aot_backward", "post_grad_graph_backward"):
        r = family(llama_report, stage)
        groups = [g.members for g in r.groups]
        assert ODD in groups and {"1", "3"} <= set(groups[0]), (stage, groups)
        odd = next(g for g in r.groups if g.members == ODD)
        assert any("erf" in text for _, text in diff_of(odd, "+")), odd.diff  # GELU's backward


def test_the_guards_and_kernels_fold_the_same_way(llama_report):
    guards = family(llama_report, "guards")
    assert [g.members for g in guards.groups] == [ALIKE, ODD]
    assert any(".act" in text for _, text in diff_of(guards.groups[1], "-", "+"))  # each block's activation
    kernels = family(llama_report, "kernels")
    assert ODD in [g.members for g in kernels.groups]


def test_the_graph_pane_outlines_the_modules_with_the_odd_block_and_its_diff(llama_report):
    from explorer.present import viewmodel as vm

    view = vm.build(llama_report)["compilations"][0]
    pane = view["panes"]["graph"]
    (outline,) = [b for b in pane if b.get("cls") == "cx-rep"]
    rows = [text_of(r["c"][0]) for r in outline["body"][0]["rows"]]
    assert "3× Block (layers.0–1, 3) alike" in rows and "layers.2 differs" in rows
    diffs = [b for b in blocks_of(outline["body"]) if "cx-rep-diff" in b.get("cls", "")]
    assert [text_of(d["s"]) for d in diffs] == ["layers.2 differs from layers.0: silu → gelu"]
    lines = [r for r in outline["body"][0]["rows"] if text_of(r["c"][0]).startswith("3×")][0]["c"][3]
    assert lines[0]["key"] == "graph:0" and lines[0]["line"] > 1  # leads to the first member's code


def test_the_loop_ir_is_grouped_by_module_with_the_odd_block_called_out(llama_report):
    """Each scheduler node of Inductor's loop-level IR is placed in the module of the post-grad nodes it computes:
    the dumps fold as the graphs do (the first layer differs there too: the embedding is fused into its norm)."""
    from explorer.present import viewmodel as vm

    comp = llama_report.compilations[0]
    for stage in ("ir_pre_fusion", "ir_post_fusion"):
        pane = vm.build(llama_report)["compilations"][0]["panes"][stage]
        for part, dump in enumerate(getattr(comp, stage)):
            r = family(llama_report, f"{stage}:{part}")
            assert [g.members for g in r.groups] == [("1", "3"), ("0",), ("2",)], (stage, part)
            odd = next(g for g in r.groups if g.members == ODD)
            assert any(text.startswith("erf = ops.erf(") for _, text in diff_of(odd, "+")), odd.diff  # GELU's erf
            (outline,) = [b for b in pane if b.get("cls") == "cx-rep" and text_of(b["s"]).startswith(dump.graph_kind)]
            rows = {text_of(r["c"][0]): r["c"][3] for r in outline["body"][0]["rows"]}
            assert {"2× Block (layers.1, 3) alike", "layers.2 differs", "norm"} <= set(rows)
            code = dump.text.split("\n")
            for lines in rows.values():  # each row leads to a scheduler node of its own dump
                assert lines[0]["key"] == f"{stage}:{part}" and code[lines[0]["line"] - 1].startswith("op")
            i = next(i for i, b in enumerate(pane) if b.get("key") == f"{stage}:{part}")
            assert pane.index(outline) < i  # over the dump's text
    assert "layers.2 differs (silu → gelu) in" in llama_report.summary()
    assert "Loop-level IR after fusion (backward)" in llama_report.summary()


def test_the_guards_pane_folds_each_family_into_one_group(llama_report):
    from explorer.present import viewmodel as vm

    comp = llama_report.compilations[0]
    pane = vm.build(llama_report)["compilations"][0]["panes"]["guards"]
    groups = [b for b in pane if b["t"] == "details" and "cx-rep" in b.get("cls", "")]
    titles = [text_of(g["s"]) for g in groups]
    assert titles[0].startswith("3× Block (layers.0–1, 3) alike: ") and "layers.0's shown" in titles[0]
    assert titles[1].startswith("layers.2 differs: ")
    assert all(g.get("lazy") for g in groups)  # drawn when opened
    tables = [b for b in pane if b["t"] == "table"]  # what the pane draws before anything is opened
    drawn = sum(len(t["rows"]) for t in tables)
    assert drawn < len(comp.guards) - 3 * family(llama_report, "guards").groups[0].size
    shown = groups[0]["body"][0]["rows"]
    assert all(comp.guards[r["line"] - 1].code in text_of(r["c"][1]) for r in shown)  # each row names its guard
    assert all("_modules['layers']._modules['0']" in text_of(r["c"][1]) + text_of(r["c"][2]) for r in shown)


def test_each_kernel_says_which_layers_launch_it(llama_report):
    from explorer.present import viewmodel as vm

    comp = llama_report.compilations[0]
    pane = vm.build(llama_report)["compilations"][0]["panes"]["kernels"]
    said = {b["data"]["kernel"]: [x["r"] for x in b["body"] if x.get("cls") == "cx-launches"]
            for b in pane if b["t"] == "div"}
    (silu,) = [k.name for k in comp.kernels if k.graph_kind == "forward" and "silu" in k.name]
    (gelu,) = [k.name for k in comp.kernels if k.graph_kind == "forward" and "gelu" in k.name]
    assert said[silu] == ["defined once, launched 3×, by layers.0–1, 3"]
    assert said[gelu] == ["launched once, by layers.2"]


def test_the_text_summary_names_the_repeated_blocks_and_the_odd_one(llama_report):
    text = llama_report.summary()
    assert "repeated: 4× Block (layers.0–3)" in text
    assert "layers.2 differs (silu → gelu) in Dynamo FX graph" in text


def test_the_picture_is_folded_and_each_box_opens_to_its_own_picture(llama_report):
    from explorer.present.payload import build, dot_text

    payload, dots = build(llama_report, pictures="lazy")
    view = payload["views"][0]
    boxes = view["boxes"]["graph"]
    assert {"box:layers.0-1", "box:layers.2", "box:layers.3"} <= set(boxes)
    assert boxes["box:layers.0-1"]["pid"] == boxes["box:layers.3"]["pid"]  # alike: one picture
    assert boxes["box:layers.2"]["pid"] != boxes["box:layers.3"]["pid"]
    overview = dot_text(dots[view["pictures"]["graph"]])
    assert '"box:layers.2"' in overview and "silu → gelu" in overview
    member = {n.name for n in llama_report.compilations[0].graph.nodes if n.target == "torch._C._nn.linear"}
    assert not any(f'"{name}" [' in overview for name in member)  # the layers' nodes are inside the boxes
    opened = dot_text(dots[boxes["box:layers.2"]["pid"]])
    assert "gelu" in opened and "box:" not in opened  # a block's own nodes
    assert all(b["origins"] for b in boxes.values() if b["pid"] != view["pictures"]["graph"])


def test_the_json_says_what_was_folded(llama_report):
    again = Report.from_json(llama_report.to_json())
    assert again.structure == llama_report.structure and again.structure


# ---- without a capture ----

def _param(path, name="weight"):
    return "l_self_" + "".join(f"modules_{p}_" for p in path.split(".")) + f"parameters_{name}_"


def _stack(acts):
    """Dynamo's graph of ``for layer in self.layers: x = layer(x)`` where a layer is ``act(self.fc(x))`` on one
    line, one activation per layer, and the type guards naming each layer and its ``nn.Linear``."""
    line = SourceLoc("/u/m.py", 10, "forward", "return self.act(self.fc(x))")
    nodes = [FxNode("l_x_", "placeholder", "L_x_", type="f32[4]")]
    nodes += [FxNode(_param(f"layers.{i}.fc"), "placeholder", "L" + _param(f"layers.{i}.fc")[1:], type="f32[4, 4]")
              for i in range(len(acts))]
    x = "l_x_"
    for i, act in enumerate(acts):
        nodes.append(FxNode(f"linear_{i}", "call_function", "torch._C._nn.linear", (x, _param(f"layers.{i}.fc")),
                            "f32[4]", line))
        nodes.append(FxNode(f"act_{i}", "call_function", f"torch.{act}", (f"linear_{i}",), "f32[4]", line))
        x = f"act_{i}"
    nodes.append(FxNode("output", "output", "output", (x,)))
    guards = []
    for i in range(len(acts)):
        layer = f"L['self']._modules['layers']._modules['{i}']"
        guards += [Guard("TYPE_MATCH", f"___check_type_id({layer}, 1), type=<class 'm.Block'>", layer),
                   Guard("TYPE_MATCH", f"___check_type_id({layer}._modules['fc'], 2), "
                         "type=<class 'torch.nn.modules.linear.Linear'>", f"{layer}._modules['fc']")]
    graph = FxGraph(code="", num_nodes=len(nodes), nodes=tuple(nodes))
    return Compilation("0/0", Frame("forward", "/u/m.py", 9), "compiled", graph=graph, guards=tuple(guards))


def test_modules_are_read_from_dynamos_input_names_and_alike_members_fold():
    comp = _stack(["relu"] * 5 + ["tanh"])
    s = compilation_structure(comp)
    st = s.stage("graph")
    paths = dict(zip((n.name for n in comp.graph.nodes), (st.paths[i] for i in st.of)))
    assert paths["linear_0"] == "layers.0.fc" and paths["act_3"] == "layers.3" and paths["l_x_"] == ""
    (r,) = s.repeats_of("graph")
    assert r.parent == "layers" and r.kind == "Block"
    assert [g.members for g in r.groups] == [("0", "1", "2", "3", "4"), ("5",)]
    assert diff_of(r.groups[1], "-", "+") == [("-", ".: torch.relu(%1) -> f32[4]"),
                                                     ("+", ".: torch.tanh(%1) -> f32[4]")]


def test_a_big_graph_is_drawn_folded_not_skipped():
    from explorer.present.fold_picture import PLAIN_MAX, fold

    comp = _stack(["relu"] * 300)
    assert comp.graph.num_nodes > PLAIN_MAX
    folded = fold(comp.graph, compilation_structure(comp), "graph")
    assert folded is not None and list(folded.boxes) == ["box:layers.0-299"]
    assert folded.dots[""].count("->") == 2  # input -> the box -> output
    assert "300× Block" in folded.dots[""]


def test_a_big_graph_without_modules_is_folded_by_position():
    from explorer.present.fold_picture import fold

    loc = SourceLoc("/u/f.py", 3, "f")
    nodes = [FxNode("x", "placeholder", "x")] + [FxNode(f"n{i}", "call_function", "torch.sin", (f"n{i - 1}",) if i
                                                        else ("x",), "f32[4]", loc) for i in range(900)]
    folded = fold(FxGraph(code="", num_nodes=len(nodes), nodes=tuple(nodes)), None, "graph")
    assert len(folded.boxes) == 5 and all(len(d) < 200_000 for d in folded.dots.values())


def test_the_guard_tree_names_the_module_a_modulelists_member_guard_checks():
    tree = """TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GuardManager: source=L['self'], accessed_by=FrameLocalsGuardAccessor(key='self', framelocals_idx=0)
| | +- GuardManager: source=L['self']._modules['norm'], accessed_by=DictGetItemGuardAccessor('norm')
| | | +- TYPE_MATCH: ___check_type_id(L['self']._modules['norm'], 1), type=<class 'm.Norm'>  # y = self.norm(x)  # m.py:3 in forward
| | +- DictGuardManager: source=L['self']._modules['layers']._modules, accessed_by=DictGetItemGuardAccessor('_modules')
| | | +- KeyValueManager pair at index=0
| | | | +- ValueManager: GuardManager: source=L['self']._modules['layers']._modules['0'], type=<class 'm.Block'>
| | | | | +- TYPE_MATCH: ___check_type_id(L['self']._modules['layers']._modules['0'], 2), type=<class 'm.Block'>  # x = layer(x)  # m.py:5 in forward
"""  # noqa: E501
    guards = parse_guards(tree, "/u/m.py")
    assert [g.subject for g in guards] == ["L['self']._modules['norm']", "L['self']._modules['layers']._modules['0']"]


def test_a_graph_line_reads_nodes_not_attributes_of_the_same_name():
    code = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu", L_w_: "f32[4, 4][4, 1]cpu"):
        l_x_ = L_x_
        l_w_ = L_w_
        linear: "f32[4][1]cpu" = torch._C._nn.linear(l_x_, l_w_, None)
        view: "f32[2, 2][2, 1]cpu" = linear.view(2, 2)
        linear_1: "f32[4][1]cpu" = torch._C._nn.linear(l_x_, l_w_, None)
        view_1: "f32[2, 2][2, 1]cpu" = linear_1.view(2, 2)
        return (view, view_1)
'''
    nodes = {n.name: n.inputs for n in parse_graph(code).nodes}
    assert nodes["linear_1"] == ("l_x_", "l_w_") and nodes["view_1"] == ("linear_1",)  # not `linear`, `view`


def test_a_backward_graph_returns_gradients_in_the_inputs_order():
    code = "def forward(self, a, b):\n    return (\n        mm_1,  # grad of a\n        None,\n        add_3,\n    )\n"
    assert returned(code) == ["mm_1", None, "add_3"]


def test_members_are_named_as_ranges():
    from explorer.present.structure_view import launched_text, members_text

    assert members_text("model.layers", ["0", "1", "2", "4", "6", "7"]) == "model.layers.0–2, 4, 6–7"
    assert launched_text(["layers.0", "layers.1", "layers.1", "norm"]) == (
        "defined once, launched 4×, by layers.0–1 (3×), norm")


def test_guards_name_the_module_they_check():
    from explorer.structure.paths import guard_module, module_roots

    gs = [Guard("TENSOR_MATCH", "check_tensor(L['m']._modules['0']._parameters['w'], ...)",
                "L['m']._modules['0']._parameters['w']"),
          Guard("TYPE_MATCH", "___check_type_id(L['m'], 1), type=<class 'M'>", "L['m']"),
          Guard("TENSOR_MATCH", "check_tensor(L['x'], ...)", "L['x']")]
    roots = module_roots(gs)
    assert [guard_module(g, roots) for g in gs] == ["m.0", "m", ""]
    # an input checked against a module's buffers (a Hugging Face model's ids and its position ids) is no module
    # of the input's (``kwargs`` was one, in every transformers model's table)
    aliasing = Guard("NO_TENSOR_ALIASING", "check_no_aliasing(L['kwargs']['input_ids'], "
                     "L['self']._modules['bert']._modules['embeddings']._buffers['position_ids'])",
                     "L['kwargs']['input_ids']")
    assert guard_module(aliasing, module_roots([*gs, aliasing])) == ""
    # a decorator's wrapper holds the module in ``args[0]``: paths start there, as at ``self``
    wrapped = Guard("TYPE_MATCH", "___check_type_id(L['args'][0]._modules['layers'], 2), type=<class 'L'>",
                    "L['args'][0]._modules['layers']")
    assert guard_module(wrapped, module_roots([wrapped]), root="args_0") == "layers"
