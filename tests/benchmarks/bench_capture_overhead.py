"""What the capture costs on top of a plain compile: fresh processes, interleaved, caches off in both.

    # GPU: GPT-2-like, 6 layers, bf16, 16x256
    python tests/benchmarks/bench_capture_overhead.py --pairs 3 --out DIR
    # CPU: a 2-layer transformer, the code path
    python tests/benchmarks/bench_capture_overhead.py --pairs 2 --smoke --out DIR

Each round starts two fresh Python processes, one after the other: "plain" compiles the model
with torch.compile and calls it once; "explore" does the same through explorer.explore()
(capture on, no timing). Both run with torch.compiler.config.force_disable_caches=True
(what the capture sets), so neither reuses an earlier compile. The figure is the wall time
of that first call (compile + one run), measured inside the process; the ratio is
explore / plain per pair, and the median over pairs is what counts (<= 1.05x).
``--variants`` adds explore runs with one capture setting switched off or changed (for profiling):
``explore:backward``, ``explore:provenance``, ``explore:ir``, ``explore:tracecall`` (Dynamo's trace_call log)
(off), ``explore:prov1`` (provenance level 1).
``plain:roomy`` runs plain on the explorer's roomy frame stack (explorer.roomy_stack): as the divisor
(``--baseline plain:roomy``) it gives the capture's own cost without the stack-depth effect (on the H200:
0.98x plain, 1.05x alone, see README); as a variant, what the stack alone does to plain.
Each child also reports torch's own per-phase compile times (``dynamo_timed``) and the time spent in
Python's garbage collector; the summary prints the phases where explore and plain differ most.
``--profile`` adds one more pair under cProfile and writes both ``.pstats`` files to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

CHILD = r"""
import gc, json, os, sys, time
sys.path.insert(0, {root!r})
import torch
GC = [0.0, 0, None]
def _gc(phase, info):
    if phase == "start":
        GC[2] = time.perf_counter()
    elif GC[2] is not None:
        GC[0] += time.perf_counter() - GC[2]
        GC[1] += info["generation"] == 2
gc.callbacks.append(_gc)
smoke, kind, grad = {smoke}, {kind!r}, {grad}
torch.manual_seed(0)
if smoke:
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, dropout=0.0)
    model, x = torch.nn.TransformerEncoder(layer, 2).eval(), torch.randn(4, 64, 256)
    torch._inductor.config.cpp.vec_isa_ok = True
else:
    from transformers import GPT2Config, GPT2Model
    cfg = GPT2Config(n_layer=6)
    model = GPT2Model(cfg).eval().to("cuda", torch.bfloat16)
    x = torch.randint(0, cfg.vocab_size, (16, 256), device="cuda")
torch.compiler.config.force_disable_caches = True
if kind.startswith("explore"):
    import explorer
    from explorer.capturing import torch_door, recorder
    config = torch_door.config
    off = kind.split(":", 1)[1].split(",") if ":" in kind else []
    if "backward" in off:
        config.CAPTURE_CONFIG = tuple(c for c in config.CAPTURE_CONFIG if "backward" not in c[1])
    if "provenance" in off:
        config.CAPTURE_CONFIG = tuple(c for c in config.CAPTURE_CONFIG if "provenance" not in c[1])
    if "ir" in off:
        torch_door.inductor.IR_LOGGERS.clear()
    if "tracecall" in off:
        torch_door.dynamo.TRACE_CALL_LOGGERS = ()
    if "prov1" in off:
        config.CAPTURE_CONFIG = tuple((m, a, 1 if "provenance" in a else v, w)
                                      for m, a, v, w in config.CAPTURE_CONFIG)
ctx = torch.enable_grad() if grad else torch.no_grad()
if torch.cuda.is_available():
    torch.cuda.synchronize()
prof = None
if {profile!r}:
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
t0 = time.perf_counter()
GC[0], GC[1] = 0.0, 0
with ctx:
    if kind == "plain":
        out = torch.compile(model)(x)
    elif kind == "plain:roomy":
        from explorer.roomy_stack import call_on_roomy_stack
        out = call_on_roomy_stack(torch.compile(model), x)
    else:
        out = explorer.explore(model, x).result
if torch.cuda.is_available():
    torch.cuda.synchronize()
wall = time.perf_counter() - t0
if prof is not None:
    prof.disable()
    prof.dump_stats({profile!r})
from torch._dynamo.utils import compilation_time_metrics
phases = {{k: sum(v) for k, v in compilation_time_metrics.items()}}
phases["gc (all generations)"], phases["gc gen2 collections"] = GC[0], GC[1]
print("RESULT", json.dumps({{"kind": kind, "s": wall, "phases": phases}}))
"""


def run_one(kind: str, smoke: bool, grad: bool, timeout: float, profile: str = "") -> dict:
    """One fresh process: {"s": wall time of the first call, "phases": {torch's phase: seconds}}."""
    code = CHILD.format(root=ROOT, smoke=smoke, kind=kind, grad=grad, profile=profile)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{kind} failed:\n{proc.stderr[-3000:]}")


def phase_table(runs: dict[str, list[dict]], top: int = 25) -> list[tuple[str, float, float]]:
    """(phase, explore median, plain median), the phases where the two differ most first."""
    base = next(iter(runs))  # the baseline comes first
    names = {p for r in runs["explore"] + runs[base] for p in r.get("phases", {})}
    med = lambda kind, p: statistics.median(r.get("phases", {}).get(p, 0.0) for r in runs[kind])  # noqa: E731
    rows = [(p, med("explore", p), med(base, p)) for p in names]
    rows.sort(key=lambda r: -abs(r[1] - r[2]))
    return rows[:top]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--grad", action="store_true", help="call the model with autograd on (a training forward)")
    ap.add_argument("--variants", default="", help="';'-separated, e.g. 'explore:backward;explore:provenance,ir'")
    ap.add_argument("--baseline", default="plain", choices=["plain", "plain:roomy"],
                    help="what explore is divided by; plain:roomy alone gives the capture's own cost")
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--profile", action="store_true", help="one more pair under cProfile (.pstats in --out)")
    args = ap.parse_args(argv)
    kinds = [args.baseline, "explore"] + [v.strip() for v in args.variants.split(";") if v.strip()]
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    t_start = time.perf_counter()
    for i in range(args.pairs):
        for k in (kinds if i % 2 == 0 else kinds[::-1]):  # alternate who goes first
            runs[k].append(run_one(k, args.smoke, args.grad, args.timeout))
            print(f"pair {i}: {k} {runs[k][-1]['s']:.2f} s", flush=True)
    times = {k: [r["s"] for r in v] for k, v in runs.items()}
    base = args.baseline
    ratios = {k: [a / b for a, b in zip(times[k], times[base])] for k in kinds if k != base}
    result = {"model": "2-layer transformer (CPU smoke)" if args.smoke else "GPT-2 6 layers bf16 16x256",
              "grad": args.grad, "times_s": times, "runs": runs,
              "ratio_per_pair": ratios, "ratio_median": {k: statistics.median(v) for k, v in ratios.items()},
              "wall_s": time.perf_counter() - t_start}
    print(f"{'phase (torch dynamo_timed, median s)':58s} {'explore':>8s} {'plain':>8s} {'diff':>7s}")
    for p, e, pl in phase_table(runs):
        print(f"{p[:58]:58s} {e:8.2f} {pl:8.2f} {e - pl:+7.2f}")
    if args.profile and args.out:
        os.makedirs(args.out, exist_ok=True)
        for k in ("plain", "explore"):
            run_one(k, args.smoke, args.grad, args.timeout, profile=os.path.join(args.out, f"profile_{k}.pstats"))
        print(f"profiles written to {args.out}/profile_{{plain,explore}}.pstats")
    print(json.dumps({"ratio_median": result["ratio_median"], "ratio_per_pair": ratios, "times_s": times}, indent=1))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = "bench_capture_overhead" + ("_grad" if args.grad else "") + ".json"
        with open(os.path.join(args.out, name), "w") as fh:
            json.dump(result, fh, indent=1)
    return 0 if result["ratio_median"]["explore"] <= 1.05 else 1


if __name__ == "__main__":
    sys.exit(main())
