"""What a TORCH_TRACE cannot hold, named per stage with how to get it, and the torch that wrote the trace.

A trace holds what torch's structured logger writes: no code objects (bytecode and its decompilation exist only
for resume functions, whose listings torch writes as ``*_ORIGINAL_BYTECODE`` artifacts), no loop-level IR (its
loggers are not the trace's; the job's TORCH_COMPILE_DEBUG folder has it as files), and nothing measured after
the compile (no runtime, no guard checked against live values). Each compilation's empty stage gets its reason
here, so ``stages.why_missing`` says it instead of the in-process capture's usual one.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Optional

from ..capturing import torch_door
from ..capturing.model import Compilation

RERUN = "re-run the script under the explorer (python -m explorer run SCRIPT.py, or %%compile in a notebook)"
BYTECODE = (f"a TORCH_TRACE holds no code objects, so no bytecode; torch writes a listing only for resume "
            f"functions (after a graph break). To see this frame's bytecode, {RERUN}")
DECOMPILED = (f"a TORCH_TRACE holds no code objects, so Dynamo's rewritten code cannot be decompiled; to see it, "
              f"{RERUN}")
LOOP_IR = ("Inductor's loop-level IR is not in a TORCH_TRACE (its loggers write elsewhere): run the job with "
           "TORCH_COMPILE_DEBUG=1 and open its torch_compile_debug folder (python -m explorer open "
           f"torch_compile_debug), or {RERUN}")
NO_RUNTIME = ("a TORCH_TRACE holds compile times only, no measured runtime: to time this graph eager vs compiled, "
              "re-run the script under the explorer with --time (python -m explorer run --time SCRIPT.py)")
NOT_IN_A_TRACE = (
    "Read from a TORCH_TRACE: what a trace cannot hold is not shown. Bytecode and its decompilation exist only "
    "for resume functions; Inductor's loop-level IR needs the job's TORCH_COMPILE_DEBUG folder (which `open` "
    "also reads); there is no measured runtime (eager vs compiled) and no guard checked against live values. "
    f"For those, {RERUN}.")


def with_gaps(comp: Compilation, ir_folder: bool) -> Compilation:
    """``comp`` with the reason of each stage a trace lacks (only where the stage is empty and the trace is why)."""
    why = dict(comp.missing)
    if comp.original_bytecode is None or not comp.original_bytecode.listing:
        why.setdefault("original_bytecode", BYTECODE)
    if comp.rewritten_bytecode is None:
        why.setdefault("rewritten_bytecode", BYTECODE)
        why.setdefault("decompiled", DECOMPILED)
    elif comp.rewritten_bytecode.decompiled is None:
        why.setdefault("decompiled", DECOMPILED)
    why.setdefault("timing", NO_RUNTIME)
    lowered = comp.output_code is not None or comp.post_grad_graph is not None
    if lowered and not ir_folder:
        for stage in ("ir_pre_fusion", "ir_post_fusion"):
            if getattr(comp, stage) is None:
                why.setdefault(stage, LOOP_IR)
    return dataclasses.replace(comp, missing=why) if why != comp.missing else comp


def version_note(written_by: Optional[str], installed: Optional[str]) -> Optional[str]:
    """Which torch wrote the trace, when it is not the one installed (or when the trace does not say)."""
    if written_by is None:
        since = ".".join(map(str, torch_door.version.VERSION_RECORD_SINCE))
        return (f"the trace does not say which torch wrote it (torch names itself in the trace since {since}; 2.11 "
                "does not): it is read as this explorer reads torch 2.11-2.14")
    if installed is None or _release(written_by) == _release(installed):
        return None
    here = f"torch {installed} is installed here" if installed else "no torch is installed here"
    return (f"the trace was written by torch {written_by}; {here}. The trace is read as far as this explorer "
            f"knows its records; any it cannot read are listed as problems or other artifacts")


def _release(version: str) -> str:
    return version.split("+", 1)[0]


@functools.lru_cache(maxsize=1)
def installed_torch() -> Optional[str]:
    """The installed torch's version, without importing torch (asked once: it reads the installed packages)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return None
