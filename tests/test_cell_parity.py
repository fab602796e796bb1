"""Every cell of tests/corpus/cells.py, plainly and under %%compile, in real Jupyter kernels.

Two kernels run the whole corpus side by side (one plainly, one under
``%%compile --backend eager -q --no-time``, Inductor where the cell says so),
resetting the namespace between cells. For each cell the outcomes are compared:
the exception's type and message and the source lines its traceback points at,
every user name and its value (Dynamo's helper globals included: there must be
none), the displayed value, stdout, torch's compiler config, the torch loggers,
temporary folders under the Inductor cache dir, and that a next %%compile cell
still compiles. The cell must have been compiled where the corpus says so (a
silent fall-back to plain Python for everything would otherwise pass). At the
end both kernels exit, and the %%compile kernel's stderr must show nothing.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pytest

pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

from corpus.cells import CELLS, Cell

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PROBE = "__import__('cell_probe').snapshot()"
TIMEOUT = 240
# what must never reach the %%compile kernel's stderr (the cell's own warnings may)
FORBIDDEN_STDERR = ("WON'T CONVERT", "Exception ignored", "KeyError: '__", "compile-explorer/explorer",
                    "/explorer/", "InternalTorchDynamoError", "Traceback (most recent call last)",
                    "USDT:", "profiler_start")
# one of torch's own log lines ("W1204 21:39:33.402000 7470 .../_internal.py:1345] [4/0] ..."): a plain cell
# that compiles nothing prints none
TORCH_LOG_LINE = re.compile(r"^[WEI]\d{4} \d\d:\d\d:\d\d", re.M)


def _flags(cell: Cell) -> str:
    return (f"--backend {cell.backend} -q" + ("" if cell.timed else " --no-time")
            + (" --capture-only" if cell.capture_only else ""))


class Kernel:
    """One real kernel (jupyter_client), its process stderr kept in a file."""

    def __init__(self, label: str) -> None:
        from jupyter_client import KernelManager

        self.label = label
        self.cache_dir = tempfile.mkdtemp(prefix=f"cx-parity-{label}-")
        self.stderr_path = os.path.join(self.cache_dir, "kernel-stderr.txt")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([ROOT, TESTS, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(self.cache_dir, "inductor")
        env["OMP_NUM_THREADS"] = "1"
        self._stderr = open(self.stderr_path, "w")
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=env, stderr=self._stderr, stdout=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def execute(self, code: str, *, silent: bool = False, probe: bool = True) -> dict:
        """Runs ``code`` as a cell; returns its outputs, error and (``probe``) the kernel's snapshot."""
        # stop_on_error=False: each request waits for the one before, as a person runs cells one at a time; with it,
        # ipykernel 6.29.0 could abort the probe sent right after a failed cell's reply ("status": "aborted")
        msg_id = self.kc.execute(code, silent=silent, store_history=not silent,
                                 user_expressions={"snap": PROBE} if probe else {}, stop_on_error=False)
        out = {"stdout": "", "stderr": "", "result": None, "displays": [], "error": None}
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(1.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"{self.label}: no idle after {TIMEOUT} s running {code[:80]!r}") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out[content["name"]] += content["text"]
            elif kind == "execute_result":
                out["result"] = content["data"].get("text/plain")
            elif kind == "display_data":
                out["displays"].append(sorted(content["data"]))
            elif kind == "error":
                out["error"] = (content["ename"], content["evalue"], [ANSI.sub("", t) for t in content["traceback"]])
            elif kind == "status" and content["execution_state"] == "idle":
                break
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        if probe:
            snap = reply["content"]["user_expressions"]["snap"]
            assert snap["status"] == "ok", snap
            out["snap"] = json.loads(eval(snap["data"]["text/plain"]))
        return out

    def exit_stderr(self) -> str:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)  # a shutdown_request: the interpreter exits as usual
        self._stderr.close()
        try:
            with open(self.stderr_path) as fh:
                return fh.read()
        finally:  # the kernel's Inductor cache and stderr: a test run leaves nothing in /tmp
            shutil.rmtree(self.cache_dir, ignore_errors=True)


def _run_all(label: str, magic: bool, results: dict) -> None:
    kernel = Kernel(label)
    try:
        kernel.execute("import torch\ntorch.set_num_threads(1)\n%load_ext explorer", silent=True, probe=False)
        kernel.execute("__import__('cell_probe')", silent=True, probe=False)
        for cell in CELLS:
            t0 = time.perf_counter()
            kernel.execute("__import__('cell_probe').reset()", silent=True, probe=False)
            if cell.setup:
                kernel.execute(cell.setup, silent=True, probe=False)
            before = kernel.execute("pass", silent=True)["snap"]
            source = f"%%compile {_flags(cell)}\n{cell.source}" if magic else cell.source
            run = kernel.execute(source, probe=False)  # a failed cell's reply carries no user_expressions
            run["snap"] = kernel.execute("pass", silent=True)["snap"]
            run["before"] = before
            if cell.teardown:
                kernel.execute(cell.teardown, silent=True, probe=False)
            if magic:  # the next %%compile cell still works
                nxt = kernel.execute("%%compile --backend eager -q --no-time\n__cx_next = torch.arange(3.) * 2",
                                     silent=True)
                run["next"] = (nxt["error"], nxt["snap"]["names"].get("__cx_next"),
                               nxt["snap"]["graphs"] - run["snap"]["graphs"])
                kernel.execute("del __cx_next", silent=True, probe=False)
            run["seconds"] = time.perf_counter() - t0
            results[cell.name] = run
    finally:
        results["__exit_stderr__"] = kernel.exit_stderr()


@pytest.fixture(scope="module")
def runs():
    plain: dict = {}
    magic: dict = {}
    errors: list = []

    def guarded(label, is_magic, into):
        try:
            _run_all(label, is_magic, into)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=("plain", False, plain)),
               threading.Thread(target=guarded, args=("magic", True, magic))]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    slowest = sorted(((r["seconds"], name) for name, r in magic.items() if isinstance(r, dict)), reverse=True)[:3]
    print(f"\ncell parity: {len(CELLS)} cells in {time.perf_counter() - t0:.1f} s; slowest under %%compile: "
          + ", ".join(f"{name} {s:.1f} s" for s, name in slowest), file=sys.stderr)
    return plain, magic


_CHAIN = ("The above exception was the direct cause of the following exception:",
          "During handling of the above exception, another exception occurred:")


def _arrowed_lines(traceback: list[str]) -> list[str]:
    """The source text of each line the raised exception's frames point at (``----> 3 x = f()``).

    Only the last exception of a chain: for the causes, IPython 9 in a kernel points a frame
    that has since moved on at the line it moved on to (the ``raise ... from e``), where
    IPython 8 and Python point at the line that raised; the explorer shows the latter.
    The chain itself is compared by ``_chain``.
    """
    text = "\n".join(traceback)
    for marker in _CHAIN:
        text = text.rsplit(marker, 1)[-1]
    lines = []
    for chunk in [text]:
        for line in chunk.splitlines():
            m = re.match(r"^-*> +\d+ (.*)$", line)
            if m:
                lines.append(m.group(1).strip())
    return lines


def _chain(traceback: list[str]) -> list[str]:
    """The chain's links and each exception's closing line (``IndexError: index 9 ...``), in order."""
    text = "\n".join(traceback)
    return [line for line in text.splitlines() if line in _CHAIN or re.match(r"^[A-Za-z_][\w.]*(Error|Exception|"
                                                                             r"Interrupt|Exit): ", line)]


# Dynamo's helper globals: a function the user compiles puts them in the namespace in a plain run too
DYNAMO_HELPER = re.compile(r"^__(compiled_fn_|resume_at_|builtins_dict__|import_)")


def _user_names(snap: dict) -> dict:
    return {k: v for k, v in snap["names"].items() if not k.startswith("__cx") and not DYNAMO_HELPER.match(k)}


def _helpers(snap: dict) -> list:
    """The helpers one compilation installs (its graph, its resume functions); the shared ones
    (``__import_*``, ``__builtins_dict__*``) depend on what the kernel compiled before."""
    return [k for k in snap["names"] if k.startswith(("__compiled_fn_", "__resume_at_"))]


@pytest.mark.parametrize("cell", CELLS, ids=[c.name for c in CELLS])
def test_cell_ends_as_a_plain_run(runs, cell):
    plain, magic = runs[0][cell.name], runs[1][cell.name]
    # the exception: type, message, and the lines its traceback points at
    assert (magic["error"] or (None, None))[:2] == (plain["error"] or (None, None))[:2]
    if plain["error"] is not None:
        text = "\n".join(magic["error"][2])
        for internal in ("_dynamo/", "/explorer/", "torch_dynamo_resume_in", "__compile_explorer"):
            assert internal not in text, text
        assert _arrowed_lines(magic["error"][2]) == _arrowed_lines(plain["error"][2]), text
        assert _chain(magic["error"][2]) == _chain(plain["error"][2]), text
    # names and values, the namespace's helpers included; the displayed value; what was printed
    assert _user_names(magic["snap"]) == _user_names(plain["snap"])
    # helper globals only where a plain run makes them too (the user's own compiled functions), never more;
    # under --capture-only the cell runs as it is: its helpers are the user's own compilations'
    added = set(_helpers(magic["snap"])) - set(_helpers(magic["before"]))
    if not cell.capture_only:
        assert len(added) <= len(set(_helpers(plain["snap"])) - set(_helpers(plain["before"]))), added
    assert magic["result"] == plain["result"]
    if cell.same_stdout:
        assert magic["stdout"] == plain["stdout"]
    for bad in FORBIDDEN_STDERR:
        assert bad not in magic["stderr"], magic["stderr"]
    assert len(TORCH_LOG_LINE.findall(magic["stderr"])) <= len(TORCH_LOG_LINE.findall(plain["stderr"])), \
        magic["stderr"]
    # torch's config, its loggers, Inductor's temporary folders, Dynamo's bytecode hooks
    assert magic["snap"]["config"] == plain["snap"]["config"]
    shared = set(magic["snap"]["loggers"]) & set(plain["snap"]["loggers"])
    assert {k: magic["snap"]["loggers"][k] for k in shared} == {k: plain["snap"]["loggers"][k] for k in shared}
    assert magic["snap"]["temp_dirs"] == magic["before"]["temp_dirs"] == []
    assert magic["snap"]["hooks"] == magic["before"]["hooks"]
    # warning filters: none left but those the plain run's kernel has too (libraries torch imports while compiling,
    # sympy and pkg_resources under torch 2.11, add theirs when first imported, which may be an earlier cell there)
    # The capture is cold (caches off), so Inductor builds C++ where the plain run's cache hit skips it, importing
    # torch.utils.cpp_extension -> setuptools -> pkg_resources, whose import adds its filter (old setuptools)
    added = set(magic["snap"]["warning_filters"]) - set(magic["before"]["warning_filters"])
    added = {f for f in added if "'PEP440Warning'" not in f}
    assert added <= set(plain["snap"]["warning_filters"]), added
    # it was compiled where it should be; the next %%compile cell still compiles
    new_graphs = magic["snap"]["graphs"] - magic["before"]["graphs"]
    if cell.compiled is True:
        assert new_graphs > 0, "the cell ran without any compiled graph"
    error, value, graphs = magic["next"]
    assert error is None and value == ["tensor", "torch.float32", [3], [0.0, 2.0, 4.0]] and graphs == 1


@pytest.mark.parametrize("cell", [c for c in CELLS if c.findings], ids=[c.name for c in CELLS if c.findings])
def test_what_torch_compile_did_differently_is_a_finding(cell):
    """The same cell through the magic's own entry point, for its findings (IPython in-process)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "explorer")
    ip.run_cell("import torch")
    if cell.setup:
        ip.run_cell(cell.setup)
    try:
        with capture_output():
            res = ip.run_cell(f"%%compile {_flags(cell)} -o\n{cell.source}")
    finally:
        if cell.teardown:
            ip.run_cell(cell.teardown)
    report = res.result if res.error_in_exec is None else res.error_in_exec.explorer_report
    notes = "\n".join(f.message for f in report.findings)
    for words in cell.findings:
        assert words in notes, notes


def test_interpreter_exit_prints_nothing(runs):
    """Nothing a plain kernel does not print too: torch's own clean-up of the helper globals of a function
    the user compiled can print a KeyError at exit in a plain kernel as well."""
    plain, magic = runs
    for bad in FORBIDDEN_STDERR:
        assert bad not in magic["__exit_stderr__"] or bad in plain["__exit_stderr__"], \
            magic["__exit_stderr__"][-3000:]
