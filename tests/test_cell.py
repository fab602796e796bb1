"""explorer.cell in-process: the cell as a function, which names may stand in while Dynamo compiles,
and run_cell's promises (config restored, helpers gone, findings). The kernel-level comparison with a
plain run is tests/test_cell_parity.py."""

import pytest

torch = pytest.importorskip("torch")

from explorer import cell as cellmod  # noqa: E402
from explorer.capturing import torch_door  # noqa: E402


def _build(source, ns=None):
    ns = {"torch": torch, "__name__": "__main__"} if ns is None else ns
    return cellmod.build_cell_function(source, cellmod.register_source(source), ns), ns


@pytest.mark.parametrize("source, seedable, not_seedable", [
    ("a = torch.ones(1)\nb = a + 1", {"a", "b"}, set()),
    ("z = q + 1\nq = 2", {"z"}, {"q"}),
    ("try:\n    q\nexcept NameError:\n    q = 1", set(), {"q"}),
    ("for i in range(3):\n    if i:\n        acc = acc + 1\n    else:\n        acc = 0", {"i"}, {"acc"}),
    ("if c:\n    list = []\nm = list", {"list", "m"}, set()),  # a builtin's name: read early, it is the builtin
    ("x = 1\ndel x\ny = x", {"y"}, {"x"}),
    ("with open('f') as fh:\n    t = fh.read()\nu = t", {"fh", "t", "u"}, set()),
    ("sq = [i * i for i in range(3)]\nw = [last := i for i in sq]\nv = last", {"sq", "w", "last", "v"}, set()),
])
def test_names_seeded_only_where_the_cell_cannot_read_them_first(source, seedable, not_seedable):
    fn, _ = _build(source)
    assert seedable <= set(fn.seedable) and not (not_seedable & set(fn.seedable))


def test_a_cell_reading_its_namespace_gets_no_placeholders():
    fn, _ = _build('if "x" not in globals():\n    x = {}')
    assert fn.seedable == ()


@pytest.mark.parametrize("source, returns", [("x = 1\nx + 1", True), ("x = 1\nx + 1;", False),
                                             ("x + 1  # note", True), ("x = 1", False), ("print(1);  # c", False)])
def test_the_last_expression_is_the_value_unless_a_semicolon_hides_it(source, returns):
    assert _build(source)[0].returns_value is returns


def test_functions_and_lambdas_keep_module_level_qualnames():
    source = ("f = lambda: 1\ndef g():\n    def h():\n        pass\n    return h\nclass K:\n    def m(self):\n"
              "        pass\nfs = [lambda: 2 for _ in range(1)]")
    fn, ns = _build(source)
    with cellmod.rerun(fn):
        fn.fn()
    plain = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), plain)  # what a plain run names them (3.12 inlines comprehensions)
    assert ns["f"].__qualname__ == "<lambda>" and ns["g"]().__qualname__ == "g.<locals>.h"
    assert ns["K"].m.__qualname__ == "K.m"
    assert ns["fs"][0].__qualname__ == plain["fs"][0].__qualname__  # <listcomp>.<lambda> before 3.12, <lambda> after


def test_module_semantics_annotations_locals_star_import_del():
    fn, ns = _build("x: int = 3\ny: str\nl = locals()\nfrom math import *\nr = sqrt(4.0)\nz = 1\ndel z")
    with cellmod.rerun(fn):
        fn.fn()
    assert ns["__annotations__"] == {"x": int, "y": str} and ns["l"] is ns and ns["r"] == 2.0 and "z" not in ns


def test_del_of_a_missing_name_is_the_plain_name_error():
    fn, _ = _build("del nope")
    with pytest.raises(NameError, match="^name 'nope' is not defined$"), cellmod.rerun(fn):
        fn.fn()


def _compiled(fn, backend="eager"):
    return torch.compile(fn.fn, backend=backend)


def test_run_cell_binds_what_ran_before_the_error_and_restores_config():
    fn, ns = _build("a = 1\nt = torch.ones(3)\nb = t[5]")
    before = (torch_door.config.dynamo_config_value("suppress_errors"),
              torch_door.config.dynamo_config_value("rewrite_assert_with_torch_assert"))
    run = cellmod.run_cell(fn, _compiled(fn))
    assert type(run.error) is IndexError and str(run.error) == "index 5 is out of bounds for dimension 0 with size 3"
    assert ns["a"] == 1 and ns["t"].tolist() == [1.0, 1.0, 1.0] and "b" not in ns
    assert any("Dynamo could not compile the cell" in f.message and f.stage is None for f in run.findings)
    after = (torch_door.config.dynamo_config_value("suppress_errors"),
             torch_door.config.dynamo_config_value("rewrite_assert_with_torch_assert"))
    assert after == before


def test_run_cell_leaves_no_helper_globals_and_no_placeholders():
    fn, ns = _build("a = torch.ones(2)\nprint(a)\nb = a + 1\nc = b * 2")
    keys = set(ns)
    run = cellmod.run_cell(fn, _compiled(fn))
    assert run.error is None
    assert set(ns) - keys == {"a", "b", "c"}, set(ns) - keys
    assert torch_door.dynamo_cache.cache_entries(fn.fn.__code__) == []  # the cell's compilations are forgotten
    assert ns["c"].tolist() == [4.0, 4.0]


def test_run_cell_restores_config_on_keyboard_interrupt():
    fn, _ = _build("a = torch.ones(2)\nraise KeyboardInterrupt")
    before = torch_door.config.dynamo_config_value("suppress_errors")
    run = cellmod.run_cell(fn, _compiled(fn))
    assert isinstance(run.error, KeyboardInterrupt)
    assert torch_door.config.dynamo_config_value("suppress_errors") == before


def test_a_backend_failure_still_raises_and_later_frames_are_still_suppressed():
    def broken(gm, inputs):
        raise RuntimeError("backend exploded")

    fn, ns = _build("a = torch.ones(2)\nb = a.sin()")
    run = cellmod.run_cell(fn, torch.compile(fn.fn, backend=broken))
    assert type(run.error).__name__ == "BackendCompilerFailed" and "backend exploded" in str(run.error)
    fn2, ns2 = _build("t = torch.ones(3)\nv = t[7]")
    run2 = cellmod.run_cell(fn2, _compiled(fn2))
    assert type(run2.error) is IndexError and ns2["t"].tolist() == [1.0, 1.0, 1.0]


def test_a_fullgraph_refusal_raises_as_torch_compile_does():
    fn, _ = _build("a = torch.ones(2)\nprint(a)\nb = a + 1")
    run = cellmod.run_cell(fn, torch.compile(fn.fn, backend="eager", fullgraph=True), fullgraph=True)
    assert type(run.error).__name__ == "Unsupported"


def test_the_watch_reads_a_graph_break_as_the_capture_does():
    """A graph break whose text names its place only in the user traceback (no "Graph break in user code at"
    line, as older torch writes it) is the capture's break at that line, and the watch says the same of it."""
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.decoders import DecodeContext, decode
    from explorer.capturing.raw import RawEvent
    from explorer.cell.watch import Watch

    fn, _ = _build("a = torch.ones(2)\nb = a * 2\ndel a\nc = b + 1")
    text = ("Graph Break Reason: Skip calling `torch.compiler.disable()`d function\n"
            "  Explanation: Skip calling function `delete` since it was wrapped with `torch.compiler.disable`\n\n"
            f'User code traceback:\n  File "{fn.filename}", line 3, in compiled_cell\n    del a\n')
    event = RawEvent(0, "artifact:dynamo_graph_break_reason", CompileId.parse("0/0"),
                     {"artifact": {"name": "dynamo_graph_break_reason"}}, text)
    findings = []
    Watch(fn, findings).on_event(event)
    assert decode(event, DecodeContext()).graph_break.lineno == 3
    assert [(f.stage, f.compile_id, f.lineno) for f in findings] == [("graph_break", "0/0", 3)]
    assert "line 3 `del a`: a graph break here" in findings[0].message


@pytest.mark.parametrize("source, words, lineno", [
    ("a = 1\nt = torch.ones(3)\nb = t[5]", "Dynamo could not compile the cell (it failed at line 3): IndexError", 3),
    ("a = torch.ones(2)\nprint(a)\nb = a[9]",
     "Dynamo could not compile the cell from line 2 on (after a graph break) (it failed at line 3): IndexError", 3),
])
def test_a_frame_dynamo_could_not_compile_is_named_with_the_line_it_failed_at(source, words, lineno):
    """The frame from Dynamo's warning, the line from the failed compile's metrics (both read while the cell ran)."""
    fn, _ = _build(source)
    run = cellmod.run_cell(fn, _compiled(fn))
    (finding,) = [f for f in run.findings if f.message.startswith("Dynamo could not compile")]
    assert finding.message.startswith(words) and finding.lineno == lineno and finding.compile_id
