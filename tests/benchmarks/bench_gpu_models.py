"""Does the explorer's timing agree with triton.testing.do_bench? Five models, bf16 inference.

    python tests/benchmarks/bench_gpu_models.py --out DIR     # on a CUDA machine (~3-6 min on an H200)
    python tests/benchmarks/bench_gpu_models.py --smoke --out DIR   # CPU, a tiny MLP: the code path only

Random-init models (no downloads): torchvision resnet50 bs32, timm
vit_base_patch16_224 bs32, transformers BERT-base bs16 seq256 and GPT-2 bs16
seq256, a 2-layer MLP bs64. Each is compiled once through the explorer
(GraphRecorder inside explorer.capture, so compile time comes from the
capture), then timed eager and compiled, interleaved: explorer, do_bench,
explorer, do_bench, ... on the same callables. A figure passes when the
explorer's median is within 3 % of do_bench's, or within do_bench's own
round-to-round spread, whichever is larger: on a shared GPU the same model's
do_bench median moves by tens of percent between runs, so only same-run
figures can be compared. Writes bench_gpu_models.json and .md to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import torch

import explorer
from explorer.present.plots import format_time
from explorer.timing import GraphRecorder, measure, peak_bandwidth, time_graphs

TOLERANCE_PCT = 3.0


# ---- models ----

def _resnet50(dev: str, dtype: torch.dtype) -> tuple[torch.nn.Module, tuple]:
    import torchvision

    return torchvision.models.resnet50(weights=None), (torch.randn(32, 3, 224, 224),)


def _vit(dev: str, dtype: torch.dtype) -> tuple[torch.nn.Module, tuple]:
    import timm

    return timm.create_model("vit_base_patch16_224", pretrained=False), (torch.randn(32, 3, 224, 224),)


def _bert(dev: str, dtype: torch.dtype) -> tuple[torch.nn.Module, tuple]:
    from transformers import BertConfig, BertModel

    cfg = BertConfig()
    return BertModel(cfg), (torch.randint(0, cfg.vocab_size, (16, 256)),)


def _gpt2(dev: str, dtype: torch.dtype) -> tuple[torch.nn.Module, tuple]:
    from transformers import GPT2Config, GPT2Model

    cfg = GPT2Config()
    return GPT2Model(cfg), (torch.randint(0, cfg.vocab_size, (16, 256)),)


def _mlp(dev: str, dtype: torch.dtype, width: int = 1024) -> tuple[torch.nn.Module, tuple]:
    net = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width))
    return net, (torch.randn(64, width),)


MODELS: dict[str, Callable[..., tuple[torch.nn.Module, tuple]]] = {
    "resnet50 bs32": _resnet50, "vit_base_patch16_224 bs32": _vit, "BERT-base bs16 seq256": _bert,
    "GPT-2 bs16 seq256": _gpt2, "2-layer MLP bs64": _mlp}


def _prepare(build: Callable[..., Any], dev: str, dtype: torch.dtype, smoke: bool) -> tuple[torch.nn.Module, tuple]:
    model, inputs = build(dev, dtype, 64) if smoke else build(dev, dtype)
    model = model.eval().to(device=dev, dtype=dtype)
    inputs = tuple(t.to(dev, dtype) if t.is_floating_point() else t.to(dev) for t in inputs)
    return model, inputs


# ---- the reference: triton.testing.do_bench on GPU, torch.utils.benchmark on CPU (smoke) ----

def reference(fn: Callable[[], Any], dev: str) -> float:
    """Median seconds per call, by a method that is not the explorer's."""
    if dev.startswith("cuda"):
        from triton.testing import do_bench

        return do_bench(fn, warmup=25, rep=100, return_mode="median") / 1e3
    from torch.utils.benchmark import Timer

    return Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads()).blocked_autorange(
        min_run_time=0.05).median


def compare(fn: Callable[[], Any], dev: str, rounds: int, budget_s: float) -> dict[str, Any]:
    """Interleaved rounds: explorer, reference, explorer, reference, ..."""
    ours, ref, spreads = [], [], []
    for _ in range(rounds):
        m = measure(fn, device=dev, budget_s=budget_s)
        ours.append(m.median_s)
        spreads.append(m.iqr_pct)
        ref.append(reference(fn, dev))
    e, d = statistics.median(ours), statistics.median(ref)
    ref_spread = 100.0 * (max(ref) - min(ref)) / d
    diff = 100.0 * abs(e - d) / d
    tol = max(TOLERANCE_PCT, ref_spread)
    return {"explorer_s": e, "explorer_rounds_s": ours, "explorer_iqr_pct": max(spreads),
            "reference_s": d, "reference_rounds_s": ref, "reference_spread_pct": ref_spread,
            "diff_pct": diff, "tolerance_pct": tol, "ok": diff <= tol}


def bench_model(name: str, build: Callable[..., Any], dev: str, dtype: torch.dtype, rounds: int,
                budget_s: float, smoke: bool, peak: Any) -> dict[str, Any]:
    model, inputs = _prepare(build, dev, dtype, smoke)
    rec = GraphRecorder("inductor", kernel_profile=True)
    compiled = torch.compile(model, backend=rec)
    t0 = time.perf_counter()
    with explorer.capture() as report:
        compiled(*inputs)
    first_call = time.perf_counter() - t0
    eager_fn = lambda: model(*inputs)  # noqa: E731
    compiled_fn = lambda: compiled(*inputs)  # noqa: E731
    row: dict[str, Any] = {"model": name, "graphs": len(rec.graphs), "compile_time_s": report.data.compile_time_s,
                           "first_call_s": first_call, "graph_breaks": len(report.data.graph_breaks)}
    row["eager"] = compare(eager_fn, dev, rounds, budget_s)
    row["compiled"] = compare(compiled_fn, dev, rounds, budget_s)
    row["speedup_explorer"] = row["eager"]["explorer_s"] / row["compiled"]["explorer_s"]
    row["speedup_reference"] = row["eager"]["reference_s"] / row["compiled"]["reference_s"]
    graphs = time_graphs(rec, capture=report, budget_s=min(budget_s, 0.05), repeats=3, peak=peak)
    row["graph_timings"] = [g.to_dict() for g in graphs]
    kernels = sorted((k for g in graphs for k in g.kernels if k.kind == "generated"), key=lambda k: -k.time_s)
    row["top_kernel"] = kernels[0].to_dict() if kernels else None
    row["warnings"] = [w for g in graphs for w in g.warnings]
    compiled = model = eager_fn = compiled_fn = None  # free the model before the next one loads
    torch.compiler.reset()
    return row


# ---- output ----

def _cell(c: dict[str, Any]) -> list[str]:
    return [format_time(c["explorer_s"]), format_time(c["reference_s"]),
            f"{c['diff_pct']:.1f}% (tol {c['tolerance_pct']:.1f}%)", "ok" if c["ok"] else "FAIL"]


def markdown(rows: list[dict[str, Any]], ref_name: str) -> str:
    head = ["model", "graphs", "compile", "eager: explorer", f"eager: {ref_name}", "Δ", "",
            "compiled: explorer", f"compiled: {ref_name}", "Δ", "", "speedup (explorer / ref)",
            "top kernel (% of peak BW)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | error: {r['error']} |" + " |" * (len(head) - 2))
            continue
        k = r.get("top_kernel")
        top = f"{k['name'][:40]} ({k['peak_pct']:.0f}%)" if k and k.get("peak_pct") is not None else \
            (k["name"][:40] if k else "")
        cells = [r["model"], str(r["graphs"]), f"{r['compile_time_s']:.1f} s", *_cell(r["eager"]),
                 *_cell(r["compiled"]), f"{r['speedup_explorer']:.2f}x / {r['speedup_reference']:.2f}x", top]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for bench_gpu_models.json and .md")
    ap.add_argument("--smoke", action="store_true", help="CPU, tiny MLP only: runs the code path, not the check")
    ap.add_argument("--models", default="", help="comma-separated substrings of model names to run")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved explorer/reference rounds per figure")
    ap.add_argument("--budget", type=float, default=0.1, help="explorer: seconds per repeat")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    torch.set_grad_enabled(False)  # inference, for eager, compiled and both timers alike
    if args.smoke:
        dev, dtype, models, rounds, budget = "cpu", torch.float32, {"2-layer MLP (smoke)": _mlp}, 2, 0.02
        ref_name = "torch Timer"
    else:
        if not torch.cuda.is_available():
            print("no CUDA device: use --smoke for the CPU code path", file=sys.stderr)
            return 2
        dev, dtype, models, rounds, budget = "cuda:0", torch.bfloat16, MODELS, args.rounds, args.budget
        ref_name = "do_bench"
    if args.models:
        want = [w.strip().lower() for w in args.models.split(",")]
        models = {k: v for k, v in models.items() if any(w in k.lower() for w in want)}
    t_start = time.perf_counter()
    peak = peak_bandwidth(dev, nbytes=32 * 1024 * 1024 if args.smoke else None)
    print(f"device {dev}: copy bandwidth {peak.gbs:.0f} GB/s (±{peak.measurement.iqr_pct:.1f}%)", flush=True)
    rows = []
    for name, build in models.items():
        t0 = time.perf_counter()
        try:
            rows.append(bench_model(name, build, dev, dtype, rounds, budget, args.smoke, peak))
        except Exception as e:
            traceback.print_exc()
            rows.append({"model": name, "error": f"{type(e).__name__}: {e}"})
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    table = markdown(rows, ref_name)
    result = {"device": torch.cuda.get_device_name(0) if dev.startswith("cuda") else "cpu",
              "torch": torch.__version__, "triton": _triton_version(), "dtype": str(dtype),
              "reference": ref_name, "tolerance_pct": TOLERANCE_PCT, "peak": peak.to_dict(),
              "wall_s": time.perf_counter() - t_start, "models": rows}
    with open(os.path.join(args.out, "bench_gpu_models.json"), "w") as fh:
        json.dump(result, fh, indent=1, default=str)
    with open(os.path.join(args.out, "bench_gpu_models.md"), "w") as fh:
        fh.write(table + "\n")
    print(table)
    print(f"wall {result['wall_s']:.0f} s")
    failed = [r["model"] for r in rows if "error" in r or not (r["eager"]["ok"] and r["compiled"]["ok"])]
    if failed:
        print("outside tolerance or failed: " + ", ".join(failed))
    return 0 if not failed else 1


def _triton_version() -> str | None:
    try:
        import triton

        return triton.__version__
    except ImportError:
        return None


if __name__ == "__main__":
    sys.exit(main())
