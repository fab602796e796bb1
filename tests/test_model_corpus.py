"""The model corpus: real architectures from the model zoos explore clean, in inference and in a training step.

Each model of tests/corpus/models.py (transformers' Llama, GPT-2, Mixtral, BERT, BART, ViT, Gemma-2 with its
attention written out, Longformer with a real graph break; torchvision's and timm's convolutional networks where
their wheels load beside the installed torch) is explored once per mode, as a user compiles a model: the model
itself under ``explorer.explore`` (inference under ``torch.no_grad``; a training step with grads on, the model
computing its loss from ``labels``, then ``loss.backward()``). Models run in eval mode, so dropout does not make
the compiled and the eager run differ. Each explore is a module-scoped fixture that the checks share:

* the explored call returns what eager returns (outputs, and in training the loss and every gradient);
* its graph and break counts are ``torch._dynamo.explain``'s, each of explain's breaks at a line the report's
  break names;
* the report has no problem (``all_problems`` empty; nothing the explorer could not do in the summary);
* its kernels' FLOPs (the inference run is timed: ``time=True`` gives each kernel row its op calls' FLOPs) are
  ``FlopCounterMode``'s within 1 %, counted as the explorer counts (``roofline.flop_mapping``: torch has no
  formula for the CPU attention kernel nor for the grouped matmuls of a mixture of experts, and counts them as 0);
* the compiled model is named by its class and ``forward`` (through the decorators Hugging Face puts on it),
  its modules by their paths in the model with their classes;
* its page opens in Chromium with no console error.

Budget, on 2 CPU cores (CI): see docs/model-corpus.md, which holds the figures (``CX_CORPUS_FIGURES=file.jsonl``
appends each case's).
"""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from corpus.models import CONV_MODELS, MODELS, conv_skip_reason

import explorer

pytestmark = pytest.mark.slow

MODES = ("inference", "training")
CASES = [(case, mode) for case in MODELS + CONV_MODELS for mode in MODES]
FLOPS_TOLERANCE = 0.01


@dataclass
class Run:
    """One model explored in one mode, with what eager, explain and FlopCounterMode say of the same call."""

    name: str
    mode: str
    model: Any
    report: Any
    seconds: float
    same: bool
    differs: str
    explain: Any
    flops: int  # FlopCounterMode's, the explorer's attention formula for the attention ops
    flops_plain: int  # FlopCounterMode's as it is
    page: Any
    kernel_flops: int = 0  # the inference run's kernel rows', per call of each graph, summed over its graphs


def _needs(case) -> None:
    if case.needs == "transformers":
        pytest.importorskip("transformers", reason="the model corpus needs transformers (pip install -e '.[test]')")
    else:
        reason = conv_skip_reason(case)
        if reason:
            pytest.skip(reason)


def _tensors(out: Any) -> list[torch.Tensor]:
    """A model output's tensors in order (a ModelOutput, a tuple, a tensor)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _tensors(item)]
    return []


def _compare(got: Any, want: Any, model: Any, reference: Any, training: bool) -> str:
    """What differs between the explored call and eager ("" when nothing does)."""
    a, b = _tensors(got), _tensors(want)
    if len(a) != len(b):
        return f"{len(a)} output tensors, eager {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or not torch.allclose(x, y, rtol=1e-4, atol=1e-4):
            return f"output {i}: largest difference {(x - y).abs().max().item() if x.shape == y.shape else 'shape'}"
    if training:
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            if (p.grad is None) != (q.grad is None):
                return f"gradient of {name}: {'none' if p.grad is None else 'one'} where eager has the other"
            if p.grad is not None and not torch.allclose(p.grad, q.grad, rtol=1e-3, atol=1e-5):
                return f"gradient of {name}: largest difference {(p.grad - q.grad).abs().max().item():.3g}"
    return ""


@pytest.fixture(scope="module", params=CASES, ids=[f"{c.name}-{m}" for c, m in CASES])
def run(request, tmp_path_factory):
    from torch.utils.flop_counter import FlopCounterMode

    from explorer.timing.roofline import flop_mapping

    case, mode = request.param
    _needs(case)
    training = mode == "training"
    torch.manual_seed(0)
    model, inference, train = case.make()
    model.eval()  # no dropout: the compiled and the eager run must compute the same
    reference = copy.deepcopy(model)
    batch = train if training else inference
    grad = torch.enable_grad if training else torch.no_grad
    torch._dynamo.reset()
    t0 = time.perf_counter()
    with grad():
        # the inference run is timed, for its kernels' FLOPs; compiled with cpp.enable_kernel_profile, its C++
        # kernels are profiler rows as they are (no second, profiling build: tests/test_gpu_story.py)
        report = (explorer.explore(model, **batch) if training else
                  explorer.explore(model, time=True, options={"cpp.enable_kernel_profile": True}, **batch))
        if training:
            case.loss(report.result).backward()
    seconds = time.perf_counter() - t0
    with grad():
        want = reference(**batch)
        if training:
            case.loss(want).backward()
    differs = _compare(report.result, want, model, reference, training)
    torch._dynamo.reset()
    with grad():
        explained = torch._dynamo.explain(copy.deepcopy(reference))(**batch)
    torch._dynamo.reset()
    with grad(), FlopCounterMode(display=False, custom_mapping=flop_mapping()) as mapped:
        reference(**batch)
    with grad(), FlopCounterMode(display=False) as plain:
        reference(**batch)
    page = tmp_path_factory.mktemp("corpus") / f"{case.name}-{mode}.html"
    report.save_html(page)
    got = Run(case.name, mode, model, report, seconds, not differs, differs, explained, mapped.get_total_flops(),
              plain.get_total_flops(), page)
    if report.timing is not None:
        got.kernel_flops = sum(k.flops or 0 for g in report.timing.graphs for k in g.kernels)
    _write_figures(got)
    return got


def _write_figures(r: Run) -> None:
    path = os.environ.get("CX_CORPUS_FIGURES")
    if not path:
        return
    data = r.report.capture
    row = {"model": r.name, "mode": r.mode, "torch": torch.__version__, "same": r.same, "differs": r.differs,
           "graphs": data.num_graphs, "breaks": data.break_count, "explain_graphs": r.explain.graph_count,
           "explain_breaks": r.explain.graph_break_count, "kernel_flops": r.kernel_flops, "flops": r.flops,
           "flops_plain": r.flops_plain, "seconds": round(r.seconds, 1),
           "problems": [str(p) for p in r.report.all_problems], "name": next(
               (c.label for c in data.compilations if c.graph is not None), None)}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")


# ---- the checks, on each model in each mode ----

def test_the_explored_call_returns_what_eager_returns(run):
    assert run.same, run.differs


def _user_line(frame: Any) -> tuple[str, int]:
    return os.path.basename(frame.filename), frame.lineno


def test_graphs_and_breaks_are_explains_at_the_same_lines(run):
    data = run.report.capture
    assert (data.num_graphs, data.break_count) == (run.explain.graph_count, run.explain.graph_break_count)
    # explain names a break by the line of the frame whose graph it ended; the report by the line that broke
    # and the stack that reached it: the same break, whichever frame Dynamo was in
    ours = {_user_line(loc) for _, b in data.graph_breaks for loc in (*b.user_traceback, b)
            if loc.filename and loc.lineno}
    for reason in run.explain.break_reasons:
        assert reason.user_stack, reason
        assert _user_line(reason.user_stack[-1]) in ours, (reason.reason, sorted(ours))


def test_the_report_has_no_problem(run):
    assert list(run.report.all_problems) == []
    timing = run.report.timing.graphs if run.report.timing is not None else ()
    failed = [f"{t.label}: {n}" for t in timing for n in (t.kernels_note or "", *t.notes) if "failed" in n]
    assert failed == []
    summary = run.report.summary().splitlines()
    assert not [line for line in summary if "could not" in line or "differs from a plain run" in line], summary


def test_kernel_flops_are_flop_counter_modes(run):
    if run.mode != "inference":
        pytest.skip("kernel FLOPs are checked on the inference run, the one the corpus times (time=True): timing "
                    "the training step too would add its measurement to every model's share of the time budget")
    assert run.flops > 0
    assert abs(run.kernel_flops / run.flops - 1) <= FLOPS_TOLERANCE, (run.kernel_flops, run.flops)


def test_the_compiled_model_is_named_by_its_class_and_forward(run):
    """What ``explore`` compiled is the model: its first compilation is named by the model's class and forward
    (through the decorators Hugging Face wraps it in, also where it broke before any graph), each compilation
    of a decorator's wrapper opens its Source pane on the forward, and every module is named by its path in the
    model, with its class."""
    from explorer.present.context import pane_context
    from explorer.present.panes import stage_pane
    from explorer.report import Report

    owner = next(k for k in type(run.model).__mro__ if "forward" in vars(k))
    first = run.report.compilations[0]
    assert first.name == f"{owner.__qualname__}.forward", first.label
    line = first.entry.lineno if first.entry and first.entry.decorated else first.frame.lineno
    assert first.label.endswith(f":{line})"), first.label
    for comp in run.report.compilations:
        if comp.graph is None:
            continue
        if comp.entry is not None and comp.entry.decorated:
            pane = stage_pane(pane_context(comp, Report.of(run.report)), "source")
            opening = next(b for b in pane if b["t"] == "code")
            k = next(i for i, f in enumerate(comp.inlined) if f.name == comp.name)
            assert opening["src"] == f"inlined.{k}.source", (comp.label, opening)
        (structure,) = [s for s in run.report.structure if s.compile_id == comp.compile_id]
        paths = {p for st in structure.stages for p in st.paths if p}
        assert not any(p.split(".")[0] in ("args", "args_0", "kwargs", "self") for p in paths), sorted(paths)
        assert paths <= set(structure.classes), (comp.label, sorted(paths - set(structure.classes)))


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    from test_browser import chromium

    with chromium() as b:
        yield b


def test_the_page_opens_in_a_browser_without_error(run, browser):
    from test_browser import Console, open_page

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    console = Console(page)
    try:
        open_page(page, run.page)
    finally:
        ctx.close()
    assert console.ours() == [], console.errors
