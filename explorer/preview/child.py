"""The preview's child process: ``python -m explorer.preview.child IN.json OUT.json``.

Reads the graphs (torch's own repro scripts of them), lowers each with
Inductor for a faked CUDA device on fake tensors, under the explorer's capture,
and writes the capture as JSON. Runs apart from the user's process because the
CUDA mock patches torch, and because an op that reaches autograd on a fake CUDA
tensor in a CPU-only torch calls ``std::terminate``: here that ends this
process, and the parent says so.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any


def main(argv: list[str]) -> int:
    src, dst = argv[1], argv[2]
    with open(src, encoding="utf-8") as fh:
        job = json.load(fh)
    if os.environ.get("EXPLORER_PREVIEW_TEST_ABORT"):  # tests: a child that dies as std::terminate would
        os.abort()
    out: dict[str, Any] = {"graphs": [], "capture": None, "error": None, "notes": []}
    try:
        out.update(_run(job))
    except BaseException as e:  # noqa: BLE001 - anything goes back to the parent as words
        out["error"] = f"{type(e).__name__}: {e}"
        out["traceback"] = traceback.format_exc()[-4000:]
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(out, fh)
    return 0


def _run(job: dict) -> dict:
    import torch

    from explorer.capturing.model import to_dict
    from explorer.capturing.session import CaptureSession
    from explorer.capturing.triton_asm import with_kernel_details
    from explorer.preview.mock_cuda import FakeReader, fake_cuda

    torch._inductor.config.compile_threads = 1  # compile in this process: workers would not be faked
    notes: list[str] = []
    results: list[str] = []
    mode = job.get("mode")
    if mode in ("max-autotune", "max-autotune-no-cudagraphs"):
        notes.append(f"mode {mode!r} autotunes by timing candidates on the GPU; previewed with the default "
                     "choices instead")
        mode = None
    options = dict(job.get("options") or {})
    with fake_cuda():
        from torch._subclasses.fake_tensor import FakeTensorMode

        session = CaptureSession(fresh=True)  # lowered under a fake CUDA: nothing for torch's graph caches
        with session:
            for i, g in enumerate(job["graphs"]):
                try:
                    _lower(i, g, mode, options, FakeReader, FakeTensorMode)
                    results.append(f"{g['label']}: previewed")
                except Exception as e:  # noqa: BLE001 - one graph failing does not stop the others
                    results.append(f"{g['label']}: not previewed ({type(e).__name__}: {str(e)[:500]})")
                    if os.environ.get("EXPLORER_PREVIEW_DEBUG"):  # where the mock fell short, for whoever mends it
                        notes.append(traceback.format_exc()[-4000:])
        data = session.data
        if data is not None:
            data = _as_preview(with_kernel_details(data))
    return {"graphs": results, "capture": to_dict(data) if data is not None else None, "notes": notes}


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


def _lower(i: int, g: dict, mode: Any, options: dict, reader_cls: Any, fake_mode_cls: Any) -> None:
    import torch
    from torch._guards import CompileContext, CompileId, compile_context

    namespace: dict[str, Any] = {"__name__": "explorer_preview_repro"}
    exec(compile(g["repro"], f"<preview {g['label']}>", "exec"), namespace)
    mod, load_args = namespace["mod"], namespace["load_args"]
    fake = fake_mode_cls(allow_non_fake_inputs=False)
    reader = reader_cls(fake)
    load_args(reader)
    with fake:
        for name, buf in list(mod.named_buffers()):  # constants the graph holds: on the device too
            _set(mod, name, torch.empty_strided(buf.shape, buf.stride(), dtype=buf.dtype, device="cuda:0"))
    backend = torch._TorchCompileInductorWrapper(mode, options or None, None)
    cid = CompileId(frame_id=i, frame_compile_id=0)
    # node meta (original ATen ops, stack traces) kept as Dynamo keeps it: kernels get their descriptive names
    with compile_context(CompileContext(cid)), torch.no_grad(), torch.fx.traceback.preserve_node_meta():
        backend(mod, reader.args)


def _set(mod: Any, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for p in parents:
        mod = getattr(mod, p)
    mod._buffers[last] = value


if __name__ == "__main__":
    sys.exit(main(sys.argv))
