"""torch's compiler config: what a capture sets, the caches it turns off, Dynamo's options, restoring them.

Subsystem: the config modules (``torch._dynamo.config``, ``torch._inductor.config``, ``torch._functorch.config``,
``torch.fx.experimental._config``, ``torch.compiler.config``). Every value the explorer sets on torch is set here
and restored here, the script backend's code generator included (``inductor_config``).

Version differences: an option this torch lacks is a note, not an error (``capture_config``); on 2.13 the
provenance tracking level is part of the FX graph cache's key (``FxGraphHashDetails``); ``fresh_cache`` is
``fresh_inductor_cache`` in older torch (``cold_compile``).
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator, Optional

from . import logs

# config values set for the duration of a capture: (module path, attribute, value, why).
# force_non_lazy_backward_lowering costs a training forward's compile 1.3-1.8x (the backward's
# whole Inductor compile, which a plain torch.compile does only at the first .backward()); it is
# kept because a backward lowered lazily, later, came out without torch's kernel provenance.
#
# The graph-level caches (``GRAPH_CACHES``) stay as the program has them in the default capture: three of the values
# set here are part of their keys (``log_tlparse`` and ``trace.provenance_tracking_level`` of the FX graph
# cache's, FxGraphHashDetails; ``force_non_lazy_backward_lowering`` of AOTAutograd's, whose key holds functorch's
# config and the FX graph key's details), so an entry a capture hits was written by a capture, not by a plain run,
# and the explorer kept what a hit skips when that capture lowered the graph (``stage_store``). A fresh capture
# (``fresh=True``) turns them off instead: every graph lowered again. torch's code caches (the C++ builds,
# Triton's kernels) serve every mode: they are keyed by the generated source and serve below lowering (a fresh
# capture of a three-line function: 14.2 s every run with every cache off, against 4.2 s for a plain re-run).
# Where a graph cache cannot be turned off (an environment variable that forces it on), a fresh capture turns
# every cache off instead: ``FALLBACK_CONFIG``.
GRAPH_CACHES = (
    ("torch._inductor.config", "fx_graph_cache", False,
     "an FX graph cache hit skips lowering, hiding post-grad graphs, IR and code"),
    ("torch._inductor.config", "fx_graph_remote_cache", False,
     "a remote FX graph cache hit skips lowering, hiding post-grad graphs, IR and code"),
    ("torch._functorch.config", "enable_autograd_cache", False,
     "an AOTAutograd cache hit skips tracing and lowering, hiding the AOT graphs and all after them"),
    ("torch._functorch.config", "enable_remote_autograd_cache", False,
     "a remote AOTAutograd cache hit skips tracing and lowering, hiding the AOT graphs and all after them"),
)


FALLBACK_CONFIG = ("torch.compiler.config", "force_disable_caches", True,
                   "a graph cache forced on would skip lowering, hiding post-grad graphs, IR and code")


CAPTURE_CONFIG = GRAPH_CACHES + (
    ("torch._functorch.config", "force_non_lazy_backward_lowering", True,
     "the backward graph is otherwise lowered only at its first call: a capture of a forward would show "
     "no backward kernels, and a backward lowered later loses torch's provenance for its kernels"),
    # level 2 ("basic"): each kernel -> the post-grad nodes it computes, and their stack traces; level 1 also
    # follows every node through every pass (from_node), which the explorer does not read: on a 2,000-node
    # compile, alternating 3 rounds with plain torch.compile, level 1 alone cost 1.05x, level 2 alone 1.02x
    ("torch._inductor.config", "trace.provenance_tracking_level", 2,
     "links kernels to FX nodes and user lines"),
    # Inductor then logs its cost model's runtime of each op it scheduled (inductor_runtime_and_tensor_meta):
    # logging only, the code it writes is the same. It is part of the FX graph cache's key (a warm capture
    # keeps it as the user has it, so that their cache entries still hit)
    ("torch._inductor.config", "log_tlparse", True,
     "Inductor's estimated runtime of each op, shown beside the measured one"),
)


# A warm capture leaves these as the user has them: caches on, and the backward lowered when torch
# lowers it (functorch's config is part of AOTAutograd's cache key: forcing the backward's lowering
# would miss every entry the user's own runs wrote; log_tlparse is part of the FX graph cache's key).
# On torch 2.13 the provenance tracking level is part of the FX graph cache's key too (FxGraphHashDetails).
WARM_KEEPS = tuple(attr for _, attr, _, _ in GRAPH_CACHES + (FALLBACK_CONFIG,)) + ("force_non_lazy_backward_lowering",
                                                                                  "log_tlparse")


# The default capture leaves the graph caches as the program has them (see ``CAPTURE_CONFIG``'s comment)
COLD_KEEPS = tuple(attr for _, attr, _, _ in GRAPH_CACHES)


@contextlib.contextmanager
def capture_config(notes: list[str], warm: bool = False, export: bool = False, fresh: bool = False) -> Iterator[None]:
    """Sets CAPTURE_CONFIG (less ``WARM_KEEPS`` when ``warm``, less ``COLD_KEEPS`` unless ``fresh``), restoring
    each old value afterwards.

    ``export``: torch's detailed trace (``dtrace_structured``) is on too, so that
    ``torch.export`` writes the program it made (``exported_program``).
    Where every cache is off (``FALLBACK_CONFIG``, or the user's own ``force_disable_caches``), Inductor
    makes temporary folders: they are the session's to remove (``remove_fresh_cache_dirs``): only it knows
    which are its own.
    """
    saved: list[tuple[Any, str, Any]] = []
    # torch warns that disabling caches disables profile-guided dynamic shapes: expected here.
    # Only our own filter entry is removed afterwards, so the user's warning filters stay theirs.
    warnings.filterwarnings("ignore", message=".*force_disable_caches.*")
    ours = warnings.filters[0]
    if export:
        saved += logs.detailed_trace(notes)
    try:
        forced = []
        for entry in CAPTURE_CONFIG:
            module_path, attr_path, value, why = entry
            if (warm and attr_path in WARM_KEEPS) or (not fresh and attr_path in COLD_KEEPS):
                continue
            if not _set_config(entry, saved, notes) and entry in GRAPH_CACHES:
                forced.append(f"{module_path}.{attr_path}")
        if forced:  # forced on by the environment (TORCHINDUCTOR_FX_GRAPH_CACHE=1, ...): every cache off instead
            _set_config(FALLBACK_CONFIG, saved, notes)
            notes.append(f"{', '.join(forced)} stays on (forced by the environment, e.g. "
                         "TORCHINDUCTOR_FX_GRAPH_CACHE=1 or TORCHINDUCTOR_AUTOGRAD_CACHE=1): a hit would hide the "
                         "stages, so every cache is off for this capture, C++ and Triton kernels built afresh")
        yield
    finally:
        for obj, name, old in reversed(saved):
            setattr(obj, name, old)
        if ours in warnings.filters:  # someone may have reset the filters meanwhile
            warnings.filters.remove(ours)
        getattr(warnings, "_filters_mutated", lambda: None)()  # clears the "already warned" cache


def _resolve(module_path: str, attr_path: str) -> tuple[Any, str]:
    import importlib

    obj = importlib.import_module(module_path)
    *parents, last = attr_path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    return obj, last


def _set_config(entry: tuple[str, str, Any, str], saved: list[tuple[Any, str, Any]], notes: list[str]) -> bool:
    """Sets one config value, its old value kept in ``saved``; False where it did not take (absent from this
    torch: noted; or forced by an environment variable, which torch's config reads before any set value)."""
    module_path, attr_path, value, why = entry
    try:
        obj, name = _resolve(module_path, attr_path)
        old = getattr(obj, name)
    except (ImportError, AttributeError):
        notes.append(f"{module_path}.{attr_path} does not exist in this torch: {why}")
        return True  # nothing to fall back from: this torch has no such cache
    saved.append((obj, name, old))
    setattr(obj, name, value)
    return getattr(obj, name) == value


@contextlib.contextmanager
def uncached_compile() -> Iterator[None]:
    """Compiles inside lower afresh (the graph caches off: ``GRAPH_CACHES``); torch's code caches serve, so a
    kernel compiled before from the same source is loaded, not built again.

    Where a graph cache is forced on by the environment, every cache is off instead
    (``FALLBACK_CONFIG``): then each compile inside leaves a ``tmp*`` folder in the cache
    dir (see ``fresh_cache_dirs``), and the caller removes its own with ``remove_fresh_cache_dirs``.
    """
    saved: list[tuple[Any, str, Any]] = []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*force_disable_caches.*")
        try:
            if not all([_set_config(entry, saved, []) for entry in GRAPH_CACHES]):  # every one, then decide
                _set_config(FALLBACK_CONFIG, saved, [])
            yield
        finally:
            for obj, name, old in reversed(saved):
                setattr(obj, name, old)


@contextlib.contextmanager
def cold_compile() -> Iterator[None]:
    """Compiles inside miss every cache, so compile times are honest cold-start figures."""
    import torch

    saved = torch.compiler.config.force_disable_caches
    torch.compiler.config.force_disable_caches = True
    try:
        try:
            from torch._inductor.utils import fresh_cache as fresh
        except ImportError:  # older name
            from torch._inductor.utils import fresh_inductor_cache as fresh
        with fresh():
            yield
    finally:
        torch.compiler.config.force_disable_caches = saved


def set_dynamo_config(name: str, value: Any) -> None:
    """Changes one option inside a ``dynamo_config`` block (which restores it at its end)."""
    import torch._dynamo.config as config

    setattr(config, name, value)


def dynamo_config_value(name: str) -> Any:
    """``torch._dynamo.config.<name>`` (AttributeError when this torch has no such option)."""
    import torch._dynamo.config as config

    return getattr(config, name)


def dynamo_config(values: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
    """Sets ``torch._dynamo.config`` options for the block; each old value is put back, also on
    error or KeyboardInterrupt. Options this torch lacks are skipped (the caller checks first)."""
    import torch._dynamo.config as config

    return _patched(config, values)


def inductor_config(values: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
    """Sets ``torch._inductor.config`` options for the block (a script's code generator, ``cpu_backend``,
    ``cuda_backend``: what its own torch.compile calls then get), each old value put back at its end."""
    import torch._inductor.config as config

    return _patched(config, values)


def set_inductor_config(name: str, value: Any) -> None:
    """Changes one ``torch._inductor.config`` option for good: only for a process the explorer owns (the
    preview's child, ``compile_threads``)."""
    import torch._inductor.config as config

    setattr(config, name, value)


@contextlib.contextmanager
def _patched(config: Any, values: dict[str, Any]) -> Iterator[None]:
    saved: list[tuple[str, Any]] = []
    try:
        for name, value in values.items():
            old = getattr(config, name)
            saved.append((name, old))
            setattr(config, name, value)
        yield
    finally:
        for name, old in reversed(saved):
            setattr(config, name, old)


REPRO_CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config",
                        "torch.fx.experimental._config", "torch.compiler.config")


@contextlib.contextmanager
def preserved_compiler_configs(notes: list[str]) -> Iterator[None]:
    """torch's config modules as they were on entry, restored on exit.

    A repro script sets the compile-time config values it was made under
    (so compiling it again matches the user's compile); those must not outlive it.
    A module this torch lacks, or a value that cannot be restored, is a line in ``notes``.
    """
    import importlib

    saved = []
    for name in REPRO_CONFIG_MODULES:
        try:
            saved.append((name, importlib.import_module(name)))
        except ImportError:
            notes.append(f"{name} does not exist in this torch: its config is not restored after the repro")
    saved = [(name, module, module.get_config_copy()) for name, module in saved]
    try:
        yield
    finally:
        for name, module, before in saved:
            _restore_config(name, module, before, notes)


def _restore_config(name: str, module: Any, before: dict[str, Any], notes: list[str]) -> None:
    now = module.get_config_copy()
    for key, old in before.items():
        try:
            if key in now and now[key] != old:
                setattr(module, key, old)
        except Exception as e:  # noqa: BLE001 - one odd value (not comparable, read-only) must not stop the others
            notes.append(f"{name}.{key} could not be restored after the repro: {type(e).__name__}: {e}")


def cache_key_tag() -> str:
    """``torch.compiler.config.cache_key_tag`` as it stands (2.11-2.14): part of the FX graph cache's and
    AOTAutograd cache's keys (``FxGraphHashDetails``), and of PGO's profile key where a job id is set."""
    import torch.compiler.config as cconfig

    return cconfig.cache_key_tag


def set_cache_key_tag(tag: str) -> None:
    import torch.compiler.config as cconfig

    cconfig.cache_key_tag = tag


def inductor_fallback_random() -> Optional[bool]:
    """``torch._inductor.config.fallback_random`` (None if this torch lacks it)."""
    try:
        import torch._inductor.config as config
    except ImportError:
        return None
    return getattr(config, "fallback_random", None)
