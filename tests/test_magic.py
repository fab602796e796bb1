"""%%compile through IPython's own shell: namespace, displayed output, errors, leaks.

Most cells use ``--backend eager``: what is tested is the magic, not Inductor.
"""

import logging
import re

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("IPython")

import torch_state  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from explorer.capturing import torch_door  # noqa: E402

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
XSS = "<img src=x onerror=alert(1)>"
IPYTHON_NAMES = {"In", "Out", "exit", "quit", "get_ipython", "torch"}


def _fresh(ip, setup=""):
    # not ip.reset(): it would also drop the `__compiled_fn_N` helpers Dynamo put in the
    # namespace, and Dynamo's own clean-up then complains (KeyError) when it gets there
    for name in list(_user_names(ip)):
        del ip.user_ns[name]
    ip.run_cell("import torch")
    if setup:
        assert ip.run_cell(setup).success


def _user_names(ip):
    """What a cell left behind, minus IPython's history and Dynamo's own `__...` helpers."""
    return {k: v for k, v in ip.user_ns.items()
            if not k.startswith("_") and k not in IPYTHON_NAMES}


def _comparable(value):
    if isinstance(value, torch.Tensor):
        return ("tensor", value.tolist())
    if isinstance(value, type):
        return ("class", value.__qualname__, value.__module__,
                sorted(k for k in vars(value) if not k.startswith("__")))
    if callable(value) and hasattr(value, "__code__"):
        return ("function", value.__qualname__, value.__module__, value.__code__.co_name)
    if type(value).__name__ == "module":
        return ("module", value.__name__)
    if isinstance(value, (list, tuple, dict, set, int, float, str, bool, type(None))):
        return repr(value)
    return ("object", type(value).__qualname__)


def _run_both(ip, setup, cell):
    """The namespace and value a plain run leaves, then the same for %%compile."""
    _fresh(ip, setup)
    plain = ip.run_cell(cell)
    assert plain.success, plain.error_in_exec
    plain_ns = {k: _comparable(v) for k, v in _user_names(ip).items()}
    plain_value = _comparable(plain.result)
    _fresh(ip, setup)
    with capture_output():
        compiled = ip.run_cell("%%compile --backend eager -q\n" + cell)
    assert compiled.success, compiled.error_in_exec
    compiled_ns = {k: _comparable(v) for k, v in _user_names(ip).items()}
    return plain_ns, plain_value, compiled_ns, _comparable(compiled.result)


CELLS = {
    "assignments, last line an assignment": ("", "a = torch.ones(3)\nb = a.sin() + 1\nc = b * 2"),
    "last line an expression": ("", "a = torch.arange(4.)\n(a * 3).cos()"),
    "last line a call returning None": ("", "x = 2\nprint('side effect', x)"),
    "imports": ("", "import math\nimport collections.abc\nfrom os import path as p\nr = math.sqrt(16)"),
    "functions and classes defined in the cell": (
        "", "def f(x):\n    return x * 2\n\nclass K:\n    scale = 3\n"
            "    def m(self, x):\n        return f(x) * self.scale\n\n"
            "y = K().m(torch.ones(2))\nname = f.__qualname__ + K.__qualname__"),
    "augmented assignment to existing globals": (
        "n = 1\nt = torch.zeros(2)\nlst = [1]", "n += 1\nt += 1\nlst += [2]\nt2 = t * n"),
    "del": ("a = 1\nb = torch.ones(2)", "del a\nc = b + 1"),
    "comprehensions": ("", "sq = [i * i for i in range(5)]\nd = {k: v for k, v in zip('ab', (1, 2))}\n"
                           "g = sum(x for x in range(4))\ns = {i % 2 for i in range(5)}\n"
                           "w = [last := i for i in range(3)]\nt = torch.stack([torch.ones(2) * i for i in range(3)])"),
    "loops": ("", "total = 0\nacc = torch.zeros(2)\nfor i in range(4):\n    total += i\n    acc = acc + i\n"
                  "while total > 3:\n    total -= 2\nelse:\n    done = True"),
    "global statements": ("", "global gg\ngg = 5\ndef setg():\n    global hh\n    hh = gg + 1\nsetg()"),
    "try/except and with": ("import os", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    msg = str(e)\n"
                                          "with open(os.devnull) as fh:\n    opened = not fh.closed\n"
                                          "closed = fh.closed"),
    "a name shadowing a builtin": ("", "n0 = len([1, 2])\nlist = [torch.ones(1)]\nlist.append(2)\nn1 = len(list)"),
    "annotated assignment and walrus": ("", "x: int = 3\nif (y := x + 1) > 3:\n    z = y * torch.ones(2)"),
}


@pytest.mark.parametrize("name", list(CELLS))
def test_namespace_matches_a_plain_run(ip, name):
    setup, cell = CELLS[name]
    plain_ns, plain_value, compiled_ns, compiled_value = _run_both(ip, setup, cell)
    assert compiled_ns == plain_ns
    assert compiled_value == plain_value


def test_cell_code_itself_is_compiled_and_functions_see_later_globals(ip):
    _fresh(ip)
    with capture_output():
        report = ip.run_cell_magic("compile", "--backend eager -q -o",
                                   "def f():\n    return W * 2\nW = torch.ones(2)\nr = f()\nr.sum()")
    cell = report.data.compilations[0]
    assert cell.frame.name == "compiled_cell" and cell.status == "compiled", cell.failure
    assert cell.graph is not None and "ones" in cell.graph.code  # the cell's own tensor code is in the graph
    assert report.result.item() == 4.0  # the last expression's value
    # f reads the *global* W, as after a plain run
    ip.run_cell("W = torch.zeros(2)")
    assert ip.user_ns["f"]().sum().item() == 0.0


def test_the_cell_after_a_graph_break_is_compiled_too(ip):
    # no `torch.` after the break: Dynamo would skip the resume function without the cell's torch marker
    _fresh(ip, "model = torch.nn.Linear(8, 4)\nx = torch.randn(2, 8)")
    with capture_output():
        report = ip.run_cell_magic("compile", "--backend eager -q -o --no-time",
                                   "y = model(x)\nprint('shape', tuple(y.shape))\nz = (y.relu() * 2).sum()\nz")
    frames = [c.frame.name for c in report.data.compilations]
    assert frames == ["compiled_cell", "torch_dynamo_resume_in_compiled_cell_at_3"]
    assert "relu" in report.data.compilations[1].graph.code
    assert "__compile_explorer_torch__" not in ip.user_ns


def test_print_output_and_value_are_shown(ip):
    _fresh(ip)
    with capture_output() as cap:
        res = ip.run_cell("%%compile --backend eager -q\nx = torch.ones(2)\nprint('hello from the cell')\nx + 1")
    assert "hello from the cell" in cap.stdout
    assert res.result.tolist() == [2.0, 2.0]


def _view_bundle(outputs):
    bundles = [o.data for o in outputs if WIDGET_MIME in o.data]
    assert bundles, [list(o.data) for o in outputs]
    return bundles[-1]


def test_view_is_a_widget_with_static_html_and_text(ip):
    _fresh(ip)
    with capture_output() as cap:
        ip.run_cell("%%compile --backend eager\ny = torch.ones(3).sin() + 1")
    bundle = _view_bundle(cap.outputs)
    assert set(bundle) >= {WIDGET_MIME, "text/html", "text/plain"}
    assert re.search(r"\d+/\d+ cell \[\d+\] \(line 1\)", bundle["text/plain"]), bundle["text/plain"]
    assert "cx-report" in bundle["text/html"]
    assert "1 compilation," in bundle["text/plain"]


def test_progress_line_is_replaced_by_the_view(ip):
    _fresh(ip)
    with capture_output() as cap:
        ip.run_cell("%%compile --backend eager\ny = torch.ones(3).cos()")
    first, last = cap.outputs[0], cap.outputs[-1]
    assert "compile-explorer:" in first.data["text/plain"] and WIDGET_MIME not in first.data
    assert WIDGET_MIME in last.data


def test_quiet_shows_nothing_and_o_returns_the_report(ip, monkeypatch):
    _fresh(ip)
    with capture_output() as cap:
        report = ip.run_cell_magic("compile", "--backend eager -q -o", "y = torch.ones(3) * 2")
    assert cap.outputs == []
    from explorer import Report, hosts

    assert isinstance(report, Report) and report.data.compilations
    assert WIDGET_MIME not in report._repr_mimebundle_()  # a terminal's IPython: no front end for a widget
    monkeypatch.setattr(hosts, "widgets_live", lambda: True)  # a kernel's: displayed, the report is the view
    assert WIDGET_MIME in report._repr_mimebundle_()


def test_line_magic_compiles_one_expression(ip):
    _fresh(ip, "x = torch.ones(3)")
    with capture_output():
        value = ip.run_line_magic("compile", "--backend eager -q (x * {'a': 2}['a']).sum()")
    assert value.item() == 6.0


def test_why_names_the_failing_guard_without_compiling(ip):
    _fresh(ip, "def f(x):\n    return x.sin() * 2\ncf = torch.compile(f, backend='eager')\ncf(torch.randn(8))")
    with capture_output() as out:
        ip.run_line_magic("compile", "--why cf(torch.randn(16))")
    assert "fails" in out.stdout and "8" in out.stdout and "16" in out.stdout
    assert "would recompile" in out.stdout
    with capture_output() as out:
        ip.run_line_magic("compile", "--why cf(torch.randn(8))")
    assert "would be reused" in out.stdout and "recompile" not in out.stdout


def test_options_parse(ip):
    from IPython.core.magic_arguments import parse_argstring

    from explorer.magic import CompileMagics, split_line

    fn = CompileMagics.compile
    args = parse_argstring(fn, "--backend aot_eager --mode max-autotune --no-dynamic --fullgraph -o -q "
                               "--html out.html --timeit --no-time --compare default,reduce-overhead")
    assert (args.backend, args.mode, args.dynamic, args.fullgraph) == ("aot_eager", "max-autotune", False, True)
    assert args.return_report and args.quiet and args.html == "out.html"
    assert args.timeit and args.time is False and args.compare == "default,reduce-overhead"
    assert parse_argstring(fn, "").dynamic is None and parse_argstring(fn, "--dynamic").dynamic is True
    assert split_line("--backend eager -q f(x, -1)") == ("--backend eager -q", "f(x, -1)")


def test_html_option_saves_the_standalone_report(ip, tmp_path):
    _fresh(ip)
    path = tmp_path / "cell.html"
    with capture_output():
        ip.run_cell(f"%%compile --backend eager -q --html {path}\ny = torch.ones(2) + 1")
    text = path.read_text()
    assert text.startswith("<!doctype html>") and "compiled_cell" in text


# ---- errors ----

def _render(exc):
    """The traceback text IPython shows for the exception."""
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(exc._render_traceback_()))


def test_exception_outside_the_graph_keeps_earlier_globals(ip):
    _fresh(ip)
    with capture_output() as cap:
        res = ip.run_cell("%%compile --backend eager\na = torch.ones(2)\nb = a + 1\nprint('x')\n"
                          "raise ValueError('boom')\nc = 3")
    assert type(res.error_in_exec) is ValueError and str(res.error_in_exec) == "boom"
    assert ip.user_ns["b"].tolist() == [2.0, 2.0] and "c" not in ip.user_ns
    text = _render(res.error_in_exec)
    assert "line 5" in text and "raise ValueError('boom')" in text
    assert "_dynamo/" not in text and "explorer/" not in text
    bundle = _view_bundle(cap.outputs)  # the partial report is displayed
    assert "ValueError" in bundle["text/html"]


def test_exception_inside_the_compiled_region(ip):
    _fresh(ip)
    with capture_output():
        res = ip.run_cell("%%compile --backend eager -q\nok = 1\nbad = torch.ones(2) @ torch.ones(3)")
    plain = ip.run_cell("torch.ones(2) @ torch.ones(3)")  # what a plain run raises
    assert isinstance(res.error_in_exec, type(plain.error_in_exec))
    assert ip.user_ns.get("ok") == 1 or "ok" not in ip.user_ns  # deferred by Dynamo, never a placeholder
    text = _render(res.error_in_exec)
    assert "line 3" in text and "_dynamo/" not in text


def test_syntax_error_points_at_the_cell_line_and_runs_nothing(ip):
    _fresh(ip)
    before = len(torch_door.logs.trace_logger().handlers)
    with capture_output():
        res = ip.run_cell("%%compile --backend eager\nfirst = 1\ny = (1 +\n")
        plain = ip.run_cell("first = 1\ny = (1 +\n").error_before_exec
    err = res.error_before_exec  # raised by IPython before running anything, as for a plain cell
    # the plain cell's type: SyntaxError; Python 3.13's _IncompleteInputError (a SyntaxError) for input ending early
    assert isinstance(err, SyntaxError) and type(err) is type(plain) and err.lineno == 3
    with pytest.raises(SyntaxError) as raised:  # the magic itself, called directly
        ip.run_cell_magic("compile", "--backend eager -q", "first = 1\ny = (1 +\n")
    assert raised.value.lineno == 3
    assert "first" not in ip.user_ns
    assert len(torch_door.logs.trace_logger().handlers) == before


def test_return_outside_function_is_a_syntax_error_as_in_a_plain_cell(ip):
    _fresh(ip)
    with capture_output():
        res = ip.run_cell("%%compile --backend eager -q\nreturn 1")
    assert isinstance(res.error_in_exec or res.error_before_exec, SyntaxError)


def test_fullgraph_on_code_that_breaks(ip):
    _fresh(ip)
    with capture_output():
        res = ip.run_cell("%%compile --backend eager -q --fullgraph\na = torch.ones(2)\nprint(a)\nb = a + 1")
    assert type(res.error_in_exec).__name__ == "Unsupported"


def test_backend_that_raises(ip):
    _fresh(ip, "def broken_backend(gm, inputs):\n    raise RuntimeError('backend exploded')")
    with capture_output():
        res = ip.run_cell("%%compile --backend broken_backend -q\na = torch.ones(2)\nb = a.sin()")
    assert type(res.error_in_exec).__name__ == "BackendCompilerFailed"
    assert "backend exploded" in str(res.error_in_exec)


def test_keyboard_interrupt_during_compile(ip):
    _fresh(ip, "def interrupted(gm, inputs):\n    raise KeyboardInterrupt")
    with capture_output():
        res = ip.run_cell("%%compile --backend interrupted -q\na = torch.ones(2)\nb = a.sin()")
    assert isinstance(res.error_in_exec, KeyboardInterrupt)


# ---- nothing leaks ----

def _torch_state():
    loggers = [torch_door.logs.TRACE_LOGGER, torch_door.dynamo.BYTECODE_LOGGER,
               *torch_door.inductor.IR_LOGGERS.values()]
    return {
        "loggers": {name: (logging.getLogger(name).level, list(logging.getLogger(name).handlers),
                           logging.getLogger(name).propagate) for name in loggers},
        "hooks": torch_state.bytecode_hook_count(),
        "config": torch_state.config_snapshot(),
    }


@pytest.mark.parametrize("cell", ["y = torch.ones(2).sin()\nprint(y)\ny + 1",
                                  "y = torch.ones(2).sin()\nraise ValueError('after')",
                                  "y = (1 +"])
def test_nothing_leaks(ip, cell):
    _fresh(ip)
    before = _torch_state()
    with capture_output():
        ip.run_cell("%%compile --backend eager\n" + cell)
    assert _torch_state() == before


# ---- escaping ----

def test_user_strings_are_escaped_in_widget_and_static_html(ip):
    _fresh(ip)
    cell = f's = "{XSS}"\nprint("{XSS}")\nt = torch.ones(2) * len(s)\nt'
    with capture_output() as cap:
        ip.run_cell("%%compile --backend eager\n" + cell)
    bundle = _view_bundle(cap.outputs)
    assert XSS not in bundle["text/html"]
    report = ip.run_cell_magic("compile", "--backend eager -q -o", cell)
    from html_parts import stage_keys

    from explorer.present.html import stage_html

    for comp in report.data.compilations:
        for key, _ in stage_keys(comp):
            assert XSS not in stage_html(comp, **key, report=report), key
    assert "onerror" in stage_html(report.data.compilations[0], "source", report=report)  # shown, escaped


# ---- Inductor, once ----

def test_default_backend_inductor_on_a_tiny_cell(ip):
    _fresh(ip)
    with capture_output():
        report = ip.run_cell_magic("compile", "-q -o", "x = torch.arange(8.)\ny = (x.sin() * 2).relu()\ny.sum()")
    assert report.data.kernels, report.summary()
    assert abs(report.result.item() - (torch.arange(8.).sin() * 2).relu().sum().item()) < 1e-5


def test_unknown_backend_is_the_users_error(ip):
    _fresh(ip)
    with capture_output():
        res = ip.run_cell("%%compile --backend no_such_backend -q\na = 1")
    assert res.error_in_exec is not None and "no_such_backend" in str(res.error_in_exec)
    assert "explorer/" not in _render(res.error_in_exec)


def test_partial_report_travels_with_the_exception(ip):
    _fresh(ip)
    with capture_output():
        res = ip.run_cell("%%compile --backend eager -q\na = torch.ones(2)\nprint(a)\nraise KeyError('k')")
    report = res.error_in_exec.explorer_report
    assert report.data.error.startswith("KeyError") and report.data.compilations
