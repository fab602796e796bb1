"""Per-graph timing through the backend-wrapping seam.

Capture keeps only plain data, but timing needs live graphs and inputs. Dynamo
hands every graph to the backend, so ``GraphRecorder`` is a backend that keeps
the GraphModule, private clones of its example inputs and the compiled
callable, then passes on to the real backend. After the user's call,
``time_graphs`` times each graph compiled vs eager on those clones: the user's
tensors, modules and optimizer state are never touched, and the user's
compiled function is never called again (so nothing recompiles).
"""

from __future__ import annotations

import copy
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..capturing import torch_door
from ..capturing.compile_id import CompileId
from ..capturing.recorder import TRACE, current_compile_id, listening
from . import bench
from . import verdict as judging
from .model import GraphTiming, KernelTiming, Measurement


@dataclass
class RecordedGraph:
    """One Dynamo graph as the backend saw it. Live objects: kept out of the report."""

    index: int
    compile_key: Optional[CompileId]  # the compilation it came from, numbered as the capture numbers it
    gm: Any  # torch.fx.GraphModule, with its tensor attributes cloned when it has any
    inputs: list[Any]  # clones of the example inputs (tensors detached, requires_grad kept)
    compiled: Any  # what the inner backend returned for the user's call
    grad_enabled: bool  # autograd mode while Dynamo traced the graph
    backend_time_s: float  # the inner backend's compile call, wall clock
    device: str
    owns_attributes: bool = False  # gm had tensor attributes: the user's compiled code holds theirs
    backend: str = "inductor"  # the inner backend's name
    notes: list[str] = field(default_factory=list)

    @property
    def compile_id(self) -> Optional[str]:
        return self.compile_key.key if self.compile_key else None

    @property
    def label(self) -> str:
        return f"graph {self.index}" + (f" ({self.compile_id})" if self.compile_id else "")

    @property
    def trains(self) -> bool:
        """Autograd records through this graph: the compiled code is a training forward."""
        return self.grad_enabled and any(getattr(t, "requires_grad", False) for t in self.inputs)


class GraphRecorder:
    """A torch.compile backend that records each graph, then compiles it with ``inner``.

    ``torch.compile(fn, backend=GraphRecorder("inductor", mode="max-autotune"))``
    compiles exactly as ``torch.compile(fn, mode="max-autotune")`` would: mode
    and options go to the same Inductor wrapper torch builds, and nothing else:
    the code the user's call runs (and the capture shows) is the user's own.
    ``kernel_profile=True`` allows a separate, labelled profiling build
    (``profiling_build``): on CPU, C++ kernels appear as profiler rows only when
    compiled with ``cpp.enable_kernel_profile``, so the recorded graph is compiled
    again, cold, with that option, for the per-kernel profile alone. On GPU no
    such build is needed (CUDA kernels are profiler rows as they are).
    """

    def __init__(self, inner: Any = "inductor", *, mode: Optional[str] = None,
                 options: Optional[dict] = None, dynamic: Optional[bool] = None,
                 kernel_profile: bool = False) -> None:
        self.mode = mode
        self.options = dict(options or {})  # the user's Inductor options, as compiled with
        self.backend_name = inner if isinstance(inner, str) else getattr(inner, "__name__", type(inner).__name__)
        # torch names a failing backend by its __name__ (BackendCompilerFailed: "backend='...' raised"):
        # the user's backend, not this recorder
        self.__name__ = self.backend_name
        self.kernel_profile = kernel_profile
        self.graphs: list[RecordedGraph] = []
        self.notes: list[str] = []
        self._inner = _resolve_backend(inner, mode, options, dynamic, None)
        # the profiling build's options (CPU: C++ kernels as profiler rows); never the user's compile. A user
        # who compiles with those options already (cpp.enable_kernel_profile) has C++ kernels as profiler rows:
        # their own build is profiled, and the graphs are not compiled a second time
        self._profiled = {"cpu": _resolve_backend(inner, mode, options, dynamic, "cpu")} \
            if kernel_profile and inner == "inductor" and not profiles_kernels(options, "cpu") else {}
        self._builds: dict[int, ProfilingBuild] = {}
        for name in ("get_compiler_config", "reset"):  # Dynamo asks backends for these
            if hasattr(self._inner, name):
                setattr(self, name, getattr(self._inner, name))

    def __call__(self, gm: Any, example_inputs: Sequence[Any]) -> Any:
        import torch

        key = current_compile_id()
        grad = torch.is_grad_enabled()
        device = _device_of(example_inputs)
        why_not = _no_room(example_inputs, device)
        try:
            if why_not:
                raise MemoryError(why_not)
            gm_copy, inputs, owns = _private_copy(gm, example_inputs)
        except Exception as e:  # noqa: BLE001 - recording must never break the user's compile
            self.notes.append(f"graph {len(self.graphs)} not recorded for timing: "
                              f"copying its inputs failed ({type(e).__name__}: {e})")
            return self._inner(gm, example_inputs)
        t0 = time.perf_counter()
        compiled = self._inner(gm, example_inputs)
        took = time.perf_counter() - t0
        self.graphs.append(RecordedGraph(index=len(self.graphs), compile_key=key, gm=gm_copy, inputs=inputs,
                                         compiled=compiled, grad_enabled=grad, backend_time_s=took,
                                         device=device, owns_attributes=owns, backend=self.backend_name))
        return compiled

    @property
    def uses_cudagraphs(self) -> bool:
        """The compile asked for CUDA graphs (mode reduce-overhead or max-autotune)."""
        return backend_uses_cudagraphs(self._inner)

    def compile_again(self, graph: RecordedGraph) -> Any:
        """Compiles a copy of the recorded graph with the same backend and settings."""
        return self._inner(fresh_graph_module(graph.gm), list(graph.inputs))

    def profiling_build(self, graph: RecordedGraph) -> Optional[ProfilingBuild]:
        """The recorded graph compiled again, lowered afresh, with the profiling options; None where not needed.

        Kept per graph. Its generated code (kernel sources, wrapper) is read from
        Inductor's output-code event while it compiles; the capture's code stays
        the user's build.
        """
        inner = self._profiled.get(graph.device.split(":")[0])
        if inner is None:
            return None
        if graph.index not in self._builds:
            self._builds[graph.index] = _profiling_build(inner, graph)
        return self._builds[graph.index]


@dataclass
class ProfilingBuild:
    """A separate build of one graph for its per-kernel profile (not the user's code)."""

    fn: Any
    kernels: tuple[Any, ...]  # capturing.model.Kernel, from its output code
    wrapper_code: Optional[str]
    label: str


PROFILE_BUILD_LABEL = ("separate profiling build: the recorded graph compiled again, lowered afresh, with "
                       "{opts} (C++ kernels as profiler rows); the kernels shown elsewhere are the user's build")


def _profiling_build(inner: Callable[..., Any], g: RecordedGraph) -> ProfilingBuild:
    from ..capturing.inductor_code.wrapper import graph_kind
    from ..capturing.parse_output_code import parse_kernels

    codes: list[str] = []
    notes: list[str] = []
    files: list[str] = []
    before = torch_door.inductor.fresh_cache_dirs()
    try:
        with listening(lambda e: _keep_output_code(e, codes, files), seams=(TRACE,)) as listen, \
                torch_door.config.uncached_compile():
            fn = _quiet_module_path(inner, fresh_graph_module(g.gm), list(g.inputs))
        notes += [f"a wrapper-code record could not be kept: {p}" for p in listen.problems]
    finally:  # the build is loaded: its temporary folder is no one's (a plain run leaves none)
        torch_door.inductor.remove_fresh_cache_dirs(before, files, notes)
    kernels = tuple(k for code in codes for k in parse_kernels(code, graph_kind(code) or ""))
    opts = ", ".join(f"{k}=True" for k in torch_door.inductor.kernel_profile_options(g.device.split(":")[0]))
    label = " ".join([PROFILE_BUILD_LABEL.format(opts=opts), *notes])
    return ProfilingBuild(fn, kernels, "\n".join(codes) or None, label)


def _keep_output_code(event: Any, codes: list[str], files: list[str]) -> None:
    """The build's wrapper code, and where torch wrote it: proof of which temporary folder the build made."""
    if event.name != "inductor_output_code" or not isinstance(event.payload, str):
        return
    fields = event.metadata.get("inductor_output_code")
    if isinstance(fields, dict) and isinstance(fields.get("filename"), str):
        files.append(fields["filename"])
    codes.append(event.payload)


def _resolve_backend(inner: Any, mode: Optional[str], options: Optional[dict], dynamic: Optional[bool],
                     profile_device: Optional[str]) -> Callable[..., Any]:
    if inner == "inductor":
        extra = torch_door.inductor.kernel_profile_options(profile_device) if profile_device else {}
        opts = {**extra, **(options or {})}
        return torch_door.inductor.inductor_backend(mode, opts or None, dynamic)
    if mode is not None or options:
        raise ValueError("mode and options are Inductor settings; the inner backend here is "
                         f"{inner!r}")
    return torch_door.dynamo.lookup_backend(inner) if isinstance(inner, str) else inner


def _quiet_module_path(inner: Callable[..., Any], gm: Any, inputs: Any) -> Any:
    """Inductor prints "Compiled module path: ..." to stderr when benchmark_kernel is on; drop that line."""
    real = sys.stderr
    sys.stderr = _DropLines(real, "Compiled module path:")
    try:
        return inner(gm, inputs)
    finally:
        sys.stderr = real


class _DropLines:
    def __init__(self, stream: Any, prefix: str) -> None:
        self._stream, self._prefix, self._dropped = stream, prefix, False

    def write(self, text: str) -> int:
        # print() writes the line and its newline separately: drop both
        drop = text.startswith(self._prefix) or (self._dropped and text == "\n")
        self._dropped = drop and text != "\n"
        return len(text) if drop else self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _clone(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        out = value.detach().clone()
        if out.stride() != value.stride() and value.numel():
            out = _same_layout(value.detach())
        return out.requires_grad_(value.requires_grad) if value.is_floating_point() or value.is_complex() else out
    return value


def _same_layout(t: Any) -> Any:
    """A copy of ``t`` with its own strides, where a clone would make it contiguous: a view into a bigger buffer
    (``x[:, 0]`` of a packed tensor, an output of the graph before a break), an expanded tensor. The compiled
    graph checks its inputs' strides (``assert_size_stride``), so a copy laid out otherwise would fail it. The
    span of storage its elements cover is copied, and viewed as ``t`` is."""
    span = 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return t.as_strided((span,), (1,)).clone().as_strided(t.shape, t.stride())


def _private_copy(gm: Any, example_inputs: Sequence[Any]) -> tuple[Any, list[Any], bool]:
    """Clones of the inputs, and of gm's tensor attributes when it has any.

    Dynamo installs some tensors as graph attributes rather than inputs (an
    optimizer's parameters and state, for one); a graph that updates them in
    place would update the user's tensors if run as is.
    """
    import torch

    inputs = [_clone(v) for v in example_inputs]
    attrs = {}
    for node in gm.graph.nodes:
        if node.op in ("get_attr", "call_module"):
            attrs[node.target] = _fetch(gm, node.target)
    if not attrs:
        return fresh_graph_module(gm), inputs, False
    root = {name: _clone(v) if isinstance(v, torch.Tensor) else copy.deepcopy(v) for name, v in attrs.items()}
    return fresh_graph_module(gm, root), inputs, True


def fresh_graph_module(gm: Any, root: Any = None) -> Any:
    """A new GraphModule over a copy of gm's graph (attributes from ``root``, else gm's).

    A GraphModule claims its graph and compiler passes edit it in place, so
    every separate compile or copy gets its own graph.
    """
    import torch

    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    return torch.fx.GraphModule(gm if root is None else root, graph, class_name=type(gm).__name__)


def _fetch(gm: Any, target: str) -> Any:
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _no_room(example_inputs: Sequence[Any], device: str) -> Optional[str]:
    """Why copying the inputs could starve the user's own run of GPU memory, if it could."""
    import torch

    if not device.startswith("cuda"):
        return None
    need = sum(t.numel() * t.element_size() for t in example_inputs if isinstance(t, torch.Tensor))
    free, _ = torch.cuda.mem_get_info(torch.device(device))
    if need > free // 2:
        return f"the copies need {need / 1e9:.1f} GB and only {free / 1e9:.1f} GB of GPU memory is free"
    return None


def _device_of(inputs: Sequence[Any]) -> str:
    import torch

    for t in inputs:
        if isinstance(t, torch.Tensor) and t.device.type != "cpu":
            return str(t.device)
    return "cpu"


# ---- timing ----

def time_graphs(recorder: GraphRecorder | Sequence[RecordedGraph], *, capture: Any = None,
                budget_s: float = bench.DEFAULT_BUDGET_S, repeats: int = bench.DEFAULT_REPEATS,
                kernel_profile: bool = True, peak: Any = None, compute_peak: Any = None) -> list[GraphTiming]:
    """Times every recorded graph eager vs compiled on its private inputs.

    ``capture`` (CaptureData or a Report) supplies compile times per compile id
    and the kernels' sources (for byte counts); without it the backend call's
    own wall time stands in for compile time. ``peak`` (PeakBandwidth) turns
    kernel bandwidth into % of peak; measure it with ``peak.peak_bandwidth``.
    """
    graphs = recorder.graphs if isinstance(recorder, GraphRecorder) else list(recorder)
    data = getattr(capture, "data", capture)
    return [_time_one(g, recorder if isinstance(recorder, GraphRecorder) else None, data,
                      budget_s, repeats, kernel_profile, peak, compute_peak) for g in graphs]


def _time_one(g: RecordedGraph, recorder: Optional[GraphRecorder], data: Any, budget_s: float, repeats: int,
              kernel_profile: bool, peak: Any, compute_peak: Any = None) -> GraphTiming:
    notes = list(g.notes)
    comp = _compilation(data, g.compile_id)
    compiled_fn = g.compiled
    steps = recorder is not None and recorder.uses_cudagraphs and g.device.startswith("cuda")
    if g.owns_attributes:
        compiled_fn = _compile_private(g, recorder, notes)
    elif steps:
        # replaying the user's CUDA graph would overwrite the outputs they hold from their call
        notes.append("CUDA graphs: timed on a separate compile of the same graph (same mode), since "
                     "replaying the user's own would overwrite the outputs they hold from their call")
        compiled_fn = _compile_private(g, recorder, [])
    if steps:
        notes.append("CUDA graphs: each timed call starts a new step (torch.compiler.cudagraph_mark_step_begin), "
                     "so the graph is recorded once and replayed, as in a training or serving loop")
    eager, compiled, ratio = _measure_both(g, compiled_fn, budget_s, repeats, notes, steps=steps)
    kernels: tuple[KernelTiming, ...] = ()
    kernels_note = kernels_build = None
    flops = estimate = wall = None
    if kernel_profile and g.backend != "inductor":
        kernels_note = f"no kernel profile: the {g.backend!r} backend generates no kernels"
    elif kernel_profile and compiled_fn is not None:
        kernels, kernels_note, kernels_build, flops, estimate, wall = _kernel_profile(
            g, recorder, compiled_fn, comp, peak, compute_peak, notes)
    host = _host_time(g, compiled_fn, wall, kernels, steps, repeats, notes)
    compile_s, source = _compile_time(g, comp)
    speedup = ratio.value if ratio is not None else _ratio(eager, compiled)
    train_eager = train_compiled = train_ratio = None
    if g.trains and compiled_fn is not None:
        train_eager, train_compiled, train_ratio = _measure_training_both(g, compiled_fn, budget_s, repeats, notes,
                                                                          steps=steps)
    elif g.trains:
        train_eager = _measure_training(g, g.gm, budget_s, repeats, notes, "eager")
    if ratio is not None and ratio.drift_note:
        notes.append(ratio.drift_note)
    verdict, warnings = judging.assess(eager, compiled, device=g.device, backend=g.backend,
                                       num_kernels=len([k for k in kernels if k.kind == "generated"]) or None,
                                       ratio=ratio)
    return GraphTiming(index=g.index, compile_id=g.compile_id, label=g.label, device=g.device,
                       grad_enabled=g.trains, eager=eager, compiled=compiled, speedup=speedup,
                       compile_time_s=compile_s, compile_time_source=source,
                       break_even_calls=judging.break_even(compile_s, eager, compiled,
                                                           speedup if ratio is not None else None, verdict),
                       kernels=kernels, kernels_note=kernels_note, warnings=tuple(warnings), notes=tuple(notes),
                       train_eager=train_eager, train_compiled=train_compiled,
                       train_speedup=train_ratio.value if train_ratio is not None else _ratio(train_eager,
                                                                                               train_compiled),
                       kernels_build=kernels_build, flops=flops, ratio=ratio, train_ratio=train_ratio, host=host,
                       estimate_s=estimate, verdict=verdict)


def _host_time(g: RecordedGraph, compiled_fn: Any, profiled_s: Optional[float], kernels: Any, steps: bool,
               repeats: int, notes: list[str]) -> Any:
    """The host's time per call beside the device's (``host``); None without a kernel profile."""
    from .host import host_time

    if compiled_fn is None:
        return None
    try:
        return host_time(graph_call(g, compiled_fn, steps=steps), g.device, profiled_s, kernels, repeats)
    except Exception as e:  # noqa: BLE001 - an extra figure: its failure is a note
        notes.append(f"the host's time per call was not measured: {type(e).__name__}: {e}")
        return None


USER_BUILD_LABEL = "the user's build, as compiled for their call (CUDA kernels are profiler rows without hooks)"
USER_PROFILED_LABEL = ("the user's build, as compiled for their call (with {opts}: its C++ kernels are profiler "
                       "rows)")


def profiles_kernels(options: Optional[dict], device_type: str) -> bool:
    """Whether a compile with these Inductor options already makes a per-kernel profile possible on the device
    type (``torch_door.inductor.kernel_profile_options``), so no separate profiling build is needed."""
    wanted = torch_door.inductor.kernel_profile_options(device_type)
    return bool(options) and all(options.get(k) == v for k, v in wanted.items())


def _kernel_profile(g: RecordedGraph, recorder: Optional[GraphRecorder], compiled_fn: Any, comp: Any, peak: Any,
                    compute_peak: Any, notes: list[str]
                    ) -> tuple[tuple[KernelTiming, ...], Optional[str], Optional[str], Optional[int], Optional[float],
                               Optional[float]]:
    from .kernels import profile_graph

    build = None
    if recorder is not None and recorder.kernel_profile:
        try:
            build = recorder.profiling_build(g)
        except Exception as e:  # noqa: BLE001 - the profile falls back to the user's build
            notes.append(f"the profiling build failed ({type(e).__name__}: {e}); profiled the user's build")
    mode = graph_autograd_mode(g)
    counted = g.gm if "reduce-overhead" in str(getattr(recorder, "mode", "") or "") else None
    if build is None:
        got = profile_graph(g, compiled_fn, comp, peak, mode, compute_peak=compute_peak, count_on=counted)
        device = g.device.split(":")[0]
        label = (USER_PROFILED_LABEL.format(opts=", ".join(torch_door.inductor.kernel_profile_options(device)))
                 if device == "cpu" and profiles_kernels(getattr(recorder, "options", None), device)
                 else USER_BUILD_LABEL)
        return got.rows, got.note, label, got.flops, got.estimate_s, got.wall_s
    got = profile_graph(g, build.fn, comp, peak, mode, kernels=build.kernels,
                        wrapper_code=build.wrapper_code, compute_peak=compute_peak)
    return got.rows, got.note, build.label, got.flops, got.estimate_s, got.wall_s


def _ratio(eager: Optional[Measurement], compiled: Optional[Measurement]) -> Optional[float]:
    return eager.median_s / compiled.median_s if eager and compiled and compiled.median_s > 0 else None


def _measure_training(g: RecordedGraph, fn: Any, budget_s: float, repeats: int, notes: list[str],
                      what: str, steps: bool = False) -> Optional[Measurement]:
    try:
        return bench.measure(_training_step(g, fn, steps), device=g.device, budget_s=budget_s, repeats=repeats)
    except Exception as e:  # noqa: BLE001 - reported, not raised
        notes.append(f"{what} forward+backward run failed: {type(e).__name__}: {e}")
        return None


def _measure_training_both(g: RecordedGraph, fn: Any, budget_s: float, repeats: int, notes: list[str],
                           steps: bool = False) -> tuple[Optional[Measurement], Optional[Measurement], Any]:
    """Forward+backward, eager and compiled, interleaved; a side that fails is measured alone or not at all."""
    try:
        return bench.measure_pair(_training_step(g, g.gm, False), _training_step(g, fn, steps), device=g.device,
                                  budget_s=budget_s, repeats=repeats)
    except Exception:  # noqa: BLE001 - find which side fails, and say so
        eager = _measure_training(g, g.gm, budget_s, repeats, notes, "eager")
        compiled = _measure_training(g, fn, budget_s, repeats, notes, "compiled", steps=steps)
        return eager, compiled, None


def _training_step(g: RecordedGraph, fn: Any, steps: bool) -> Callable[[], Any]:
    """One forward and its backward (the compiled backward graph runs here), on the private inputs.

    Gradients are taken with ``torch.autograd.grad`` for the private inputs only, so no
    ``.grad`` anywhere accumulates, the user's parameters' included.
    """
    import torch

    leaves = [t for t in g.inputs if isinstance(t, torch.Tensor) and t.requires_grad]

    def step() -> Any:
        if steps:
            torch_door.inductor.cudagraph_step()
        with torch.enable_grad():
            out = fn(*g.inputs)
            outs = [t for t in (out if isinstance(out, (list, tuple)) else (out,))
                    if isinstance(t, torch.Tensor) and t.requires_grad]
            if not outs:
                return None
            return torch.autograd.grad(outs, leaves, grad_outputs=[torch.ones_like(t) for t in outs],
                                       allow_unused=True)

    return step


def _compile_private(g: RecordedGraph, recorder: Optional[GraphRecorder], notes: list[str]) -> Any:
    """The user's compiled code holds their tensors (graph attributes); compile our copy instead."""
    if recorder is None:
        notes.append("compiled side not timed: the graph holds the caller's tensors as attributes "
                     "and no recorder was given to compile a private copy")
        return None
    notes.append("the graph holds the caller's tensors as attributes (e.g. optimizer state): "
                 "a private copy was compiled for timing, so theirs stay untouched")
    try:
        return recorder.compile_again(g)
    except Exception as e:  # noqa: BLE001
        notes.append(f"compiling the private copy failed: {type(e).__name__}: {e}")
        return None


def backend_uses_cudagraphs(inner: Any) -> bool:
    """An Inductor backend (torch's compile wrapper) set up for CUDA graphs (reduce-overhead, max-autotune)."""
    return bool((getattr(inner, "config", None) or {}).get("triton.cudagraphs"))


def graph_autograd_mode(g: RecordedGraph) -> Callable[[], Any]:
    import torch

    return (lambda: torch.enable_grad()) if g.trains else (lambda: torch.no_grad())


def graph_call(g: RecordedGraph, fn: Any, *, steps: bool = False) -> Callable[[], Any]:
    """One timed call of a graph: ``fn`` on the graph's private inputs, under its autograd mode.

    ``steps``: each call starts a new CUDA-graph step. Called outside Dynamo's
    frames, CUDA graph trees never see a new step begin, so a reduce-overhead
    build would stay in warm-up (run without its CUDA graph) forever: the
    figure would be a plain run's, and no graph would ever be recorded.
    """
    mode = graph_autograd_mode(g)
    inputs = g.inputs

    def call() -> Any:
        if steps:
            torch_door.inductor.cudagraph_step()
        with mode():
            return fn(*inputs)

    return call


def _measure_both(g: RecordedGraph, compiled_fn: Any, budget_s: float, repeats: int, notes: list[str],
                  steps: bool = False) -> tuple[Optional[Measurement], Optional[Measurement], Any]:
    """The graph eager and compiled, interleaved repeat by repeat (``bench.measure_pair``): drift cancels in
    the ratio. A side that fails (or no compiled side) is measured alone, and the note says why."""
    if compiled_fn is None:
        return _measure(g, g.gm, budget_s, repeats, notes, "eager"), None, None
    try:
        return bench.measure_pair(graph_call(g, g.gm), graph_call(g, compiled_fn, steps=steps), device=g.device,
                                  budget_s=budget_s, repeats=repeats)
    except Exception:  # noqa: BLE001 - find which side fails, and say so
        return (_measure(g, g.gm, budget_s, repeats, notes, "eager"),
                _measure(g, compiled_fn, budget_s, repeats, notes, "compiled", steps=steps), None)


def _measure(g: RecordedGraph, fn: Any, budget_s: float, repeats: int, notes: list[str],
             what: str, steps: bool = False) -> Optional[Measurement]:
    try:
        return bench.measure(graph_call(g, fn, steps=steps), device=g.device, budget_s=budget_s, repeats=repeats)
    except Exception as e:  # noqa: BLE001 - a graph that cannot be re-run is reported, not raised
        notes.append(f"{what} run failed: {type(e).__name__}: {e}")
        return None


def _compilation(data: Any, compile_id: Optional[str]) -> Any:
    if data is None or compile_id is None:
        return None
    for c in getattr(data, "compilations", ()):
        if c.compile_id == compile_id:
            return c
    return None


def _compile_time(g: RecordedGraph, comp: Any) -> tuple[Optional[float], str]:
    if comp is not None and comp.compile_time_s:
        return float(comp.compile_time_s), "capture"
    return g.backend_time_s, "backend"
