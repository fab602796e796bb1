"""The CLI's wall time against a plain, cache-disabled run of the same script.

    python tests/benchmarks/bench_cli.py [--pairs 5] [--script tests/scripts/trace_train_recompile.py]

Both sides are fresh processes, so both pay the torch import and a cold
Inductor compile: plain ``python SCRIPT`` with TORCHINDUCTOR_FORCE_DISABLE_CACHES=1
(what a capture costs is mostly the disabled caches; this isolates the rest), and
``python -m explorer run SCRIPT --json --html`` (capture, assembly, both reports).
Runs alternate, and which side goes first flips each pair, so load drifting on a
shared machine hits both sides alike. Prints each pair, the medians, their ratio,
and the median of the per-pair ratios (steadier when the machine's load drifts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCRIPT = os.path.join(HERE, "..", "scripts", "trace_train_recompile.py")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--script", default=DEFAULT_SCRIPT)
    args = ap.parse_args()
    script = os.path.normpath(args.script)
    env = {k: v for k, v in os.environ.items() if k not in ("TORCH_TRACE", "TORCH_LOGS")}
    plain_env = {**env, "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        plain_cmd = [sys.executable, script]
        cli_cmd = [sys.executable, "-m", "explorer", "run", script,
                   "--json", os.path.join(tmp, "r.json"), "--html", os.path.join(tmp, "r.html")]
        plain, cli = [], []
        print(f"script: {script}   pairs: {args.pairs}   python {sys.version.split()[0]}")
        print(f"{'pair':>4}  {'first':>5}  {'plain s':>8}  {'cli s':>8}  {'ratio':>6}")
        for i in range(args.pairs):
            if i % 2 == 0:
                p = timed(plain_cmd, plain_env)
                c = timed(cli_cmd, env)
            else:
                c = timed(cli_cmd, env)
                p = timed(plain_cmd, plain_env)
            plain.append(p)
            cli.append(c)
            print(f"{i + 1:>4}  {'plain' if i % 2 == 0 else 'cli':>5}  {p:8.2f}  {c:8.2f}  {c / p:6.3f}", flush=True)
    mp, mc = statistics.median(plain), statistics.median(cli)
    pair_ratio = statistics.median(c / p for c, p in zip(cli, plain))
    print(f"median plain {mp:.2f}s (range {min(plain):.2f}-{max(plain):.2f})   "
          f"median cli {mc:.2f}s (range {min(cli):.2f}-{max(cli):.2f})")
    print(f"ratio cli/plain: of the medians {mc / mp:.3f}, median of the pairs' ratios {pair_ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
