"""``explorer open`` against tlparse on the same logs, in the same runs (issue 34's performance targets).

Inputs:
- tlparse's own test inputs (``--tlparse-inputs``: the ``tests/inputs`` folder of a pytorch/tlparse checkout):
  every log file and multi-rank folder in it, each opened by both tools;
- an 80-layer training step's trace (``TRAIN80``: 80 transformer layers, forward and backward compiled by
  Inductor), written once by torch with TORCH_TRACE and cached (``--cache``; a few minutes on 2 cores);
- a 100 MB trace: that log repeated to 100 MB in one file (compile ids start again at each copy, as after a
  ``torch._dynamo.reset()``);
- with ``--ranks``: a 1 GB folder of 64 rank logs (``dedicated_log_torch_trace_rank_K_*.log``, each the 80-layer
  log with ``"rank": K`` in every record, as every rank of an SPMD job compiles the same), for resident memory
  and the 64-rank page.

Each tool runs as a user runs it, a fresh process: ``tlparse PATH -o OUT --overwrite --no-browser`` (and
``--all-ranks-html`` for a folder of ranks), ``python -m explorer open PATH --html OUT --quiet``; the two
alternate, the first flipping each round, so the machine's load hits both alike. Wall time and the process's
peak resident memory (``wait4``) are kept; medians are printed, and the ratio explorer / tlparse. For tlparse's
inputs the one-process figure is given too (``open_trace`` on every input in one Python process: what a notebook
or a script pays), since a Python process's start and imports (~0.5-1 s) are most of each small log's time.
``--page`` loads the 80-layer page and the 64-rank page in headless Chromium and gives the first paint
(navigation to the view drawn, ``data-ready-ms``).

    PYTHONPATH=. python tests/benchmarks/bench_open.py --tlparse-inputs ../tlparse/tests/inputs \\
        [--tlparse tlparse] [--rounds 3] [--ranks] [--page] [--cache /tmp/cx_bench_open]

Figures (2026-12-05; tlparse 0.4.3, Python 3.11, torch 2.13 CPU; 2 cores shared with other work, load average
6-25 during the run, so absolute times are several times a quiet machine's: only the ratios, taken in the same
run, mean much). ``--rounds 2 --page --ranks``:

    input                              size       tlparse   explorer  ratio  explorer peak RSS
    tlparse's tests/inputs (24)        22.5 MB     6.30 s    47.73 s  7.58x    39 MB (one process per input)
      the same in one Python process                          4.89 s  0.78x
    80-layer training step             16.3 MB     6.59 s     7.65 s  1.16x   157 MB; page first paint 450 ms
    the same repeated to 100 MB       114.0 MB    41.64 s    24.50 s  0.59x   549 MB
    64 rank logs                     1044.9 MB   648.31 s    95.05 s  0.15x   201 MB; page 3.9 MB, first paint 572 ms

Each small log costs a Python process's start and the explorer's imports (about 1.5-2 s a process under this
load): in one process the explorer reads tlparse's inputs faster than tlparse's CLI does. Before ranks shared
their decoded records and the page wrote alike ranks as patches, the 64 rank logs took 122 s with 852 MB
resident and a 143.5 MB page whose first paint took 2.4 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRAIN80 = '''
import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    """A transformer layer: attention and an MLP, each behind a LayerNorm, with residuals."""

    def __init__(self, d, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


torch.manual_seed(0)
model = torch.nn.Sequential(*[Block(64) for _ in range(80)])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(2, 16, 64), torch.randn(2, 16, 64)
loss = F.mse_loss(torch.compile(model)(x), y)
loss.backward()
opt.step()
print(f"loss {loss.item():.4f}")
'''
_ENVELOPE = re.compile(r"^([VIWEC]\d{4} [^\]]*\] )\{", re.M)


# ---- inputs ----

def train80(cache: str) -> str:
    """The 80-layer training step's trace folder (written once by torch, then kept in ``cache``)."""
    folder = os.path.join(cache, "train80")
    if os.path.isdir(folder) and os.listdir(folder):
        return folder
    script = os.path.join(cache, "train80.py")
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(TRAIN80)
    env = dict(os.environ, TORCH_TRACE=folder, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    print("writing the 80-layer training step's trace (once; minutes on 2 cores) ...", flush=True)
    subprocess.run([sys.executable, script], env=env, check=True, cwd=cache, stdout=subprocess.DEVNULL)
    return folder


def log_of(folder: str) -> str:
    (name,) = [n for n in os.listdir(folder) if n.endswith(".log")]
    return os.path.join(folder, name)


def big(cache: str, log: str, mb: int = 100) -> str:
    """One log of ``mb`` MB: ``log`` repeated."""
    path = os.path.join(cache, f"big{mb}", "dedicated_log_torch_trace_big.log")
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(log, encoding="utf-8", newline="") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8", newline="") as out:
        for _ in range(-(-mb * 1_000_000 // len(text))):
            out.write(text)
    return path


def ranks(cache: str, log: str, n: int = 64) -> str:
    """A folder of ``n`` rank logs, each ``log`` with the rank in every envelope (as torch writes it once the
    process group is up)."""
    folder = os.path.join(cache, f"ranks{n}")
    if os.path.isdir(folder) and len(os.listdir(folder)) == n:
        return folder
    os.makedirs(folder, exist_ok=True)
    with open(log, encoding="utf-8", newline="") as fh:
        text = fh.read()
    for k in range(n):
        body = _ENVELOPE.sub(lambda m, k=k: m.group(1) + '{"rank": ' + str(k) + ", ", text)
        with open(os.path.join(folder, f"dedicated_log_torch_trace_rank_{k}_bench.log"), "w", encoding="utf-8",
                  newline="") as out:
            out.write(body)
    return folder


def size_mb(path: str) -> float:
    if os.path.isfile(path):
        return os.path.getsize(path) / 1e6
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) / 1e6


# ---- running ----

def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, peak resident MB and exit code of a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def commands(path: str, out: str, tlparse: str) -> tuple[list[str], list[str]]:
    multi = os.path.isdir(path)
    tl = [tlparse, path, "-o", os.path.join(out, "tl"), "--overwrite", "--no-browser"]
    if multi:
        tl.append("--all-ranks-html")
    cx = [sys.executable, "-m", "explorer", "open", path, "--html", os.path.join(out, "cx.html"), "--quiet"]
    return tl, cx


def compare(paths: list[str], tlparse: str, rounds: int, out: str) -> dict[str, dict[str, list[float]]]:
    """Each tool on ``paths`` (one process per path), ``rounds`` times, alternating: total seconds per round."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    res: dict[str, dict[str, list[float]]] = {"tlparse": {"s": [], "mb": []}, "explorer": {"s": [], "mb": []}}
    for i in range(rounds):
        totals = {"tlparse": [0.0, 0.0], "explorer": [0.0, 0.0]}
        for path in paths:
            tl, cx = commands(path, out, tlparse)
            order = [("tlparse", tl), ("explorer", cx)][:: 1 if i % 2 == 0 else -1]
            for name, cmd in order:
                wall, mb, code = run(cmd, env)
                if code not in (0,) and name == "explorer":
                    print(f"  explorer open {path} exited {code}", flush=True)
                totals[name][0] += wall
                totals[name][1] = max(totals[name][1], mb)
        for name, (s, mb) in totals.items():
            res[name]["s"].append(s)
            res[name]["mb"].append(mb)
    return res


def in_process(paths: list[str]) -> float:
    """``open_trace`` and the page of every path, in one process already running (imports paid)."""
    code = ("import sys, time, explorer\nt0 = time.perf_counter()\n"
            "for p in sys.argv[1:]:\n    explorer.open_trace(p).to_html()\n"
            "print(time.perf_counter() - t0)")
    done = subprocess.run([sys.executable, "-c", code, *paths], env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def first_paint(page: str, loads: int = 3) -> float:
    """Median ms from navigation to the view drawn (``data-ready-ms``) in headless Chromium."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or None, args=["--no-sandbox"])
        for _ in range(loads):
            tab = browser.new_page()
            tab.goto("file://" + os.path.abspath(page))
            tab.wait_for_selector("#cx-root[data-ready]", timeout=120_000)
            times.append(float(tab.get_attribute("#cx-root", "data-ready-ms")))
            tab.close()
        browser.close()
    return statistics.median(times)


def line(label: str, mb: float, res: dict) -> None:
    t, c = statistics.median(res["tlparse"]["s"]), statistics.median(res["explorer"]["s"])
    print(f"{label:34s} {mb:8.1f} MB  tlparse {t:7.2f} s  explorer {c:7.2f} s  ratio {c / t:5.2f}x  "
          f"explorer peak RSS {max(res['explorer']['mb']):6.0f} MB  (tlparse {max(res['tlparse']['mb']):.0f} MB)",
          flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tlparse-inputs", default=os.environ.get("CX_TLPARSE_INPUTS"))
    ap.add_argument("--tlparse", default=shutil.which("tlparse") or "tlparse")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "cx_bench_open"))
    ap.add_argument("--ranks", action="store_true", help="also the 1 GB folder of 64 rank logs")
    ap.add_argument("--page", action="store_true", help="first paint of the pages in headless Chromium")
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    version = subprocess.run([args.tlparse, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; python {sys.version.split()[0]}; {os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; "
          f"{args.rounds} rounds, medians")
    out = tempfile.mkdtemp(prefix="cx_bench_open_out_")
    try:
        if args.tlparse_inputs:
            inputs = [os.path.join(args.tlparse_inputs, n) for n in sorted(os.listdir(args.tlparse_inputs))]
            res = compare(inputs, args.tlparse, args.rounds, out)
            line(f"tlparse tests/inputs ({len(inputs)} inputs)", sum(map(size_mb, inputs)), res)
            one = in_process(inputs)
            print(f"{'':34s} {'':8s}     explorer in one process: {one:.2f} s "
                  f"({one / statistics.median(res['tlparse']['s']):.2f}x tlparse's CLI)", flush=True)
        log = log_of(train80(args.cache))
        res = compare([log], args.tlparse, args.rounds, out)
        line("80-layer training step", size_mb(log), res)
        page80 = os.path.join(out, "cx.html")
        if args.page:
            print(f"{'':34s} first paint of its page: {first_paint(page80):.0f} ms", flush=True)
        hundred = big(args.cache, log)
        line("the same, repeated to 100 MB", size_mb(hundred), compare([hundred], args.tlparse, 1, out))
        if args.ranks:
            folder = ranks(args.cache, log)
            res = compare([folder], args.tlparse, 1, out)
            line("64 rank logs", size_mb(folder), res)
            if args.page:
                page = os.path.join(out, "cx.html")
                print(f"{'':34s} page {os.path.getsize(page) / 1e6:.1f} MB; first paint "
                      f"{first_paint(page):.0f} ms", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(json.dumps({"cache": args.cache}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
