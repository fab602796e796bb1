"""What AOTAutograd's key components cost torch: the capture turns its cache logger to DEBUG
(``torch_door.aot.cache_components_on``) so an AOTAutograd miss can be explained, and torch then rehashes every part
of the key into one line each (``_get_debug_lines_for_cache_key``). Measured directly, in one fresh process: that
function's own time (wrapped here, in the benchmark only) against the ``explore()`` call it is part of.

    python tests/benchmarks/bench_aot_components.py                         # the scale step, 4 layers
    python tests/benchmarks/bench_aot_components.py --layers 16

The program is bench_scale.py's training step (``llama_blocks``, its "small" width), captured as a user does (the
default capture, the graph caches on) in an empty Inductor cache folder: every lookup misses, each key is computed.

Measured 2026-12-08 on the 2-core development machine, shared with a CI run (load 3-5), torch 2.13 CPU, 4 layers:
explore() 314.6 s; AOTAutograd's components 40.3 ms (0.013 %) for its one key (676 lines); the one AOTAutograd
lookup explained (its first capture: nothing before it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {programs!r})
import torch
import explorer
from bench_scale import WIDTHS
import llama_blocks
from torch._functorch._aot_autograd import autograd_cache
torch.manual_seed(0)
w = WIDTHS["small"]
model = llama_blocks.Llama(layers={layers}, dim=w["dim"], heads=w["heads"], kv_heads=w["kv_heads"],
                           vocab=w["vocab"], odd_layer={layers} // 2, seq=w["seq"], hidden=w["hidden"])
tokens = torch.randint(0, w["vocab"], (w["batch"], w["seq"] + 1), generator=torch.Generator().manual_seed(1))
SPENT = [0.0, 0, 0]
_lines = autograd_cache._get_debug_lines_for_cache_key
def timed(*args, **kwargs):
    t = time.perf_counter()
    out = _lines(*args, **kwargs)
    SPENT[0] += time.perf_counter() - t
    SPENT[1] += 1
    SPENT[2] += len(out)
    return out
autograd_cache._get_debug_lines_for_cache_key = timed
t0 = time.perf_counter()
report = explorer.explore(llama_blocks.train_step, model, tokens[:, :-1], tokens[:, 1:])
wall = time.perf_counter() - t0
aot = [c.why for comp in report.capture.compilations for c in comp.caches if c.cache == "aotautograd"]
print("RESULT " + json.dumps({{"wall_s": wall, "lines_s": SPENT[0], "calls": SPENT[1], "components": SPENT[2],
                              "aot_lookups": len(aot), "aot_compared": sum(1 for w in aot if w is not None)}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=4)
    args = parser.parse_args()
    code = CHILD.format(root=ROOT, programs=os.path.join(ROOT, "tests", "programs"), layers=args.layers)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tests", "benchmarks"), TORCHINDUCTOR_CACHE_DIR=cache)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        sys.exit(proc.stderr[-3000:])
    r = json.loads(line[len("RESULT "):])
    print(f"{args.layers} layers: explore() {r['wall_s']:.2f} s; AOTAutograd's components {r['lines_s'] * 1e3:.1f} ms "
          f"({r['lines_s'] / r['wall_s']:.3%}) in {r['calls']} keys, {r['components']} lines; "
          f"{r['aot_compared']} of {r['aot_lookups']} AOTAutograd lookups explained or said to have nothing before")


if __name__ == "__main__":
    main()
