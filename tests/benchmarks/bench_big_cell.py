"""The 10,000-node cell: %%compile vs plain torch.compile of the same loop, in one process.

    PYTHONPATH=$PWD python tests/benchmarks/bench_big_cell.py [--n 5000] [--recursion-limit N]
        [--plain-first] [--rounds R]

A plain cell sets ``x = torch.ones(8)``; the big cell is ``for i in range(N): x = x * 1.0001 + 0.1``
(two FX nodes per iteration; ``x`` comes in as the graph's input, as in a notebook). With
``x = torch.ones(8)`` inside the compiled code instead, torch itself is another matter: the
chain hangs off a constant and plain ``torch.compile`` took 42 s at N=300 here (5.4 s at N=200 with the input).
It runs first under ``%%compile -q --no-time``
(Inductor, everything captured), then the same code as a function through plain
``torch.compile`` (caches on, but cold: a fresh Inductor cache dir; the magic's
own compile leaves nothing there). A small compile of each kind runs first, so
neither pays the process's first-compile costs. The plain loop multiplies by 1.0002, not 1.0001
(``--rounds R`` alternates the two R times, each round with its own pair of constants):
otherwise it reuses the C++ kernel the magic compiled (kept in memory by source hash), which made
the plain run look 1.36x faster at N=5000. Prints both wall times, the
capture's compile time, and the ratio (target: at most 1.1x).

The magic runs the cell on a roomy frame stack (``explorer/roomy_stack.py``): CPython frees a 16 KB
frame-stack chunk whenever the stack pops below it, and where those boundaries fall depends on how
deep a compile starts. Plain ``torch.compile`` from a cell pays that where it happens to start (here
63,000 mmap/munmap pairs for a 600-node graph); ``--roomy-plain`` gives plain the same stack, to
measure the capture's own cost.

Inductor lowers the chain by recursion, one Python frame per op: at N=5000 that
needs a recursion limit above IPython's 3000 for both (``--recursion-limit``);
with the default limit both fail alike with RecursionError, which is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--recursion-limit", type=int, default=None)
    parser.add_argument("--plain-first", action="store_true",
                        help="run plain torch.compile before the magic (the second big compile of a process "
                             "may run warmer: run both orders)")
    parser.add_argument("--roomy-plain", action="store_true",
                        help="run the plain compile on the explorer's roomy frame stack too "
                             "(explorer.roomy_stack): the capture's own cost, without the stack-depth effect")
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternate the two this many times (each round with its own constants, so no "
                             "kernel is reused); prints each round's ratio and their median")
    args = parser.parse_args()
    from own_tmp import own_tmp

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = own_tmp("cx-bench-big-")  # a cold cache, removed at exit

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "explorer")
    body = f"for i in range({args.n}):\n    x = x * 1.0001 + 0.1\n"  # the constant changes per round
    with capture_output():
        ip.run_cell("import torch\nw = torch.compile(lambda t: t * 2 + 1)(torch.ones(3))")
        ip.run_cell("%%compile -q --no-time\nw2 = torch.ones(3).cos() + 1")
        ip.run_cell("x = torch.ones(8)")
    if args.recursion_limit:
        sys.setrecursionlimit(args.recursion_limit)
    print(f"N={args.n} ({2 * args.n} FX nodes), recursion limit {sys.getrecursionlimit()}")

    def magic(r: int) -> float:
        t0 = time.perf_counter()
        with capture_output() as cap:
            res = ip.run_cell("%%compile -q --no-time -o\n" + body.replace("1.0001", f"1.{1 + 2 * r:04d}"))
        magic_s = time.perf_counter() - t0
        report = res.result if res.error_in_exec is None else getattr(res.error_in_exec, "explorer_report", None)
        ok = res.error_in_exec is None
        compile_s = report.data.compile_time_s if report is not None and report.data is not None else float("nan")
        print(f"%%compile:          {magic_s:7.1f} s wall ({'ok' if ok else _err(res.error_in_exec)}), "
              f"{compile_s:.1f} s compile by torch's metrics")
        if cap.stderr.strip():
            print("  stderr:", cap.stderr.strip().splitlines()[-1][:200])
        return magic_s

    def plain(r: int) -> float:
        # another constant: the same work, but a kernel of other source text, so the plain run cannot
        # reuse the C++ the magic's run compiled (Inductor keeps compiled kernels in memory by source hash)
        src = ("def _loop(x):\n" + "".join(f"    {line}\n" for line in body.splitlines()) + "    return x\n"
               ).replace("1.0001", f"1.{2 + 2 * r:04d}")
        call = ("from explorer.roomy_stack import call_on_roomy_stack\n"
                "_y = call_on_roomy_stack(torch.compile(_loop), torch.ones(8))") if args.roomy_plain \
            else "_y = torch.compile(_loop)(torch.ones(8))"
        t0 = time.perf_counter()
        with capture_output():
            res2 = ip.run_cell(src + call)
        plain_s = time.perf_counter() - t0
        outcome = "ok" if res2.error_in_exec is None else _err(res2.error_in_exec)
        print(f"plain torch.compile:{plain_s:7.1f} s wall ({outcome})")
        return plain_s

    ratios = []
    for r in range(args.rounds):
        if args.plain_first:
            plain_s = plain(r)
            magic_s = magic(r)
        else:
            magic_s = magic(r)
            plain_s = plain(r)
        ratios.append(magic_s / plain_s)
        print(f"ratio %%compile / plain: {ratios[-1]:.2f}x")
    if len(ratios) > 1:
        import statistics

        print(f"median of {len(ratios)} rounds: {statistics.median(ratios):.2f}x "
              f"({', '.join(f'{x:.2f}' for x in ratios)})")


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"


if __name__ == "__main__":
    main()
