"""``target="cuda"``: the wrapper and Triton kernels a CUDA GPU would get, on a machine without one.

The cell runs as usual (on CPU); its inference graphs are then lowered again by
Inductor for a CUDA device that is faked (``mock_cuda``) on fake tensors, in a
child process (``child``): patching torch is only ever done there, and a crash
there (an autograd op on a fake CUDA tensor aborts a CPU-only torch) costs the
preview, never the user's kernel. Triton compiles each kernel for sm_90
without a GPU, so the kernels' IR down to PTX is shown when ``triton`` is
installed. It is a preview that was not run: nothing was timed or autotuned.

The graphs go to the child as torch's own repro scripts
(``torch._dynamo.repro.after_aot``, what ``fx_graph_runnable`` is made of):
for ``explore()`` and ``%%compile`` the Dynamo graphs, so the whole of
AOTAutograd and Inductor runs for CUDA; for a script (the CLI) the graphs as
Inductor received them (already through AOTAutograd on CPU: a device-specific
choice made there, e.g. which attention kernel, stays the CPU's).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ..capturing.model import CaptureData, Preview, from_dict

TARGETS = ("cuda",)
TARGET = "cuda sm_90 (NVIDIA H200, mocked)"
LABEL = ("PREVIEW, NOT RUN: what Inductor generates for a CUDA GPU (sm_90, an H200's properties), lowered "
         "on this machine without one on fake tensors. No kernel was launched, timed or autotuned; where "
         "Inductor would pick among configs at the first launch, every config is listed.")
DEFAULT_TIMEOUT_S = 600.0


@dataclass
class Graph:
    """One graph to preview: a repro script of it, or why it is not previewed."""

    label: str
    repro: Optional[str] = None
    skip: Optional[str] = None


def graphs_from_recorder(recorder: Any) -> list[Graph]:
    """The Dynamo graphs a GraphRecorder kept; training graphs are left out with the reason."""
    from ..capturing import torch_compat

    out = []
    for g in getattr(recorder, "graphs", ()):
        if g.trains:
            out.append(Graph(g.label, skip="a training graph (autograd records through it): the preview covers "
                                           "inference graphs only; run it under torch.no_grad() to preview it"))
            continue
        try:
            out.append(Graph(g.label, repro=torch_compat.graph_repro(g.gm, g.inputs)))
        except Exception as e:  # noqa: BLE001
            out.append(Graph(g.label, skip=f"torch could not write a repro of it ({type(e).__name__}: {e})"))
    return out


def graphs_from_repros(repros: Sequence[Any]) -> list[Graph]:
    """A script's graphs, from Inductor's ``fx_graph_runnable`` artifacts; forward/backward left out."""
    out = []
    for i, r in enumerate(repros):
        label = f"graph {i} ({r.compile_id})" if r.compile_id else f"graph {i}"
        if r.kind != "inference":
            out.append(Graph(label, skip=f"a {r.kind} graph of training: the preview covers inference graphs only"))
        else:
            out.append(Graph(label, repro=r.payload))
    return out


def preview(graphs: Sequence[Graph], *, mode: Optional[str] = None, options: Optional[dict] = None,
            timeout_s: float = DEFAULT_TIMEOUT_S, notes: Sequence[str] = ()) -> Preview:
    """Lowers ``graphs`` for the mocked CUDA device in a child process; never raises for the child's failures."""
    notes = list(notes)
    skipped = [f"{g.label}: not previewed: {g.skip}" for g in graphs if g.skip]
    todo = [g for g in graphs if g.repro]
    if not todo:
        return Preview(target=TARGET, label=LABEL, graphs=tuple(skipped),
                       error="nothing to preview: no inference graph was compiled" if not skipped else
                       "nothing to preview: " + "; ".join(g.skip or "" for g in graphs), notes=tuple(notes))
    missing = triton_missing()
    if missing:
        return Preview(target=TARGET, label=LABEL, graphs=tuple(skipped), error=missing, notes=tuple(notes))
    job = {"graphs": [{"label": g.label, "repro": g.repro} for g in todo], "mode": mode,
           "options": _plain(options or {})}
    with tempfile.TemporaryDirectory(prefix="explorer-preview-") as tmp:
        src, dst = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        with open(src, "w", encoding="utf-8") as fh:
            json.dump(job, fh)
        err = _run_child(src, dst, timeout_s)
        if err is not None:
            return Preview(target=TARGET, label=LABEL, graphs=tuple(skipped), error=err, notes=tuple(notes))
        with open(dst, encoding="utf-8") as fh:
            out = json.load(fh)
    data: Optional[CaptureData] = from_dict(out["capture"]) if out.get("capture") else None
    error = out.get("error")
    if error:
        error = f"the preview failed in its child process: {error}"
        if os.environ.get("EXPLORER_PREVIEW_DEBUG"):
            error += "\n" + out.get("traceback", "")
    return Preview(target=TARGET, label=LABEL, capture=data, graphs=tuple(out.get("graphs", ())) + tuple(skipped),
                   error=error, notes=tuple(notes) + tuple(out.get("notes", ())))


def triton_missing() -> Optional[str]:
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        return ("the CUDA preview needs the `triton` package (Inductor writes CUDA kernels in Triton, and Triton "
                "compiles them to PTX without a GPU): pip install the triton that pairs with this torch "
                "(torch 2.13: triton 3.7; 2.14: 3.8)")
    return None


def _run_child(src: str, dst: str, timeout_s: float) -> Optional[str]:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    cmd = [sys.executable, "-m", "explorer.preview.child", src, dst]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"the preview's child process took longer than {timeout_s:.0f} s and was stopped"
    if proc.returncode != 0 or not os.path.exists(dst):
        how = _how_it_ended(proc.returncode)
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        return (f"the preview's child process {how}; the preview is lost, nothing else is (an op reached "
                "autograd on a fake CUDA tensor, or this torch moved one of the mock's patch points)"
                + (": " + " | ".join(tail) if tail else ""))
    return None


def _how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _plain(options: dict) -> dict:
    return {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool, type(None)))}
