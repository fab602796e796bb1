"""Recompiles explained (failing guard, old -> new value, user line, remedy), the
recompile limit reported as such, and why_recompile predicting guard failures."""

import logging
import warnings

import pytest
from corpus import recompiles as prog


@pytest.fixture(scope="module")
def recompile_data():
    import torch

    import explorer

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # the recompile-limit warning
    try:
        with warnings.catch_warnings(), explorer.capture() as report:
            warnings.simplefilter("ignore")
            scaled = torch.compile(prog.scaled, backend="eager")
            scaled(torch.randn(8))
            scaled(torch.randn(16))  # size 8 -> 16
            scaled(torch.randn(16, dtype=torch.float64))  # float32 -> float64
            offset = torch.compile(prog.offset, backend="eager")
            offset(torch.randn(4), 3)
            offset(torch.randn(4), 4)  # int 3 -> 4
            carried = torch.compile(prog.carried, backend="eager")
            carried(torch.randn(8))
            carried(torch.randn(16))  # recompiles the function and its resume function
            repeat = torch.compile(prog.repeat, backend="eager")
            for n in range(1, 11):  # range(n) keeps n specialised: hits the limit of 8
                repeat(torch.randn(2), n)
    finally:
        logging.getLogger("torch._dynamo").setLevel(logging.NOTSET)
    return report.data


def _frame_id(data, name):
    return next(c.compile_id.split("/")[0] for c in data.compilations if c.frame.name == name)


def _comps(data, name):
    """All compilations of one frame, also one that failed before its frame was known."""
    return [c for c in data.compilations if c.compile_id.split("/")[0] == _frame_id(data, name)]


def _explained(data, name):
    from explorer.clinic import explain_recompile

    return [e for e in (explain_recompile(c, data) for c in _comps(data, name)) if e is not None]


def test_first_compilations_need_no_explanation(recompile_data):
    from explorer.clinic import explain_recompile

    first = _comps(recompile_data, "scaled")[0]
    assert explain_recompile(first, recompile_data) is None


def test_a_size_change_names_the_tensor_dim_old_and_new_size(recompile_data):
    size_change = _explained(recompile_data, "scaled")[0]
    p = size_change.primary
    assert (p.kind, p.subject, p.dim, p.old, p.new) == ("size", "x", 0, "8", "16")
    assert p.describe() == "size of x at dim 0: 8 -> 16"
    assert p.guard is not None and p.guard.kind == "TENSOR_MATCH" and "size=[8]" in p.guard.code
    assert p.lineno == prog.line_of(prog.scaled, "# GUARD: x") and p.source.startswith("return x.sin()")
    assert "torch._dynamo.mark_dynamic(x, 0)" in size_change.remedy


def test_a_dtype_change_names_old_and_new_dtype(recompile_data):
    dtype_change = _explained(recompile_data, "scaled")[1]
    p = dtype_change.primary
    assert (p.kind, p.subject, p.old, p.new) == ("dtype", "x", "Float", "Double")
    assert len(dtype_change.failures) == 2  # both cached entries were tried, newest first
    fid = _frame_id(recompile_data, "scaled")
    assert [f.against for f in dtype_change.failures] == [f"{fid}/1", f"{fid}/0"]
    assert dtype_change.failures[1].old == "Float" and dtype_change.failures[1].guard is not None


def test_a_python_int_change_names_the_argument_and_both_values(recompile_data):
    int_change = _explained(recompile_data, "offset")[0]
    p = int_change.primary
    assert (p.kind, p.subject, p.old) == ("value", "n", "3")
    assert p.guard is not None and p.guard.kind == "EQUALS_MATCH"
    assert p.lineno == prog.line_of(prog.offset, "# GUARD: n")
    assert "torch.tensor(n)" in int_change.remedy


def test_hitting_the_recompile_limit_is_reported_as_such(recompile_data):
    explained = _explained(recompile_data, "repeat")
    limit = [e for e in explained if e.limit_hit]
    assert len(limit) == 1 and explained[-1] is limit[0]
    hit = limit[0]
    assert hit.frame_name == "repeat" and hit.limit == 8
    assert hit.primary.kind == "value" and hit.primary.subject == "n" and hit.primary.old == "8"
    assert "recompile_limit" in hit.remedy
    assert "recompile limit (8) hit" in hit.one_line()
    assert all(not e.limit_hit for e in explained[:-1]) and len(explained) == 8
    assert explained[0].primary.old == "1" and explained[0].primary.new == "2"


def test_a_local_carried_across_a_break_gets_the_remedy_on_its_input(recompile_data):
    from explorer.clinic import explain_recompiles

    resume = [e for e in explain_recompiles(recompile_data)
              if e.frame_name.startswith("torch_dynamo_resume_in_carried")]
    assert len(resume) == 1
    p = resume[0].primary
    assert (p.kind, p.subject, p.old, p.new) == ("size", "y", "8", "16")
    assert p.lineno == prog.line_of(prog.carried, "# GUARD: y")
    assert "carried across a graph break" in resume[0].remedy and "mark_dynamic(y" not in resume[0].remedy


@pytest.mark.parametrize("reason, described, remedy_words", [
    ("0/0: tensor 'x' stride mismatch at index 1. expected 1, actual 4", "stride of x at dim 1: 1 -> 4", "contiguous"),
    ("0/0: tensor 'x' rank mismatch. expected 1, actual 2", "number of dims of x: 1 -> 2", "number of dims"),
    ("0/0: tensor 'w' requires_grad mismatch. expected requires_grad=0", "requires_grad of w: False -> True",
     "no_grad"),
    ("0/0: ___check_obj_id(fn, 140000000000)", "object identity of fn", "reuse it"),
    ("[0/0]: ___check_type_id(n, 9412)  # return x * n  # f.py:3 in f", "type of n", "same type"),
    ("0/0: 2 <= x.size()[0]  # return x * 2  # f.py:3 in f",
     "size of x at dim 0 left the range compiled for: 2 <= x.size()[0]", "mark_dynamic(x, 0)"),
    ("0/0: GLOBAL_STATE changed: grad_mode ", "GLOBAL_STATE changed: grad_mode", "grad mode"),
    ("0/0: Cache line invalidated because L['m'] got deallocated",
     "Cache line invalidated because L['m'] got deallocated", "keep it alive"),
])
def test_torchs_other_guard_failures_are_described(reason, described, remedy_words):
    from explorer.capturing.model import CaptureData, Compilation, Frame
    from explorer.clinic import explain_recompile

    comp = Compilation("0/1", Frame("f", "f.py", 1), "compiled", recompile_reason=reason)
    explained = explain_recompile(comp, CaptureData("2.13", "cpu", "3.11", compilations=(comp,)))
    assert explained.primary.describe() == described
    assert remedy_words in explained.remedy


def test_render_text_gives_one_line_per_recompile(recompile_data):
    from explorer.clinic import explain_recompiles
    from explorer.present.text import clinic_text

    text = clinic_text(recompile_data)
    assert text.startswith("graph breaks: 1 site to fix (2 breaks)")  # prog.carried
    lines = [ln for ln in text.split("recompiles:", 1)[1].splitlines() if ln.startswith("  ")]
    assert len(lines) == len(explain_recompiles(recompile_data)) == 13
    assert any("size of x at dim 0: 8 -> 16" in ln and "mark_dynamic" in ln for ln in lines)


# ---- why_recompile: guard verdicts for new arguments, without compiling ----

@pytest.fixture(scope="module")
def compiled_target():
    import torch

    compiled = torch.compile(prog.why_target, backend="eager")
    compiled(torch.randn(8))
    return compiled


def test_a_new_size_is_predicted_to_fail_the_size_guard(compiled_target):
    import torch

    from explorer.clinic import why_recompile, would_reuse

    verdicts = why_recompile(compiled_target, torch.randn(16))
    assert len(verdicts) == 1 and not verdicts[0].reused
    f = verdicts[0].failure
    assert (f.kind, f.subject, f.dim, f.old, f.new) == ("size", "x", 0, "8", "16")
    assert would_reuse(verdicts) is None
    assert "fails: size of x at dim 0: 8 -> 16" in str(verdicts[0])


def test_the_same_size_is_predicted_to_reuse_the_entry_and_nothing_compiles(compiled_target):
    import torch

    from explorer.capturing import torch_door
    from explorer.clinic import why_recompile, would_reuse

    before = len(torch_door.dynamo_cache.cache_entries(prog.why_target.__code__))
    verdicts = why_recompile(prog.why_target, torch.randn(8))  # the original function works too
    assert [v.reused for v in verdicts] == [True]
    assert would_reuse(verdicts) == verdicts[0].compile_id
    why_recompile(compiled_target, torch.randn(32, 2))
    assert len(torch_door.dynamo_cache.cache_entries(prog.why_target.__code__)) == before


def test_why_recompile_on_a_module_binds_self_and_names_the_input():
    import torch

    from explorer.clinic import why_recompile

    model = torch.compile(prog.Scale(), backend="eager")
    with torch.no_grad():
        model(torch.randn(2, 4))
        same = why_recompile(model, torch.randn(2, 4))
        other = why_recompile(model, torch.randn(3, 4))
    assert [v.reused for v in same] == [True]
    assert other[0].failure.kind == "size" and other[0].failure.subject == "x"


def test_why_recompile_on_a_function_never_compiled_says_so():
    import torch

    from explorer.clinic import why_recompile

    def never(x):
        return x + 1

    assert why_recompile(never, torch.randn(2)) == []


def test_a_mode_switch_is_placed_at_the_users_line_with_a_hint_for_modes():
    import torch

    import explorer
    from explorer.clinic import explain_recompiles

    model = prog.DropNet()
    compiled = torch.compile(model, backend="eager")
    with explorer.capture() as report:
        compiled(torch.randn(2, 4))
        model.eval()
        compiled(torch.randn(2, 4))
    (e,) = explain_recompiles(report.data)
    p = e.primary
    assert (p.kind, p.subject, p.old, p.new) == ("training", "self.drop.training", "True", "False")
    assert p.describe() == "mode of self.drop: train() -> eval()"
    # torch's guard is read in nn/modules/dropout.py: the line to look at is the user's call
    assert p.filename.endswith("recompiles.py") and p.lineno == prog.line_of(prog.DropNet.forward, "MODE")
    assert "train() and eval()" in e.remedy and "tensor" not in e.remedy


def test_a_guard_torch_places_in_a_library_is_moved_to_the_frames_own_line():
    import torch

    import explorer
    from explorer.clinic import explain_recompiles
    from explorer.clinic.locate import is_library_file

    compiled = torch.compile(prog.NormNet(), backend="eager")
    with explorer.capture() as report:
        compiled(torch.randn(2, 4))
        compiled(torch.randn(3, 4))
    (e,) = explain_recompiles(report.data)
    p = e.primary
    assert (p.kind, p.subject, p.old, p.new) == ("size", "x", "2", "3")
    assert p.guard is not None and is_library_file(p.guard.filename)  # torch's own place: nn/modules/
    assert p.filename.endswith("recompiles.py") and p.lineno == prog.line_of(prog.NormNet.forward, "SIZE")
    assert "self.norm(x)" in p.source


@pytest.mark.parametrize("method_load", ["NULL|self + fc1", "fc1 + NULL|self", "fc1"],
                         ids=["python 3.12", "python 3.13", "plain attribute"])
def test_the_first_read_of_a_locals_attribute_is_found_in_every_pythons_words(method_load):
    from explorer.capturing.model import Bytecode, Instruction
    from explorer.clinic.locate import first_read

    ins = [Instruction(0, "LOAD_FAST", "self", 5), Instruction(2, "LOAD_ATTR", "NULL|self + fc2", 5),
           Instruction(4, "LOAD_FAST", "x", 6), Instruction(6, "LOAD_FAST", "self", 7),
           Instruction(8, "LOAD_ATTR", method_load, 7), Instruction(10, "LOAD_FAST", "x", 8)]
    code = Bytecode("forward", "/u/m.py", 4, "", tuple(ins))
    assert first_read("self.fc1.weight", code) == 7  # not line 5, where self.fc2 is read
    assert first_read("x", code) == 6 and first_read("y", code) is None and first_read("G['torch']", code) is None


@pytest.mark.parametrize("text, kind, old", [
    ("self._modules['drop'].training == True  # x  # nn/modules/dropout.py:73 in forward", "training", "True"),
    ("not self.training", "training", "False"),
    ("flag == True  # if flag:  # f.py:3 in f", "value", "True"),
    ("mode == 'fast'  # if mode == 'fast':  # f.py:3 in f", "value", "'fast'"),
])
def test_guard_kinds_and_hints_fit_the_value(text, kind, old):
    from explorer.clinic.recompiles import classify, remedy_for

    info = classify(text)
    assert (info["kind"], info["old"]) == (kind, old)
    remedy = remedy_for(info)
    if kind == "training" or old == "'fast'":
        assert "torch.tensor(" not in remedy
    if old == "True" and kind == "value":
        assert "bool" in remedy


def test_a_torch_relative_path_is_a_library_file():
    from explorer.clinic.locate import is_library_file

    assert is_library_file("nn/modules/dropout.py") and not is_library_file("my_model.py")
