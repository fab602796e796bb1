"""The front end's speed targets (issue 11), measured.

For a report of a 2,300-node graph compiled into 100 kernels (frontend_report.py:
``synthetic()``, with a line-level chain for every line; ``--real`` also measures
the captured 100-block model, 2,902 nodes / 100 kernels, cached after its first
capture of a few minutes):

- the standalone HTML's size (target ≤ 3 MB), against the previous static page;
- first render in headless Chromium: navigation start to the view drawn
  (``data-ready-ms``; target ≤ 1 s), median of N loads;
- a hover highlight: mouseover on a source line to the highlight painted
  (target ≤ 50 ms), median over every 7th source line;
- with ``--lab``: the widget in a live JupyterLab, from the view being made
  (right after the capture) to the view drawn in the browser (``data-latency-ms``;
  target ≤ 0.3 s): three ``%%compile`` runs of a small cell, then the big report
  displayed ``--views`` times (3), each after the one before is drawn.

With ``--against DIR`` (another checkout, e.g. ``git worktree add /tmp/cx-old REV``) the same run measures
both, interleaved (every other round the other one first; one JupyterLab, one notebook and kernel each, each
drawing with its own code), and prints this / that: the ratio of medians and the median of the per-round
ratios. On a shared machine only such ratios mean much; absolute figures move 2x with the load.

    PYTHONPATH=. python tests/benchmarks/bench_frontend.py [--loads 5] [--real] [--lab [--views 3]] [--against DIR]

Figures (2026-12-04, before the view-model refactor; 2 CPU cores, load average 0.5, Chromium 156 headless,
``--loads 3 --lab``): standalone HTML 0.52 MB (4.31 MB of JSON before gzip; the old static page 6.83 MB), made in
95 ms; first render 143 ms (min 131, max 160); hover 17.1 ms; a pane switched to all 100 kernels 116 ms. Widget,
capture finished -> view drawn: a small ``%%compile`` cell 66 / 47 / 45 ms; the 2,300-node report
110 / 143 / 153 ms.

Figures (2026-12-05, against the pre-refactor code, ``git rev-parse 55dfec2^1``, in the same runs; load average
6-9 from other work on the 2 cores, so absolute figures are 2x those above). ``--loads 2 --lab --views 8
--against /tmp/cx-old``: the big report's view drawn 189-326 ms after the capture (median 243) against 152-500
(median 338): 0.72x (per round 0.74); a second run (``--views 6``, load 9): 0.94x (per round 0.71). The
pre-refactor code's latency grows as views pile up on the page (anywidget's ``_css`` rewrites the stylesheet for
every view made, restyling every earlier view before the new one draws; the widget now adds its stylesheet once);
this one's stays flat. Before that fix the same comparison gave 1.22x (per round 1.04; 10 views) and 1.57x (4
views). ``--loads 6 --against /tmp/cx-old``: standalone HTML 0.56 MB (4.65 MB of JSON) against 0.52 MB;
``render_page`` costs 93 ms of CPU against 93 (130 before its payload's JSON was encoded once instead of twice);
first render 207 ms against 212: 0.98x (per round 0.97; the payload's base64 is decoded by
``Uint8Array.fromBase64``, ~45 ms less script); hover 16.9 ms against 16.8: 1.00x; a pane switched to all 100
kernels 1.09x (per round 1.26; across runs 1.06-1.6x: each kernel's facts now list its user lines with their
text, 6,327 elements against 4,327, the same script time and ~40% more layout).

On a quiet machine the widget's big view measured 1.21x (per round 1.17): it built every pane of the view model
(the kernels pane 264 KB of a 1.07 MB first payload) before a first view that draws none of them. Since it makes
its model with the first view's panes and sends the others with the rest (2026-12-05, load 1.3, ``--loads 4 --lab
--views 6 --against /tmp/cx-old``): the big view 207-353 ms against 240-255, 0.87x (per round 0.87); first render
0.80x (per round 0.91); hover 1.01x; the kernels pane 1.32x (per round 1.37).

Against dc29f93 (before typed ids, folded pictures and loop-IR groups), 2026-12-05, ``--loads 4 --lab --views 12``,
four runs, two from each checkout (this script copied into the other, ``--against`` this one): geometric means of
this / dc29f93, first render 0.92x, hover 1.00x, the big view 0.99x (per round 1.00); docs/figures.md has each run
and what the comparison found. The Lab's pages are brought to the front in turn: before, the second page drew behind
the first, and a checkout measured against itself came out 1.26x (now 0.95x). A few percent of bias remain between
the two sides, so a ratio is only worth its run the other way round too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


# A checkout's standalone page of the synthetic report, made by that checkout's own code (in a child process, so
# two checkouts of one package can be compared in one run): the page, and its sizes and making time.
_MAKE_PAGE = """
import json, sys, time
root, out = sys.argv[1], sys.argv[2]
sys.path[:0] = [root, root + "/tests", root + "/tests/benchmarks"]
from frontend_report import synthetic
from explorer.present.html import render_fragment
from explorer.present.page import render_page
from explorer.present.payload import build, to_json
report = synthetic()
render_page(report)  # warm: the module text and styles are read once per process
made = []
for _ in range(3):  # the fastest of three: one child process on a shared machine
    t = time.perf_counter()
    html = render_page(report)
    made.append(time.perf_counter() - t)
made = min(made)
open(out, "w", encoding="utf-8").write(html)
payload, _ = build(report, pictures="none")
print(json.dumps({"page": len(html), "made_ms": made * 1000, "json": len(to_json(payload)),
                  "old": len(render_fragment(report))}))
"""


def make_page(root: Path) -> tuple[Path, dict]:
    import json
    import subprocess

    path = Path(tempfile.mkdtemp(prefix="cx_page_")) / "page.html"
    out = subprocess.run([sys.executable, "-c", _MAKE_PAGE, str(root), str(path)], check=True, capture_output=True,
                         text=True, cwd=root).stdout
    return path, json.loads(out.strip().splitlines()[-1])


def load_page(path: Path, browser) -> tuple[float, float, float]:
    """One load: first render (navigation -> drawn), the median hover highlight, a pane switched to all kernels."""
    from test_browser import HOVER_JS

    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        pg.goto(path.as_uri())
        pg.wait_for_selector("#cx-root[data-ready]")
        first = float(pg.get_attribute("#cx-root", "data-ready-ms"))
        hover = pg.evaluate(HOVER_JS)
        t0 = pg.evaluate("performance.now()")
        pg.locator(".cx-pane[data-side=right] .cx-stage-pick").select_option("kernels")
        return first, hover, pg.evaluate("performance.now()") - t0
    finally:
        pg.close()


def rounds(sides: list, n: int):
    """``n`` rounds over ``sides``, every other round in reverse: neither side always goes first."""
    for i in range(n):
        yield from (sides if i % 2 == 0 else sides[::-1])


def measure_pages(label: str, checkouts: list[tuple[str, Path]], loads: int, browser, kernels: int) -> None:
    made = {name: make_page(root) for name, root in checkouts}
    got: dict[str, list] = {name: [] for name, _ in checkouts}
    for name, _ in rounds(checkouts, loads):
        got[name].append(load_page(made[name][0], browser))
    print(f"== {label}")
    for name, _ in checkouts:
        sizes, firsts = made[name][1], [x[0] for x in got[name]]
        print(f"  [{name}] standalone HTML {sizes['page'] / 1e6:.2f} MB (payload {sizes['json'] / 1e6:.2f} MB of JSON "
              f"before gzip; the previous static page {sizes['old'] / 1e6:.2f} MB), made in {sizes['made_ms']:.0f} ms")
        print(f"  [{name}] first render {statistics.median(firsts):.0f} ms after navigation (median of {loads}; "
              f"min {min(firsts):.0f}, max {max(firsts):.0f})")
        print(f"  [{name}] hover highlight {statistics.median(x[1] for x in got[name]):.1f} ms (median of the per-load "
              f"medians)")
        print(f"  [{name}] switch a pane to all {kernels} kernels: {statistics.median(x[2] for x in got[name]):.0f} ms "
              "(incl. Playwright's round trip)")
    if len(checkouts) == 2:
        (a, _), (b, _) = checkouts
        for i, what in enumerate(("first render", "hover", "kernels pane")):
            print(f"  {what}: {a} / {b} = {ratio(got[a], got[b], i)}")


def ratio(xs: list, ys: list, i: Optional[int] = None) -> str:
    """The ratio of medians, and the median of the per-round ratios (each round measured both, back to back)."""
    xs = [x if i is None else x[i] for x in xs]
    ys = [y if i is None else y[i] for y in ys]
    pairs = statistics.median(x / y for x, y in zip(xs, ys) if y)
    return f"{statistics.median(xs) / statistics.median(ys):.2f} (per round: {pairs:.2f})"


def _notebook(root: Path, path: Path, bigs: int) -> int:
    """A notebook drawing with ``root``'s code: setup, ``%load_ext``, three small ``%%compile`` cells, then
    the synthetic report displayed ``bigs`` times. Returns the index of its first view's cell."""
    import nbformat

    paths = [str(root), str(root / "tests"), str(root / "tests" / "benchmarks")]
    cells = [f"import sys\nsys.path[:0] = {paths!r}\nimport torch\nfrom explorer.widget import ExplorerView\n"
             "from frontend_report import synthetic\nbig = synthetic()", "%load_ext explorer"]
    cells += [f"%%compile --no-time\nx = torch.randn(64)\ny = torch.sin(x) * {i + 2}\ny.sum()" for i in range(3)]
    cells += ["ExplorerView(big)"] * bigs
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return 2


_KERNEL_READY = ("(() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                 " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
                 " return k && k.status === 'idle' && k.connectionStatus === 'connected'; })()")
_LATENCY = ("v => [Number(v.dataset.latencyMs), Number(v.dataset.arrivedMs), Number(v.dataset.decodeMs),"
            " Number(v.dataset.renderMs)]")


def _run_cell(pg, i: int, first_view: int) -> Optional[list]:
    """Runs cell ``i``; from ``first_view`` on, waits for its view and returns its latencies."""
    pg.evaluate(f"() => {{ const nb = window.jupyterapp.shell.currentWidget.content; nb.activeCellIndex = {i};"
                " return window.jupyterapp.commands.execute('notebook:run-cell'); }")
    if i < first_view:
        pg.wait_for_function(f"(() => {{ const c = window.jupyterapp.shell.currentWidget.content.widgets[{i}];"
                             " return c.model.executionCount != null && window.jupyterapp.shell.currentWidget"
                             ".sessionContext.session.kernel.status === 'idle'; })()", timeout=300_000)
        return None
    n = i - first_view + 1
    pg.wait_for_function(f"document.querySelectorAll('.jp-OutputArea .cxv[data-ready]').length >= {n}",
                         timeout=300_000)
    return pg.locator(".jp-OutputArea .cxv[data-ready]").nth(n - 1).evaluate(_LATENCY)


def lab_folder(prefix: str) -> Path:
    """A fresh folder for a JupyterLab server's notebooks, its settings saying no news (a first start shows some)."""
    import json

    root = Path(tempfile.mkdtemp(prefix=prefix))
    settings = root / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    return root


def start_lab(root: Path) -> tuple:
    """A JupyterLab server on loopback over ``root`` (from ``lab_folder``), this checkout first on the kernels'
    path, once it answers: the process (terminate it) and its URL."""
    import subprocess
    import urllib.request

    from test_browser import _free_port

    port = _free_port()
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join([str(HERE.parents[1])] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                             "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
                             f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={root / '.settings'}",
                             "--LabApp.expose_app_in_browser=True"], env=env, cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    return proc, url


def measure_lab(browser, checkouts: list[tuple[str, Path]], bigs: int = 3) -> None:
    """The widget in one live JupyterLab, one notebook (and kernel) per checkout; each view after the previous one
    is drawn (a view's latency is its own), the checkouts' cells interleaved."""
    root = lab_folder("cx_lab_")
    first_view = 0
    for k, (_, src) in enumerate(checkouts):
        first_view = _notebook(src, root / f"bench{k}.ipynb", bigs)
    proc, url = start_lab(root)
    pages = {}
    try:
        for k, (name, _) in enumerate(checkouts):
            pages[name] = pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.goto(f"{url}/lab/tree/bench{k}.ipynb")
            pg.wait_for_function(_KERNEL_READY, timeout=300_000)
        for name, _ in checkouts:
            for i in range(first_view):
                _run_cell(pages[name], i, first_view)
        lat: dict[str, list] = {name: [] for name, _ in checkouts}
        for i in range(first_view, first_view + 3 + bigs):  # the small cells, then the big views: cell i of
            # every notebook in turn, every other round in reverse
            for name, _ in checkouts if (i - first_view) % 2 == 0 else checkouts[::-1]:
                # the page in front: a page behind another draws later (Chromium defers its frames), which made
                # a checkout measured against itself 1.26x slower than itself
                pages[name].bring_to_front()
                lat[name].append(_run_cell(pages[name], i, first_view))
                time.sleep(1.0)
        print("== the widget in JupyterLab: capture finished -> view drawn")

        def say(x):
            return f"{x[0]:.0f} ms (arrived after {x[1]:.0f}, unpacked in {x[2]:.0f}, drawn in {x[3]:.0f})"

        for name, _ in checkouts:
            tag = f"[{name}] " if len(checkouts) > 1 else ""
            small = "; ".join(say(x) for x in lat[name][:3])
            print(f"  {tag}%%compile of a small cell (torch.sin), three runs: {small}")
            print(f"  {tag}the 2,300-node report displayed {bigs} times: {'; '.join(say(x) for x in lat[name][3:])}")
        if len(checkouts) == 2:
            (a, _), (b, _) = checkouts
            print(f"  the 2,300-node report, {a} / {b}: latency {ratio(lat[a][3:], lat[b][3:], 0)}; "
                  f"arrived {ratio(lat[a][3:], lat[b][3:], 1)}; drawn {ratio(lat[a][3:], lat[b][3:], 3)}")
    finally:
        for pg in pages.values():
            pg.close()
        proc.terminate()
        proc.wait(20)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--loads", type=int, default=5)
    p.add_argument("--real", action="store_true", help="also the captured 100-block model (captures it once)")
    p.add_argument("--lab", action="store_true", help="also the widget's latency in a live JupyterLab")
    p.add_argument("--views", type=int, default=3, help="how many times --lab displays the big report")
    p.add_argument("--against", metavar="DIR", type=Path,
                   help="a second checkout (e.g. `git worktree add /tmp/cx-old REV`), measured in the same run, "
                        "interleaved with this one; ratios are this / that")
    a = p.parse_args()
    from own_tmp import own_tmp

    own_tmp("cx-bench-frontend-")  # its pages, JupyterLab's folder, the kernels' compiled code
    from frontend_report import real, synthetic
    from playwright.sync_api import sync_playwright
    from test_browser import chromium_path

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    checkouts = [("this", HERE.parents[1])] + ([("against", a.against.resolve())] if a.against else [])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        big = synthetic()
        measure_pages("synthetic: 2,300-node graphs (Dynamo, AOT, post-grad), 100 kernels, a chain for every line",
                      checkouts, a.loads, browser, len(big.capture.compilations[0].kernels))
        if a.real:
            measure_real(real(), a.loads, browser)
        if a.lab:
            measure_lab(browser, checkouts, a.views)
        browser.close()
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


def measure_real(r, loads: int, browser) -> None:
    """The captured 100-block model (this checkout only: its capture is cached by this checkout's code)."""
    from explorer.present.page import render_page

    c = r.capture.compilations[0]
    path = Path(tempfile.mkdtemp(prefix="cx_page_")) / "page.html"
    path.write_text(render_page(r), encoding="utf-8")
    got = [load_page(path, browser) for _ in range(loads)]
    print(f"== captured: 100 blocks, {c.graph.num_nodes:,}-node graph, {len(c.kernels)} kernels "
          f"(chain: {'real' if r.lineage else 'none recorded'})")
    first, hover, kernels = (statistics.median(x[i] for x in got) for i in range(3))
    print(f"  first render {first:.0f} ms; hover {hover:.1f} ms; all kernels {kernels:.0f} ms")


if __name__ == "__main__":
    main()
