"""Autotuning (``mode="max-autotune"``) and CUDA graphs (``mode="reduce-overhead"``), as plain data.

A subscriber of the one listener (``recorder.listening`` with the ``GPU`` seams),
open for a whole run (the user's call and the timing after it, where CUDA graphs
are recorded):

* Inductor's autotuning feedback (``select_algorithm.add_feedback_saver``):
  for each op autotuned, every choice tried and its measured time;
* CUDA graph trees' artifact loggers (``cudagraphs``): each recording and
  re-recording (with torch's reason) and each graph that was not made a CUDA
  graph (torch's skip reason), plus Inductor's ``cudagraph_skips`` counter.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import threading
from typing import Any, Optional

from ..plural import counted, noun
from . import torch_door
from .model import AutotuneChoice, Autotuning, CaptureData, CudaGraphs
from .raw import RawEvent
from .recorder import AUTOTUNE, CUDAGRAPH_LOG, GPU, current_compile_id, listening

_RECORDING = re.compile(r"\] Recording function=")
_RERECORDING = re.compile(r"\] Re-recording function=.*?reason=(?P<reason>.*)$", re.S)
_SKIP = re.compile(r"skipping cudagraphs", re.I)


class GpuWatch:
    """Use as a context manager around the run; ``apply(capture)`` puts what it saw into the capture."""

    def __init__(self, cudagraphs_asked: bool = False) -> None:
        self.asked = cudagraphs_asked
        self.autotuning: list[Autotuning] = []
        self.recordings = 0
        self.rerecord_reasons: list[str] = []
        self.skips: list[str] = []
        self.notes: list[str] = []
        self._lock = threading.Lock()
        self._stack = contextlib.ExitStack()
        self._listening: Any = None
        self._counters0: dict[str, int] = {}
        self._trees0 = (0, 0)

    def __enter__(self) -> GpuWatch:
        try:
            self._listening = self._stack.enter_context(
                listening(self._on_event, seams=(GPU,), keep=(CUDAGRAPH_LOG, AUTOTUNE)))
            self._counters0 = torch_door.inductor.inductor_counters()
            self._trees0 = torch_door.inductor.cudagraph_tree_counts()
        except Exception as e:  # noqa: BLE001 - watching is extra
            self.notes.append(f"GPU watch not fully installed: {type(e).__name__}: {e}")
        return self

    def __exit__(self, *exc: Any) -> bool:
        problems = self._listening.problems if self._listening is not None else []
        self.notes += [p for p in problems if p not in self.notes]
        try:
            self._stack.close()
        except Exception as e:  # noqa: BLE001 - the run's result stands: noted
            self.notes.append(f"a GPU-watch listener could not be removed: {type(e).__name__}: {e}")
        return False

    def _on_event(self, event: RawEvent) -> None:
        if event.name == CUDAGRAPH_LOG:
            self._on_cudagraph_log(str(event.payload))
        elif event.name == AUTOTUNE:
            self._on_autotune(*event.payload)

    # ---- callbacks ----
    def _on_cudagraph_log(self, text: str) -> None:
        with self._lock:
            m = _RERECORDING.search(text)
            if m:
                self.rerecord_reasons.append(m["reason"].strip()[:500])
            elif _RECORDING.search(text):
                self.recordings += 1
            elif _SKIP.search(text):
                self.skips.append(text.strip()[:1000])

    def _on_autotune(self, timings: Any, name: Any, input_nodes: Any, choices: Any) -> None:
        key = current_compile_id()
        times = dict(timings or {})
        rows = []
        best = None
        finite = {c: t for c, t in times.items() if isinstance(t, (int, float)) and t == t and t != float("inf")}
        if finite:
            best = min(finite, key=finite.get)
        for c in list(choices or times.keys()):
            t = times.get(c)
            ok = isinstance(t, (int, float)) and t == t and t != float("inf")
            rows.append(AutotuneChoice(name=_choice_name(c), kind=_choice_kind(c),
                                       time_s=float(t) / 1e3 if ok else None,  # Inductor's timings are ms
                                       description=_choice_description(c), winner=c is best))
        rows.sort(key=lambda r: (r.time_s is None, r.time_s or 0.0))
        self.autotuning.append(Autotuning(op=str(name), inputs=tuple(_node_text(n) for n in input_nodes or ()),
                                          choices=tuple(rows), winner=_choice_name(best) if best is not None else None,
                                          compile_id=key.key if key else None))

    # ---- result ----
    def cudagraphs(self) -> Optional[CudaGraphs]:
        counters = torch_door.inductor.inductor_counters()
        skipped = counters.get("cudagraph_skips", 0) - self._counters0.get("cudagraph_skips", 0)
        trees = torch_door.inductor.cudagraph_tree_counts()
        recorded, rerecorded = trees[0] - self._trees0[0], trees[1] - self._trees0[1]
        if not (self.asked or self.recordings or self.skips or skipped or recorded):
            return None
        notes = list(self.notes)
        if recorded > self.recordings:  # this torch logs no line per recording: the trees' own counter
            self.recordings = recorded
        rerecordings = max(len(self.rerecord_reasons), rerecorded)
        if skipped > len(self.skips):
            reasons = len(self.skips)
            notes.append(f"Inductor counted {counted(skipped, 'CUDA-graph skip')}; {counted(reasons, 'reason')} "
                         f"{noun(reasons, 'was', 'were')} logged")
        used = self.recordings > 0
        if self.asked and not used and not self.skips:
            notes.append("no CUDA graph was recorded: CUDA graph trees record at the second call of a graph "
                         "(the first only warms up); timing the whole call (time=True) makes those calls")
        return CudaGraphs(asked=self.asked, used=used, recordings=self.recordings,
                          rerecordings=rerecordings, rerecord_reasons=tuple(self.rerecord_reasons),
                          skips=tuple(self.skips), notes=tuple(notes))

    def apply(self, data: Optional[CaptureData]) -> Optional[CaptureData]:
        if data is None:
            return None
        return dataclasses.replace(data, autotuning=data.autotuning + tuple(self.autotuning),
                                   cudagraphs=self.cudagraphs() or data.cudagraphs)


def _choice_name(c: Any) -> str:
    for attr in ("name",):
        v = getattr(c, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(c).__name__


def _choice_kind(c: Any) -> str:
    cls = type(c).__name__.lower()
    if "extern" in cls:
        return "extern"
    if "template" in cls or "triton" in cls or "cpp" in cls or "cutlass" in cls or "cuda" in cls:
        return "template"
    return "other"


def _choice_description(c: Any) -> str:
    try:
        info = c.info_dict() if hasattr(c, "info_dict") else None
    except Exception:  # noqa: BLE001
        info = None
    if isinstance(info, dict) and info:
        return ", ".join(f"{k}={v}" for k, v in info.items() if k not in ("backend",) and v not in (None, ""))[:400]
    desc = getattr(c, "description", "")
    return str(desc)[:400]


def _node_text(n: Any) -> str:
    try:
        size = [int(s) if str(s).isdigit() else str(s) for s in n.get_size()]
        return f"{str(n.get_dtype()).replace('torch.', '')}{size}"
    except Exception:  # noqa: BLE001
        return type(n).__name__
