"""One listener on torch (issue 24, item 2): only ``capturing.recorder`` hooks torch, everyone else subscribes.

Counted where torch keeps them: handlers on the structured-trace logger, Dynamo's bytecode hooks and its
compile-start callbacks. A cell's run, its ``--timeit`` re-runs and the timing's profiling build each add
one of each at most, never a second beside an open capture's.
"""

import pytest

torch = pytest.importorskip("torch")

from explorer.capturing import CaptureSession, torch_door  # noqa: E402
from explorer.capturing.recorder import (  # noqa: E402
    BYTECODE,
    CALLBACKS,
    COMPILE_END,
    COMPILE_START,
    TRACE,
    listening,
)


def hooks():
    """(trace handlers, bytecode hooks, compile-start callbacks) on torch now."""
    from torch._dynamo.callback import callback_handler
    from torch._dynamo.convert_frame import _bytecode_hooks

    trace = [h for h in torch_door.logs.trace_logger().handlers if type(h).__name__ != "LazyTraceHandler"]
    return len(trace), len(_bytecode_hooks), len(callback_handler.start_callbacks)


def plus(base, n):
    return tuple(b + n for b in base)


def test_a_cell_and_its_timeit_reruns_hook_torch_once_each():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "explorer")
    seen = []
    ip.user_ns.update(hooks=hooks, seen=seen)
    base = hooks()
    cell = ("import torch\n"
            "@torch._dynamo.disable\n"
            "def look():\n"
            "    seen.append(hooks())\n"
            "y = torch.ones(3) + 1\n"
            "look()\n"
            "z = y * 2\n")
    with capture_output():
        res = ip.run_cell("%%compile --backend eager --timeit -q\n" + cell)
    assert res.error_in_exec is None, res.error_in_exec
    assert len(seen) > 2, "the cell ran once under the capture, then again for --timeit"
    # under the capture: its recorder alone; re-run for timing: the cell's own listener alone
    assert set(seen) == {plus(base, 1)}, (base, sorted(set(seen)))
    assert hooks() == base


def test_listening_outside_a_capture_installs_only_its_seams_and_removes_them():
    def f(x):
        return x.sin() + 1

    base = hooks()
    events = []
    with listening(events.append, seams=(TRACE,)) as listen:
        assert hooks() == (base[0] + 1, base[1], base[2])
        torch.compile(f)(torch.randn(8))
    assert hooks() == base
    assert listen.problems == []
    assert "inductor_output_code" in {e.name for e in events}
    assert not listen.recorder.raw.events, "a listener alone keeps no records"


def test_listening_inside_a_capture_is_served_by_it():
    def f(x):
        return x.cos() * 2

    events = []
    with CaptureSession() as session:
        inside = hooks()
        with listening(events.append, seams=(TRACE, BYTECODE, CALLBACKS), keep=(COMPILE_START, COMPILE_END)):
            assert hooks() == inside, "no second hook beside the capture's"
            torch.compile(f, backend="eager")(torch.randn(4))
    names = [e.name for e in events]
    for name in ("dynamo_start", "bytecode_hook", COMPILE_START, COMPILE_END):
        assert name in names, names
    assert names.index(COMPILE_START) < names.index(COMPILE_END)
    assert session.data.compilations, "the capture still keeps its records"


def test_a_subscriber_that_fails_is_a_problem_not_an_error():
    def boom(event):
        raise ValueError("subscriber bug")

    with listening(boom, seams=(TRACE,)) as listen:
        out = torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))
    assert torch.equal(out, torch.ones(2) + 1)
    assert len(listen.problems) == 1 and "ValueError: subscriber bug" in listen.problems[0]


def test_only_the_recorder_hooks_torch():
    """The hook primitives are called from ``capturing/recorder.py`` (and the logger helpers it uses) alone."""
    import ast
    import pathlib

    root = pathlib.Path(explorer_root())
    hooks_torch = {"addHandler", "register_bytecode_hook", "CompileCallbacks", "autotune_feedback",
                   "register_start_callback", "add_feedback_saver", "listen_at_debug", "tap"}
    allowed = {"capturing/recorder.py", "capturing/loggers.py", "capturing/torch_door/dynamo.py",
               "capturing/torch_door/inductor.py"}
    found = set()
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                if name in hooks_torch and rel not in allowed:
                    found.add(f"{rel}:{node.lineno} {name}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("loggers") and rel not in allowed:
                found.add(f"{rel}:{node.lineno} imports the logger hooks")
    assert not found, sorted(found)


def explorer_root():
    import os

    import explorer

    return os.path.dirname(explorer.__file__)
