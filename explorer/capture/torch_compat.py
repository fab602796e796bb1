"""Every torch internal the explorer touches, in one place.

torch.compile's seams are semi-private and move between releases. The rest of
the package asks this module, never torch's private modules directly, so a new
torch release means reading one file. Tried on torch 2.11, 2.13 and 2.14.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
from typing import Any, Callable, Iterator, Optional

TRACE_LOGGER = "torch.__trace"  # what tlparse reads; emits while it has handlers
IR_LOGGERS = {
    "ir_pre_fusion": "torch._inductor.debug.__ir_pre_fusion",
    "ir_post_fusion": "torch._inductor.debug.__ir_post_fusion",
}
BYTECODE_LOGGER = "torch._dynamo.convert_frame.__bytecode"

# config values set for the duration of a capture: (module path, attribute, value, why)
CAPTURE_CONFIG = (
    ("torch.compiler.config", "force_disable_caches", True,
     "a cache hit skips lowering, hiding post-grad graphs, IR and code"),
    ("torch._functorch.config", "force_non_lazy_backward_lowering", True,
     "the backward graph is otherwise lowered only at the first .backward()"),
    ("torch._inductor.config", "trace.provenance_tracking_level", 1,
     "links kernels to FX nodes and user lines"),
)


def torch_version() -> str:
    import torch

    return torch.__version__


def default_device() -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def current_compile_key() -> Optional[tuple[int, int, int]]:
    """(frame_id, frame_compile_id, attempt) of the compile running now, if any."""
    from torch._guards import CompileContext

    try:
        trace_id = CompileContext.current_trace_id()
    except Exception:  # noqa: BLE001 - no context is a normal answer
        return None
    if trace_id is None or trace_id.compile_id is None:
        return None
    cid = trace_id.compile_id
    if cid.frame_id is None:
        return None
    return (cid.frame_id, cid.frame_compile_id, getattr(trace_id, "attempt", 0) or 0)


def register_bytecode_hook(hook: Callable[[Any, Any], None]) -> Any:
    """Returns a handle with .remove(); the hook sees (original, rewritten) code objects."""
    from torch._dynamo.convert_frame import register_bytecode_hook as register

    return register(hook)


def _resolve(module_path: str, attr_path: str) -> tuple[Any, str]:
    import importlib

    obj = importlib.import_module(module_path)
    *parents, last = attr_path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    return obj, last


@contextlib.contextmanager
def capture_config(notes: list[str]) -> Iterator[None]:
    """Sets CAPTURE_CONFIG, restoring each old value afterwards, also on error."""
    saved: list[tuple[Any, str, Any]] = []
    # torch warns that disabling caches disables profile-guided dynamic shapes: expected here.
    # Only our own filter entry is removed afterwards, so the user's warning filters stay theirs.
    warnings.filterwarnings("ignore", message=".*force_disable_caches.*")
    ours = warnings.filters[0]
    try:
        for module_path, attr_path, value, why in CAPTURE_CONFIG:
            try:
                obj, name = _resolve(module_path, attr_path)
                old = getattr(obj, name)
            except (ImportError, AttributeError):
                notes.append(f"{module_path}.{attr_path} does not exist in this torch: {why}")
                continue
            saved.append((obj, name, old))
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, old in reversed(saved):
            setattr(obj, name, old)
        with contextlib.suppress(ValueError):
            warnings.filters.remove(ours)
        getattr(warnings, "_filters_mutated", lambda: None)()  # clears the "already warned" cache


def config_snapshot() -> dict[str, Any]:
    """The values CAPTURE_CONFIG touches, for tests that check nothing leaked."""
    out = {}
    for module_path, attr_path, _, _ in CAPTURE_CONFIG:
        try:
            obj, name = _resolve(module_path, attr_path)
            out[f"{module_path}.{attr_path}"] = getattr(obj, name)
        except (ImportError, AttributeError):
            pass
    return out


def instructions(code: Any) -> list[tuple[int, str, str, Optional[int], bool]]:
    """(offset, opname, argrepr, line, is_jump_target) across Python versions."""
    import dis

    out = []
    line = None
    for inst in dis.get_instructions(code):
        if sys.version_info >= (3, 13):
            line = inst.line_number
        elif inst.starts_line is not None:
            line = inst.starts_line
        out.append((inst.offset, inst.opname, inst.argrepr, line, bool(inst.is_jump_target)))
    return out


def cache_entries(code: Any) -> list[Any]:
    """Dynamo's cached (guards, code) entries for a code object, newest first."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return list(_debug_get_cache_entry_list(code))


def trace_logger() -> logging.Logger:
    return logging.getLogger(TRACE_LOGGER)



def forget_compilations(fn: Any) -> int:
    """Drops Dynamo's cached compilations of ``fn`` (and of its resume functions).

    Dynamo reuses a frame's cached compilation when its guards pass, and then
    nothing is compiled and nothing can be captured. ``explore`` promises a
    fresh compile, so it forgets earlier ones first. Returns how many code
    objects were reset.
    """
    from torch._dynamo.eval_frame import reset_code
    from torch._dynamo.resume_execution import ContinueExecutionCache

    todo = [c for c in _code_objects(fn)]
    done = 0
    while todo:
        code = todo.pop()
        try:
            reset_code(code)
            done += 1
            todo.extend(ContinueExecutionCache.cache.get(code, {}).values())
        except Exception:  # noqa: BLE001 - forgetting is best-effort
            pass
    return done


def _code_objects(fn: Any) -> list[Any]:
    fn = getattr(fn, "_orig_mod", fn)  # OptimizedModule
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    out = []
    for candidate in (fn, getattr(fn, "forward", None), getattr(fn, "__call__", None)):
        candidate = getattr(candidate, "__func__", candidate)
        code = getattr(candidate, "__code__", None)
        if code is not None and code not in out:
            out.append(code)
    return out
