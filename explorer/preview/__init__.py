"""``target="cuda"``: the wrapper and Triton kernels a CUDA GPU would get, on a machine without one.

The cell runs as usual (on CPU); its graphs are then lowered again by Inductor
for a CUDA device that is faked (``torch_door.cuda_standin``) on fake tensors, in a child
process (``child``): patching torch is only ever done there, and a crash there
(an autograd op on a fake CUDA tensor aborts a CPU-only torch) costs the
preview, never the user's kernel. Triton compiles each kernel for sm_90
without a GPU, so the kernels' IR down to PTX is shown when ``triton`` is
installed. It is a preview that was not run: nothing was timed or autotuned.

What a GPU would compile, the preview covers: a graph with dynamic shapes is
lowered with the same symbolic sizes Dynamo gave it (``fake_inputs``), a
recompiled graph like any other, and a training graph's forward and backward
both (``training``). A graph it cannot lower is named, with the reason, in
``Preview.outcomes`` (and in the report's summary).

The graphs go to the child as torch's own repro scripts
(``torch._dynamo.repro.after_aot``, what ``fx_graph_runnable`` is made of):
for ``explore()`` and ``%%compile`` the Dynamo graphs, so the whole of
AOTAutograd and Inductor runs for CUDA; for a script (the CLI) the graphs as
Inductor received them (already through AOTAutograd on CPU: a device-specific
choice made there, e.g. which attention kernel, stays the CPU's; a training
step's forward and backward graphs are lowered one by one, each with the sizes
of the call that compiled it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..capturing.model import CaptureData, Preview, PreviewGraph, from_dict

TARGETS = ("cuda",)
TARGET = "cuda sm_90 (NVIDIA H200, mocked)"
LABEL = ("PREVIEW, NOT RUN: what Inductor generates for a CUDA GPU (sm_90, an H200's properties), lowered "
         "on this machine without one on fake tensors. No kernel was launched, timed or autotuned; where "
         "Inductor would pick among configs at the first launch, every config is listed.")
DEFAULT_TIMEOUT_S = 600.0


@dataclass
class Graph:
    """One graph to preview: a repro script of it (with its symbolic sizes, if any), or why it is not previewed."""

    label: str
    repro: Optional[str] = None
    skip: Optional[str] = None
    shapes: Optional[dict] = None  # torch_door.fx.graph_input_shapes: where Dynamo kept sizes symbolic
    static: list[int] = field(default_factory=list)  # torch_door.fx.graph_static_inputs: its parameters' places
    nodes: list[list[str]] = field(default_factory=list)  # op and name of each node of Dynamo's graph, in order
    trains: bool = False  # autograd records through it: its forward and backward are lowered
    compile_id: Optional[str] = None  # its compilation's key in the main report
    frame: Optional[tuple[int, int]] = None  # the compile id the child lowers it under
    lowered: str = "inference"
    notes: list[str] = field(default_factory=list)

    def outcome(self, previewed: bool = False, symbols: Sequence[str] = (), reason: Optional[str] = None,
                lowered: Optional[str] = None) -> PreviewGraph:
        return PreviewGraph(self.label, self.compile_id, previewed, lowered or self.lowered, tuple(symbols), reason)


def graphs_from_recorder(recorder: Any) -> list[Graph]:
    """The Dynamo graphs a GraphRecorder kept, each with its symbolic sizes and whether it trains."""
    from ..capturing import torch_door

    out: list[Graph] = []
    frames: set[tuple[int, int]] = set()
    for g in getattr(recorder, "graphs", ()):
        graph = Graph(g.label, trains=g.trains, compile_id=g.compile_id,
                      lowered="forward and backward" if g.trains else "inference")
        key = g.compile_key
        if key is not None and (key.frame_id, key.frame_compile_id) not in frames:
            graph.frame = (key.frame_id, key.frame_compile_id)  # the preview's compilation is named as the report's
            frames.add(graph.frame)
        out.append(graph)
        try:
            graph.repro = torch_door.aot.graph_repro(g.gm, g.inputs)
        except Exception as e:  # noqa: BLE001 - the outcome says why
            graph.skip = f"torch could not write a repro of it ({type(e).__name__}: {e})"
            continue
        graph.static = torch_door.fx.graph_static_inputs(g.gm)
        graph.nodes = [[n.op, n.name] for n in g.gm.graph.nodes if n.op != "output"]
        try:
            graph.shapes = torch_door.fx.graph_input_shapes(g.gm)
        except Exception as e:  # noqa: BLE001 - previewed all the same, with this call's sizes: said so
            graph.notes.append(f"{g.label}: its symbolic sizes could not be read ({type(e).__name__}: {e}); "
                               "previewed with the sizes of the call that compiled it")
    return out


def graphs_from_repros(repros: Sequence[Any]) -> list[Graph]:
    """A script's graphs, from Inductor's ``fx_graph_runnable`` artifacts: inference, forward and backward alike."""
    out = []
    for i, r in enumerate(repros):
        label = f"graph {i} ({r.compile_id})" if r.compile_id else f"graph {i}"
        graph = Graph(label, repro=r.payload, compile_id=r.compile_id, frame=r.frame,  # a forward and its backward:
                      lowered=r.kind if r.kind in ("forward", "backward") else "inference")  # one compilation
        if "reader.symint(" in r.payload and "expr=" not in r.payload:  # torch 2.11, 2.12 write sizes as numbers
            graph.notes.append(f"{label}: this torch's repro of it names no symbolic sizes (torch 2.13 on does): "
                               "lowered with the sizes of the call that compiled it")
        out.append(graph)
    return out


def preview(graphs: Sequence[Graph], *, mode: Optional[str] = None, options: Optional[dict] = None,
            timeout_s: float = DEFAULT_TIMEOUT_S, notes: Sequence[str] = ()) -> Preview:
    """Lowers ``graphs`` for the mocked CUDA device in a child process; never raises for the child's failures."""
    notes = list(notes) + [n for g in graphs for n in g.notes]
    skipped = {g.label: g.outcome(reason=g.skip) for g in graphs if g.skip}
    todo = [g for g in graphs if g.repro and not g.skip]

    def made(outcomes: dict[str, PreviewGraph], error: Optional[str] = None, capture: Optional[CaptureData] = None,
             more_notes: Sequence[str] = ()) -> Preview:
        lost = "not lowered: the preview failed before it came to this graph (the preview's error says why)"
        ordered = tuple(outcomes.get(g.label) or g.outcome(reason=lost) for g in graphs)
        return Preview(target=TARGET, label=LABEL, capture=capture, graphs=tuple(_line(o) for o in ordered),
                       error=error, notes=tuple(notes) + tuple(more_notes), outcomes=ordered)

    if not todo:
        return made(skipped, "nothing to preview: no graph was compiled" if not skipped else
                    "nothing to preview: " + "; ".join(o.reason or "" for o in skipped.values()))
    missing = triton_missing()
    if missing:
        return made(skipped, missing)
    job = {"graphs": [_job(g) for g in todo], "mode": mode, "options": _plain(options or {})}
    with tempfile.TemporaryDirectory(prefix="explorer-preview-") as tmp:
        src, dst = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        with open(src, "w", encoding="utf-8") as fh:
            json.dump(job, fh)
        err = _run_child(src, dst, timeout_s)
        if err is not None:
            return made(skipped, err)
        with open(dst, encoding="utf-8") as fh:
            out = json.load(fh)
    data: Optional[CaptureData] = from_dict(out["capture"]) if out.get("capture") else None
    error = out.get("error")
    if error:
        error = f"the preview failed in its child process: {error}"
        if os.environ.get("EXPLORER_PREVIEW_DEBUG"):
            error += "\n" + out.get("traceback", "")
    by_label = {g.label: g for g in todo}
    lowered = {o["label"]: by_label[o["label"]].outcome(o["previewed"], o.get("symbols") or (), o.get("reason"),
                                                        o.get("lowered"))
               for o in out.get("outcomes", ()) if o.get("label") in by_label}
    return made({**skipped, **lowered}, error, data, out.get("notes", ()))


def _job(g: Graph) -> dict:
    return {"label": g.label, "repro": g.repro, "shapes": g.shapes, "trains": g.trains, "static": g.static,
            "nodes": g.nodes, "compile_id": list(g.frame) if g.frame else None}


def _line(o: PreviewGraph) -> str:
    """One graph's outcome in one line (``Preview.graphs``)."""
    if not o.previewed:
        return f"{o.label}: not previewed: {o.reason}"
    sizes = f"; symbolic sizes {', '.join(o.symbols)}" if o.symbols else ""
    return f"{o.label}: previewed ({o.lowered}{sizes})"


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
