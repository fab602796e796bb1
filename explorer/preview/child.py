"""The preview's child process: ``python -m explorer.preview.child IN.json OUT.json``.

Reads the graphs (torch's own repro scripts of them, with their symbolic sizes
where Dynamo kept any), lowers each with Inductor for a faked CUDA device on fake
tensors, under the explorer's capture, and writes the capture and each graph's
outcome as JSON. A training graph's forward and backward are both lowered
(``training``). Runs apart from the user's process because the CUDA stand-in
(``explorer.capturing.torch_door.cuda_standin``) patches torch, and because an
op that reaches autograd on a fake CUDA tensor in a CPU-only torch calls
``std::terminate``: here that ends this process, and the parent says so.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from typing import Any, Optional, Sequence

ATTENTION = ("attention (scaled_dot_product_attention) is previewed in its math form, matmuls and a softmax kernel: "
             "a GPU picks flash or memory-efficient attention by asking the device, which is not there")


def main(argv: list[str]) -> int:
    src, dst = argv[1], argv[2]
    with open(src, encoding="utf-8") as fh:
        job = json.load(fh)
    if os.environ.get("EXPLORER_PREVIEW_TEST_ABORT"):  # tests: a child that dies as std::terminate would
        os.abort()
    out: dict[str, Any] = {"outcomes": [], "capture": None, "error": None, "notes": []}
    try:
        out.update(_run(job))
    except BaseException as e:  # noqa: BLE001 - anything goes back to the parent as words
        out["error"] = f"{type(e).__name__}: {e}"
        out["traceback"] = traceback.format_exc()[-4000:]
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(out, fh)
    return 0


def _run(job: dict) -> dict:
    from explorer.capturing import torch_door
    from explorer.capturing.model import to_dict
    from explorer.capturing.session import CaptureSession
    from explorer.capturing.torch_door import cuda_standin
    from explorer.capturing.triton_asm import with_kernel_details
    from explorer.preview import training

    torch_door.config.set_inductor_config("compile_threads", 1)  # compile in this process: workers would not be faked
    notes: list[str] = []
    results: list[dict] = []
    mode = job.get("mode")
    if mode in ("max-autotune", "max-autotune-no-cudagraphs"):
        notes.append(f"mode {mode!r} autotunes by timing candidates on the GPU; previewed with the default "
                     "choices instead")
        mode = None
    options = dict(job.get("options") or {})
    if any(g.get("trains") for g in job["graphs"]):
        notes.append(training.NOTE)
    if any("scaled_dot_product" in g["repro"] for g in job["graphs"]):
        notes.append(ATTENTION)
    with cuda_standin.fake_cuda():
        session = CaptureSession(fresh=True)  # lowered under a fake CUDA: nothing for torch's graph caches
        with session:
            for i, g in enumerate(job["graphs"]):
                results.append(_lower_one(i, g, mode, options, notes))
        data = session.data
        notes += sorted(cuda_standin.UNTIMED)
        if data is not None:
            data = _as_preview(with_kernel_details(data))
    return {"outcomes": results, "capture": to_dict(data) if data is not None else None, "notes": notes}


def _lower_one(i: int, g: dict, mode: Any, options: dict, notes: list[str]) -> dict:
    """One graph lowered; what came of it, in words. One graph failing does not stop the others."""
    out = {"label": g["label"], "previewed": False, "symbols": [], "reason": None, "lowered": None}
    try:
        out["symbols"], out["lowered"] = _lower(i, g, mode, options, notes)
        out["previewed"] = True
    except Exception as e:  # noqa: BLE001 - the graph's outcome says why, in words
        out["reason"] = _reason(e)
        if os.environ.get("EXPLORER_PREVIEW_DEBUG"):  # where the mock fell short, for whoever mends it
            notes.append(traceback.format_exc()[-4000:])
    return out


def _as_preview(data: Any) -> Any:
    """Lowered without Dynamo (it ran in the user's process): say so instead of Dynamo's missing stages."""
    import dataclasses

    dynamo = ("original_bytecode", "rewritten_bytecode", "graph", "guards")
    why = "a preview lowers the graph only: Dynamo's stages are in the main report"
    comps = tuple(dataclasses.replace(c, status="compiled" if c.output_code else c.status,
                                      missing={**{k: v for k, v in c.missing.items() if k not in dynamo},
                                               **{k: why for k in dynamo if k in c.missing}})
                  for c in data.compilations)
    return dataclasses.replace(data, compilations=comps)


def _reason(e: BaseException) -> str:
    """Why a graph was not lowered, in words: torch's exception, and what it means where that is known."""
    said = f"{type(e).__name__}: {str(e)[:500]}"
    op = re.search(r"'_OpNamespace' '(\w+)' object has no attribute '(\w+)'", str(e))
    if isinstance(e, AttributeError) and op:
        return (f"it calls {op[1]}::{op[2]}, an op the program registers itself, which the preview's process does "
                f"not have ({said})")
    return said


def _lower(i: int, g: dict, mode: Any, options: dict, notes: list[str]) -> tuple[list[str], Optional[str]]:
    """Lowers one graph under its compile id; returns the names of the sizes it kept symbolic, and for a training
    graph what was lowered (``forward and backward``)."""
    import torch

    from explorer.capturing import torch_door
    from explorer.preview import training
    from explorer.preview.fake_inputs import FakeReader, SymbolicSizes

    namespace: dict[str, Any] = {"__name__": "explorer_preview_repro"}
    exec(compile(g["repro"], f"<preview {g['label']}>", "exec"), namespace)
    mod, untraced = _graph_module(namespace["mod"], g.get("nodes") or ())
    load_args = namespace["load_args"]
    fake = torch_door.fx.fake_mode()
    sizes = SymbolicSizes(fake, g["shapes"]) if g.get("shapes") else \
        SymbolicSizes.of_repro(fake, g["repro"], namespace)
    trains = bool(g.get("trains"))
    device = training.STAND_IN if trains else "cuda:0"  # autograd cannot record on a fake CUDA tensor here
    reader = FakeReader(fake, device, keep_grad=trains, sizes=sizes)
    load_args(reader)
    with fake:
        for name, buf in list(mod.named_buffers()):  # constants the graph holds: on the device too
            _set(mod, name, torch.empty_strided(buf.shape, buf.stride(), dtype=buf.dtype, device=device))
    config = torch_door.inductor.backend_config(mode, options or None)
    frame, number = g.get("compile_id") or (i, 0)
    if not untraced:  # the parameters static, as Dynamo said: what the partitioner saves for the backward
        torch_door.fx.mark_as_dynamo_graph(mod, frame, number, g.get("static") or ())
    # the repro sets the config the graph was compiled with, the capture's own values too (restored to the
    # user's by then: provenance off, the backward lowered lazily): the capture's are set again over it.
    # Node meta (original ATen ops, stack traces) kept as Dynamo keeps it: kernels get their descriptive names
    said: list[str] = []
    with torch_door.config.capture_config(said, fresh=True), torch_door.dynamo.compile_context(frame, number), \
            torch.fx.traceback.preserve_node_meta():
        if trains:
            with torch.enable_grad(), training.lowered_for_cuda() as lowering:
                torch_door.inductor.compile_fx(mod, reader.args, inner_compile=lowering.inner_compile,
                                               config_patches=config)
            lowered = lowering.lowered
        else:
            with torch.no_grad():
                torch_door.inductor.compile_fx(mod, reader.args, config_patches=config)
            lowered = None  # as the parent says: inference, or a script's forward or backward
    notes += [n for n in said if n not in notes]
    if untraced:
        notes.append(f"{g['label']}: its repro could not be traced as an FX graph ({untraced}); lowered from the "
                     "repro's module, its kernels named generically (triton_poi_fused_0)")
    return (sizes.names if sizes is not None else []), lowered


def _graph_module(mod: Any, nodes: Sequence[Sequence[str]] = ()) -> tuple[Any, Optional[str]]:
    """The repro's module as an FX graph, as Dynamo hands its graphs over (AOTAutograd traces a GraphModule with
    node metadata kept: kernels named for their ATen ops), its nodes named as Dynamo's (``nodes``); else the
    module itself, and why."""
    import torch

    try:
        gm = torch.fx.symbolic_trace(mod)
    except Exception as e:  # noqa: BLE001 - lowered all the same, from the module's own code: said so
        return mod, f"{type(e).__name__}: {e}"
    return _named_as(gm, nodes), None


def _named_as(gm: Any, nodes: Sequence[Sequence[str]]) -> Any:
    """``gm`` with its nodes named as in Dynamo's graph (``[op, name]`` each, in order): tracing the repro names a
    node for its op (``mean``) where Dynamo named it for the user's variable (``loss``), and the wrapper's comments
    name the nodes each kernel fuses, as a GPU's do. Left as traced where the graphs do not match node for node.
    A new graph, as renaming a node in place keeps its old name taken."""
    import torch

    ours = [n for n in gm.graph.nodes if n.op != "output"]
    if not nodes or [n.op for n in ours] != [op for op, _ in nodes]:
        return gm
    graph = torch.fx.Graph()
    env: dict[Any, Any] = {}
    for node, (_, name) in zip(ours, nodes):
        env[node] = graph.create_node(node.op, node.target, torch.fx.map_arg(node.args, env.__getitem__),
                                      torch.fx.map_arg(node.kwargs, env.__getitem__), name, node.type)
        env[node].meta = dict(node.meta)
    (out,) = [n for n in gm.graph.nodes if n.op == "output"]
    graph.output(torch.fx.map_arg(out.args[0], env.__getitem__), out.type)
    return torch.fx.GraphModule(gm, graph, class_name=type(gm).__name__)


def _set(mod: Any, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for p in parents:
        mod = getattr(mod, p)
    mod._buffers[last] = value


if __name__ == "__main__":
    sys.exit(main(sys.argv))
