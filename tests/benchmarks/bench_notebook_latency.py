"""From Shift+Enter to the view drawn, in a real JupyterLab, beside a plain ``torch.compile`` cell (issue 33).

A fresh JupyterLab on loopback, driven by Playwright and Debian's Chromium (see tests/test_browser.py). The
notebook compiles the same small model two ways, each run twice in one kernel (the first run compiles, the re-run
compiles again: %%compile's cell is a new function each run; the plain cell calls a new torch.compile each run):

- plain: ``torch.compile(model)(x)`` in a cell; timed until the cell's output (a print) is shown;
- %%compile: the same call under ``%%compile`` (which times eager against compiled by default), and with
  ``--no-time``; timed until its view has drawn (``.cxv[data-ready]``);
- displayed report: ``explorer.explore(f, x)`` shown as the cell's value; timed until its view has drawn.

Each time is the browser's own clock, from the keypress to the element's appearance. The kernel is warmed first
(torch imported, a tiny compile done), so the first run measures the cell, not the imports. One run of the
script gives the ratios to compare; its figures depend on the machine.

    python tests/benchmarks/bench_notebook_latency.py [--runs 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

SETUP = ("import torch\nimport explorer\n%load_ext explorer\n"
         "model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))\n"
         "x = torch.randn(2, 8)\n"
         "torch.compile(lambda t: t + 1)(torch.randn(2))  # warm: Dynamo and Inductor imported\nNone")
CELLS = {
    "plain torch.compile": "torch._dynamo.reset()\nout = torch.compile(model)(x)\nprint('plain done', out.shape)",
    "%%compile": "%%compile\ny = model(x)\ny",
    "%%compile --no-time": "%%compile --no-time\ny = model(x)\ny",
    "displayed explore()": "r = explorer.explore(model, x)\nr",
}


def _notebook(root: Path) -> None:
    import nbformat

    cells = [SETUP] + list(CELLS.values())
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "bench.ipynb")


# Shift+Enter's command, then the browser's clock until the cell shows what `kind` waits for; in ms. Then it waits
# for the kernel to be idle (not timed), so the next cell starts alone.
_TIME_CELL = """async ([index, kind]) => {
  const app = window.jupyterapp, panel = app.shell.currentWidget, nb = panel.content;
  const node = nb.widgets[index].node, kernel = panel.sessionContext.session.kernel;
  const out = () => node.querySelector('.jp-OutputArea');
  const done = {
    idle: () => kernel.status === 'idle' && nb.widgets[index].model.executionCount != null,
    plain: () => out() && /plain done/.test(out().textContent),
    view: () => out() && out().querySelector('.cxv[data-ready]') !== null,
  }[kind];
  const tick = () => new Promise(r => setTimeout(r, 10));
  nb.activeCellIndex = index;
  nb.mode = 'command';
  const t0 = performance.now();
  app.commands.execute('notebook:run-cell-and-select-next');  // what Shift+Enter runs
  while (!done()) await tick();
  const ms = performance.now() - t0;
  while (kernel.status !== 'idle') await tick();
  return ms;
}"""
_CLEAR = """(index) => { const c = window.jupyterapp.shell.currentWidget.content.widgets[index];
  c.model.outputs.clear(); }"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="runs of each cell (the first, then re-runs)")
    args = parser.parse_args()
    from bench_frontend import lab_folder, start_lab  # one JupyterLab start for the benchmarks
    from playwright.sync_api import sync_playwright

    root = lab_folder("cx-bench-lab-")
    _notebook(root)
    proc, url = start_lab(root)
    times: dict[str, list[float]] = {name: [] for name in CELLS}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CX_CHROMIUM", "/usr/bin/chromium"),
                                        args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab/tree/bench.ipynb")
            page.wait_for_function("(() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                                   " const k = w && w.sessionContext && w.sessionContext.session"
                                   " && w.sessionContext.session.kernel;"
                                   " return k && k.status === 'idle' && k.connectionStatus === 'connected'; })()",
                                   timeout=180_000)
            setup_ms = page.evaluate(_TIME_CELL, [0, "idle"])
            print(f"setup cell (imports, a warm-up compile): {setup_ms / 1000:.1f} s")
            for run in range(args.runs):
                for i, name in enumerate(CELLS, start=1):
                    page.evaluate(_CLEAR, i)
                    ms = page.evaluate(_TIME_CELL, [i, "plain" if name.startswith("plain") else "view"])
                    times[name].append(ms)
                    print(f"run {run + 1}: {name:22s} {ms / 1000:6.2f} s", flush=True)
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    base = times["plain torch.compile"]
    print("\nShift+Enter to the output shown (s), and as a multiple of the plain torch.compile cell:")
    for name, ms in times.items():
        cells = "  ".join(f"{m / 1000:6.2f} ({m / b:4.1f}x)" for m, b in zip(ms, base))
        print(f"  {name:22s} {cells}")


if __name__ == "__main__":
    main()
