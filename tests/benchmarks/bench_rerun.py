"""The explorer against plain ``torch.compile``, first run and re-run, each in a fresh process with default caches.

    PYTHONPATH=$PWD python tests/benchmarks/bench_rerun.py [--rounds 3] [--programs break,train,mlp] [--out DIR]
        [--before DIR]

A workshop re-runs the same cells again and again. For each program and round, "plain" and "explore" each
get a new Inductor cache dir and a new temp dir (torch keeps its precompiled C++ headers there), then run
twice in fresh processes: the first run (cold: nothing cached) and the re-run (whatever the first run left).
The kinds take turns going first. The figure is the time of the program's compile and call in the process
(for the explorer: until the report is complete); beside it, the CPU time of the whole process and every
process it started (imports, compile workers, g++), which a loaded machine moves far less than wall time.

Programs (tiny, so that the C++ builds dominate as they do on a 2-core machine):

* ``break``: a three-line function with a graph break (``explore``);
* ``train``: one training step of notebooks/04's MLP, forward and backward compiled (``explorer.capture()``);
* ``mlp``: notebooks/06's model (Linear-GELU-Linear-LayerNorm) in inference (``explore``).

A third kind, "lowered", is plain with the graph caches off (``TORCHINDUCTOR_FX_GRAPH_CACHE=0
TORCHINDUCTOR_AUTOGRAD_CACHE=0``), as a fresh capture (``--fresh``) has them: what lowering every graph costs by
itself. The default capture leaves them on and shows what a hit skips from the explorer's stage store,
so its re-run is against plain's re-run, and each explorer run says what the store gave back.
``--before DIR`` adds a fourth kind, "before": the explorer of another checkout (e.g. ``git worktree add DIR
main``), run the same way, for the change's effect.

Goals: the explorer's re-run within 1.10x of plain's re-run, its first run within 1.00x of plain's first;
every stage its first run shows is shown by its re-run too (checked: the exit status is 1 when a stage is
missing). Each explorer run also says how many of its C++ kernels were built and how many loaded from
torch's code cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from own_tmp import own_tmp  # noqa: E402

CHILD = r"""
import json, sys, time
t_start = time.perf_counter()
sys.path.insert(0, {root!r})
import torch
from torch import nn
program, kind = {program!r}, {kind!r}
if kind in ("explore", "before"):
    import explorer
t_imported = time.perf_counter()
PLAIN = ("plain", "lowered")
torch.manual_seed(0)
report = None
if program == "break":
    def fn(x):
        y = torch.sin(x) * 2
        torch._dynamo.graph_break()
        return torch.cos(y) + 1
    x = torch.randn(64)
    t0 = time.perf_counter()
    if kind in PLAIN:
        torch.compile(fn)(x)
    else:
        report = explorer.explore(fn, x)
elif program == "train":
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 8)
    def loss_fn(x):
        return model(x).pow(2).mean()
    def step():
        loss = torch.compile(loss_fn)(x)
        loss.backward()
        opt.step()
    t0 = time.perf_counter()
    if kind in PLAIN:
        step()
    else:
        with explorer.capture() as report:
            step()
elif program == "mlp":
    model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64), nn.LayerNorm(64)).eval()
    x = torch.randn(32, 64)
    t0 = time.perf_counter()
    with torch.no_grad():
        if kind in PLAIN:
            torch.compile(model)(x)
        else:
            report = explorer.explore(model, x)
s = time.perf_counter() - t0
out = {{"s": s, "import_s": t_imported - t_start}}
if report is not None:
    from explorer.stages import STAGES
    comps = report.capture.compilations
    out["stages"] = {{c.compile_id: sorted(st.id for st in STAGES if st.present(c)) for c in comps}}
    builds = [k.build or "unknown" for c in report.capture.compilations for k in c.kernels]
    out["kernels"] = {{b: builds.count(b) for b in sorted(set(builds))}}
    out["problems"] = [p.message for p in report.problems]
    stored = [s.outcome for c in comps for s in getattr(c, "stored", ())]  # the stage store's, where there is one
    out["stored"] = {{o: stored.count(o) for o in sorted(set(stored))}}
print("RESULT " + json.dumps(out))
"""

PROGRAMS = ("break", "train", "mlp")
GOALS = {"first": 1.00, "rerun": 1.10}


def precompile(roots: list[str]) -> None:
    """Each explorer's bytecode compiled beforehand (its __pycache__), as installing the package compiles it: else,
    where PYTHONDONTWRITEBYTECODE is set, every run compiles its ~90 modules from source (~0.5 s) and plain,
    whose torch was compiled at install, does not."""
    for root in roots:
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(root, "explorer")], check=True,
                       env=_child_env(), capture_output=True)


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return dict(env, PYTHONUNBUFFERED="1")


def run_child(program: str, kind: str, cache_dir: str, tmp_dir: str, timeout: float, roots: dict[str, str]) -> dict:
    code = CHILD.format(root=roots.get(kind, ROOT), program=program, kind=kind)
    env = dict(_child_env(), TORCHINDUCTOR_CACHE_DIR=cache_dir, TMPDIR=tmp_dir)
    if kind == "lowered":  # plain with the graph caches off: what showing every stage costs at the least
        env.update(TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    t0, cpu0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[7:]), process_s=wall, cpu_s=cpu)
    raise RuntimeError(f"{program}/{kind} failed:\n{proc.stderr[-3000:]}")


def _children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process and its descendants (compile workers, g++):
    on a loaded machine the CPU a run takes moves far less than its wall time."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def count_binaries(cache_dir: str) -> int:
    """The compiled C++ kernels (and ISA checks) in the cache dir: what a re-run can load instead of building."""
    return sum(f.endswith(".so") for _, _, files in os.walk(cache_dir) for f in files)


def one_round(program: str, order: tuple[str, ...], root: str, timeout: float,
              roots: dict[str, str]) -> dict[str, dict[str, dict]]:
    """Both kinds, first run then re-run each, interleaved: {kind: {"first": result, "rerun": result}}."""
    dirs = {k: (tempfile.mkdtemp(prefix=f"{program}-{k}-cache-", dir=root),
                tempfile.mkdtemp(prefix=f"{program}-{k}-tmp-", dir=root)) for k in order}
    out: dict[str, dict[str, dict]] = {k: {} for k in order}
    try:
        for run in ("first", "rerun"):
            for k in order:
                out[k][run] = run_child(program, k, *dirs[k], timeout, roots)
                out[k][run]["binaries"] = count_binaries(dirs[k][0])
    finally:
        for cache, tmp in dirs.values():
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def missing_stages(first: dict, rerun: dict) -> list[str]:
    """Stages a first capture (``first``, nothing cached) showed that the other run did not, per compilation."""
    out = []
    for cid, stages in (first.get("stages") or {}).items():
        lost = sorted(set(stages) - set((rerun.get("stages") or {}).get(cid, ())))
        if lost:
            out.append(f"{cid}: {', '.join(lost)}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", default=None, help="a folder for the JSON of every run")
    ap.add_argument("--before", default=None, help="another checkout's root: its explorer runs as the kind 'before'")
    args = ap.parse_args(argv)
    kinds = ("plain", "explore", "lowered") + (("before",) if args.before else ())
    roots = {"before": os.path.abspath(args.before)} if args.before else {}
    root = own_tmp("cx-bench-rerun-")
    precompile([ROOT] + ([roots["before"]] if args.before else []))
    programs = [p.strip() for p in args.programs.split(",") if p.strip()]
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    results: dict[str, list] = {p: [] for p in programs}
    ok = True
    for i in range(args.rounds):
        for p in programs:
            order = kinds if i % 2 == 0 else kinds[::-1]
            r = one_round(p, order, root, args.timeout, roots)
            results[p].append(r)
            print(f"round {i} {p}: " + "; ".join(
                f"{k} first {r[k]['first']['s']:.2f} s ({r[k]['first']['cpu_s']:.1f} s CPU), rerun "
                f"{r[k]['rerun']['s']:.2f} s ({r[k]['rerun']['cpu_s']:.1f} s CPU)" for k in order)
                + f"; explore kernels first {r['explore']['first'].get('kernels')}, rerun "
                f"{r['explore']['rerun'].get('kernels')}, stage store rerun {r['explore']['rerun'].get('stored')}",
                flush=True)
            # what a cold capture shows (the old explorer's, where it ran) must be in the first run and the re-run
            cold = r["before"]["first"] if "before" in r else r["explore"]["first"]
            for run in ("first", "rerun"):
                lost = missing_stages(cold, r["explore"][run])
                if lost:
                    ok = False
                    print(f"  stages missing from the {run}: {'; '.join(lost)}", flush=True)
    print(f"\nload average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}; "
          f"{time.perf_counter() - t_start:.0f} s in all; python {sys.version.split()[0]}")
    print(f"{'program':8s} {'run':6s} {'plain s':>8s} {'explore s':>10s} {'ratio':>6s} {'per round':>22s} "
          f"{'goal':>5s}   {'CPU plain s':>11s} {'explore s':>10s} {'ratio':>6s}   {'lowered s':>9s} {'ratio':>6s} "
          f"{'CPU ratio':>9s}" + (f" {'before s':>9s} {'ratio':>6s} {'CPU ratio':>9s}" if args.before else ""))
    summary = {}
    med = statistics.median
    for p in programs:
        for run in ("first", "rerun"):
            fig = {k: {m: [r[k][run][m] for r in results[p]] for m in ("s", "cpu_s")} for k in kinds}
            ratios = [a / b for a, b in zip(fig["explore"]["s"], fig["plain"]["s"])]
            cpu_ratio = med(a / b for a, b in zip(fig["explore"]["cpu_s"], fig["plain"]["cpu_s"]))
            summary[f"{p}/{run}"] = dict(fig, ratios=ratios, median=med(ratios), cpu_median=cpu_ratio)
            others = ""
            for k in kinds[2:]:  # against plain, both ways measured
                wall = med(a / b for a, b in zip(fig[k]["s"], fig["plain"]["s"]))
                cpu = med(a / b for a, b in zip(fig[k]["cpu_s"], fig["plain"]["cpu_s"]))
                others += f"   {med(fig[k]['s']):9.2f} {wall:6.2f} {cpu:9.2f}"
            print(f"{p:8s} {run:6s} {med(fig['plain']['s']):8.2f} {med(fig['explore']['s']):10.2f} "
                  f"{med(ratios):6.2f} {' '.join(f'{x:.2f}' for x in ratios):>22s} {GOALS[run]:5.2f}   "
                  f"{med(fig['plain']['cpu_s']):11.2f} {med(fig['explore']['cpu_s']):10.2f} {cpu_ratio:6.2f}{others}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bench_rerun.json"), "w") as fh:
            json.dump({"summary": summary, "runs": results, "load_before": load_before}, fh, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
