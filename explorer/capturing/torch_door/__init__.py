"""The one door to torch's internals: one module per torch subsystem.

torch.compile's seams are semi-private and move between releases. The rest of the explorer reaches torch's
private modules and names (``torch._dynamo``, ``torch._C._...``, ``torch.utils._pytree``,
``torch.fx.experimental``) and checks torch's version only through these modules, so a new torch release means
reading this folder; ``tests/test_torch_door.py`` fails on a private torch name anywhere else in ``explorer/``.
Public API (``torch.compile``, ``torch.nn``, ``torch.fx.GraphModule``, ``torch.library``) is used where it is needed.

  dynamo.py        Dynamo: compile ids, traced code, the bytecode hook, backends, stances, failures, resume names
  dynamo_cache.py  Dynamo's per-code cache: entries, guards, the guard filter, forgetting compilations
  aot.py           AOTAutograd's side: torch's repro scripts of a graph and their inputs
  inductor.py      Inductor: IR and CUDA graph loggers, cache folders, output modules, backend, autotuning
  triton.py        Inductor's Triton kernels: autotuners and launch grids
  config.py        every config value a capture or a run sets on torch, and restoring it
  logs.py          the structured trace (torch._logging): the logger tlparse reads, interned file names
  fx.py            fake tensors, symbolic shapes, size symbols, pytrees
  dispatch.py      dispatch modes, calling an op below them
  distributed.py   the process group, torchrun, DDPOptimizer, where DDP and FSDP live
  export.py        torch.export and AOTInductor packages
  devices.py       the devices torch sees and their random state
  version.py       which torch this is: version, release, install folder
  cuda_standin.py  a CUDA device that is not there (the preview's child process only: the one place torch is patched)

Importing this package imports no torch: each function imports what it needs when called. Tried on torch 2.11,
2.12, 2.13 and 2.14; each module's docstring says where they differ.
"""

from . import (
               aot,
               config,
               devices,
               dispatch,
               distributed,
               dynamo,
               dynamo_cache,
               export,
               fx,
               inductor,
               logs,
               triton,
               version,
)

__all__ = ["aot", "config", "devices", "dispatch", "distributed", "dynamo", "dynamo_cache", "export", "fx", "inductor",
           "logs", "triton", "version"]
