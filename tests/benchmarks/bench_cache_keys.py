"""What saying why the cache missed costs: ``cache_keys.explain_keys`` on a program's records, with its key store.

    python tests/benchmarks/bench_cache_keys.py                 # a small training step (fresh process, TORCH_TRACE)
    python tests/benchmarks/bench_cache_keys.py --trace DIR     # the records of a trace you have
    python tests/benchmarks/bench_cache_keys.py --aot-components  # also with AOTAutograd's components (DEBUG)

The program runs once in a fresh process under ``TORCH_TRACE``; its records are read as ``open`` reads them. Then
``explain_keys`` runs over them ``--repeat`` times each way: without a store (an opened trace), with an empty store
(a first capture: every identity written) and with the store it filled (a re-run: each miss read back and compared,
each unchanged key only touched). The figures are the pass's own time (median), per lookup, beside the time it took
to read the records: the capture's added cost, measured directly.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)

PROGRAM = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
step = torch.compile(lambda x: model(x).square().mean())
for dtype in (torch.float32, torch.float64):
    model.to(dtype)
    step(torch.randn(16, 32, dtype=dtype)).backward()
"""


def _trace(folder: str, aot: bool) -> str:
    program = os.path.join(folder, "program.py")
    with open(program, "w", encoding="utf-8") as fh:
        fh.write(PROGRAM)
    env = dict(os.environ, TORCH_TRACE=os.path.join(folder, "trace"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(folder, "inductor"))
    if aot:
        env["TORCH_LOGS"] = "+torch._functorch._aot_autograd.autograd_cache"
    subprocess.run([sys.executable, program], check=True, env=env, capture_output=True)
    return os.path.join(folder, "trace")


def _raw(trace: str):
    from explorer.capturing.recorder import Recorder
    from explorer.capturing.trace_file import FileFacts, open_text, replay

    recorder = Recorder()
    path = sorted(glob.glob(os.path.join(trace, "*.log")))[0]
    with open_text(path) as stream:
        replay(stream, FileFacts(os.path.basename(path)), recorder)
    return recorder.raw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", help="a TORCH_TRACE folder (default: run a small training step under one)")
    ap.add_argument("--aot-components", action="store_true", help="the program's AOTAutograd components too")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from explorer.capturing.cache_keys import CACHE_RECORDS, KeyStore, explain_keys

    with tempfile.TemporaryDirectory() as folder:
        trace = args.trace or _trace(folder, args.aot_components)
        t0 = time.perf_counter()
        raw = _raw(trace)
        read_s = time.perf_counter() - t0
        lookups = sum(1 for e in raw.events if e.name in CACHE_RECORDS)
        print(f"records read in {read_s * 1000:.0f} ms; {lookups} cache lookups")
        ways = {"no store (an opened trace)": lambda: None,
                "an empty store (a first capture)": lambda: KeyStore(tempfile.mkdtemp(dir=folder)),
                "the store it filled (a re-run)": None}
        filled = KeyStore(tempfile.mkdtemp(dir=folder))
        explain_keys(raw, filled, [])
        ways["the store it filled (a re-run)"] = lambda: filled
        for name, make in ways.items():
            times = []
            for _ in range(args.repeat):
                store = make()
                t = time.perf_counter()
                explain_keys(raw, store, [])
                times.append(time.perf_counter() - t)
            ms = statistics.median(times) * 1000
            print(f"{name}: {ms:.1f} ms, {ms / max(lookups, 1):.2f} ms a lookup")
        size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(filled.folder, "*.json")))
        print(f"key store: {len(os.listdir(filled.folder))} files, {size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
