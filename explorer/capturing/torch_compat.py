"""Every torch internal the explorer touches, in one place.

torch.compile's seams are semi-private and move between releases. The rest of
the package asks this module, never torch's private modules directly, so a new
torch release means reading one file. Tried on torch 2.11, 2.13 and 2.14.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import sys
import warnings
from typing import Any, Callable, Iterable, Iterator, Optional

from .compile_id import CompileId

TRACE_LOGGER = "torch.__trace"  # what tlparse reads; emits while it has handlers
# How Dynamo's graph print names a torch._dynamo.nonstrict_trace function it calls opaquely: an attribute
# of the graph module named after the function. 2.13-2.14: `NAME_callable : ..._LeafCallable = self.NAME_callable`;
# 2.11-2.12: `NAME_spec : torch.utils._pytree.TreeSpec = self.NAME_spec` (then NAME_input_spec, not a function).
NONSTRICT_TRACE_ATTRIBUTE = re.compile(
    r"^\s*(?P<name>\w+)_(?:callable\s*:[^=]*_LeafCallable = self\.(?P=name)_callable"
    r"|spec\s*:[^=]*TreeSpec = self\.(?P=name)_spec)\s*$")
IR_LOGGERS = {
    "ir_pre_fusion": "torch._inductor.debug.__ir_pre_fusion",
    "ir_post_fusion": "torch._inductor.debug.__ir_post_fusion",
}
BYTECODE_LOGGER = "torch._dynamo.convert_frame.__bytecode"
# Dynamo's trace_call artifact: each call it inlines ("TRACE inlined call f from file:line ...") and each FX
# node it makes ("TRACE FX call node from ..."), with the frame it was tracing: the user line a library
# function that made a node (dist.all_reduce -> _functional_collectives.py) was called from. Python >= 3.11
# logs the FX calls only.
TRACE_CALL_LOGGERS = ("torch._dynamo.symbolic_convert.__trace_call", "torch._dynamo.output_graph.__trace_call")
# DDPOptimizer's module logger: its INFO line names the bucket cap and the bucket count (also when it
# made one bucket and so wrote no split to the trace)
DDP_OPTIMIZER_LOGGER = "torch._dynamo.backends.distributed"

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


def release_of(version: Optional[str]) -> Optional[tuple[int, int]]:
    """(major, minor) of a torch version string (``2.13.0+cpu`` -> (2, 13)); None when it names none."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


VERSION_RECORD_SINCE = (2, 12)  # torch's trace names its version (a torch_version artifact) since pytorch#178024


def writes_version_record(version: Optional[str]) -> bool:
    """Whether the torch of ``version`` (``2.13.0+cpu``) names itself in its TORCH_TRACE: 2.11 does not."""
    release = release_of(version)
    return release is not None and release >= VERSION_RECORD_SINCE


def torch_version() -> str:
    import torch

    return torch.__version__


def default_device() -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def describe_devices(devices: list[str]) -> str:
    """"cpu", "cuda:0 (NVIDIA H200)", ...: the devices the captured graphs ran on, named."""
    import torch

    if not devices:
        return default_device()
    named = []
    for dev in devices:
        if dev.startswith("cuda") and torch.cuda.is_available():
            index = int(dev.split(":")[1]) if ":" in dev else 0
            dev = f"{dev} ({torch.cuda.get_device_name(index)})"
        named.append(dev)
    return ", ".join(named)


def current_compile_id() -> Optional[CompileId]:
    """The compile running now on this thread (with Dynamo's restart attempt), or None outside one."""
    from torch._guards import CompileContext

    trace_id = CompileContext.current_trace_id()  # None outside a compile (2.11-2.14)
    if trace_id is None or trace_id.compile_id is None or trace_id.compile_id.frame_id is None:
        return None
    cid = trace_id.compile_id
    return CompileId(cid.frame_id, cid.frame_compile_id or 0, getattr(trace_id, "attempt", 0) or 0)


def interned_strings() -> dict[int, str]:
    """The file names the trace has interned so far in this process, by number. torch writes each one's ``str``
    record once per process, so a capture after another sees only the numbers (2.11-2.14: structured.INTERN_TABLE)."""
    from torch._logging import structured

    return {index: path for path, index in getattr(structured, "INTERN_TABLE", {}).items()}


def traced_code() -> Optional[tuple[Any, ...]]:
    """The code objects Dynamo has traced in the compile under way: the frame's first, then each function it
    inlined, once per inlining, as each finished (``TracingContext.traced_code``, 2.11-2.14); None outside one.
    Read while a structured-trace record of that compile arrives (Dynamo's output graph: the frame's tracing
    context is gone by the bytecode hook). The Source pane's inlined functions and the is_compiling finding read it."""
    from torch._guards import TracingContext

    ctx = TracingContext.try_get()
    codes = getattr(ctx, "traced_code", None) if ctx is not None else None
    return tuple(codes) if codes else None


# torch's own frame around what torch.compile was given when it cannot hook that directly (a torch.nn module such
# as Sequential or Linear, a torch function): torch/_dynamo/external_utils.py's wrap_inline makes `inner`, which
# calls it (2.11-2.14). Dynamo compiles `inner` and inlines the module's forward into it.
WRAPPER_FRAMES = ((("_dynamo", "external_utils.py"), ("inner", "wrap_inline.<locals>.inner")),)


@functools.lru_cache(maxsize=1)
def torch_dir() -> str:
    """The folder of the torch package this process imports, ending in a separator."""
    import os

    import torch

    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


# how torch.nn.Module's own call machinery is named when Dynamo inlines it between a wrapper and a module's forward
MODULE_CALL_FUNCTIONS = frozenset({"Module._call_impl", "Module._wrapped_call_impl", "_call_impl",
                                   "_wrapped_call_impl"})


def is_wrapper_frame(filename: str, name: str) -> bool:
    """Whether a compiled frame is torch's wrapper around what the user compiled (``WRAPPER_FRAMES``)."""
    parts = tuple(filename.replace("\\", "/").split("/")[-2:])
    return any(parts == tail and name in names for tail, names in WRAPPER_FRAMES)


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


def fresh_cache_dirs() -> set[str]:
    """The ``tmp*`` folders under Inductor's cache dir.

    With ``force_disable_caches`` each Inductor compile writes into a fresh
    ``tempfile.mkdtemp(dir=cache_dir())`` that torch keeps (``fresh_cache(...,
    delete=False)`` in compile_fx.py): the code it loads from there is already
    loaded when the compile returns.
    """
    import os

    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    # not cache_dir(): it writes TORCHINDUCTOR_CACHE_DIR into os.environ, a change the user's cell would see
    root = os.path.abspath(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir())
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


# A warm capture leaves these as the user has them: caches on, and the backward lowered when torch
# lowers it (functorch's config is part of AOTAutograd's cache key: forcing the backward's lowering
# would miss every entry the user's own runs wrote; log_tlparse is part of the FX graph cache's key).
# On torch 2.13 the provenance tracking level is part of the FX graph cache's key too (FxGraphHashDetails).
WARM_KEEPS = tuple(attr for _, attr, _, _ in GRAPH_CACHES + (FALLBACK_CONFIG,)) + ("force_non_lazy_backward_lowering",
                                                                                  "log_tlparse")
# The default capture leaves the graph caches as the program has them (see ``CAPTURE_CONFIG``'s comment)
COLD_KEEPS = tuple(attr for _, attr, _, _ in GRAPH_CACHES)

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
STAGE_STORE_FOLDER = ("compile-explorer", "stages")


def stage_store_dir() -> str:
    """The explorer's stage store, inside Inductor's cache folder (``TORCHINDUCTOR_CACHE_DIR`` or torch's default):
    clearing that cache clears both."""
    import os

    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    # not cache_dir(): it writes TORCHINDUCTOR_CACHE_DIR into os.environ, a change the user's cell would see
    root = os.path.abspath(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir())
    return os.path.join(root, *STAGE_STORE_FOLDER)


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
        saved += _detailed_trace(notes)
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


def _detailed_trace(notes: list[str]) -> list[tuple[Any, str, Any]]:
    """Turns on ``dtrace_structured`` (what ``TORCH_DTRACE`` turns on); returns what to restore."""
    try:
        from torch._logging import _internal
    except ImportError:
        notes.append("this torch has no detailed structured trace: the exported program is not shown")
        return []
    if not hasattr(_internal, "GET_DTRACE_STRUCTURED"):
        notes.append("this torch has no detailed structured trace switch: the exported program is not shown")
        return []
    old = _internal.GET_DTRACE_STRUCTURED
    _internal.GET_DTRACE_STRUCTURED = True
    return [(_internal, "GET_DTRACE_STRUCTURED", old)]


# ---- guard_filter_fn: what the filter was asked about and what it kept ----

def recording_guard_filter(fn: Callable[[Any], Any], sink: Callable[[Optional[CompileId], list], None]
                           ) -> Callable[[Any], Any]:
    """``fn`` as a ``guard_filter_fn`` that also hands ``sink(compile id, rows)`` every guard it was asked
    about (torch's ``GuardFilterEntry``), kept or not: torch drops the others without a record.

    A row is (kept, guard type, subject, value, derived types, is_global, file, line, source). ``fn``'s
    own answer is returned unchanged, and a failure of the sink never reaches the compile.
    """
    def guard_filter_fn(entries: Any) -> Any:
        keep = fn(entries)
        try:
            sink(current_compile_id(), [_guard_row(e, bool(k)) for e, k in zip(entries, list(keep))])
        except Exception as e:  # noqa: BLE001 - recording must not break the compile: the sink is told
            sink(current_compile_id(), [e])
        return keep

    guard_filter_fn.__name__ = getattr(fn, "__name__", "guard_filter_fn")
    return guard_filter_fn


def _guard_row(e: Any, kept: bool) -> tuple:
    value = None
    if getattr(e, "has_value", False):
        try:
            value = " ".join(repr(e.value).split())
        except Exception as err:  # noqa: BLE001 - a value whose repr fails: say so instead
            value = f"<repr failed: {type(err).__name__}>"
        value = value if len(value) <= 80 else value[:77] + "..."
    guard = getattr(e, "orig_guard", None)
    frame = _user_frame(getattr(guard, "user_stack", None)) or _user_frame(getattr(guard, "stack", None))
    return (kept, str(getattr(e, "guard_type", "?")), str(getattr(e, "name", "")), value,
            tuple(str(t) for t in getattr(e, "derived_guard_types", ()) or ()), bool(getattr(e, "is_global", False)),
            *(frame or (None, None, None)))


def _user_frame(stack: Any) -> Optional[tuple[str, int, Optional[str]]]:
    """The innermost frame of ``stack`` outside torch's own files, else its innermost frame."""
    import os

    if stack is not None and hasattr(stack, "summary"):  # torch.utils._traceback.CapturedTraceback
        stack = stack.summary()
    if not stack:
        return None
    import torch

    torch_dir = os.path.dirname(torch.__file__) + os.sep
    frames = list(stack)
    pick = next((f for f in reversed(frames) if not str(f.filename).startswith(torch_dir)), frames[-1])
    return str(pick.filename), int(pick.lineno or 0), (pick.line or "").strip() or None


def guard_filter_by_name(name: str) -> Optional[Callable[..., Any]]:
    """One of torch.compiler's guard filters by name (``skip_guard_on_inbuilt_nn_modules_unsafe``), or None."""
    import torch

    fn = getattr(torch.compiler, name, None)
    return fn if callable(fn) and name.endswith("_unsafe") else None


def cache_key_tag() -> str:
    """``torch.compiler.config.cache_key_tag`` as it stands (2.11-2.14): part of the FX graph cache's and
    AOTAutograd cache's keys (``FxGraphHashDetails``), and of PGO's profile key where a job id is set."""
    import torch.compiler.config as cconfig

    return cconfig.cache_key_tag


def set_cache_key_tag(tag: str) -> None:
    import torch.compiler.config as cconfig

    cconfig.cache_key_tag = tag


def current_stance() -> str:
    """``torch.compiler.set_stance``'s stance in force, in its own words (``fail_on_recompile``,
    ``default, force_backend=eager``); ``default`` where this torch has no stances."""
    try:
        from torch._dynamo import eval_frame
    except ImportError:
        return "default"
    stance = getattr(eval_frame, "_stance", None)
    if stance is None:
        return "default"
    text = str(getattr(stance, "stance", "default"))
    backend = getattr(stance, "backend", None)
    if backend is not None:
        text += f", force_backend={backend if isinstance(backend, str) else getattr(backend, '__name__', backend)}"
    if getattr(stance, "skip_guard_eval_unsafe", False):
        text += ", skip_guard_eval_unsafe"
    return text


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


def listing(code: Any) -> str:
    """The ``dis`` listing with each instruction's offset, on every Python: 3.13 leaves offsets out by default
    (jump targets become labels, ``L1:``), but Dynamo names resume functions by offset (``__resume_at_30``) and
    the panes read a listing's rows by its offset column."""
    import dis

    if sys.version_info >= (3, 13):
        return dis.Bytecode(code, show_offsets=True).dis()
    return dis.Bytecode(code).dis()


def cache_entries(code: Any) -> list[Any]:
    """Dynamo's cached (guards, code) entries for a code object, most recently used first (the order its frame
    evaluator tries them)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return list(_debug_get_cache_entry_list(code))


def cache_entry_facts(code: Any) -> list[tuple[Optional[CompileId], str, str]]:
    """Dynamo's cache of a code object as data, in the order its frame evaluator tries it: (the compile id that made
    each entry, the name of the code object it runs, its backend by name).

    The C frame evaluator (``torch/csrc/dynamo/extra_state.cpp``, 2.11-2.14: ``lookup``) walks the entries front to
    back, tries an entry only under an equal backend, and moves the entry whose guards passed to the front; a new
    entry goes in front (``create_cache_entry``). ``CacheEntry.compile_id`` and ``.backend`` exist in 2.11-2.14.
    """
    out = []
    for entry in cache_entries(code):
        cid = getattr(entry, "compile_id", None)
        frame = getattr(cid, "frame_id", None)
        made = CompileId(frame, getattr(cid, "frame_compile_id", None) or 0) if isinstance(frame, int) else None
        out.append((made, str(getattr(getattr(entry, "code", None), "co_name", "?")),
                    backend_name(getattr(entry, "backend", None))))
    return out


def backend_name(backend: Any) -> str:
    """A backend as torch.compile was given it: ``inductor``, ``eager``, a function's name."""
    if backend is None:
        return "?"
    name = getattr(backend, "compiler_name", None) or getattr(backend, "__name__", None)
    return str(name) if name else type(backend).__name__


def trace_logger() -> logging.Logger:
    return logging.getLogger(TRACE_LOGGER)


def forget_compilations(fn: Any) -> int:
    """Drops Dynamo's cached compilations of ``fn`` (and of its resume functions).

    Dynamo reuses a frame's cached compilation when its guards pass, and then
    nothing is compiled and nothing can be captured. ``explore`` promises a
    fresh compile, so it forgets earlier ones first. Returns how many code
    objects were reset. ``reset_code`` takes any code object (one Dynamo never
    saw included), so an exception here is a torch change to hear about: it propagates.
    """
    from torch._dynamo.eval_frame import reset_code
    from torch._dynamo.resume_execution import ContinueExecutionCache

    todo = _code_objects(fn)
    done = 0
    while todo:
        code = todo.pop()
        reset_code(code)
        done += 1
        todo.extend(ContinueExecutionCache.cache.get(code, {}).values())
    return done


def _code_objects(fn: Any) -> list[Any]:
    fn = compiled_original(fn)
    out = []
    for candidate in (fn, getattr(fn, "forward", None), getattr(fn, "__call__", None)):  # noqa: B004 - its code, not callability
        candidate = getattr(candidate, "__func__", candidate)
        code = getattr(candidate, "__code__", None)
        if code is not None and code not in out:
            out.append(code)
    return out


# ---- torch.compiler.is_compiling(): the code Dynamo traced, and the user's own compiled functions ----

# the functions Dynamo folds to True while it traces (torch/_dynamo/variables/torch.py, tracing_state_functions):
# torch.compiler.is_compiling, torch.compiler.is_dynamo_compiling, torch._dynamo.is_compiling, torch._utils.is_compiling
IS_COMPILING_NAMES = ("is_compiling", "is_dynamo_compiling")


def compiled_codes(namespace: dict) -> set[Any]:
    """The code objects of the functions (and module forwards) in ``namespace`` that torch.compile wraps: where
    one is called, a plain run compiles it too. Only plain functions and OptimizedModules are looked into (an
    attribute of any other object could run its code)."""
    import types

    from torch._dynamo import eval_frame

    optimized = getattr(eval_frame, "OptimizedModule", None)
    out = set()
    for value in list(namespace.values()):
        if isinstance(value, types.FunctionType) and "_torchdynamo_orig_callable" in vars(value):
            inner = compiled_original(value)
        elif optimized is not None and isinstance(value, optimized):
            inner = getattr(compiled_original(value), "forward", None)
        else:
            continue
        code = getattr(inner, "__code__", None)
        if code is not None:
            out.add(code)
    return out


# ---- cached guards, evaluated against new arguments (explorer.clinic.why) ----

def compiled_original(fn: Any) -> Any:
    """The user's callable behind torch.compile's wrappers (a function or an OptimizedModule)."""
    for _ in range(8):  # torch.compile(torch.compile(f)) nests wrappers
        inner = getattr(fn, "_orig_mod", None)  # OptimizedModule
        if inner is None:
            inner = getattr(fn, "_torchdynamo_orig_callable", None)
        if inner is None or inner is fn:
            return fn
        fn = inner
    return fn


def entry_compile_id(entry: Any) -> Optional[str]:
    """A cached entry's compile id, as the report's key (torch prints ``0/1``; an attempt folds into it)."""
    cid = getattr(entry, "compile_id", None)
    return None if cid is None else CompileId.key_of(str(cid))


def evaluate_entry_guards(entry: Any, f_locals: dict[str, Any]) -> tuple[bool, Optional[str]]:
    """(all guards pass, torch's text for the first failing guard), without compiling.

    The guard manager's ``check_verbose`` names the failing leaf; torch's own
    recompile-reason helper turns a lambda guard's many code parts into the one
    that failed, as ``TORCH_LOGS=recompiles`` would print it.
    """
    manager = entry.guard_manager
    invalidated = getattr(manager, "invalidation_reason", None)  # DeletedGuardManagerWrapper
    if invalidated:
        return False, str(invalidated)
    verdict = manager.check_verbose(f_locals)
    if verdict.result:
        return True, None
    parts = "; ".join(str(p) for p in verdict.verbose_code_parts)
    try:
        import inspect

        from torch._dynamo.guards import get_guard_fail_reason_helper as helper

        extra = [getattr(entry, "backend", None)] if len(inspect.signature(helper).parameters) >= 4 else []
        return False, helper(manager, f_locals, getattr(entry, "compile_id", None), *extra) or parts
    except Exception as e:  # noqa: BLE001 - the verbose parts still answer; the reader sees why they are terser
        return False, f"{parts} (torch's recompile-reason helper failed: {type(e).__name__}: {e})"


# ---- used by explorer.timing (backend wrapping, kernel profiles, cold compiles) ----

def kernel_profile_options(device_type: str) -> dict[str, Any]:
    """Inductor options that make a per-kernel profile possible on this device type."""
    if device_type == "cpu":
        # each C++ kernel becomes a torch.profiler row named graph_<n>_<kernel name>
        return {"cpp.enable_kernel_profile": True}
    # Triton kernels then carry 'kernel_num_gb' (bytes moved) in their inductor_meta
    return {"benchmark_kernel": True}


def call_below_python_modes(func: Any, args: Any, kwargs: dict) -> Any:
    """Runs an op's own kernel, past the Python dispatch key where torch's dispatch modes sit (its arguments'
    dispatch keys below ``DispatchKey.Python``, 2.11-2.14): a mode that re-enters itself around this call sees the
    ops the kernel calls inside, and not this op again. An op without tensor arguments is called as it is."""
    import torch
    from torch.utils._pytree import tree_leaves

    below = torch._C._dispatch_keyset_full_after(torch._C.DispatchKey.Python)
    keys = None
    for t in tree_leaves((args, kwargs)):
        if isinstance(t, torch.Tensor):
            k = torch._C._dispatch_keys(t)
            keys = k if keys is None else keys | k
    if keys is None:
        return func(*args, **kwargs)
    return func.redispatch(keys & below, *args, **kwargs)


def inductor_backend(mode: Optional[str] = None, options: Optional[dict] = None,
                     dynamic: Optional[bool] = None) -> Callable[..., Any]:
    """The callable torch.compile(backend="inductor", mode=, options=) itself builds.

    Reusing torch's own wrapper means mode and options reach compile_fx exactly
    as they would without the explorer in between.
    """
    import torch

    return torch._TorchCompileInductorWrapper(mode, options, dynamic)


def cudagraph_step() -> None:
    """A new step for CUDA graph trees (``torch.compiler.cudagraph_mark_step_begin``): a graph called
    outside Dynamo's frames records and replays only once steps begin."""
    import torch

    torch.compiler.cudagraph_mark_step_begin()


def lookup_backend(name: str) -> Callable[..., Any]:
    """A registered Dynamo backend ("eager", "aot_eager", "inductor", ...) by name."""
    from torch._dynamo import lookup_backend as lookup

    return lookup(name)


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



# ---- used by explorer.timing.repro (the CLI's --time: torch's fx_graph_runnable artifacts) ----

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


def repro_inputs(load_args: Callable[[Any], None]) -> list[Any]:
    """Inputs a repro's ``load_args(reader)`` describes: right shapes, strides, dtypes, devices,
    random values (torch's reader without a save directory), without its "random data" warnings."""
    from torch._dynamo.debug_utils import InputReader

    quiet = logging.Filter("no such logger")  # rejects every record of the reader's logger
    reader_log = logging.getLogger("torch._dynamo.debug_utils")
    reader_log.addFilter(quiet)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = InputReader(save_dir=None)
            load_args(reader)
            return list(reader.args)
    finally:
        reader_log.removeFilter(quiet)


# ---- used by explorer.timing: the profiling build, end-to-end calls, rooflines ----

def _note_once(notes: list[str], text: str) -> None:
    """A listener's own failure, said once (the same error on every record is one note)."""
    if text not in notes:
        notes.append(text)


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
def preserved_rng() -> Iterator[None]:
    """The global random state (CPU, and CUDA when initialised) as it was: timing draws no user randomness."""
    import torch

    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


@contextlib.contextmanager
def fail_on_recompile() -> Iterator[None]:
    """Inside, a call that would compile raises instead (torch.compiler.set_stance): timing never recompiles."""
    import torch

    set_stance = getattr(torch.compiler, "set_stance", None)
    if set_stance is None:
        yield
        return
    with set_stance("fail_on_recompile"):
        yield


def dynamo_graph_sources(gm: Any) -> list[Optional[str]]:
    """For each placeholder of a Dynamo graph, the source it came from (``L['x']``, ``L['self']...``)."""
    out = []
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        arg = node.meta.get("grapharg")
        src = getattr(arg, "source", None)
        try:
            out.append(src.name() if callable(getattr(src, "name", None)) else getattr(src, "name", None))
        except Exception:  # noqa: BLE001
            out.append(None)
    return out


def guard_managers(code: Any) -> list[Any]:
    """The guard managers of Dynamo's cached entries for ``code``, most recently used first."""
    return [e.guard_manager for e in cache_entries(code)]


# ---- Inductor's own objects after compile: output modules and their Triton kernels ----

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


def triton_autotuners(module: Any) -> dict[str, Any]:
    """{kernel name: Inductor's CachingAutotuner} defined in an output module."""
    try:
        from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    except ImportError:
        return {}
    return {name: v for name, v in vars(module).items() if isinstance(v, CachingAutotuner)}


def grid_for(inductor_meta: dict, config_kwargs: dict, sizes: dict[str, int]) -> Optional[tuple[int, ...]]:
    """The launch grid Inductor computes for a kernel with these meta-parameters and sizes (xnumel, ...)."""
    try:
        from torch._inductor.runtime.triton_heuristics import GridExpr

        grid = GridExpr.from_meta(inductor_meta, dict(config_kwargs))
        return tuple(int(v) for v in grid.eval_slow({**sizes, **config_kwargs}))
    except Exception:  # noqa: BLE001 - a kind of grid this torch names differently
        return None


# ---- mode="max-autotune": select_algorithm's feedback (one call per autotuned op) ----

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


# ---- mode="reduce-overhead": CUDA graph trees' own logs and counters ----

CUDAGRAPH_LOGGERS = ("torch._inductor.cudagraph_trees.__cudagraphs", "torch._inductor.cudagraph_utils.__cudagraphs")


def inductor_counters() -> dict[str, int]:
    from torch._dynamo.utils import counters

    return dict(counters["inductor"])


# ---- --inductor-backend halide: is the package there ----

def halide_missing() -> Optional[str]:
    """Why the halide backend cannot run here, or None when it can."""
    import importlib.util

    if importlib.util.find_spec("halide") is None:
        return ("the halide backend needs the `halide` Python package, which is not installed: "
                "pip install halide==21.0.0 (Halide's own wheels; Linux and macOS)")
    return None


# ---- used by explorer.preview: a graph as torch's own repro script ----

def graph_repro(gm: Any, inputs: Any) -> str:
    """The self-contained script torch writes for a graph and its inputs (``fx_graph_runnable``'s form)."""
    import io

    from torch._dynamo.repro.after_aot import save_graph_repro

    fd = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save_graph_repro(fd, gm, list(inputs), "inductor", save_dir=None)
    return fd.getvalue()


def graph_input_shapes(gm: Any) -> Optional[dict]:
    """The symbolic sizes of a Dynamo graph's inputs, as plain data; None when every size is a number.

    A repro script writes each input with this call's sizes; a graph Dynamo traced with dynamic shapes
    (``mark_dynamic``, or a recompile under automatic dynamic shapes) has symbols there (``s77``), which the
    preview must give Inductor again to lower what a GPU would get. Read from the placeholders' example values
    (Dynamo's fake tensors, after its replacements: ``Eq(s77, s17)`` leaves ``s17``): per input, its sizes,
    strides and storage offset (a SymInt input: its expression) as ``sympy.srepr``, which reads back exactly;
    per symbol, its value in this call, its range and the source torch named it for (``L['x'].size()[0]``).
    """
    import sympy
    import torch

    inputs: list[dict] = []
    symbols: dict[str, dict] = {}

    def text(v: Any) -> str:
        if isinstance(v, torch.SymInt):
            expr = v.node.expr
            for s in expr.free_symbols:
                symbols.setdefault(str(s), _symbol_facts(v.node.shape_env, s))
            return sympy.srepr(expr)
        return str(int(v))

    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        v = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(v, torch.SymInt):
            inputs.append({"expr": text(v)})
        elif isinstance(v, torch.Tensor) and not v.is_sparse:
            inputs.append({"size": [text(s) for s in v.size()], "stride": [text(s) for s in v.stride()],
                           "offset": text(v.storage_offset())})
        else:
            inputs.append({})
    return {"inputs": inputs, "symbols": symbols} if symbols else None


def graph_static_inputs(gm: Any) -> list[int]:
    """The positions of a Dynamo graph's inputs that Dynamo marked static: the parameters and buffers of the user's
    modules (``_dynamo_static_input_type`` in the placeholder's ``tensor_dict``; ``mark_static_address`` too).

    AOTAutograd reads them off the graph Dynamo hands over (``_try_get_metadata_from_dynamo``, torch 2.11-2.14 alike)
    and the partitioner saves such an input for the backward for free (``treat_parameters_as_free_to_save``): the
    backward takes a Linear's weight and transposes it, where without them it takes the transpose the forward
    saved, and its kernels come in another order (a buffer a GPU reuses in place is a new one). A repro script
    keeps none of it: the preview sends them apart (``mark_as_dynamo_graph``)."""
    return [i for i, node in enumerate(gm.graph.find_nodes(op="placeholder"))
            if (node.meta.get("tensor_dict") or {}).get("_dynamo_static_input_type")]


def mark_as_dynamo_graph(gm: Any, compile_id: Any, static_inputs: Iterable[int]) -> None:
    """Marks a GraphModule traced from a repro script as Dynamo hands its graphs to a backend, so that AOTAutograd
    finds the same static inputs (``graph_static_inputs``): the compile id in ``gm.meta``, a source per parameter
    or buffer the module holds (each static, as Dynamo's attributes are), none per placeholder (allowed, as for
    the DDP optimizer's submodules), and the static placeholders' ``_dynamo_static_input_type``."""
    from torch._dynamo.source import LocalSource

    static = set(static_inputs)
    gm.meta["dynamo_compile_id"] = compile_id
    names = [n for n, _ in gm.named_parameters(remove_duplicate=False)] + \
        [n for n, _ in gm.named_buffers(remove_duplicate=False)]
    gm._param_name_to_source = {n: LocalSource(n) for n in names}
    for i, node in enumerate(gm.graph.find_nodes(op="placeholder")):
        node._dynamo_source = None
        if i in static:
            node.meta["tensor_dict"] = {**(node.meta.get("tensor_dict") or {}),
                                        "_dynamo_static_input_type": "unguarded"}


def _symbol_facts(shape_env: Any, symbol: Any) -> dict:
    """A size symbol's value in this call, its range (``None``: unbounded) and the source it was made for."""
    values = getattr(shape_env, "backed_var_to_val", None) or getattr(shape_env, "var_to_val", {})
    hint = values.get(symbol)
    rng = shape_env.var_to_range.get(symbol)
    bound = lambda b: int(b) if getattr(b, "is_Integer", False) else None  # noqa: E731 - int_oo: unbounded
    sources = shape_env.var_to_sources.get(symbol) or []
    name = getattr(sources[0], "name", None) if sources else None
    return {"hint": int(hint) if hint is not None else None,
            "min": bound(rng.lower) if rng is not None else None, "max": bound(rng.upper) if rng is not None else None,
            "source": (name() if callable(name) else name) if name is not None else None}


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

# ---- used by explorer.cell (a %%compile cell ends as a plain run of it would) ----

# The logger on which Dynamo reports a frame it could not compile and ran unchanged
# (``log.warning("WON'T CONVERT <name> <file> line <n> ...", exc_info=True)``) when
# ``suppress_errors`` is on; and fake tensors' companion report of the same failure.
SUPPRESSED_FRAME_LOGGER = "torch._dynamo.convert_frame"
SUPPRESSED_FRAME_PREFIX = "WON'T CONVERT"
_SUPPRESSED_FRAME = re.compile(r"WON'T CONVERT (?P<name>\S+) (?P<file>.+?) line (?P<line>\d+)")
FAKE_TENSOR_LOGGER = "torch._subclasses.fake_tensor"
FAKE_TENSOR_META_FAILURE = "failed while attempting to run meta"


def suppressed_frame(message: str) -> Optional[tuple[str, str, int]]:
    """The frame (name, file, first line) Dynamo's "WON'T CONVERT" warning names; None for another message."""
    m = _SUPPRESSED_FRAME.match(message)
    return (m["name"], m["file"], int(m["line"])) if m else None


# the code object Dynamo makes to go on after a graph break: ``torch_dynamo_resume_in_<fn>_at_<line>``
_RESUME_NAME = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")


def resumed(co_name: str) -> Optional[tuple[str, int]]:
    """For a resume function's name, the function it goes on with and the line it resumes at; else None."""
    m = _RESUME_NAME.match(co_name)
    return (m["fn"], int(m["line"])) if m else None


# compilation_metrics' fail_type when the backend itself raised (InductorError subclasses the first)
BACKEND_FAILURES = ("BackendCompilerFailed", "InductorError")


def set_dynamo_config(name: str, value: Any) -> None:
    """Changes one option inside a ``dynamo_config`` block (which restores it at its end)."""
    import torch._dynamo.config as config

    setattr(config, name, value)


def dynamo_config_value(name: str) -> Any:
    """``torch._dynamo.config.<name>`` (AttributeError when this torch has no such option)."""
    import torch._dynamo.config as config

    return getattr(config, name)


@contextlib.contextmanager
def dynamo_config(values: dict[str, Any]) -> Iterator[None]:
    """Sets ``torch._dynamo.config`` options for the block; each old value is put back, also on
    error or KeyboardInterrupt. Options this torch lacks are skipped (the caller checks first)."""
    import torch._dynamo.config as config

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


class CompileCallbacks:
    """Calls ``on_start``/``on_end`` around every Dynamo compilation while installed.

    Dynamo's own callback registry (``torch._dynamo.callback_handler``, the seam
    behind ``torch._dynamo.on_compile_start``): the start callback runs before a
    frame is traced, the end callback after its backend returned or failed. No
    user code runs in between (Dynamo traces it symbolically).

    ``torch._dynamo.reset()`` (``torch.compiler.reset()``) empties the registry,
    so after one these callbacks are gone: ``reset_seen`` says so and installs
    them again (called at each compilation's start record, which Dynamo writes
    before it runs the start callbacks), and ``remove`` removes only what is
    still there. Without callbacks it is a plain reset detector (the recorder's).
    """

    def __init__(self, on_start: Optional[Callable[[], None]] = None,
                 on_end: Optional[Callable[[], None]] = None) -> None:
        self._on_start = on_start
        self._on_end = on_end
        self._installed = False

    def _start(self, _args: Any) -> None:  # the registry passes CallbackArgs: unused here
        if self._on_start is not None:
            self._on_start()

    def _end(self, _args: Any) -> None:
        if self._on_end is not None:
            self._on_end()

    def install(self) -> CompileCallbacks:
        from torch._dynamo.callback import callback_handler

        callback_handler.register_start_callback(self._start)
        callback_handler.register_end_callback(self._end)
        self._installed = True
        return self

    def reset_seen(self) -> bool:
        """True once per reset since the last call (the callbacks are then installed again)."""
        from torch._dynamo.callback import callback_handler

        if not self._installed or any(c == self._start for c in callback_handler.start_callbacks):
            return False
        self.remove()
        self.install()
        return True

    def remove(self) -> None:
        from torch._dynamo.callback import callback_handler

        for registered, mine in ((callback_handler.start_callbacks, self._start),
                                 (callback_handler.end_callbacks, self._end)):
            if any(c == mine for c in registered):  # a reset may have removed it already
                registered.remove(mine)
        self._installed = False


def is_soft_failure(fail_type: str) -> bool:
    """A compile failure Dynamo always turns into a quietly skipped frame, whatever ``suppress_errors`` says
    (``Unsupported``, ``UserError`` and their kinds: a graph break it cannot resume from)."""
    from torch._dynamo import exc

    cls = getattr(exc, fail_type, None)
    return isinstance(cls, type) and issubclass(cls, (exc.Unsupported, exc.UserError))


def run_frame_plainly(error: Optional[BaseException]) -> bool:
    """Makes the frame whose compile failed with ``error`` run with Dynamo off for it and all it calls.

    Called while Dynamo reports the suppressed error (its "WON'T CONVERT" warning),
    before it decides how to run the frame: a ``TorchDynamoException`` may carry the
    frame execution strategy Dynamo then applies (``exc.py``: ``frame_exec_strategy``);
    skipping recursively runs the frame with no eval-frame callback, as plain Python.
    Without it Dynamo runs the frame unconverted but still inside its region. False
    when ``error`` cannot carry one (e.g. an ``AssertionError``).
    """
    try:
        from torch._C._dynamo.eval_frame import _FrameAction, _FrameExecStrategy
    except ImportError:  # a torch without frame execution strategies
        return False
    from torch._dynamo import exc

    if not isinstance(error, exc.TorchDynamoException) or not hasattr(error, "frame_exec_strategy"):
        return False
    error.frame_exec_strategy = _FrameExecStrategy(_FrameAction.SKIP, _FrameAction.SKIP)
    return True


def not_traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a function Dynamo does not trace: calling it is a graph break, it runs as plain Python."""
    import torch

    return torch.compiler.disable(fn, recursive=True)


def untraceable_placeholder() -> Any:
    """An object Dynamo refuses to represent: reading it while tracing is a graph break.

    Dynamo cannot model a ``torch.utils.hooks.RemovableHandle`` made outside the
    traced frame ("Attempted to represent unregistered RemovableHandle", a graph
    break on 2.11-2.14). ``explorer.cell`` puts one under a name the cell binds
    but has not bound yet, only while Dynamo compiles: a read of it then runs as
    plain Python after the compile, when the placeholder is gone again.
    """
    from collections import OrderedDict

    from torch.utils.hooks import RemovableHandle

    return RemovableHandle(OrderedDict())  # it keeps a weak reference to a hooks dict: a plain dict has none


def forget_code(code: Any) -> list[Any]:
    """Drops Dynamo's cached compilations of one code object and of its resume functions.

    Returns every code object reset (``code`` and its resume functions), for
    ``release_helper_globals``.
    """
    from torch._dynamo.eval_frame import reset_code
    from torch._dynamo.resume_execution import ContinueExecutionCache

    todo, done = [code], []
    while todo:
        c = todo.pop()
        reset_code(c)
        done.append(c)
        resumes = ContinueExecutionCache.cache.get(c)
        if resumes:
            todo.extend(resumes.values())
    return done


def release_helper_globals(codes: list[Any], rewritten: Iterable[Any] = ()) -> None:
    """Removes the helper globals Dynamo put in a frame's globals for these code objects' compilations.

    Dynamo registers, per rewritten code object, the clean-up of its helpers
    (``__compiled_fn_N``, ``__resume_at_N``, ``__builtins_dict___N``, ...) to run
    when that code object is freed (``CleanupManager``). Once the compilations are
    forgotten nothing can run the rewritten code again, but it may stay referenced
    for a while (and its clean-up would then fire at interpreter exit, after the
    namespace is gone: ``KeyError`` noise on stderr). This runs that clean-up now,
    exactly once, for the rewritten code of ``codes``. ``rewritten`` names that code
    itself (from the bytecode hook): after ``torch._dynamo.reset()`` Dynamo's map from
    rewritten to original code is empty, but the clean-ups are still pending.
    """
    from torch._dynamo.utils import CleanupManager, orig_code_map

    ours = {id(c) for c in codes}
    new = {id(c) for c in rewritten}
    manager = CleanupManager.instance
    for idx in list(manager.values):
        original = orig_code_map.values.get(idx)
        if idx not in new and (original is None or id(original) not in ours):
            continue
        for hook in manager.values.pop(idx, ()):
            if hook.name in hook.scope:
                hook()  # Dynamo's own clean-up: deletes the global, counts it done
            else:  # the user deleted it already: only the bookkeeping is left
                CleanupManager.count -= 1
        manager.refs.pop(idx, None)  # its weakref callback then finds nothing to do


def pending_cleanup_names(namespace: dict) -> set[str]:
    """Names in ``namespace`` that Dynamo will delete itself when their compiled code is freed."""
    from torch._dynamo.utils import CleanupManager

    names = set()
    for hooks in list(CleanupManager.instance.values.values()):
        for hook in hooks:
            if getattr(hook, "scope", None) is namespace:
                names.add(hook.name)
    return names


def inductor_fallback_random() -> Optional[bool]:
    """``torch._inductor.config.fallback_random`` (None if this torch lacks it)."""
    try:
        import torch._inductor.config as config
    except ImportError:
        return None
    return getattr(config, "fallback_random", None)


# what Inductor's own random number generation leaves in the output code it writes: its seed and
# random prims, the C++ helpers of cpp_prefix.h, Triton's philox calls
INDUCTOR_RNG_MARKERS = ("inductor_seeds", "inductor_random", "inductor_randint", "inductor_lookup_seed",
                        "normalized_rand_cpu", "randn_cpu", "randint64_cpu", "tl.rand(", "tl.randn(",
                        "tl.randint(", "triton_helpers.randint64")


@functools.cache
def records_side_effects() -> bool:
    """This torch writes the ``dynamo_side_effects`` artifact for every mutation its compiled code replays.

    Then a compilation without that record replays none (torch 2.11 on; older Dynamo wrote none, and the
    rewritten bytecode is all there is to judge by).
    """
    import inspect

    try:
        import torch._dynamo.side_effects as side_effects

        return "dynamo_side_effects" in inspect.getsource(side_effects)
    except (ImportError, OSError, TypeError):
        return False


# ---- distributed jobs (explorer.jobs, explorer.distributed) ----

def process_group_backend() -> Optional[str]:
    """The default process group's backend (gloo, nccl, ...), if one is still initialized; None otherwise."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return str(dist.get_backend())
    except Exception:  # noqa: BLE001 - cosmetic: a report without the backend's name is still whole
        return None
    return None


def launch_ranks(nproc_per_node: int, argv: list[str]) -> dict[int, int]:
    """``python argv...`` as ``nproc_per_node`` ranks on this machine, through torch.distributed.run (torchrun).

    The same path as ``torchrun --standalone --nproc-per-node N argv...`` (its own argument parser and
    ``run``), without torchrun's error summary: returns, for each rank that failed, its exit code as
    torchrun saw it (negative: killed by that signal); {} when every rank ended with 0.
    """
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    args = torchrun.parse_args(["--standalone", f"--nproc-per-node={nproc_per_node}", *argv])
    try:
        torchrun.run(args)
    except ChildFailedError as e:
        return {int(rank): int(f.exitcode) for rank, f in e.failures.items()}
    except SignalException as e:  # torchrun stopped its ranks on SIGINT/SIGTERM: as Ctrl-C to the caller
        raise KeyboardInterrupt(str(e)) from e
    return {}


# ---- torch.export and AOTInductor (explore_export, targets.ExportTarget) ----

def export_program(model: Any, args: tuple, kwargs: Optional[dict] = None, dynamic_shapes: Any = None,
                   strict: bool = False) -> Any:
    """``torch.export.export`` (public since 2.1; ``strict`` defaults to False from 2.7 on)."""
    import torch

    return torch.export.export(model, tuple(args), kwargs=kwargs, dynamic_shapes=dynamic_shapes, strict=strict)


def aoti_package(program: Any, package_path: str) -> str:
    """AOTInductor's compile of an exported program into a ``.pt2`` package; returns its path."""
    from torch._inductor import aoti_compile_and_package

    return aoti_compile_and_package(program, package_path=package_path)


def aoti_load(package_path: str) -> Any:
    """The callable runner of an AOTInductor package."""
    from torch._inductor import aoti_load_package

    return aoti_load_package(package_path)


def exported_module(program: Any) -> Any:
    """An exported program as a callable module (run eagerly, when no AOTInductor compile was asked for)."""
    return program.module()
