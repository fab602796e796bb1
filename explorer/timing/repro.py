"""Timing a whole script's graphs from torch's own repro artifacts (the CLI's ``--time``).

``python -m explorer run`` cannot wrap the backend of a script's own
``torch.compile`` calls (no monkeypatching of torch), so ``GraphRecorder`` is
out. But for every graph it lowers, Inductor writes a ``fx_graph_runnable``
artifact to the structured trace: a self-contained script holding the post-AOT
graph as ``Repro`` and a ``load_args(reader)`` that builds inputs of the same
shapes, strides, dtypes and devices. ``collect_repros`` subscribes to the
capture's recorder (which drops these payloads unless asked) and keeps them
while the script runs; ``time_repros`` runs each one afterwards, eager vs
Inductor-compiled, on random inputs of those shapes. The script's tensors are
never touched, and its compiled functions are never called again.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Sequence

from ..capturing import torch_door
from ..capturing.raw import RawEvent
from ..capturing.recorder import watching
from . import bench
from . import verdict as judging
from .model import GraphTiming, Measurement, TimingReport

ARTIFACT = "fx_graph_runnable"
EVENT = f"artifact:{ARTIFACT}"  # as the recorder names it
FROM_REPRO_NOTE = ("timed from torch's repro of this graph (fx_graph_runnable) on random inputs of "
                   "the same shapes, strides and dtypes, not the script's own tensors")
NO_KERNELS_NOTE = ("no kernel profile under `run --time`; explorer.explore(fn, ..., time=True) "
                   "profiles each kernel")


@dataclass(frozen=True)
class Repro:
    """One Inductor lowering as torch wrote it: plain text, no live objects."""

    compile_id: Optional[str]  # "frame/compile", as Compilation.compile_id
    lowering: int  # 0, 1, ... within that compile id (a training graph lowers forward, then backward)
    payload: str  # the fx_graph_runnable script
    attempt: int = 0
    frame: Optional[tuple[int, int]] = None  # (frame id, frame compile id): a forward and its backward share it

    @property
    def kind(self) -> str:
        """"inference", "forward" (of a training graph) or "backward", from the graph's inputs."""
        params = _forward_params(self.payload)
        if any(p.startswith("tangents_") for p in params):
            return "backward"
        if any(p.startswith("primals_") for p in params):
            return "forward"
        return "inference"


class _Collector:
    """A recorder subscriber: keeps each fx_graph_runnable payload, numbering the lowerings per compile id."""

    def __init__(self) -> None:
        self.repros: list[Repro] = []
        self._lowerings: dict[Optional[str], int] = {}

    def __call__(self, event: RawEvent) -> None:
        if event.name != EVENT or not isinstance(event.payload, str):
            return
        cid = event.compile_id.key if event.compile_id else None
        lowering = self._lowerings.get(cid, 0)
        self._lowerings[cid] = lowering + 1
        key = event.compile_id
        self.repros.append(Repro(cid, lowering, event.payload, key.attempt if key else 0,
                                 (key.frame_id, key.frame_compile_id) if key else None))


@contextlib.contextmanager
def collect_repros(session: Any = None) -> Iterator[list[Repro]]:
    """Keeps every ``fx_graph_runnable`` payload emitted inside the block, in order.

    ``session`` is the CaptureSession to read; without one, whichever capture
    is open while the block runs (``python -m explorer run`` opens its capture
    inside). The yielded list fills as the block runs. The subscription ends
    with the block, also when it raises (the exception passes through unchanged).
    """
    collector = _Collector()
    with contextlib.ExitStack() as stack:
        if session is not None:
            stack.callback(session.subscribe(collector, keep=[EVENT]))
        else:
            stack.enter_context(watching(collector, keep=[EVENT]))
        yield collector.repros


# ---- running one repro ----

def load_repro(repro: Repro) -> tuple[Any, list[Any]]:
    """(the graph as a module, random inputs of its shapes), from the payload.

    The payload runs in a fresh namespace, not as ``__main__`` (its own run
    block stays off). It sets environment variables (its cache directory) and
    compiler config values: the environment is restored here; config values are
    left for the caller's ``torch_door.config.preserved_compiler_configs(notes)`` so the
    compile that follows sees the user's compile-time settings. (It also clears
    torch's table of user Triton kernels, as every repro does; the script has
    finished by then.)
    """
    filename = f"<fx_graph_runnable {repro.compile_id} #{repro.lowering}>"
    # the payload registers itself in linecache under its file name when given its own source
    namespace: dict[str, Any] = {"__name__": "explorer_repro", "__compile_source__": repro.payload}
    with _environment_restored():
        exec(compile(repro.payload, filename, "exec"), namespace)  # torch's own artifact, written by this process
    return namespace["mod"], torch_door.aot.repro_inputs(namespace["load_args"])


@contextlib.contextmanager
def _environment_restored() -> Iterator[None]:
    saved = dict(os.environ)
    try:
        yield
    finally:
        for key in [k for k in os.environ if k not in saved]:
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def _forward_params(payload: str) -> list[str]:
    match = re.search(r"def forward\(self,?\s*([^)]*)\)", payload)
    if not match:
        return []
    return [p.strip().split(":")[0].strip() for p in match.group(1).split(",") if p.strip()]


def _device_of(args: Sequence[Any]) -> str:
    import torch

    for a in args:
        if isinstance(a, torch.Tensor) and a.device.type != "cpu":
            return str(a.device)
    return "cpu"


# ---- timing ----

def time_repros(repros: Sequence[Repro], capture_data: Any = None, *, budget_s: float = 0.05,
                repeats: int = 5, include_backward: bool = False) -> list[GraphTiming]:
    """Times each repro's graph eager vs Inductor-compiled; one GraphTiming per graph timed.

    Backward lowerings are skipped unless ``include_backward`` (their inputs are
    saved activations and tangents, random here). A repro that cannot be
    loaded, compiled or run gets a GraphTiming with notes saying why, never an
    exception. ``capture_data`` (CaptureData or a Report) supplies compile times.
    """
    data = getattr(capture_data, "data", capture_data)
    chosen = [r for r in repros if include_backward or r.kind != "backward"]
    return [_time_one(i, r, data, budget_s, repeats) for i, r in enumerate(chosen)]


def _time_one(index: int, repro: Repro, data: Any, budget_s: float, repeats: int) -> GraphTiming:
    import torch

    notes = [FROM_REPRO_NOTE]
    label = f"graph {index}" + (f" ({repro.compile_id})" if repro.compile_id else "")
    if repro.kind != "inference":
        label += f" {repro.kind}"
    eager = compiled = ratio = None
    device = "cpu"
    try:
        with torch_door.config.preserved_compiler_configs(notes), torch.no_grad():
            mod, args = load_repro(repro)
            device = _device_of(args)
            fn = _compile(mod, args, notes)
            if fn is None:
                eager = _measure(lambda: mod(*args), device, budget_s, repeats, notes, "eager")
            else:
                eager, compiled, ratio = _measure_pair(lambda: mod(*args), lambda: fn(*args), device, budget_s,
                                                       repeats, notes)
    except Exception as e:  # noqa: BLE001 - one bad repro is a note, never the CLI's failure
        notes.append(f"the repro could not be loaded: {type(e).__name__}: {e}")
    compile_s = _compile_time(data, repro.compile_id)
    speedup = ratio.value if ratio is not None else None
    if ratio is not None and ratio.drift_note:
        notes.append(ratio.drift_note)
    verdict, warnings = judging.assess(eager, compiled, device=device, ratio=ratio)
    return GraphTiming(index=index, compile_id=repro.compile_id, label=label, device=device,
                       grad_enabled=False, eager=eager, compiled=compiled, speedup=speedup,
                       compile_time_s=compile_s, compile_time_source="capture",
                       break_even_calls=judging.break_even(compile_s, eager, compiled, speedup, verdict),
                       kernels_note=NO_KERNELS_NOTE, warnings=tuple(warnings), notes=tuple(notes), ratio=ratio,
                       verdict=verdict)


def _compile(mod: Any, args: list[Any], notes: list[str]) -> Any:
    """Inductor on the repro's graph, compiled (first call) before any timing starts."""
    import torch

    try:
        fn = torch.compile(mod, backend="inductor")
        fn(*args)
        return fn
    except Exception as e:  # noqa: BLE001 - a note on this graph's timing
        notes.append(f"compiling the repro failed: {type(e).__name__}: {e}")
        return None


def _measure_pair(eager: Any, compiled: Any, device: str, budget_s: float, repeats: int, notes: list[str]) -> Any:
    """Eager and compiled interleaved; when one side fails, each alone (the failing one noted)."""
    try:
        return bench.measure_pair(eager, compiled, device=device, budget_s=budget_s, repeats=repeats)
    except Exception:  # noqa: BLE001 - find which side fails
        return (_measure(eager, device, budget_s, repeats, notes, "eager"),
                _measure(compiled, device, budget_s, repeats, notes, "compiled"), None)


def _measure(call: Any, device: str, budget_s: float, repeats: int, notes: list[str],
             what: str) -> Optional[Measurement]:
    try:
        return bench.measure(call, device=device, budget_s=budget_s, repeats=repeats)
    except Exception as e:  # noqa: BLE001 - a graph that cannot be re-run is reported, not raised
        notes.append(f"{what} run failed: {type(e).__name__}: {e}")
        return None


def _compile_time(data: Any, compile_id: Optional[str]) -> Optional[float]:
    """Dynamo + backend time of the user's compile, as the capture measured it."""
    for c in getattr(data, "compilations", ()) if compile_id else ():
        if c.compile_id == compile_id and c.compile_time_s:
            return float(c.compile_time_s)
    return None


def time_script_capture(repros: Sequence[Repro], data: Any = None, *, budget_s: float = 0.05,
                        repeats: int = 5, include_backward: bool = False) -> TimingReport:
    """The TimingReport for a script run under ``collect_repros()`` (what ``run --time`` stores)."""
    timings = time_repros(repros, data, budget_s=budget_s, repeats=repeats, include_backward=include_backward)
    notes = []
    if not repros:
        notes.append("no graph was lowered by Inductor in this run, so there was nothing to time "
                     "(--time times Inductor graphs only)")
    skipped = [r for r in repros if r.kind == "backward" and not include_backward]
    if skipped:
        notes.append(f"{len(skipped)} backward graph(s) not timed: only forward and inference graphs are")
    warnings = tuple(f"{t.label}: {w}" for t in timings for w in t.warnings)
    device = timings[0].device if timings else "cpu"
    return TimingReport(device=device, graphs=tuple(timings), warnings=warnings, notes=tuple(notes))
