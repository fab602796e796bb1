"""Distributed test jobs: a launch of tests/programs/distributed/*.py in a subprocess, started at once and
waited for by the first test that reads it (test_distributed.py, and the browser test's merged report)."""

from __future__ import annotations

import os
import subprocess
import sys

from explorer.report import Report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "tests", "programs", "distributed")
TIMEOUT_S = 300


def program(name: str) -> str:
    return os.path.join(PROGRAMS, name)


def line_of(path: str, text: str) -> int:
    with open(path) as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


class Job:
    """One launch in a subprocess, started now, waited for by the first test that reads it."""

    def __init__(self, folder, argv: list[str], trace: bool = False) -> None:
        self.folder = folder
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
        if trace:  # torch's own structured trace of every rank, beside the capture: the ground truth
            env["TORCH_TRACE"] = str(folder / "trace")
        self.proc = subprocess.Popen([sys.executable, *argv], cwd=folder, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self._done = None

    def result(self) -> tuple[int, str, str]:
        if self._done is None:
            out, err = self.proc.communicate(timeout=TIMEOUT_S)
            self._done = (self.proc.returncode, out, err)
        return self._done

    def report(self, name: str = "r.json") -> Report:
        self.result()
        return Report.load(self.folder / name)


def launcher(folder, n: int, script: str, *args: str, outputs: tuple[str, ...] = ("--json", "r.json"),
             trace: bool = False) -> Job:
    return Job(folder, ["-m", "explorer", "run", "--nproc-per-node", str(n), *outputs, script, "--backend",
                        "aot_eager", "--device", "cpu", *args], trace=trace)


def torchrun(folder, n: int, script: str, *args: str, trace: bool = False) -> Job:
    """``torchrun ... -m explorer run``: each rank writes its part beside ``r.json`` (``r.rank<k>.json``, kept:
    each rank's report alone), the last one merges."""
    return Job(folder, ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(n), "-m", "explorer",
                        "run", script, "--backend", "aot_eager", "--device", "cpu", "--json", "r.json", *args],
               trace=trace)
