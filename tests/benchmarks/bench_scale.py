"""Budgets that hold at scale (issue 35, part 4): an 80-layer Llama-style training step, explored whole.

The model is tests/programs/llama_blocks.py (RMSNorm, rotary embeddings, grouped-query attention, SwiGLU),
``--layers`` blocks, one of them (``--odd-layer``) with GELU for SiLU, and its training step (forward, loss,
backward) compiled whole. Each budget is printed beside its limit:

- capture cost: ``explorer.explore(train_step, ...)`` against ``torch.compile(train_step)(...)``, wall time of the
  first call (compile + run), each in a fresh process, the pairs interleaved (every other pair the other one
  first), Inductor's and Dynamo's caches off on both sides; the median of the per-pair ratios, <= 1.05x;
- the page (``report.save_html``): its size (<= 5 MB) and, in headless Chromium, first paint (navigation to the view
  drawn, <= 1 s), switching a pane to the biggest backward graph and to the guards (<= 300 ms: the change event to
  the next frame painted) and a hover highlight (<= 50 ms), medians of ``--loads`` loads;
- the widget: its first message (the comm's opening state, the payload gzipped, <= 2 MB), and in a live
  JupyterLab (``--lab``) the same pane switches and hover (<= 300 ms, <= 50 ms) once its view is drawn;
- memory: the process's resident memory after the view is built (the widget, its static copy and text summary:
  what a kernel holds once ``%%compile`` has shown it) against after the plain step (the plain children), <= 1.5x.

CPU (what CI's benchmark runs; small width, ~1-2 h on 2 loaded cores at 80 layers)::

    PYTHONPATH=$PWD python tests/benchmarks/bench_scale.py --layers 80 --pairs 2 --lab --out /tmp/bench-scale

GPU (bf16, a Llama-2-7B-wide decoder of 80 layers, batch 1 x 512 tokens: ~14 G parameters, ~70 GB with their
gradients: an H200, or an H100 with ``--seq 256``); needs only torch and the explorer (no browser there: the page
and widget figures are skipped and say so, the page is kept in ``--out`` to open elsewhere)::

    PYTHONPATH=$PWD python tests/benchmarks/bench_scale.py --device cuda --dtype bf16 --width full --pairs 2 \\
        --out $OUT

``--out`` gets ``bench_scale.json`` (every figure, per pair, and the environment), the page (``scale.html``) and the
report (``scale.json``). ``--report PATH`` measures the page and widget of a saved report, capturing nothing.
Exit status 1 when a budget is over.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for p in (str(ROOT), str(ROOT / "tests"), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

LIMITS = {
    "capture_cost": 1.05,  # x plain torch.compile
    "page_mb": 5.0,
    "first_paint_ms": 1000.0,
    "switch_ms": 300.0,
    "hover_ms": 50.0,
    "first_message_mb": 2.0,
    "memory": 1.5,  # x plain
}
# Widths: "small" compiles on a CPU in minutes; "full" is Llama-2-7B's width (dim 4096, 32 heads, 8 KV heads,
# SwiGLU hidden 11008, a 32,000-token vocabulary)
WIDTHS = {
    "small": {"dim": 16, "heads": 4, "kv_heads": 2, "hidden": 32, "vocab": 32, "seq": 8, "batch": 2},
    "full": {"dim": 4096, "heads": 32, "kv_heads": 8, "hidden": 11008, "vocab": 32000, "seq": 512, "batch": 1},
}


# ---- one fresh process: a plain step, or the same step explored and its view built ----

KEEP: list = []

def rss_mb() -> float:
    """The process's resident memory now (not its peak), in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(kind: str, spec: dict) -> dict:
    import torch

    torch.compiler.config.force_disable_caches = True  # both sides: what the capture sets
    from programs.llama_blocks import Llama, train_step

    device, dtype = spec["device"], getattr(torch, spec["dtype"])
    w = spec["width"]
    torch.manual_seed(0)
    prev = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # the parameters made in their dtype (a full-width fp32 copy would not fit)
    with torch.device(device):
        model = Llama(layers=spec["layers"], dim=w["dim"], heads=w["heads"], kv_heads=w["kv_heads"],
                      vocab=w["vocab"], odd_layer=spec["odd_layer"], seq=w["seq"], hidden=w["hidden"])
    torch.set_default_dtype(prev)
    model = model.to(dtype)  # the rotary tables too
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, w["vocab"], (w["batch"], w["seq"] + 1), generator=g).to(device)
    tokens, targets = tokens[:, :-1], tokens[:, 1:]
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    if kind != "plain":
        import explorer  # as %load_ext does, before the cell
        from explorer.capturing import torch_door

        if kind == "explore:no-ir":  # for profiling: the loop-level IR loggers off
            torch_door.inductor.IR_LOGGERS.clear()
    gc.collect()
    out: dict[str, Any] = {"kind": kind, "rss_model_mb": rss_mb()}
    sync()
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "plain":
        loss = torch.compile(train_step)(model, tokens, targets)
    else:
        report = explorer.explore(train_step, model, tokens, targets)
        loss = report.result
    sync()
    out["s"], out["cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    from torch._dynamo.utils import compilation_time_metrics

    out["phases"] = {k: sum(v) for k, v in compilation_time_metrics.items()}
    out["loss"] = float(loss)
    gc.collect()
    out["rss_step_mb"] = rss_mb()
    if device.startswith("cuda"):
        out["cuda_max_allocated_gb"] = torch.cuda.max_memory_allocated() / 2**30
    if kind == "plain":
        return out
    out.update(view_figures(report))
    gc.collect()
    out["rss_view_mb"] = rss_mb()
    if spec.get("save"):
        folder = Path(spec["save"])
        folder.mkdir(parents=True, exist_ok=True)
        report.save_json(folder / "scale.json")
        t = time.perf_counter()
        report.save_html(folder / "scale.html")
        out["save_html_s"] = time.perf_counter() - t
        out["page_bytes"] = (folder / "scale.html").stat().st_size
        out["graphs"] = graph_sizes(report)
    return out


def view_figures(report: Any) -> dict:
    """What a notebook's ``%%compile`` does once the capture is done: the view (widget, static copy, text
    summary), kept alive as the kernel keeps it; the widget's first message (its comm's opening state)."""
    from explorer.widget import ExplorerView

    t = time.perf_counter()
    view = ExplorerView(report)
    bundle = view._repr_mimebundle_()
    made = time.perf_counter() - t
    if isinstance(bundle, tuple):
        bundle = bundle[0]
    state = view.widget().get_state()
    sizes = {k: len(v) if isinstance(v, (bytes, bytearray, memoryview)) else len(json.dumps(v))
             for k, v in state.items()}
    KEEP.append(view)  # alive while memory is measured, as a kernel keeps it
    return {"view_s": made, "first_message_bytes": sum(sizes.values()), "first_message_parts": sizes,
            "display_bytes": {k: len(v) if isinstance(v, str) else len(json.dumps(v)) for k, v in bundle.items()},
            "deferred": view.defer}


def graph_sizes(report: Any) -> dict:
    """Nodes per graph stage and guards, per compilation (what the panes hold)."""
    from explorer.stages import STAGES

    out = {}
    for c in report.capture.compilations:
        sizes = {s.id: max(fx.num_nodes, len(fx.nodes)) for s in STAGES if s.kind == "graph"
                 for fx in [s.content(c)] if fx is not None and hasattr(fx, "nodes")}
        sizes["guards"] = len(c.guards)
        sizes["kernels"] = len(c.kernels)
        out[c.compile_id] = sizes
    return out


def run_child(kind: str, spec: dict, timeout: float) -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [x for x in [env.get("PYTHONPATH")] if x])
    proc = subprocess.run([sys.executable, __file__, "--child", kind, "--spec", json.dumps(spec)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{kind} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")


# ---- the page and the widget in a browser ----

# a pane switched: the change event, to the next frame drawn (script, style, layout and paint)
SWITCH_JS = """async (root, stage) => {
  const sel = root.querySelector('.cx-pane[data-side=right] .cx-stage-pick');
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const t0 = performance.now();
  sel.value = stage;
  sel.dispatchEvent(new Event('change', {bubbles: true}));
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""
DOM_JS = "(root, side) => root.querySelector(`.cx-pane[data-side=${side}] .cx-pane-body`).querySelectorAll('*').length"


def interactions(root, backward: str) -> dict:
    """On a drawn view (``root``, a Playwright element handle): hover with the default panes, the right pane
    switched to the backward graph (and hover there, its lines lit too), to the guards, and back."""
    from test_browser import HOVER_JS

    got = {"hover_ms": root.evaluate(HOVER_JS)}
    got["switch_backward_ms"] = _switch(root, backward)
    got["backward_dom"] = root.evaluate(DOM_JS, "right")
    if os.environ.get("CX_SCALE_DEBUG"):
        print(root.evaluate("r => r.querySelector('.cx-pane[data-side=right] .cx-pane-body').innerHTML.slice(0, 600)"))
    got["hover_backward_ms"] = root.evaluate(HOVER_JS)
    got["switch_guards_ms"] = _switch(root, "guards")
    got["guards_dom"] = root.evaluate(DOM_JS, "right")
    got["switch_graph_ms"] = _switch(root, "graph")
    return got


def _switch(root, stage: str) -> float:
    """The right pane switched to ``stage``: ms from the change event to the next frame drawn."""
    return root.evaluate(SWITCH_JS, stage)


def measure_page(path: Path, browser, loads: int, backward: str) -> dict:
    got: list[dict] = []
    for _ in range(loads):
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            pg.goto(path.as_uri(), timeout=120_000)
            pg.wait_for_selector("#cx-root[data-ready]", timeout=120_000)
            one = {"first_paint_ms": float(pg.get_attribute("#cx-root", "data-ready-ms"))}
            one.update(interactions(pg.query_selector("#cx-root"), backward))
            got.append(one)
        finally:
            pg.close()
    return {"loads": got, **medians(got)}


def medians(rows: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]} if rows else {}


def measure_lab(report_json: Path, browser, views: int, backward: str, deferred: bool) -> dict:
    """The widget in a live JupyterLab: the saved report loaded in the kernel and shown ``views`` times; on each
    view, once drawn and complete (the rest of a big report arrived), the same switches and hover."""
    import nbformat
    from bench_frontend import _KERNEL_READY, _run_cell, lab_folder, start_lab

    root = lab_folder("cx_scale_lab_")
    cells = [f"import sys\nsys.path[:0] = [{str(ROOT)!r}]\nfrom explorer.report import Report\n"
             f"from explorer.widget import ExplorerView\nr = Report.load({str(report_json)!r})"]
    cells += ["ExplorerView(r)"] * views
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "scale.ipynb")
    proc, url = start_lab(root)
    pg = None
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.goto(f"{url}/lab/tree/scale.ipynb", timeout=300_000)
        pg.wait_for_function(_KERNEL_READY, timeout=300_000)
        _run_cell(pg, 0, 1)
        got = []
        for i in range(views):
            latency = _run_cell(pg, i + 1, 1)
            view = pg.locator(".jp-OutputArea .cxv[data-ready]").nth(i)
            view.scroll_into_view_if_needed()
            t = time.perf_counter()
            if deferred:  # the rest of a big report, asked for once the first panes are drawn
                pg.wait_for_function(f"document.querySelectorAll('.jp-OutputArea .cxv[data-ready]')[{i}]"
                                     ".hasAttribute('data-complete')", timeout=600_000)
            one = {"latency_ms": latency[0], "arrived_ms": latency[1], "drawn_ms": latency[3],
                   "rest_after_ms": (time.perf_counter() - t) * 1000 + latency[0]}
            time.sleep(1.0)
            one.update(interactions(view.element_handle(), backward))
            got.append(one)
        return {"views": got, **medians(got)}
    finally:
        if pg is not None:
            pg.close()
        proc.terminate()
        proc.wait(30)


def backward_stage(graphs: dict) -> tuple[str, int]:
    """The biggest backward graph of the compilations (the pane the budget is about)."""
    best = ("aot_backward", 0)
    for sizes in graphs.values():
        for sid in ("aot_backward", "post_grad_graph_backward"):
            if sizes.get(sid, 0) > best[1]:
                best = (sid, sizes[sid])
    return best


# ---- the run ----

def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=80)
    ap.add_argument("--odd-layer", type=int, default=None, help="the block with GELU (default: the middle one)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32", help="float32, bf16 (bfloat16), float16")
    ap.add_argument("--width", default="small", choices=sorted(WIDTHS))
    ap.add_argument("--seq", type=int, default=None, help="tokens per sequence (the width's own by default)")
    ap.add_argument("--pairs", type=int, default=2, help="plain / explore pairs of fresh processes")
    ap.add_argument("--variants", default="", help="more kinds of child, interleaved (profiling): explore:no-ir")
    ap.add_argument("--loads", type=int, default=3, help="page loads in Chromium")
    ap.add_argument("--lab", action="store_true", help="also the widget in a live JupyterLab")
    ap.add_argument("--views", type=int, default=2, help="views of the report --lab shows")
    ap.add_argument("--no-browser", action="store_true", help="skip the page's and the widget's browser figures")
    ap.add_argument("--report", type=Path, default=None, help="a saved report: measure its page and widget only")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--timeout", type=float, default=4 * 3600)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--spec", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print("RESULT " + json.dumps(child(a.child, json.loads(a.spec))), flush=True)
        return 0
    from own_tmp import own_tmp

    own_tmp("cx-bench-scale-")  # every child's compiled code, torch's headers, pages, the notebook
    out = a.out or Path(tempfile.mkdtemp(prefix="cx_scale_out_"))
    out.mkdir(parents=True, exist_ok=True)
    width = dict(WIDTHS[a.width], **({"seq": a.seq} if a.seq else {}))
    dtype = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}.get(a.dtype, a.dtype)
    spec = {"layers": a.layers, "odd_layer": a.layers // 2 if a.odd_layer is None else a.odd_layer,
            "device": a.device, "dtype": dtype, "width": width}
    result: dict[str, Any] = {"spec": spec, "env": environment(), "limits": LIMITS}
    print(f"{a.layers} layers, width {a.width} {width}, {a.device} {dtype}; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores", flush=True)
    t_start = time.perf_counter()
    kinds = ["plain", "explore"] + [v for v in a.variants.split(",") if v]
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    report_json, page = a.report, None
    if a.report is None:
        for i in range(a.pairs):
            for kind in (kinds if i % 2 == 0 else kinds[::-1]):
                s = dict(spec, save=str(out) if kind == "explore" and not runs["explore"] else None)
                runs[kind].append(run_child(kind, s, a.timeout))
                r = runs[kind][-1]
                print(f"pair {i}: {kind} {r['s']:.1f} s ({r['cpu_s']:.1f} s of CPU), resident "
                      f"{r.get('rss_view_mb', r['rss_step_mb']):.0f} MB", flush=True)
        result["runs"] = runs
        report_json, page = out / "scale.json", out / "scale.html"
    else:
        page = out / "scale.html"
        from explorer.report import Report

        rep = Report.load(a.report)
        rep.save_html(page)
        result["runs"] = {"explore": [dict(graphs=graph_sizes(rep), page_bytes=page.stat().st_size,
                                           **view_figures(rep))]}
    first = result["runs"]["explore"][0]
    backward, backward_nodes = backward_stage(first["graphs"])
    result["backward"] = {"stage": backward, "nodes": backward_nodes}
    if a.no_browser:
        result["browser"] = "skipped (--no-browser)"
    else:
        try:
            from playwright.sync_api import sync_playwright
            from test_browser import chromium_path
        except ImportError as e:
            result["browser"] = f"skipped: {e}"
        else:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                result["page"] = measure_page(page, browser, a.loads, backward)
                if a.lab:
                    result["lab"] = measure_lab(report_json, browser, a.views, backward, first["deferred"])
                browser.close()
    result["wall_s"] = time.perf_counter() - t_start
    result["env"]["load_end"] = os.getloadavg()[0]
    rows = table(result)
    result["table"] = [dict(zip(("budget", "measured", "limit", "ok"), r)) for r in rows]
    print_table(result, rows)
    (out / "bench_scale.json").write_text(json.dumps(result, indent=1))
    print(f"figures written to {out / 'bench_scale.json'}")
    return 0 if all(r[3] != "OVER" for r in rows) else 1


def table(res: dict) -> list[tuple[str, str, str, str]]:
    rows = []

    def add(name: str, value: Optional[float], limit: float, fmt: str, unit: str = "", info: str = "") -> None:
        if value is None:
            rows.append((name, info or "not measured", f"{limit:g}{unit}", "-"))
            return
        ok = "ok" if value <= limit else "OVER"
        rows.append((name, f"{value:{fmt}}{unit}" + (f"  {info}" if info else ""), f"{limit:g}{unit}", ok))

    runs = res["runs"]
    first = runs["explore"][0]
    if runs.get("plain"):
        ratios = [e["s"] / p["s"] for e, p in zip(runs["explore"], runs["plain"])]
        per = ", ".join(f"{x:.3f}" for x in ratios)
        add("capture cost (explore / plain)", statistics.median(ratios), LIMITS["capture_cost"], ".3f", "x",
            f"(per pair {per}; {statistics.median(e['s'] for e in runs['explore']):.0f} s vs "
            f"{statistics.median(p['s'] for p in runs['plain']):.0f} s)")
        for kind in runs:
            if kind == "plain":
                continue
            cpu = [e["cpu_s"] / p["cpu_s"] for e, p in zip(runs[kind], runs["plain"])]
            wall = [e["s"] / p["s"] for e, p in zip(runs[kind], runs["plain"])]
            rows.append((f"  {kind} / plain, the process's CPU time (info)", f"{statistics.median(cpu):.3f}x  "
                         f"(wall {statistics.median(wall):.3f}x; CPU per pair {', '.join(f'{x:.3f}' for x in cpu)})",
                         "", ""))
        mem = [e["rss_view_mb"] / p["rss_step_mb"] for e, p in zip(runs["explore"], runs["plain"])]
        add("memory after the view (x plain step)", statistics.median(mem), LIMITS["memory"], ".2f", "x",
            f"({statistics.median(e['rss_view_mb'] for e in runs['explore']):.0f} MB vs "
            f"{statistics.median(p['rss_step_mb'] for p in runs['plain']):.0f} MB)")
    add("page size", first["page_bytes"] / 1e6, LIMITS["page_mb"], ".2f", " MB")
    add("widget's first message", first["first_message_bytes"] / 1e6, LIMITS["first_message_mb"], ".2f", " MB",
        f"(payload {first['first_message_parts'].get('payload', 0) / 1e6:.2f} MB; the display's static copy "
        f"{first['display_bytes'].get('text/html', 0) / 1e6:.2f} MB more)")
    b = res.get("backward", {})
    bw = f"{b.get('stage')} ({b.get('nodes', 0):,} nodes)"
    for where, key in (("page", "page"), ("widget", "lab")):
        got = res.get(key)
        if where == "page":
            add("page: first paint", got and got["first_paint_ms"], LIMITS["first_paint_ms"], ".0f", " ms")
        if not got:
            add(f"{where}: switch to the backward graph", None, LIMITS["switch_ms"], "", " ms",
                "not measured" + ("" if key == "page" else " (--lab)"))
            continue
        add(f"{where}: switch to {bw}", got["switch_backward_ms"], LIMITS["switch_ms"], ".0f", " ms",
            f"({got['backward_dom']:,.0f} elements)")
        add(f"{where}: switch to the guards", got["switch_guards_ms"], LIMITS["switch_ms"], ".0f", " ms",
            f"({got['guards_dom']:,.0f} elements)")
        add(f"{where}: hover", max(got["hover_ms"], got["hover_backward_ms"]), LIMITS["hover_ms"], ".1f", " ms",
            f"(source | graph {got['hover_ms']:.1f}, source | backward {got['hover_backward_ms']:.1f})")
    return rows


def print_table(res: dict, rows: list) -> None:
    spec = res["spec"]
    print(f"\n{spec['layers']}-layer Llama-style training step, {spec['device']} {spec['dtype']}, width "
          f"{spec['width']['dim']}; load {res['env']['load_end']:.1f} at the end")
    w = max(len(r[0]) for r in rows)
    print(f"{'budget':{w}s}  {'measured':>10s}  {'limit':>8s}  ok")
    for name, value, limit, ok in rows:
        head, _, tail = value.partition("  ")
        print(f"{name:{w}s}  {head:>10s}  {limit:>8s}  {ok}  {tail}")


def environment() -> dict:
    import torch

    env = {"torch": torch.__version__, "python": platform.python_version(), "cores": os.cpu_count(),
           "load_start": os.getloadavg()[0]}
    if torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name(0)
    return env


if __name__ == "__main__":
    sys.exit(main())
