"""Shared, session-scoped captures: compiling is the slow part (about 10 s for the
first C++ compile on 2 cores), so each program is compiled once per test run."""

import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))
# The run's own temporary folder, for this process and every one it starts (notebook kernels, torchrun's ranks):
# what they leave there goes with the run. Torch keeps its precompiled C++ headers (about 300 MB a run, a
# different hash per virtual environment) under the temp dir whatever TORCHINDUCTOR_CACHE_DIR says, torchrun
# leaves a torchelastic_* folder per job, pytest its tmp_path folders. CX_TESTS_KEEP_TMP=1 keeps them.
_OWN_TMP = None if os.environ.get("CX_TESTS_KEEP_TMP") else tempfile.mkdtemp(prefix="cx-tests-")
if _OWN_TMP:
    os.environ["TMPDIR"] = _OWN_TMP
    tempfile.tempdir = None  # read TMPDIR again: torch computes its header folder from it when imported
# Inductor's cache dir, the test run's own: tests that check which folders a capture leaves there must not
# see another process's (two test runs, or a notebook, on the same machine share /tmp/torchinductor_$USER)
_OWN_CACHE = None if "TORCHINDUCTOR_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="cx-tests-inductor-")
if _OWN_CACHE:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = _OWN_CACHE


def pytest_sessionfinish(session, exitstatus):
    """The run's own temporary files and Inductor cache go with the run (else every run leaves its compiled
    kernels and headers in /tmp: CI's machine once ran out of disk)."""
    for folder in (_OWN_CACHE, _OWN_TMP):
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if item.get_closest_marker("gpu") is not None:  # not item.keywords: a folder named gpu is one
            item.add_marker(skip)


@pytest.fixture(scope="module")
def ip():
    """IPython's shell with the extension loaded and torch imported, as a notebook has them after its first cell
    (IPython keeps one shell per process: every module's tests share it)."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "explorer")
    shell.run_cell("import torch")
    return shell


@pytest.fixture(scope="session")
def breaks_report():
    """print + data-dependent branch, training (backward), then a recompile on a new size."""
    import torch
    from programs import basics

    import explorer

    with explorer.capture() as report:
        f = torch.compile(basics.breaks)
        x = torch.randn(8, requires_grad=True)
        f(x, 3).sum().backward()
        f(torch.randn(16, requires_grad=True), 3)
    return report


@pytest.fixture(scope="session")
def module_report():
    """An nn.Module in inference mode."""
    import torch
    from programs import basics

    import explorer

    torch.manual_seed(0)
    model = basics.TinyMLP()
    with torch.no_grad():
        return explorer.explore(model, torch.randn(2, 8))


@pytest.fixture(scope="session")
def dynamic_report():
    import torch
    from programs import basics

    import explorer

    return explorer.explore(basics.simple, torch.randn(5), dynamic=True)


@pytest.fixture(scope="session")
def timed_report():
    """A small function explored with timing and a one-mode comparison: the JSON's timing and comparisons."""
    import torch
    from programs import basics

    import explorer

    return explorer.explore(basics.simple, torch.randn(64), time=True, compare=("default",))


@pytest.fixture(scope="session")
def diverge_job(tmp_path_factory):
    """tests/programs/distributed/diverge.py on two ranks (rank 1 alone breaks and recompiles), launched once:
    its merged JSON and page (r.json, r.html) serve the distributed tests and the browser's rank checks, and
    torch's own trace of both ranks (trace/) the tests of ``explorer open``."""
    from distributed_jobs import launcher, program

    job = launcher(tmp_path_factory.mktemp("diverge"), 2, program("diverge.py"),
                   outputs=("--json", "r.json", "--html", "r.html"), trace=True)
    yield job
    if job.proc.poll() is None:
        job.proc.kill()


@pytest.fixture(scope="session")
def llama_report():
    """tests/programs/llama_blocks.py: a training step of four decoder blocks in `layers`, the third with another
    activation (GELU for SiLU), the model compiled whole as users do: three blocks alike, one odd, in every stage
    (tests/test_structure.py), each block's code inlined into the compiled forward (tests/test_inlined.py). One
    compile of a multi-layer training step serves both: it is one of the test run's slowest fixtures."""
    import torch
    from programs import llama_blocks

    import explorer

    torch.manual_seed(0)
    model = llama_blocks.Llama(layers=4, odd_layer=2)
    tokens, targets = llama_blocks.batch()
    with explorer.capture() as report:
        llama_blocks.train_step(torch.compile(model), tokens, targets)
    return report
