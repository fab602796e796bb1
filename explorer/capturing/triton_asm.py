"""Each Triton kernel on its own: launch shape, arguments, configs, and its IR down to PTX.

Read after the compile from Inductor's own objects, no hook in the compile
path: the output module Inductor loaded (found by the file name its
``inductor_output_code`` event names) holds one ``CachingAutotuner`` per Triton
kernel, with the configs it compiled and, for each, Triton's compiled kernel:
its ``asm`` (ttir, ttgir, llir, ptx), or, where Inductor launches kernels
itself (the static CUDA launcher keeps only the cubin), the stage files Triton
wrote beside that cubin. The wrapper's ``<kernel>.run(...)`` call gives what is
passed for each argument and the sizes the launch grid is computed from.

Works the same on a GPU and in the CUDA preview (``explorer.preview``), where
kernels are compiled for sm_90 but never loaded.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any, Optional

from . import torch_door
from .inductor_code import jit_params, run_args, triton_signature
from .inductor_code import triton as triton_text
from .inductor_code.wrapper import extern_call_counts
from .model import CaptureData, Compilation, ExternCall, Kernel, KernelArg, KernelConfig, KernelIR, TritonKernel

IR_STAGES = ("ttir", "ttgir", "llir", "ptx")
IR_LIMIT = 200_000  # characters per stage and kernel (PTX of a big template runs to a few 100 KB)
IR_TOTAL_LIMIT = 8_000_000  # characters of IR per report: past it, stages are left out with a note


def with_kernel_details(data: CaptureData, *, ir_limit: int = IR_LIMIT,
                        total_limit: int = IR_TOTAL_LIMIT, live: bool = True) -> CaptureData:
    """The capture with ``triton_kernels`` and ``extern_calls`` filled from the loaded output modules
    (``live=False``: from the wrappers' text only, for a trace read from a file: no module of it is loaded)."""
    budget = [total_limit]
    kernels: list[TritonKernel] = []
    externs: list[ExternCall] = []
    for comp in data.compilations:
        for oc in comp.output_code or ():
            externs += extern_calls(oc.code, comp.compile_id, oc.graph_kind)
            triton = [k for k in comp.kernels if k.language == "triton" and k.graph_kind == oc.graph_kind]
            if not triton:
                continue
            module = torch_door.inductor.output_module(oc.filename) if live else None
            tuners = torch_door.triton.triton_autotuners(module) if module is not None else {}
            for k in triton:
                kernels.append(describe(k, oc.code, tuners.get(k.name), comp, ir_limit, budget, oc.filename))
    return dataclasses.replace(data, triton_kernels=data.triton_kernels + tuple(kernels),
                               extern_calls=data.extern_calls + tuple(externs))


def extern_calls(wrapper: str, compile_id: Optional[str] = None, graph_kind: str = "") -> list[ExternCall]:
    """Library calls the wrapper makes (``extern_kernels.mm``, ``torch.ops.aten.convolution.default``)."""
    return [ExternCall(name, compile_id, graph_kind, n) for name, n in extern_call_counts(wrapper).items()]


def describe(kernel: Kernel, wrapper: str, tuner: Any, comp: Optional[Compilation] = None,
             ir_limit: int = IR_LIMIT, budget: Optional[list[int]] = None,
             module_file: Optional[str] = None) -> TritonKernel:
    notes: list[str] = []
    sig = triton_signature(kernel.source)
    params = jit_params(kernel.source)
    call_args = run_args(kernel.name, wrapper) or []
    args = _args(params, sig, call_args, kernel.source)
    heuristic = _heuristic(kernel.source, tuner)
    configs, results = _configs(tuner)
    chosen = next((i for i, c in enumerate(configs) if c.chosen), None)
    if len(configs) > 1 and chosen is None:
        notes.append(f"{len(configs)} configs compiled; Inductor picks one by timing them at the first launch "
                     "(not launched yet)")
    sizes = {a.name: int(a.value) for a in args if a.role == "size" and a.value and a.value.isdigit()}
    show = chosen if chosen is not None else (0 if configs else None)
    grid = None
    grid_source = ""
    if show is not None and tuner is not None:
        cfg = configs[show]
        grid = torch_door.triton.grid_for(getattr(tuner, "inductor_meta", {}) or {}, cfg.params, sizes)
        grid_source = ("Inductor's grid for the " + ("chosen" if chosen is not None else "first") +
                       " config and the sizes the wrapper passes") if grid else \
            "not computed (sizes known only at run time, or a grid kind this explorer does not evaluate)"
    warp = _warp_size(tuner)
    ir: tuple[KernelIR, ...] = ()
    ir_source = ""
    if show is not None and show < len(results):
        texts, ir_source = _ir_texts(results[show], tuner, notes, kernel.name, module_file)
        cut = [_cut(stage, texts[stage], ir_limit, budget) for stage in IR_STAGES if stage in texts]
        ir = tuple(c for c in cut if c is not None)
        if budget is not None and budget[0] <= 0 and len(ir) < len(texts):
            notes.append("some IR stages left out: the report's IR budget is spent")
    elif tuner is None:
        notes.append("Inductor's kernel object was not found (module not loaded in this process): no configs or IR")
    return TritonKernel(
        name=kernel.name, compile_id=comp.compile_id if comp else None, graph_kind=kernel.graph_kind,
        heuristic=heuristic, size_hints=_size_hints(kernel.source, tuner), args=tuple(args), configs=tuple(configs),
        grid=grid, grid_source=grid_source,
        threads_per_block=configs[show].num_warps * warp if show is not None else None,
        target=_target(tuner, ir), ir=ir, ir_config=show if ir else None, ir_source=ir_source,
        source_nodes=kernel.source_nodes, aten_ops=kernel.aten_ops, user_lines=kernel.user_lines,
        notes=tuple(notes))


# ---- from the source and the wrapper ----

def _args(params: list[tuple[str, bool]], sig: dict[str, str], call: list[str], source: str) -> list[KernelArg]:
    out = []
    values = iter(call)
    mutated = triton_text.mutated_arg_names(source)
    for name, constexpr in params:
        ty = sig.get(name, "constexpr" if constexpr else "")
        if constexpr or ty == "constexpr":
            out.append(KernelArg(name, "constexpr", "constexpr"))
            continue
        value = next(values, None)
        out.append(KernelArg(name, ty, triton_text.arg_role(name, ty, mutated), value))
    return out


def _heuristic(source: str, tuner: Any) -> str:
    found = triton_text.heuristic(source)
    if found:
        return found
    h = getattr(tuner, "heuristic_type", None)
    return str(getattr(h, "name", h or "")).lower()


def _size_hints(source: str, tuner: Any) -> dict[str, int]:
    hints = getattr(tuner, "size_hints", None)
    if not isinstance(hints, dict):
        hints = triton_text.size_hints(source) or {}
    return {str(k): int(v) for k, v in (hints or {}).items() if isinstance(v, int)}


# ---- from Inductor's kernel object ----

def _configs(tuner: Any) -> tuple[list[KernelConfig], list[Any]]:
    if tuner is None:
        return [], []
    results = list(getattr(tuner, "compile_results", None) or [])
    launchers = list(getattr(tuner, "launchers", None) or [])
    chosen_cfg = launchers[0].config if len(launchers) == 1 and hasattr(launchers[0], "config") else None
    configs = []
    for r in results:
        cfg = getattr(r, "config", None)
        if cfg is None:
            continue
        configs.append(KernelConfig(params={k: int(v) for k, v in dict(cfg.kwargs).items() if isinstance(v, int)},
                                    num_warps=int(getattr(cfg, "num_warps", 0) or 0),
                                    num_stages=int(getattr(cfg, "num_stages", 0) or 0),
                                    chosen=chosen_cfg is not None and _same(cfg, chosen_cfg)))
    if len(configs) == 1 and not any(c.chosen for c in configs):
        configs[0] = dataclasses.replace(configs[0], chosen=True)  # the only one
    return configs, results


def _same(a: Any, b: Any) -> bool:
    return (a is b) or (dict(a.kwargs) == dict(b.kwargs) and a.num_warps == b.num_warps
                        and a.num_stages == b.num_stages)


def _ir_texts(result: Any, tuner: Any, notes: list[str], name: str = "",
              module_file: Optional[str] = None) -> tuple[dict[str, str], str]:
    kernel = getattr(result, "kernel", None)
    asm = getattr(kernel, "asm", None)
    if isinstance(asm, dict) and any(s in asm for s in IR_STAGES):
        return ({s: _text(asm[s]) for s in IR_STAGES if s in asm},
                "the compiled kernel's asm (Triton's CompiledKernel, as Inductor holds it)")
    path = getattr(kernel, "cubin_path", None)
    if path:
        texts = _read_stages(os.path.splitext(path)[0])
        if texts:
            return texts, "Triton's stage files beside the cubin Inductor launches (its static CUDA launcher)"
    digest = getattr(kernel, "hash", None) or (getattr(kernel, "metadata", None) or {}).get("hash") \
        if not isinstance(getattr(kernel, "metadata", None), tuple) else getattr(kernel, "hash", None)
    if isinstance(digest, str) and name:
        for folder in _cache_folders(digest, module_file):
            texts = _read_stages(os.path.join(folder, getattr(kernel, "name", None) or name))
            if texts:
                return texts, "Triton's cache entry for the compiled kernel (found by its hash)"
    notes.append("no IR: the compiled kernel keeps no asm, and its stage files were not found")
    return {}, ""


# Triton's stage files read from the capture's temporary cache folders before they are removed
# (torch_door.config.capture_config): {path without extension: {stage: text}}, newest last, bounded.
_KEPT: dict[str, dict[str, str]] = {}
KEPT_LIMIT = 4000  # kernels


def keep_stage_files(folders: list[str]) -> None:
    """Reads every ``*.ttir|ttgir|llir|ptx`` under ``folders`` into memory (called just before their removal)."""
    for folder in folders:
        for dirpath, _dirs, files in os.walk(folder):
            for f in files:
                base, ext = os.path.splitext(f)
                if ext[1:] not in IR_STAGES:
                    continue
                with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                    _KEPT.setdefault(os.path.join(dirpath, base), {})[ext[1:]] = fh.read()
    while len(_KEPT) > KEPT_LIMIT:
        del _KEPT[next(iter(_KEPT))]


def _read_stages(base: str) -> dict[str, str]:
    texts = {}
    for stage in IR_STAGES:
        try:
            with open(f"{base}.{stage}", encoding="utf-8", errors="replace") as fh:
                texts[stage] = fh.read()
        except OSError:  # removed with the capture's temporary folder: kept in memory then
            if stage in _KEPT.get(base, {}):
                texts[stage] = _KEPT[base][stage]
    return texts


def _cache_folders(digest: str, module_file: Optional[str]) -> list[str]:
    """Where Triton may have cached a kernel of this hash: its cache dir, Inductor's (per compile)."""
    import base64
    import glob

    try:
        key = base64.b32encode(bytes.fromhex(digest)).decode("utf-8").rstrip("=")
    except ValueError:
        return []
    roots = [os.environ.get("TRITON_CACHE_DIR"), os.path.join(os.path.expanduser("~"), ".triton", "cache")]
    if module_file:
        roots.append(os.path.join(os.path.dirname(os.path.dirname(module_file)), "triton"))
    roots.append(os.path.join(torch_door.inductor.cache_root(), "triton"))
    out = []
    for root in filter(None, roots):
        out += [os.path.join(root, key)] + glob.glob(os.path.join(root, "*", key))
    # a folder the capture already removed counts when its stage files were kept (``keep_stage_files``)
    kept = {os.path.dirname(base) for base in _KEPT}
    found = [d for d in dict.fromkeys(out) if os.path.isdir(d) or d in kept]
    if not found:  # glob only sees folders that still exist: look among the kept ones by key
        found = sorted(d for d in kept if os.path.basename(d) == key)
    return found


def _text(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _cut(stage: str, text: str, limit: int, budget: Optional[list[int]]) -> Optional[KernelIR]:
    size = len(text)
    room = limit if budget is None else max(0, min(limit, budget[0]))
    if room == 0 and size:
        return None
    kept = text[:room]
    if budget is not None:
        budget[0] -= len(kept)
    return KernelIR(stage=stage, text=kept, size=size, truncated=len(kept) < size)


def _warp_size(tuner: Any) -> int:
    dev = (getattr(tuner, "triton_meta", None) or {}).get("device")
    return int(getattr(dev, "warp_size", None) or 32)


def _target(tuner: Any, ir: tuple[KernelIR, ...] = ()) -> str:
    for stage in ir:
        if stage.stage == "ptx":
            m = re.search(r"^\.target\s+(\S+)", stage.text, re.M)
            if m:
                return f"cuda {m.group(1)}"
    dev = (getattr(tuner, "triton_meta", None) or {}).get("device")
    if dev is None:
        return ""
    cc = getattr(dev, "cc", None)
    kind = getattr(dev, "type", "cuda")
    return f"{kind} sm_{cc}" if isinstance(cc, int) else str(kind)
