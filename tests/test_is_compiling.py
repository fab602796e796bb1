"""A line that asks torch.compiler.is_compiling() in code the explorer compiled: a finding names it.

Dynamo folds the call to True while it traces, so the FX graph keeps no trace of it; the
compiled code takes the branch for compiled code where a plain run takes the other. Cells
run through IPython's own shell (``--backend eager``: what is tested is Dynamo's tracing).
"""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("IPython")

from IPython.utils.capture import capture_output  # noqa: E402
from programs import branches  # noqa: E402

import explorer  # noqa: E402
from explorer.present import viewmodel as vm  # noqa: E402
from explorer.present.text import flat  # noqa: E402

# the set_stance tutorial's foo, as a %%compile user writes it: torch.compile is the magic's business
TUTORIAL_FOO = ("def foo(x):\n    if torch.compiler.is_compiling():\n        # torch.compile is active\n"
                "        return x + 1\n    else:\n        # torch.compile is not active\n        return x - 1\n"
                "inp = torch.zeros(3)")


def _magic(ip, setup, cell):
    """The cell's stdout plainly, then under %%compile with its report; the setup runs as the notebook's cell
    In[ip.execution_count] (as its cell is named)."""
    assert ip.run_cell(setup, store_history=True).success
    with capture_output() as plain:
        assert ip.run_cell(cell).success
    with capture_output() as compiled:
        res = ip.run_cell("%%compile --backend eager -q --no-time -o\n" + cell)
    assert res.error_in_exec is None, res.error_in_exec
    return plain.stdout, compiled.stdout, res.result


def _asking(report):
    return [f for f in report.findings if "asks torch.compiler.is_compiling()" in f.message]


def test_a_function_from_another_cell_that_branches_on_is_compiling_is_a_finding_at_its_line(ip):
    setup_count = ip.execution_count
    plain, compiled, report = _magic(ip, TUTORIAL_FOO, "print(foo(inp))")
    assert plain.strip() == "tensor([-1., -1., -1.])"
    assert compiled.startswith("tensor([1., 1., 1.])")  # the difference the finding explains
    (finding,) = _asking(report)
    assert finding.message.startswith(f"cell [{setup_count}], line 2 (in foo): `if torch.compiler.is_compiling():`")
    assert "folded the call to True" in finding.message and "a plain run of the cell calls foo uncompiled" in \
        finding.message and "takes the other branch" in finding.message
    assert finding.stage == "graph" and finding.compile_id == report.capture.compilations[0].compile_id
    # shown in the header and on the Dynamo graph's pane of that compilation, and in the text summary
    model = vm.build(report)
    assert any(finding.message in flat(block.get("r")) for block in model["header"]["body"])
    comp = next(c for c in model["compilations"] if c["cid"] == finding.compile_id)
    assert [note["stage"] for note in comp["findings"] if finding.message in flat(note["r"])] == ["graph"]
    assert "`if torch.compiler.is_compiling():`" in report.summary()


def test_a_function_its_author_compiled_takes_the_same_branch_in_a_plain_run_so_only_the_other_is_named(ip):
    setup = ("@torch.compile(backend='eager')\n" + TUTORIAL_FOO +
             "\ndef bar(x):\n    return x * 3 if torch.compiler.is_compiling() else x")
    count = ip.execution_count
    plain, compiled, report = _magic(ip, setup, "print(foo(inp))\nprint(bar(inp + 1))")
    # foo is compiled by its author in a plain run too: its branch is the same; bar's is not
    assert plain.split() == ["tensor([1.,", "1.,", "1.])", "tensor([1.,", "1.,", "1.])"]
    assert compiled.split()[:6] == ["tensor([1.,", "1.,", "1.])", "tensor([3.,", "3.,", "3.])"]
    assert [f.message.split(":")[0] for f in _asking(report)] == [f"cell [{count}], line 11 (in bar)"]


def test_explore_names_each_line_that_asks_in_the_functions_dynamo_traced():
    report = explorer.explore(branches.branches, torch.zeros(3), backend="eager")
    assert report.result.tolist() == [1.0, 1.0, 1.0]  # the compiled branch; branches(x) eagerly gives -1
    (finding,) = _asking(report)
    line = branches.branches.__code__.co_firstlineno + 1
    assert finding.message.startswith(f"branches.py:{line} (in branches): `if torch.compiler.is_compiling():`")
    assert "called without torch.compile, the call returns False there" in finding.message

    helper = explorer.explore(branches.through_a_helper, torch.zeros(3), backend="eager")
    (finding,) = _asking(helper)
    line = branches._tracing.__code__.co_firstlineno + 1  # the helper's line, inlined into the traced function
    assert finding.message.startswith(f"branches.py:{line} (in _tracing): "
                                      "`return torch.compiler.is_dynamo_compiling()`")


def test_explore_leaves_out_a_function_its_author_compiled_and_torchs_own_checks():
    report = explorer.explore(branches.calls_a_compiled_function, torch.zeros(3), backend="eager")
    assert report.result.tolist() == [3.0, 3.0, 3.0]
    # the author's own torch.compile folds compiled_by_its_author's check in a plain run too: only branches' is named
    line = branches.branches.__code__.co_firstlineno + 1
    assert [f.message.split(":", 2)[:2] for f in _asking(report)] == [["branches.py", f"{line} (in branches)"]]
    # a module: its forward's line, none of nn.Module's own machinery (torch's files, traced too)
    module = explorer.explore(branches.Scaled(), torch.zeros(2, 4), backend="eager")
    line = branches.Scaled.forward.__code__.co_firstlineno + 1
    assert [f.message.split(":", 2)[:2] for f in _asking(module)] == [["branches.py", f"{line} (in Scaled.forward)"]]
