"""Is the GPU story's transformer block launch-bound? Five rounds in one process, each printing the host's time
per compiled call (no sync), the device's, our events, do_bench and the end-to-end figure.

    PYTHONPATH=$PWD python3 tests/gpu/launch_bound.py      # on the device

Measured 2026-12-05 on the H200: the host issued a compiled call in 258-348 us from round to round, about
what the device runs (events 234-507 us, do_bench 233-488 us, ours 223-361 us): every method follows the
host's speed, which is why tests/test_gpu_story_gpu.py compares the fastest rounds.
"""

import gc
import os
import statistics
import subprocess
import time

import torch
from triton.testing import do_bench

from explorer.timing import end_to_end as e2e
from explorer.timing.bench import _L2_FLUSH_BYTES, _event_times


def _host(fn, n=200, before=None):
    """(host seconds per call without waiting, wall seconds per call once the device caught up)."""
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        if before is not None:
            before()
        fn()
    host = (time.perf_counter() - t) / n
    torch.cuda.synchronize()
    return host, (time.perf_counter() - t) / n


def _us(seconds):
    return f"{seconds * 1e6:.0f}"


def main():
    print("cpus", os.cpu_count(), "load", os.getloadavg())
    torch.manual_seed(0)
    block = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True, dropout=0.0)
    block = block.cuda().train().to(torch.bfloat16)
    x = torch.randn(16, 256, 512, device="cuda", dtype=torch.bfloat16)
    cache = torch.empty(_L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    with torch.no_grad():
        c = torch.compile(block)
        for _ in range(5):
            c(x)
        call = e2e.call_of(block, c, (x,), {})
        for r in range(5):
            h, w = _host(lambda: c(x))
            hf, wf = _host(lambda: c(x), before=cache.zero_)
            he, we = _host(lambda: block(x))
            ev = statistics.median(_event_times(lambda: c(x), 64, cache, 60))
            flush = statistics.median(_event_times(cache.zero_, 64, None, 0))
            db = do_bench(lambda: c(x), warmup=25, rep=100, return_mode="median") / 1e3
            t = e2e.time_end_to_end(call, device="cuda:0", budget_s=0.1)
            gc.disable()
            try:
                t2 = e2e.time_end_to_end(call, device="cuda:0", budget_s=0.1)
            finally:
                gc.enable()
            clock = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader"],
                                   capture_output=True, text=True).stdout.strip()
            print(f"round {r}: compiled host {_us(h)} wall {_us(w)} | +flush host {_us(hf)} wall {_us(wf)} | "
                  f"eager host {_us(he)} wall {_us(we)} | events {_us(ev)} (flush alone {_us(flush)}) | "
                  f"do_bench {_us(db)} | ours {_us(t.compiled.median_s)} {[_us(v) for v in t.compiled.times_s]} "
                  f"eager {[_us(v) for v in t.eager.times_s]} | gc off {_us(t2.compiled.median_s)} | sm {clock}",
                  flush=True)


if __name__ == "__main__":
    main()
