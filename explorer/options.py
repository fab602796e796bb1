"""What a run of the explorer was asked to do: one options object for every entry point.

``explore(fn, ..., backend=, mode=, ...)``, ``%%compile --backend ... --mode ...``
and ``python -m explorer run ...`` all build an ``Options`` and hand it to
``explorer.pipeline``; the names are the same everywhere. The report keeps the
options it was made with (``Report.options``), so a saved report says how it
was compiled. Plain data: no torch here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
DEFAULT_COMPARE = ("default", "reduce-overhead", "max-autotune-no-cudagraphs")
TARGETS = ("cuda",)  # previews of a device this machine lacks
INDUCTOR_BACKENDS = ("halide", "triton", "cpp")  # Inductor's code generators (cpu_backend / cuda_backend)
TIME_BUDGET_S = 0.05  # per measurement, per repeat: a notebook cell should not wait long


@dataclass(frozen=True)
class Options:
    """``backend`` is a registered backend's name; a backend callable travels beside it
    (``pipeline.run(..., backend_fn=...)``) and is recorded here by its name."""

    backend: str = "inductor"
    mode: Optional[str] = None
    dynamic: Optional[bool] = None
    fullgraph: bool = False
    inductor_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    time: bool = False  # time each graph, and the whole compiled call, compiled vs eager
    time_budget_s: float = TIME_BUDGET_S
    timeit: bool = False  # re-run the whole call many times, like %timeit (side effects repeat)
    compare: tuple[str, ...] = ()  # modes to compile and time side by side
    target: Optional[str] = None  # "cuda": also a preview of what a CUDA GPU would get (explorer.preview)
    inductor_backend: Optional[str] = None  # "halide" (or "triton", "cpp"): Inductor's code generator
    capture_only: bool = False  # compile nothing ourselves: capture the code's own torch.compile calls
    html: Optional[str] = None  # where to save the standalone page
    json: Optional[str] = None  # where to save the JSON report

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.target is not None and self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {self.target!r}")
        if self.inductor_backend is not None and self.inductor_backend not in INDUCTOR_BACKENDS:
            raise ValueError(f"inductor_backend must be one of {', '.join(INDUCTOR_BACKENDS)}, "
                             f"not {self.inductor_backend!r}")
        bad = [m for m in self.compare if m not in MODES]
        if bad:
            raise ValueError(f"--compare takes modes among {', '.join(MODES)}; not {', '.join(bad)}")

    def compile_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``torch.compile`` these options stand for."""
        out: dict[str, Any] = {"backend": self.backend, "fullgraph": self.fullgraph, "dynamic": self.dynamic}
        if self.mode is not None:
            out["mode"] = self.mode
        options = self.all_inductor_options()
        if options:
            out["options"] = options
        return out

    def all_inductor_options(self) -> dict[str, Any]:
        """``inductor_options`` with what ``inductor_backend`` stands for (the user's own options win)."""
        out: dict[str, Any] = {}
        if self.inductor_backend == "halide":
            out.update({"cpu_backend": "halide", "cuda_backend": "halide"})
        elif self.inductor_backend == "triton":
            out.update({"cpu_backend": "triton", "cuda_backend": "triton"})
        elif self.inductor_backend == "cpp":
            out["cpu_backend"] = "cpp"
        out.update(self.inductor_options)
        return out


def parse_compare(text: Optional[str]) -> tuple[str, ...]:
    """``"default,max-autotune"`` -> ("default", "max-autotune"); ``"all"`` or ``""`` -> the usual three."""
    if text is None:
        return ()
    words = tuple(w.strip() for w in text.split(",") if w.strip())
    return DEFAULT_COMPARE if not words or words == ("all",) else words
