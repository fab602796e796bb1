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
``--variants`` adds explore runs with one capture setting switched off (for profiling).
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
import json, os, sys, time
sys.path.insert(0, {root!r})
import torch
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
    from explorer.capturing import torch_compat, recorder
    off = kind.split(":", 1)[1].split(",") if ":" in kind else []
    if "backward" in off:
        torch_compat.CAPTURE_CONFIG = tuple(c for c in torch_compat.CAPTURE_CONFIG if "backward" not in c[1])
    if "provenance" in off:
        torch_compat.CAPTURE_CONFIG = tuple(c for c in torch_compat.CAPTURE_CONFIG if "provenance" not in c[1])
    if "ir" in off:
        torch_compat.IR_LOGGERS.clear()
ctx = torch.enable_grad() if grad else torch.no_grad()
if torch.cuda.is_available():
    torch.cuda.synchronize()
t0 = time.perf_counter()
with ctx:
    if kind == "plain":
        out = torch.compile(model)(x)
    else:
        out = explorer.explore(model, x).result
if torch.cuda.is_available():
    torch.cuda.synchronize()
print("RESULT", json.dumps({{"kind": kind, "s": time.perf_counter() - t0}}))
"""


def run_one(kind: str, smoke: bool, grad: bool, timeout: float) -> float:
    code = CHILD.format(root=ROOT, smoke=smoke, kind=kind, grad=grad)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return float(json.loads(line[7:])["s"])
    raise RuntimeError(f"{kind} failed:\n{proc.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--grad", action="store_true", help="call the model with autograd on (a training forward)")
    ap.add_argument("--variants", default="", help="';'-separated, e.g. 'explore:backward;explore:provenance,ir'")
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args(argv)
    kinds = ["plain", "explore"] + [v.strip() for v in args.variants.split(";") if v.strip()]
    times: dict[str, list[float]] = {k: [] for k in kinds}
    t_start = time.perf_counter()
    for i in range(args.pairs):
        for k in kinds:
            times[k].append(run_one(k, args.smoke, args.grad, args.timeout))
            print(f"pair {i}: {k} {times[k][-1]:.2f} s", flush=True)
    ratios = {k: [a / b for a, b in zip(times[k], times["plain"])] for k in kinds if k != "plain"}
    result = {"model": "2-layer transformer (CPU smoke)" if args.smoke else "GPT-2 6 layers bf16 16x256",
              "grad": args.grad, "times_s": times,
              "ratio_per_pair": ratios, "ratio_median": {k: statistics.median(v) for k, v in ratios.items()},
              "wall_s": time.perf_counter() - t_start}
    print(json.dumps({"ratio_median": result["ratio_median"], "times_s": times}, indent=1))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = "bench_capture_overhead" + ("_grad" if args.grad else "") + ".json"
        with open(os.path.join(args.out, name), "w") as fh:
            json.dump(result, fh, indent=1)
    return 0 if result["ratio_median"]["explore"] <= 1.05 else 1


if __name__ == "__main__":
    sys.exit(main())
