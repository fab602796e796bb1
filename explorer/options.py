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
from typing import Any, Iterator, Optional

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
DEFAULT_COMPARE = ("default", "reduce-overhead", "max-autotune-no-cudagraphs")
TARGETS = ("cuda",)  # previews of a device this machine lacks
INDUCTOR_BACKENDS = ("halide", "triton", "cpp")  # Inductor's code generators (cpu_backend / cuda_backend)
TIME_BUDGET_S = 0.05  # per measurement, per repeat: a notebook cell should not wait long
REPEATS = 5  # repeats per measurement (timing.bench.DEFAULT_REPEATS): the fewest that bound a speedup


def _flag(default: Any, help: Any, *, magic: tuple[str, ...] = (), cli: tuple[str, ...] = (), api: bool = True,
          choices: Optional[tuple[str, ...]] = None, metavar: Optional[str] = None,
          default_factory: Any = None, type: Any = None) -> Any:
    """An ``Options`` field and how each entry point spells it: the one place a flag is added.

    ``magic``/``cli``: the option strings of ``%%compile`` and ``python -m explorer run`` (empty: that
    entry point does not offer it). For a switch each string is its own flag, ``--no-x`` setting it off
    (``--dynamic`` / ``--no-dynamic``; the magic times by default, so it has only ``--no-time``).
    ``api``: ``explore()`` takes it as a keyword of the field's name. ``help``: one text, or one per
    entry point (``{"magic": ..., "cli": ...}``). ``type``: how argparse reads the value (``int``).
    """
    meta = {"help": help, "magic": magic, "cli": cli, "api": api, "choices": choices, "metavar": metavar,
            "type": type}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class Options:
    """How a report was made: the options every entry point takes, with the same names in each.

    ``backend`` is a registered backend's name; a backend callable travels beside it
    (``pipeline.run(..., backend_fn=...)``) and is recorded here by its name.

    Each field says how the entry points spell it (``_flag``); ``flags(entry)`` gives their
    argparse arguments and ``from_flags`` reads them back, so a new option is one field here.
    """

    backend: str = _flag("inductor", "torch.compile backend: inductor (default), aot_eager, eager, any registered "
                         "one, or the name of a backend function defined in the notebook", magic=("--backend",))
    """The `torch.compile` backend: `inductor` (default), `aot_eager`, `eager`, any registered backend's name."""
    mode: Optional[str] = _flag(None, "torch.compile mode", magic=("--mode",), choices=MODES)
    """`default`, `reduce-overhead`, `max-autotune`, `max-autotune-no-cudagraphs`, or `null`."""
    dynamic: Optional[bool] = _flag(None, {"--dynamic": "compile with dynamic shapes from the start",
                                           "--no-dynamic": "never compile with dynamic shapes (specialise on "
                                           "every size)"}, magic=("--dynamic", "--no-dynamic"))
    """Dynamic shapes from the start (`true`), never (`false`), or torch's default (`null`)."""
    fullgraph: bool = _flag(False, "fail instead of breaking the graph", magic=("--fullgraph",))
    """Fail instead of breaking the graph."""
    inductor_options: dict[str, Any] = _flag(None, "Inductor options (torch.compile's options=)",
                                             default_factory=dict)
    """Inductor options passed to `torch.compile(options=...)`."""
    time: bool = _flag(False, {
        "--no-time": "skip timing (by default each captured graph is timed compiled vs eager on copies of its "
                     "inputs, which changes nothing in the notebook)",
        "--time": "after the script, time each Inductor graph eager vs compiled (from torch's repro of the graph, "
                  "on random inputs of the same shapes); adds a few seconds per graph plus one compile each"},
        magic=("--no-time",), cli=("--time",))
    """Whether eager and compiled were timed."""
    time_budget_s: float = _flag(TIME_BUDGET_S, f"seconds each timed repeat runs at least (default {TIME_BUDGET_S}); "
                                 "longer repeats average a noisy machine's hiccups out", magic=("--time-budget",),
                                 cli=("--time-budget",), metavar="S", type=float)
    """`--time-budget`: seconds each timed repeat runs at least."""
    repeats: int = _flag(REPEATS, f"repeats per timed measurement (default {REPEATS}, the fewest that bound a "
                         "speedup); where the view says the machine was too noisy to tell, more repeats narrow the "
                         "speedup's interval", magic=("--repeat",), cli=("--repeat",), metavar="N", type=int)
    """`--repeat`: repeats per timed measurement (5 or more bound a speedup)."""
    # re-run the whole call many times, like %timeit (side effects repeat); implies time
    timeit: bool = _flag(False, "also re-run the whole cell eager and compiled, like %%timeit: its side effects "
                         "repeat", magic=("--timeit",))
    """`--timeit`: the whole cell re-run eager and compiled."""
    compare: tuple[str, ...] = _flag((), "comma-separated modes to compile and time side by side, e.g. "
                                     "default,reduce-overhead,max-autotune-no-cudagraphs", magic=("--compare",),
                                     metavar="MODES")
    """`--compare`: the modes compiled and tabulated."""
    # "cuda": also a preview of what a CUDA GPU would get (explorer.preview)
    target: Optional[str] = _flag(None, "also preview the Triton kernels a CUDA GPU would get (lowered without a "
                                  "GPU, not run)", magic=("--target",), cli=("--target",), choices=TARGETS)
    """`--target cuda`: the CUDA preview on a machine without a GPU."""
    # "halide" (or "triton", "cpp"): Inductor's code generator
    inductor_backend: Optional[str] = _flag(None, "Inductor's code generator, e.g. halide",
                                            magic=("--inductor-backend",), cli=("--inductor-backend",),
                                            choices=INDUCTOR_BACKENDS)
    """`--inductor-backend`: Inductor's code generator (`halide`, `triton`, `cpp`)."""
    # compile nothing ourselves: capture the code's own torch.compile calls
    capture_only: bool = _flag(False, "compile nothing: run the cell as it is and capture the torch.compile "
                               "calls it makes itself", magic=("--capture-only",), api=False)
    """`--capture-only`: the cell ran as it is; only its own `torch.compile` calls compiled."""
    # the user's compile caches as they are (a second run of their program)
    warm: bool = _flag(False, "capture with the compile caches as they are, as a second run of the program would "
                       "(default: every stage shown, a graph an earlier capture lowered coming from torch's graph "
                       "caches and its loop-level IR from the explorer's store)",
                       magic=("--warm",), cli=("--warm",))
    """`--warm`: the program's compile caches as they were, as a second run finds them."""
    # the graph caches off: every graph lowered again (the default shows every stage without it)
    fresh: bool = _flag(False, "lower every graph again, the graph caches off while capturing (slower re-runs; "
                        "for a graph torch's cache holds but the explorer's store does not)",
                        magic=("--fresh",), cli=("--fresh",))
    """`--fresh`: the graph caches off while capturing, every graph lowered again."""
    # torch.export's programs: the cell's (or script's) own export and AOTInductor calls
    export: bool = _flag(False, "show the programs the code's own torch.export.export calls make (graph, "
                         "signature, ranges) beside AOTInductor's compiles of them; the code runs as it is",
                         magic=("--export",), cli=("--export",), api=False)
    """`--export`: the programs the code's own `torch.export.export` calls made are shown."""
    # a guard_filter_fn (a callable travels beside, like a backend function): recorded by its name
    guard_filter: Optional[str] = _flag(None, "compile with this guard_filter_fn (a function defined in the "
                                        "notebook, or one of torch.compiler's, e.g. "
                                        "skip_guard_on_inbuilt_nn_modules_unsafe) and list the guards it drops",
                                        magic=("--guard-filter",), metavar="NAME")
    """A guard filter's name."""
    why_slow: bool = _flag(False, "answer why the run took the time it took: its measured time, the phases of "
                           "torch's compile that cost the most (their share) and the cache lookups that missed, "
                           "shown first; the view opens on the Compile time pane",
                           magic=("--why-slow",), cli=("--why-slow",))
    """`--why-slow`: the run's time explained first (`Report.why_slow`)."""
    html: Optional[str] = _flag(None, "also save the standalone HTML report to FILE", magic=("--html",),
                                cli=("--html",), metavar="FILE")
    """Where the standalone page was written."""
    json: Optional[str] = _flag(None, "also save the report as JSON to FILE (schema: README)", magic=("--json",),
                                cli=("--json",), metavar="FILE")
    """Where the JSON was written."""
    # a distributed job: N ranks started by torch.distributed.run (explorer.jobs)
    nproc_per_node: Optional[int] = _flag(None, "run the script as N ranks on this machine under torch.distributed.run "
                                          "(torchrun's environment: RANK, WORLD_SIZE, ...); every rank is captured "
                                          "and the reports hold every rank, compared", cli=("--nproc-per-node",),
                                          api=False, metavar="N", type=int)
    """`--nproc-per-node`: how many ranks the script ran as."""

    def __post_init__(self) -> None:
        if self.timeit and not self.time:
            object.__setattr__(self, "time", True)  # --timeit is timing too
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.target is not None and self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {self.target!r}")
        if self.inductor_backend is not None and self.inductor_backend not in INDUCTOR_BACKENDS:
            raise ValueError(f"inductor_backend must be one of {', '.join(INDUCTOR_BACKENDS)}, "
                             f"not {self.inductor_backend!r}")
        if self.export and not self.capture_only:
            object.__setattr__(self, "capture_only", True)  # --export captures the code's own export calls
        if self.nproc_per_node is not None and self.nproc_per_node < 1:
            raise ValueError(f"--nproc-per-node takes a number of ranks >= 1, not {self.nproc_per_node}")
        if self.repeats < 1:
            raise ValueError(f"--repeat takes a number of repeats >= 1, not {self.repeats}")
        if self.time_budget_s <= 0:
            raise ValueError(f"--time-budget takes seconds > 0, not {self.time_budget_s}")
        if self.warm and self.fresh:
            raise ValueError("--warm (the compile caches as they are) and --fresh (the graph caches off) contradict "
                             "each other: pick one")
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


def flags(entry: str) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """``(option strings, argparse keyword arguments)`` for each flag ``entry`` ("magic" or "cli") offers.

    The same pairs feed ``argparse.ArgumentParser.add_argument`` (the CLI) and IPython's
    ``magic_arguments.argument`` (the magic), in the order of the fields. Every flag's default is None:
    ``from_flags`` keeps the field's default for a flag not given.
    """
    for f in dataclasses.fields(Options):
        help_text = f.metadata.get("help")
        for name in f.metadata.get(entry) or ():
            text = help_text.get(name, "") if isinstance(help_text, dict) else help_text
            kwargs: dict[str, Any] = {"dest": f.name, "default": None, "help": text}
            if isinstance(f.default, bool) or f.name == "dynamic":
                kwargs["action"] = "store_false" if name.startswith("--no-") else "store_true"
            else:
                if f.metadata["choices"]:
                    kwargs["choices"] = f.metadata["choices"]
                if f.metadata["metavar"]:
                    kwargs["metavar"] = f.metadata["metavar"]
                if f.metadata.get("type"):
                    kwargs["type"] = f.metadata["type"]
            yield (name,), kwargs


def from_flags(parsed: Any, entry: str, **defaults: Any) -> Options:
    """The ``Options`` an entry point's parsed flags stand for.

    ``defaults``: where the entry point's default differs from the field's (the magic times unless
    ``--no-time``; the CLI captures only). A flag given wins over them.
    """
    values: dict[str, Any] = dict(defaults)
    for f in dataclasses.fields(Options):
        if f.metadata.get(entry):
            value = getattr(parsed, f.name, None)
            if value is not None:
                values[f.name] = parse_compare(value) if f.name == "compare" else value
    return Options(**values)
