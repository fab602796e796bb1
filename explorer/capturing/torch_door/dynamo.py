"""Dynamo (``torch._dynamo``, ``torch._guards``): compile ids, traced code, hooks, backends, stances, failures.

Subsystem: TorchDynamo, the frame evaluator that turns Python bytecode into FX graphs. Its per-code cache of
compiled entries and their guards is ``dynamo_cache``. What torch writes in Dynamo's name that the explorer reads:
its bytecode and trace_call artifact loggers, its "WON'T CONVERT" warning, its resume functions' names.

Version differences (2.11-2.14):
- how Dynamo's graph print names a ``nonstrict_trace`` function (``NONSTRICT_TRACE_ATTRIBUTE``): 2.13-2.14
  ``NAME_callable : ..._LeafCallable``, 2.11-2.12 ``NAME_spec : ...TreeSpec``;
- ``dynamo_side_effects`` artifacts: read from Dynamo's own source (``records_side_effects``), written from 2.11 on;
- ``torch.compiler.set_stance`` and frame execution strategies (``run_frame_plainly``) exist in all four; a torch
  without them gets the plain answer (``default``; False).
"""

from __future__ import annotations

import contextlib
import functools
import re
from typing import Any, Callable, Iterator, Optional

from ..compile_id import CompileId

# How Dynamo's graph print names a torch._dynamo.nonstrict_trace function it calls opaquely: an attribute
# of the graph module named after the function. 2.13-2.14: `NAME_callable : ..._LeafCallable = self.NAME_callable`;
# 2.11-2.12: `NAME_spec : torch.utils._pytree.TreeSpec = self.NAME_spec` (then NAME_input_spec, not a function).
NONSTRICT_TRACE_ATTRIBUTE = re.compile(
    r"^\s*(?P<name>\w+)_(?:callable\s*:[^=]*_LeafCallable = self\.(?P=name)_callable"
    r"|spec\s*:[^=]*TreeSpec = self\.(?P=name)_spec)\s*$")


BYTECODE_LOGGER = "torch._dynamo.convert_frame.__bytecode"


# Dynamo's trace_call artifact: each call it inlines ("TRACE inlined call f from file:line ...") and each FX
# node it makes ("TRACE FX call node from ..."), with the frame it was tracing: the user line a library
# function that made a node (dist.all_reduce -> _functional_collectives.py) was called from. Python >= 3.11
# logs the FX calls only.
TRACE_CALL_LOGGERS = ("torch._dynamo.symbolic_convert.__trace_call", "torch._dynamo.output_graph.__trace_call")


def current_compile_id() -> Optional[CompileId]:
    """The compile running now on this thread (with Dynamo's restart attempt), or None outside one."""
    from torch._guards import CompileContext

    trace_id = CompileContext.current_trace_id()  # None outside a compile (2.11-2.14)
    if trace_id is None or trace_id.compile_id is None or trace_id.compile_id.frame_id is None:
        return None
    cid = trace_id.compile_id
    return CompileId(cid.frame_id, cid.frame_compile_id or 0, getattr(trace_id, "attempt", 0) or 0)


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


def backend_name(backend: Any) -> str:
    """A backend as torch.compile was given it: ``inductor``, ``eager``, a function's name."""
    if backend is None:
        return "?"
    name = getattr(backend, "compiler_name", None) or getattr(backend, "__name__", None)
    return str(name) if name else type(backend).__name__


def lookup_backend(name: str) -> Callable[..., Any]:
    """A registered Dynamo backend ("eager", "aot_eager", "inductor", ...) by name."""
    from torch._dynamo import lookup_backend as lookup

    return lookup(name)


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


# The logger on which Dynamo reports a frame it could not compile and ran unchanged
# (``log.warning("WON'T CONVERT <name> <file> line <n> ...", exc_info=True)``) when
# ``suppress_errors`` is on; and fake tensors' companion report of the same failure.
SUPPRESSED_FRAME_LOGGER = "torch._dynamo.convert_frame"


SUPPRESSED_FRAME_PREFIX = "WON'T CONVERT"


_SUPPRESSED_FRAME = re.compile(r"WON'T CONVERT (?P<name>\S+) (?P<file>.+?) line (?P<line>\d+)")


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


def is_convert_frame_file(filename: str) -> bool:
    """Whether a traceback's file is Dynamo's frame conversion (``torch/_dynamo/convert_frame.py``, 2.11-2.14): an
    exception raised with it on the stack came out of a compile, before the compiled frame ran."""
    return filename.endswith(("_dynamo/convert_frame.py", "_dynamo\\convert_frame.py"))


def compile_context(frame_id: int, frame_compile_id: int) -> contextlib.AbstractContextManager[Any]:
    """Inside, torch's records are written under compile id ``frame_id/frame_compile_id`` as if Dynamo compiled it
    (the preview lowers a graph without Dynamo, under the id its capture had)."""
    from torch._guards import CompileContext, compile_context
    from torch._guards import CompileId as TorchCompileId

    return compile_context(CompileContext(TorchCompileId(frame_id=frame_id, frame_compile_id=frame_compile_id)))
