"""%%compile cells that change the compiler's own state, as PyTorch's tutorials do (issue 23).

A reset, a stance, a nested torch.compile, ``is_compiling()``, the user's own
``suppress_errors``: each cell ends as a plain run of it ends (the same cells run
plainly and under the magic in real kernels in test_cell_parity.py), and the
report keeps every compilation and says what torch.compile did differently.
In-process IPython, ``--backend eager``: what is tested is the magic.
"""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("IPython")

import torch_state  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from explorer.capturing.compile_id import CompileId, Generations  # noqa: E402

HELPERS = ("__compiled_fn", "__resume_at", "__builtins_dict", "__import_", "__compile_explorer")


def _run(ip, source, flags="--backend eager --no-time", setup=""):
    """(report, error, stdout) of one %%compile cell."""
    assert ip.run_cell("import torch").success
    if setup:
        assert ip.run_cell(setup).success
    with capture_output() as cap:
        res = ip.run_cell(f"%%compile {flags} -o\n{source}")
    error = res.error_in_exec
    report = res.result if error is None else getattr(error, "explorer_report", None)
    return report, error, cap.stdout


def _findings(report):
    return "\n".join(f.message for f in report.findings)


def _helpers_of_the_cell(ip, before):
    return sorted(k for k in ip.user_ns if k.startswith(HELPERS) and k not in before)


# ---- item 1 and 2: torch._dynamo.reset() in a cell; every compilation kept ----

def test_compile_ids_carry_a_generation_after_a_reset():
    gens = Generations()
    first = CompileId(0, 0)
    gens.start(first)
    assert gens.stamp(first).key == "0/0" and str(gens.stamp(first)) == "[0/0]"
    gens.start(CompileId(0, 0))  # torch counts from 0/0 again: a reset came between
    again = gens.stamp(CompileId(0, 0, attempt=1))
    assert (again.key, again.trace_key, str(again)) == ("g1 0/0", "g1 0/0_1", "[g1 0/0_1]")
    assert CompileId.parse("g1 0/0_1") == again and CompileId.parse("[0/1]") == CompileId(0, 1)
    assert [c.key for c in sorted(map(CompileId.parse, ["g1 0/0", "3/0", "0/0", "g1 1/0"]))] == [
        "0/0", "3/0", "g1 0/0", "g1 1/0"]
    fresh = Generations()
    fresh.start(CompileId(0, 0), reset_seen=True)  # a reset before anything compiled changes no id
    assert fresh.stamp(CompileId(0, 0)).key == "0/0"


@pytest.mark.parametrize("flags", ["--backend eager --no-time", "--backend eager --no-time --capture-only",
                                   "--backend eager"])
def test_a_reset_between_two_compiles_keeps_both_and_ends_as_plainly(ip, flags):
    setup = "def f(x):\n    return x.sin() + 1\ndef g(x):\n    return x.cos() * 2"
    before = set(ip.user_ns)
    report, error, out = _run(ip, "opt_f = torch.compile(f, backend='eager')\na = opt_f(torch.ones(3))\n"
                                  "torch._dynamo.reset()\nopt_g = torch.compile(g, backend='eager')\n"
                                  "b = opt_g(torch.ones(3))\nprint('done')\nb", flags, setup)
    assert error is None, error
    assert out.startswith("done\n")  # then the report, the -o value
    assert torch.equal(ip.user_ns["b"], torch.ones(3).cos() * 2)
    assert torch.equal(ip.user_ns["a"], torch.ones(3).sin() + 1)
    ids = [c.compile_id for c in report.compilations]
    assert len(ids) == len(set(ids)) and any(i.startswith("g1 ") for i in ids), ids
    assert "reset" in _findings(report)
    # every callback and hook the explorer installed is gone (the reset cleared Dynamo's registry meanwhile)
    from torch._dynamo.callback import callback_handler

    assert not callback_handler.start_callbacks and not callback_handler.end_callbacks
    assert torch_state.bytecode_hook_count() == 0
    if "--capture-only" not in flags:  # the cell's own compiled code is forgotten, with its helper globals
        assert not [h for h in _helpers_of_the_cell(ip, before) if not h.startswith("__compiled_fn")]


def test_a_capture_keeps_compilations_on_both_sides_of_a_reset():
    import explorer

    with explorer.capture() as report:
        torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))
        torch._dynamo.reset()
        torch.compile(lambda x: x * 3, backend="eager")(torch.ones(2))
    ids = [c.compile_id for c in report.compilations]  # the first is torch's own id (the process compiled before)
    assert len(ids) == 2 and "/" in ids[0] and not ids[0].startswith("g") and ids[1] == "g1 0/0", ids
    assert report.compilation("[g1 0/0]").graph is not None
    assert "1 compilations" not in report.summary() and "2 compilations" in report.summary()


# ---- item 3: set_stance; a frame Dynamo refuses runs as plain Python ----

STANCE_SETUP = ("@torch.compile(backend='eager')\ndef foo(x):\n    if torch.compiler.is_compiling():\n"
                "        return x + 1\n    return x - 1\ninp = torch.zeros(3)")


@pytest.mark.parametrize("source, printed", [
    ("@torch.compiler.set_stance('force_eager')\ndef bar(x):\n    return foo(x)\nprint(bar(inp))", ["-1"]),
    ("with torch.compiler.set_stance('force_eager'):\n    print(foo(inp))", ["-1"]),
    ("torch.compiler.set_stance('force_eager')\nprint(foo(inp))\ntorch.compiler.set_stance('default')\n"
     "print(foo(inp))", ["-1", "1"]),
    ("print(foo(inp))\ntorch.compiler.set_stance('force_eager')\nprint(foo(inp))\n"
     "torch.compiler.set_stance('default')", ["1", "-1"]),
], ids=["decorator", "context manager", "raw call", "after a graph break"])
def test_set_stance_in_all_its_uses_ends_as_plainly(ip, source, printed):
    report, error, out = _run(ip, source, setup=STANCE_SETUP)
    assert error is None, error
    values = [line.split("[")[1].split(".")[0] for line in out.splitlines() if line.startswith("tensor(")]
    assert values == printed, out
    assert "set_stance" in _findings(report) and "plain Python" in _findings(report)


def test_a_cell_frame_dynamo_refuses_runs_with_the_users_config(ip):
    """``baz`` raises as torch.compile raises it (not suppressed): the cell prints torch's own message."""
    report, error, out = _run(ip, "@torch.compile(backend='eager')\ndef baz(x):\n    return x[10]\ntry:\n"
                                  "    baz(torch.ones(3))\nexcept Exception as e:\n    print(type(e).__name__)")
    assert error is None and out.startswith("IndexError\n"), (error, out)


# ---- item 5: the user's own suppress_errors with a failing backend ----

def test_the_users_suppress_errors_lets_a_failing_backend_fall_back_to_eager(ip):
    setup = ("def failing(gm, example_inputs):\n    raise RuntimeError('boom')\n"
             "torch._dynamo.config.suppress_errors = True")
    try:
        report, error, _ = _run(ip, "a = torch.ones(3)\nb = a.sin() + 1", "--backend failing", setup)
        assert error is None, error
        assert torch.equal(ip.user_ns["b"], torch.ones(3).sin() + 1)
        assert "suppress_errors is True (your setting)" in _findings(report) and "failing" in _findings(report)
    finally:
        torch._dynamo.config.suppress_errors = False


def test_a_failing_backend_is_named_as_the_users_not_the_explorers(ip):
    setup = "def failing(gm, example_inputs):\n    raise RuntimeError('boom')"
    report, error, _ = _run(ip, "a = torch.ones(3)\nb = a.sin() + 1", "--backend failing", setup)  # timing on
    assert type(error).__name__ == "BackendCompilerFailed"
    assert "backend='failing' raised" in str(error) and "GraphRecorder" not in str(error)


# ---- item 7: what torch.compile changes is explained ----

def test_a_nested_torch_compile_gives_what_a_plain_run_gives_and_says_why(ip):
    report, error, _ = _run(ip, "mod = torch.nn.Linear(2, 2)\nopt_mod = torch.compile(mod, backend='eager')\n"
                                "y = opt_mod(torch.ones(2))")
    assert error is None
    assert type(ip.user_ns["opt_mod"]).__name__ == "OptimizedModule"  # Dynamo alone would leave the Linear
    assert "line 3: the cell calls torch.compile itself" in _findings(report)
    assert "--capture-only" in _findings(report)
    site = next(s for s in report.clinic.fix_list if s.lineno == 3)
    assert site.by_explorer and "not yours to fix" in site.ran_as_python


def test_is_compiling_asked_by_the_cell_answers_as_in_a_plain_run(ip):
    report, error, _ = _run(ip, "r = 1 if torch.compiler.is_compiling() else -1\ny = torch.ones(2) * r")
    assert error is None and ip.user_ns["r"] == -1
    assert "is_compiling" in _findings(report)


def test_is_compiling_inside_a_function_of_the_cell_is_a_finding(ip):
    report, error, _ = _run(ip, "def f(x):\n    return x + 1 if torch.compiler.is_compiling() else x - 1\n"
                                "y = f(torch.zeros(2))")
    assert error is None
    assert "line 3: a function of the cell asks torch.compiler.is_compiling()" in _findings(report)


# ---- item 8: Dynamo's own warnings are a finding, not stderr lines ----

def test_dynamo_warnings_while_compiling_the_cell_stay_off_stderr(ip):
    with capture_output() as cap:
        report, error, _ = _run(ip, "import os\npid = os.getpid()\ny = torch.ones(2) * 2")
    assert error is None
    assert "Dynamo does not know how to trace" not in cap.stderr
    assert "other artifacts" not in report.summary()


# ---- item 8: sites named as the user sees them ----

def test_sites_are_named_by_cell_and_line_and_a_print_is_named(ip):
    import re

    report, error, _ = _run(ip, "y = noisy(torch.ones(2))\nprint(y)\nz = y * 2",
                            setup="def noisy(x):\n    print('in noisy')\n    return x + 1")
    assert error is None
    wheres = {s.where: s for s in report.clinic.fix_list}
    assert any(re.fullmatch(r"cell \[\d+\], line 2", w) for w in wheres), list(wheres)  # in the setup cell
    assert any(re.fullmatch(r"cell \[\d+\], line 3", w) for w in wheres), list(wheres)  # the %%compile cell
    assert all(s.reason.endswith("`print`") for s in wheres.values() if s.gb_code == "GB0059")
    assert "ipython-input" not in report.summary() and "cell [" in report.summary()


def test_a_break_inside_a_library_says_so(ip):
    setup = ("torch.manual_seed(0)\nmodel = torch.nn.Linear(4, 2)\nx = torch.randn(3, 4)\n"
             "opt = torch.optim.Adam(model.parameters(), lr=0.1)\nmodel(x).sum().backward()")
    report, error, _ = _run(ip, "opt.step()\nw = model.weight.detach().clone()", setup=setup)
    assert error is None
    site = next(s for s in report.clinic.fix_list if s.library)
    assert site.library == "torch.optim" and ", inside torch.optim (" in site.where
    assert "not in your code" in site.ran_as_python


def test_a_script_site_is_its_file_and_line(tmp_path):
    import explorer
    from explorer.clinic import fix_list

    def f(x):
        print("tick")
        return x + 1

    with explorer.capture() as report:
        torch.compile(f, backend="eager")(torch.ones(2))
    site = fix_list(report.data)[0]
    assert site.where == site.location and site.where.endswith(f":{f.__code__.co_firstlineno + 1}")
    assert "cell [" not in site.where
