"""Inductor (``torch._inductor``): its loggers, cache folders, output modules, backend, autotuning and CUDA graphs.

Subsystem: TorchInductor, which lowers FX graphs to C++ and Triton. Its config values are set in ``config``; its
Triton launchers are read in ``triton``; AOTInductor is in ``export``. Names of the records Inductor writes to the
structured trace that the stage store reads (``FX_HIT_SKIPS``, ``FX_CACHE_OUTCOMES``) live here too.

Version differences:
- ``estimated_runtime_ns`` is in milliseconds from torch 2.10 on, nanoseconds before (``runtime_estimate_unit``);
- an FX graph cache hit writes the post-grad graph, output code and provenance again, not the IR (2.13);
- the autotuning feedback savers' registry: ``get_algorithm_selector_cache()`` in 2.11-2.14, a module global before.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterable, Iterator, Optional

from .version import release_of

IR_LOGGERS = {
    "ir_pre_fusion": "torch._inductor.debug.__ir_pre_fusion",
    "ir_post_fusion": "torch._inductor.debug.__ir_post_fusion",
}
# CUDA graph trees' artifact loggers: skips ("skipping cudagraphs due to ...") and re-records
CUDAGRAPH_LOGGERS = ("torch._inductor.cudagraph_trees.__cudagraphs", "torch._inductor.cudagraph_utils.__cudagraphs")


def cache_root() -> str:
    """Inductor's cache folder, absolute: ``TORCHINDUCTOR_CACHE_DIR`` or torch's default.

    Not ``cache_dir()``: it writes TORCHINDUCTOR_CACHE_DIR into os.environ, a change the user's cell would see.
    """
    import os

    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    return os.path.abspath(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir())


def fresh_cache_dirs() -> set[str]:
    """The ``tmp*`` folders under Inductor's cache dir.

    With ``force_disable_caches`` each Inductor compile writes into a fresh
    ``tempfile.mkdtemp(dir=cache_dir())`` that torch keeps (``fresh_cache(...,
    delete=False)`` in compile_fx.py): the code it loads from there is already
    loaded when the compile returns.
    """
    import os

    root = cache_root()
    if not os.path.isdir(root):
        return set()
    return {os.path.join(root, n) for n in os.listdir(root) if n.startswith("tmp")}


def remove_fresh_cache_dirs(before: set[str], owned_files: Iterable[str], notes: list[str],
                            before_removal: Optional[Callable[[list[str]], None]] = None) -> None:
    """Deletes the fresh folders (see ``fresh_cache_dirs``) that hold this capture's own output code.

    New folders alone are not proof of ownership: another process (a second
    notebook, a plain run beside the CLI) shares the cache dir and writes its
    own ``tmp*`` folders at the same moment; deleting those breaks its compile
    ("No such file or directory" from g++). Only folders holding a file this
    capture's trace named (``inductor_output_code``'s filename) are removed.
    ``before_removal(folders)`` reads what it needs from them first (Triton's stage files).
    """
    import os
    import shutil

    owned = [os.path.abspath(f) for f in owned_files]
    fresh = [p for p in sorted(fresh_cache_dirs() - before) if any(f.startswith(p + os.sep) for f in owned)]
    if before_removal is not None and fresh:
        try:
            before_removal(fresh)
        except Exception as e:  # noqa: BLE001 - reading them is optional; removing them is not
            notes.append(f"could not read Triton's stage files before removing the temporary folders: "
                         f"{type(e).__name__}: {e}")
    for path in fresh:
        try:
            shutil.rmtree(path)
        except OSError as e:  # e.g. Windows keeps a loaded kernel's file open
            notes.append(f"could not remove Inductor's temporary cache folder {path}: {e}")


STAGE_STORE_FOLDER = ("compile-explorer", "stages")


def stage_store_dir() -> str:
    """The explorer's stage store, inside Inductor's cache folder (``TORCHINDUCTOR_CACHE_DIR`` or torch's default):
    clearing that cache clears both."""
    import os

    return os.path.join(cache_root(), *STAGE_STORE_FOLDER)


KEY_STORE_FOLDER = ("compile-explorer", "keys")


def key_store_dir() -> str:
    """The explorer's key store (the last cache key components of each graph's lines), beside the stage store."""
    import os

    return os.path.join(cache_root(), *KEY_STORE_FOLDER)


# What an FX graph cache hit does not write again (2.13: FxGraphCache.cache_hit_post_compile writes the post-grad
# graph, the output code and the provenance tables from the entry; the loop-level IR, the runtime estimates and the
# collective schedule exist only while a graph is lowered): the records the explorer's stage store keeps
FX_HIT_SKIPS = ("ir_pre_fusion", "ir_post_fusion", "artifact:inductor_runtime_and_tensor_meta",
                "artifact:inductor_collective_schedule")


# of those, the ones every lowering under a capture writes (the collective schedule only where there are collectives)
FX_HIT_ALWAYS = FX_HIT_SKIPS[:3]


# the records that open a lowering (its post-grad graph; a hit writes it under the event's own name), and the
# records of its FX graph cache lookup, written when the lowering is done (a miss, a bypass) or loaded (a hit);
# with the graph caches off none is written (compile_fx.py: "Don't clog up the main tlparse output")
FX_LOWERING_STARTS = ("artifact:inductor_post_grad_graph", "inductor_post_grad_graph")


FX_CACHE_OUTCOMES = {"artifact:fx_graph_cache_miss": "miss", "artifact:fx_graph_cache_hit": "hit",
                     "artifact:fx_graph_bundled_cache_hit": "hit", "artifact:fx_graph_cache_bypass": "bypass",
                     "fx_graph_cache_miss": "miss", "fx_graph_cache_hit": "hit", "fx_graph_cache_bypass": "bypass"}


OUTPUT_CODE_RECORD = "inductor_output_code"


def runtime_estimate_unit(version: Optional[str]) -> tuple[float, str]:
    """(seconds per unit, what to call it) of the number Inductor writes as ``estimated_runtime_ns`` in
    ``inductor_runtime_and_tensor_meta``, for the torch that wrote it (``2.13.0+cpu``; None: unknown).

    The scheduler's estimate (``BaseSchedulerNode.get_estimated_runtime``) was in nanoseconds until
    torch's runtime-estimation rework of September 2025 (pytorch#161405, with the NCCL estimator), which
    made it milliseconds; the logged field kept its name. Torch 2.10 on writes milliseconds; 2.9, cut
    about then, is read as nanoseconds.
    """
    release = release_of(version)
    if release is None:  # a trace naming no torch: 2.11 writes no version record, every torch read here writes ms
        return 1e-3, ("ms (the torch that wrote it is not named: read as torch 2.10 on writes it, milliseconds "
                      "under estimated_runtime_ns; torch 2.9 and before wrote nanoseconds)")
    if release >= (2, 10):
        return 1e-3, f"ms (torch {release[0]}.{release[1]} writes milliseconds under estimated_runtime_ns)"
    return 1e-9, f"ns (torch {release[0]}.{release[1]})"


def kernel_profile_options(device_type: str) -> dict[str, Any]:
    """Inductor options that make a per-kernel profile possible on this device type."""
    if device_type == "cpu":
        # each C++ kernel becomes a torch.profiler row named graph_<n>_<kernel name>
        return {"cpp.enable_kernel_profile": True}
    # Triton kernels then carry 'kernel_num_gb' (bytes moved) in their inductor_meta
    return {"benchmark_kernel": True}


def inductor_backend(mode: Optional[str] = None, options: Optional[dict] = None,
                     dynamic: Optional[bool] = None) -> Callable[..., Any]:
    """The callable torch.compile(backend="inductor", mode=, options=) itself builds.

    Reusing torch's own wrapper means mode and options reach compile_fx exactly
    as they would without the explorer in between.
    """
    import torch

    return torch._TorchCompileInductorWrapper(mode, options, dynamic)


def output_module(filename: Optional[str]) -> Any:
    """The loaded output module whose file is ``filename`` (Inductor's PyCodeCache), or None."""
    if not filename:
        return None
    try:
        from torch._inductor.codecache import PyCodeCache
    except ImportError:
        return None
    import os

    want = os.path.realpath(filename)
    for mod in list(getattr(PyCodeCache, "modules", ()) or ()):
        path = getattr(mod, "__file__", None)
        if path and os.path.realpath(path) == want:
            return mod
    for mod in list((getattr(PyCodeCache, "modules_no_attr", {}) or {}).values()):
        path = getattr(mod, "__file__", None)
        if path and os.path.realpath(path) == want:
            return mod
    # with caches off each compile clears PyCodeCache; the module stays in sys.modules under its key
    key = os.path.splitext(os.path.basename(filename))[0]
    for name in (f"torch._inductor.runtime.compile_tasks.{key}", key):
        mod = sys.modules.get(name)
        if mod is not None:
            return mod
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if path and path.endswith(".py") and key in path and os.path.realpath(path) == want:
            return mod
    return None


def kernel_binary(module: Any, name: str) -> Optional[str]:
    """The file of the compiled binary behind a C++ kernel of a loaded output module, or None.

    ``async_compile.cpp_pybinding`` binds the kernel as a builtin function of an
    extension module loaded from Inductor's cache (``.../cXXXX.main.so``).
    """
    fn = getattr(module, name, None)
    owner = getattr(fn, "__self__", None)
    path = getattr(owner, "__file__", None)
    return path if isinstance(path, str) and path.endswith((".so", ".pyd", ".dylib")) else None


@contextlib.contextmanager
def autotune_feedback(sink: Callable[..., None], notes: list[str]) -> Iterator[bool]:
    """Calls ``sink(timings, name, input_nodes, choices)`` for each op Inductor autotunes inside the block.

    Inductor's own hook (``select_algorithm.add_feedback_saver``); yields False
    when this torch has none. Only this saver is removed afterwards.
    """
    try:
        from torch._inductor import select_algorithm as sa
    except ImportError:
        yield False
        return
    if not hasattr(sa, "add_feedback_saver"):
        yield False
        return

    def saver(timings: Any, name: Any, input_nodes: Any, choices: Any, *rest: Any) -> None:
        try:
            sink(timings, name, input_nodes, choices)
        except Exception as e:  # noqa: BLE001 - never break the compile: noted
            _note_once(notes, f"an autotuning result could not be read: {type(e).__name__}: {e}")

    sa.add_feedback_saver(saver)
    try:
        yield True
    finally:
        cache = sa.get_algorithm_selector_cache() if hasattr(sa, "get_algorithm_selector_cache") else \
            getattr(sa, "_ALGORITHM_SELECTOR_CACHE", None)
        fns = getattr(cache, "feedback_saver_fns", None)
        if isinstance(fns, list) and saver in fns:
            fns.remove(saver)


def _note_once(notes: list[str], text: str) -> None:
    """A listener's own failure, said once (the same error on every record is one note)."""
    if text not in notes:
        notes.append(text)


def inductor_counters() -> dict[str, int]:
    from torch._dynamo.utils import counters

    return dict(counters["inductor"])


def cudagraph_step() -> None:
    """A new step for CUDA graph trees (``torch.compiler.cudagraph_mark_step_begin``): a graph called
    outside Dynamo's frames records and replays only once steps begin."""
    import torch

    torch.compiler.cudagraph_mark_step_begin()


def cudagraph_tree_counts() -> tuple[int, int]:
    """(graphs recorded, unexpected re-recordings) over CUDA graph trees' managers in this thread, so far.

    Read from the managers' own counters (``graph_counter`` is a count(): its repr holds the next id).
    """
    import re as _re

    try:
        from torch._inductor import cudagraph_trees as ct

        containers = getattr(ct.local, "tree_manager_containers", None) or {}
    except Exception:  # noqa: BLE001 - no CUDA graph trees in this torch or thread
        return 0, 0
    recorded = rerecorded = 0
    for container in list(containers.values()):
        manager = getattr(container, "tree_manager", None)
        if manager is None:
            continue
        m = _re.search(r"count\((\d+)", repr(getattr(manager, "graph_counter", "")))
        recorded += int(m.group(1)) if m else 0
        for per_fn in (getattr(manager, "num_rerecord", None) or {}).values():
            rerecorded += sum(int(v) for v in dict(per_fn).values())
    return recorded, rerecorded


def halide_missing() -> Optional[str]:
    """Why the halide backend cannot run here, or None when it can."""
    import importlib.util

    if importlib.util.find_spec("halide") is None:
        return ("the halide backend needs the `halide` Python package, which is not installed: "
                "pip install halide==21.0.0 (Halide's own wheels; Linux and macOS)")
    return None


def backend_config(mode: Optional[str], options: Optional[dict]) -> dict[str, Any]:
    """The config patches torch.compile(mode=, options=) gives Inductor (what ``inductor_backend`` holds)."""
    return inductor_backend(mode, options, None).config


def compile_fx(gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
    """Inductor's own entry point (``compile_fx.compile_fx``): an FX graph lowered without Dynamo in front."""
    from torch._inductor.compile_fx import compile_fx as lower

    return lower(gm, example_inputs, **kwargs)
