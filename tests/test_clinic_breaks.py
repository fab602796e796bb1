"""The clinic's graph-break side over a corpus of break causes (tests/corpus/breaks.py).

Every corpus function is compiled with backend="eager" (Dynamo alone decides
graph breaks) inside one capture, shared by the module's tests.
"""

import os
import re

import pytest
from corpus import breaks as corpus


@pytest.fixture(scope="module")
def corpus_data():
    import contextlib
    import io
    import logging
    import warnings

    import torch

    import explorer

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # torch's own break warnings
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        with explorer.capture() as report:
            for fn, grad in corpus.CASES:
                torch.compile(fn, backend="eager")(torch.randn(4, requires_grad=grad))
            loop = torch.compile(corpus.data_dependent_while, backend="eager")
            loop(torch.full((4,), 0.5))  # enters the loop's resume function again
    logging.getLogger("torch._dynamo").setLevel(logging.NOTSET)
    return report.data


@pytest.fixture(scope="module")
def sites(corpus_data):
    from explorer.clinic import fix_list

    return fix_list(corpus_data)


CORPUS_FILE = os.path.abspath(corpus.__file__).replace(".pyc", ".py")


def _in_corpus(sites):
    return [s for s in sites if s.filename and os.path.abspath(s.filename) == CORPUS_FILE]


def _site_at(sites, lineno):
    found = [s for s in _in_corpus(sites) if s.lineno == lineno]
    assert found, f"no break site at {CORPUS_FILE}:{lineno}"
    return found[0]


def _marker(fn_name):
    import inspect

    fn = getattr(corpus, fn_name)
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if text.rstrip().endswith("# BREAK"))


def test_every_marked_line_is_a_break_site_with_source_and_reason(sites):
    markers = corpus.markers()
    assert len(markers) >= 15
    for lineno, text in markers.items():
        site = _site_at(sites, lineno)
        assert site.source_line and site.source_line in text, (lineno, site.source_line)
        assert site.reason.strip(), lineno
        assert re.fullmatch(r"GB\d{4}", site.gb_code or ""), (lineno, site.gb_code)
        assert site.doc_url and site.doc_url.startswith("https://"), lineno


def test_no_break_is_reported_off_the_marked_lines(sites):
    located = {s.lineno for s in _in_corpus(sites)}
    assert located == set(corpus.markers())


def test_the_corpus_covers_at_least_15_distinct_causes(sites):
    corpus_sites = _in_corpus(sites)
    assert len({s.function for s in corpus_sites}) >= 15
    assert len({s.gb_code for s in corpus_sites}) >= 12


@pytest.mark.parametrize("fn_name, gb_code, words", [
    ("data_dependent_if", "GB0170", "data-dependent"),
    ("print_call", "GB0059", "builtin"),
    ("item_in_control_flow", "GB0124", "item()"),
    ("explicit_graph_break", "GB0025", "graph_break()"),
    ("disabled_callee", "GB0098", "disable"),
    ("nonzero_output_shape", "GB0036", "dynamic shape"),
])
def test_well_known_causes_carry_torchs_code_and_words(sites, fn_name, gb_code, words):
    site = _site_at(sites, _marker(fn_name))
    assert site.gb_code == gb_code
    assert words.lower() in site.reason.lower()
    assert site.explanation


def test_a_break_in_a_called_function_shows_both_frames(sites):
    site = _site_at(sites, _marker("_helper_that_prints"))
    frames = [loc.function for loc in site.user_traceback]
    assert frames[-2:] == ["break_in_callee", "_helper_that_prints"]
    assert site.function == "_helper_that_prints"


@pytest.mark.parametrize("fn_name, library_file", [("deepcopy_tensor", "copy.py"), ("inspect_frame", "inspect.py")])
def test_a_break_inside_the_standard_library_points_at_the_users_line(sites, fn_name, library_file):
    site = _site_at(sites, _marker(fn_name))
    assert site.function == fn_name  # the user's line, wherever torch stopped
    if site.stopped_at is not None:  # torch 2.13 stops inside the library; 2.11 reports the user's line
        assert site.stopped_at.filename.endswith(library_file)
        assert library_file in site.ran_as_python


def test_the_resume_function_after_a_break_is_named(corpus_data, sites):
    line = _marker("data_dependent_if")
    site = _site_at(sites, line)
    assert site.resume_functions == (f"torch_dynamo_resume_in_data_dependent_if_at_{line}",)
    by_id = {c.compile_id: c for c in corpus_data.compilations}
    assert all(by_id[cid].frame.name == site.resume_functions[0] for cid in site.resume_ids)
    assert f"line {line}" in site.ran_as_python and "ordinary Python" in site.ran_as_python


def test_a_break_dynamo_cannot_resume_from_abandons_the_frame(sites):
    site = _site_at(sites, _marker("break_inside_try"))
    assert site.frame_abandoned
    assert "break_inside_try" in site.ran_as_python and "entirely" in site.ran_as_python


def test_a_site_hit_by_several_compilations_is_one_row_ranked_first(sites):
    site = _site_at(sites, _marker("data_dependent_while"))
    assert site.count >= 2 and len(set(site.compile_ids)) == site.count
    assert all(other.count <= site.count for other in sites)
    keys = [(-s.count, -len(s.resume_ids), s.filename or "~", s.lineno or 0) for s in sites]
    assert keys == sorted(keys)


def test_a_report_read_back_from_json_gives_the_same_fix_list(corpus_data, sites):
    from explorer.capturing.model import from_json, to_json
    from explorer.clinic import fix_list

    assert fix_list(from_json(to_json(corpus_data))) == sites


def test_render_text_lists_each_site_as_file_line_reason(corpus_data, sites):
    from explorer.present.text import clinic_text

    text = clinic_text(corpus_data)
    for site in sites:
        assert f"{site.location}: {site.reason}  [{site.gb_code}] ({site.count} compilation" in text
    line = _marker("print_call")
    assert re.search(rf"^  \S*breaks\.py:{line}: .+  \[GB0059\] \(1 compilation\)$", text, re.M)


def test_fix_list_html_escapes_user_text(sites):
    from html_parts import fix_list_html

    html = fix_list_html(sites)
    assert '"corpus: print_call"' not in html and "&quot;corpus: print_call&quot;" in html
    assert html.count("<li") == len(sites)


def test_a_fullgraph_failure_is_explained_like_the_break(sites):
    import torch

    from explorer.clinic import explain_exception

    def fresh_caller(x):  # a code object Dynamo has not cached yet
        return corpus._helper_that_prints(x + 1)

    with pytest.raises(Exception) as info:
        torch.compile(fresh_caller, backend="eager", fullgraph=True)(torch.randn(4))
    brk = explain_exception(info.value)
    site = _site_at(sites, _marker("_helper_that_prints"))
    assert brk is not None
    assert (os.path.abspath(brk.filename), brk.lineno) == (CORPUS_FILE, site.lineno)
    # the site names what torch could not trace after torch's own reason: "...: `print`"
    assert site.reason.startswith(brk.reason) and brk.gb_code == site.gb_code
    assert [loc.function for loc in brk.user_traceback][-2:] == ["fresh_caller", "_helper_that_prints"]


def test_other_exceptions_are_not_taken_for_breaks():
    from explorer.clinic import explain_exception

    assert explain_exception(ValueError("Explanation missing here")) is None
    assert explain_exception(RuntimeError("size mismatch")) is None


_STDIN_BREAK = '''Graph break in user code at /proj/prog.py:7
Graph Break Reason: Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print`
  Hint: Avoid calling builtin `print`.

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html
User code traceback:
  File "<stdin>", line 6, in <module>
  File "/proj/prog.py", line 7, in step
    print("tick")
'''


def test_code_run_from_stdin_still_points_at_the_function_and_its_resume():
    from explorer.capturing.model import CaptureData, Compilation, Frame
    from explorer.capturing.parse_breaks import parse_graph_break
    from explorer.clinic import fix_list

    brk = parse_graph_break(_STDIN_BREAK)
    comps = (
        Compilation("0/0", Frame("step", "/proj/prog.py", 5), "compiled", graph_break=brk),
        Compilation("0/1", Frame("step", "/proj/prog.py", 5), "compiled", graph_break=brk),
        Compilation("1/0", Frame("torch_dynamo_resume_in_step_at_7", "/proj/prog.py", 7), "compiled"),
        Compilation("2/0", Frame("other", "/proj/other.py", 1), "compiled",
                    graph_break=parse_graph_break(
                        _STDIN_BREAK.replace("prog.py", "other.py").replace("step", "other"))),
    )
    sites = fix_list(CaptureData("2.13", "cpu", "3.11", compilations=comps))
    assert [(s.filename, s.lineno, s.count) for s in sites] == [("/proj/prog.py", 7, 2), ("/proj/other.py", 7, 1)]
    assert sites[0].function == "step" and sites[0].resume_ids == ("1/0",)
    assert sites[1].resume_ids == ()  # a resume of `step` in another file is not `other`'s
    assert [loc.function for loc in sites[0].user_traceback] == ["<module>", "step"]


# ---- two graph-break records for one compile id (issue 23): both reasons reach the fix list ----

def test_two_break_records_of_one_compilation_are_both_in_the_fix_list():
    """torch logs a second record when Dynamo then gives up on the frame; its reason explains why
    (``Generator reconstruction with mutations`` at an ``Adam(model.parameters())`` line)."""
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.fold import Fold
    from explorer.capturing.model import CaptureData, GraphBreak
    from explorer.capturing.records import GraphBreakReason
    from explorer.clinic import fix_list
    from explorer.report import Report

    first = GraphBreak("Unsupported Tensor.backward() call", "/home/me/train.py", 7, "loss.backward()",
                       gb_code="GB0123")
    second = GraphBreak("Generator reconstruction with mutations", "/home/me/train.py", 5,
                        "opt = torch.optim.Adam(model.parameters())", gb_code="GB0099")
    fold = Fold(CompileId(0, 0))
    for brk in (first, second, first):  # the same record twice is kept once
        fold.add(GraphBreakReason(brk))
    comp = fold.build()
    assert comp.graph_break == first and comp.more_breaks == (second,)
    data = CaptureData("2.13", "cpu", "3.11", compilations=(comp,))
    reasons = [s.reason for s in fix_list(data)]
    assert sorted(reasons) == ["Generator reconstruction with mutations", "Unsupported Tensor.backward() call"]
    text = Report.of(data).summary()
    assert "Generator reconstruction with mutations" in text and "Unsupported Tensor.backward() call" in text


def test_a_site_names_the_library_it_is_inside_and_torch_compile_calls_hint_at_capture_only():
    import sysconfig

    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.fold import Fold
    from explorer.capturing.model import CaptureData, GraphBreak, SourceLoc
    from explorer.capturing.records import GraphBreakReason
    from explorer.clinic import fix_list
    from explorer.clinic.fixlist import library_of

    purelib = sysconfig.get_paths()["purelib"]
    adam = f"{purelib}/torch/optim/adam.py"
    assert library_of(adam) == "torch.optim"
    assert library_of(f"{purelib}/scipy/fft/_basic.py") == "scipy"
    assert library_of("/home/me/train.py") is None
    inside = GraphBreak("Call to `torch._dynamo.graph_break()`", adam, 213, "torch._dynamo.graph_break()",
                        gb_code="GB0025", user_traceback=(SourceLoc("/home/me/train.py", 9, "train", "opt.step()"),
                                                          SourceLoc(adam, 213, "step", None)))
    nested = GraphBreak("torch.compile call with > 1 args", "/home/me/train.py", 4, "torch.compile(m, None)",
                        gb_code="GB0223")
    comps = []
    for i, brk in enumerate((inside, nested)):
        fold = Fold(CompileId(i, 0))
        fold.add(GraphBreakReason(brk))
        comps.append(fold.build())
    sites = {s.gb_code: s for s in fix_list(CaptureData("2.13", "cpu", "3.11", compilations=tuple(comps)),
                                             name_file=lambda f: "cell [5]" if f.endswith("train.py") else None)}
    lib = sites["GB0025"]
    assert lib.where == "cell [5], line 9, inside torch.optim (adam.py:213 in step)" and lib.library == "torch.optim"
    assert "not in your code" in lib.ran_as_python
    assert sites["GB0223"].where == "cell [5], line 4" and "--capture-only" in sites["GB0223"].hints[0]


# ---- one break reached through a chain of frames is one break ----

def test_one_break_logged_by_each_frame_of_a_chain_counts_once_and_a_recompile_again():
    """A logging call inside a model's loss (GPT-2's training step: ``logger.warning_once`` in
    ``loss_function``) is hit from each frame Dynamo tries in turn: the decorators' wrappers, the model's forward
    and the loss function each log it, with the same stack. ``torch._dynamo.explain`` counts one break; so does
    the report, while the fix list keeps every compilation that hit it. The same frame compiled again (a
    recompile) that breaks there again is a second break."""
    from explorer.capturing.model import CaptureData, Compilation, Frame, GraphBreak, SourceLoc
    from explorer.clinic import fix_list
    from explorer.report import Report

    stack = (SourceLoc("/u/train.py", 8, "<module>"), SourceLoc("/lib/generic.py", 1081, "wrapper"),
             SourceLoc("/lib/deprecation.py", 178, "wrapped_func"), SourceLoc("/lib/modeling_gpt2.py", 703, "forward"),
             SourceLoc("/lib/modeling_utils.py", 4824, "loss_function"))
    brk = GraphBreak("logging.Logger method not supported for non-export cases", "/lib/modeling_utils.py", 4824,
                     "logger.warning_once(", gb_code="GB0291", user_traceback=stack)
    frames = [Frame("wrapper", "/lib/generic.py", 1075), Frame("wrapped_func", "/lib/deprecation.py", 126),
              Frame("forward", "/lib/modeling_gpt2.py", 647), Frame("loss_function", "/lib/modeling_utils.py", 4816)]
    chain = tuple(Compilation(f"{i}/0", f, "compiled", graph_break=brk) for i, f in enumerate(frames))
    data = CaptureData("2.13", "cpu", "3.11", compilations=chain)
    assert (len(data.graph_breaks), data.break_count) == (4, 1)
    (site,) = fix_list(data)
    assert site.count == 4  # the compilations that hit it
    assert " 1 graph break," in Report.of(data).summary().splitlines()[0]
    again = Compilation("2/1", frames[2], "compiled", graph_break=brk, recompile_reason="size of L['x'] changed")
    assert CaptureData("2.13", "cpu", "3.11", compilations=chain + (again,)).break_count == 2
