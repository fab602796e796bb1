"""What each capture setting costs a big compile: plain torch.compile against each setting alone, all of
them together, and explore(), alternating in one process.

    PYTHONPATH=$PWD python tests/benchmarks/bench_capture_settings.py [--n 1000] [--rounds 2]

The program is ``bench_big_cell``'s loop (``x = x * c + 0.1``, N times, two FX nodes each) as a
function of its input. Each compile gets its own constant ``c``, so no compile reuses another's
C++ kernel (Inductor keeps compiled kernels in memory by source hash). The settings are the capture's
own (``explorer.capturing.torch_door.config.CAPTURE_CONFIG``), plus the structured-trace handler and the
IR loggers the recorder attaches. Prints each run and each variant's total against plain's.

Figures (2026-12-04, N=1000, 2 shared cores, 2 rounds): provenance tracking 1.06x, trace handler +
IR loggers 1.00x, disabled caches 0.95x, all settings 1.05x, explore() 1.02x; an earlier run of
plain against explore() alone, 3 rounds: 1.23x. ``--n 20 --rounds 3`` (a 1.2-1.6 s compile): each
setting alone 0.92-1.01x, all settings 1.14x, explore() 1.14x. Round-to-round spread here is about 20 %.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import os
import tempfile
import time
from typing import Callable, Iterator


class _Drop(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        pass


@contextlib.contextmanager
def _setting(module_path: str, attr: str, value: object) -> Iterator[None]:
    import importlib

    with importlib.import_module(module_path).patch({attr: value}):
        yield


@contextlib.contextmanager
def _listeners() -> Iterator[None]:
    """The handlers the recorder attaches: the structured trace, the IR loggers at DEBUG."""
    from explorer.capturing import torch_door

    trace = torch_door.logs.trace_logger()
    handler = _Drop()
    trace.addHandler(handler)
    loggers = [logging.getLogger(name) for name in torch_door.inductor.IR_LOGGERS.values()]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    handlers = [_Drop() for _ in loggers]
    for lg, h in zip(loggers, handlers):
        lg.addHandler(h)
        lg.setLevel(logging.DEBUG)
        lg.propagate = False
    try:
        yield
    finally:
        trace.removeHandler(handler)
        for lg, h, (level, propagate) in zip(loggers, handlers, saved):
            lg.removeHandler(h)
            lg.setLevel(level)
            lg.propagate = propagate


def _variants() -> list[tuple[str, Callable[[], contextlib.AbstractContextManager]]]:
    from explorer.capturing.torch_door.config import CAPTURE_CONFIG

    out: list[tuple[str, Callable[[], contextlib.AbstractContextManager]]] = [("plain", contextlib.nullcontext)]
    for module_path, attr, value, _why in CAPTURE_CONFIG:
        out.append((attr, lambda m=module_path, a=attr, v=value: _setting(m, a, v)))
    out.append(("listeners", _listeners))

    @contextlib.contextmanager
    def everything() -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for module_path, attr, value, _why in CAPTURE_CONFIG:
                stack.enter_context(_setting(module_path, attr, value))
            stack.enter_context(_listeners())
            yield

    out.append(("all settings", everything))
    out.append(("explore()", lambda: None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from own_tmp import own_tmp

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = own_tmp("cx-bench-settings-")  # a cold cache, removed at exit
    import warnings

    import torch

    import explorer

    warnings.filterwarnings("ignore", message=".*force_disable_caches.*")
    torch.compile(lambda t: t * 2 + 1)(torch.ones(3))  # the process's first-compile costs, paid by no variant
    variants = _variants()
    constants = itertools.count(1)
    times: dict[str, list[float]] = {name: [] for name, _ in variants}
    for r in range(args.rounds):
        for name, make in variants:
            c = next(constants)
            ns: dict = {}
            src = f"def loop(x):\n    for i in range({args.n}):\n        x = x * 1.{c:04d} + 0.1\n    return x\n"
            exec(compile(src, os.path.join(tempfile.gettempdir(), f"cx_settings_{c}.py"), "exec"), ns)
            torch._dynamo.reset()
            t0 = time.perf_counter()
            if name == "explore()":
                explorer.explore(ns["loop"], torch.ones(8), time=False)
            else:
                with make():
                    torch.compile(ns["loop"])(torch.ones(8))
            times[name].append(time.perf_counter() - t0)
            print(f"round {r}  {name:38s} {times[name][-1]:6.1f} s", flush=True)
    base = sum(times["plain"])
    for name, ts in times.items():
        print(f"{name:38s} {', '.join(f'{t:.1f}' for t in ts)} s   {sum(ts) / base:.2f}x plain")


if __name__ == "__main__":
    main()
