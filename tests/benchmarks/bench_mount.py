"""The front end's own cost, two bundles in one page: mount (first paint), hover, the widget's big view.

``bench_frontend.py`` times whole page loads and a live JupyterLab; on a shared machine their noise (a checkout's
Python, identical on both sides, measured 1.3x slower than itself in one run) hides a few percent of front end. This
script loads two builds of the front end (``dist/explorer.js`` of this checkout and of ``--against DIR``) into one
headless Chromium page, as two ES modules, and alternates them round by round (every other round the other one
first) on the same payload (frontend_report.py's synthetic report: 2,300-node graphs, 100 kernels, a chain for
every line), each into a fresh element of the same size:

- **page first paint**: ``mount(el, payload)`` of the page's payload (pictures inline) until the view is laid out
  and the next frame has run (requestAnimationFrame, then a task);
- **widget big view**: the same for the widget's first payload (``defer=True``, pictures drawn on request) with a
  stand-in kernel not yet asked whether it answers (``state: "asking"``), as anywidget's render mounts it (entry.js
  asks once the view is drawn), the five views drawn before it still on the page, as in a notebook;
- **hover**: a mouseover on every 7th line of the left pane until the next frame (test_browser.HOVER_JS), the
  median per view.

Prints each side's medians and the ratio this / against (of the medians, and the median of per-round ratios).

    PYTHONPATH=. python tests/benchmarks/bench_mount.py --against DIR [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

BUNDLE = "explorer/present/frontend/dist/explorer.js"

_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>{css}</style>
<style>.cx-bench {{ width: 1400px; height: 1000px; overflow: hidden; }}</style></head><body>
<script type="application/json" id="page">{page}</script>
<script type="application/json" id="widget">{widget}</script>
<script type="module">
const sides = {{this: await import("/this.js"), against: await import("/against.js")}};
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const kernel = {{state: "asking", can: () => false, call: () => new Promise(() => {{}}), watch: () => () => {{}}}};
const KEEP = {{page: 0, widget: 5}};  // the views left on the page before the next is drawn
window.__one = async (side, which) => {{
  const payload = JSON.parse(document.getElementById(which).textContent);  // fresh: a mount may add to it
  const drawn = [...document.body.querySelectorAll(".cx-bench")];
  drawn.slice(0, Math.max(0, drawn.length - KEEP[which])).forEach((e) => e.remove());
  await frame();
  const el = document.createElement("div");
  el.className = "cx-bench";
  document.body.append(el);
  const t0 = performance.now();
  sides[side].mount(el, payload, which === "widget" ? {{kernel}} : {{}});
  const script = performance.now() - t0;
  void el.offsetHeight;  // laid out
  await frame();  // and painted
  const ms = performance.now() - t0;
  let hover = -1;
  if (which === "page") hover = await ({hover})(el);
  return [ms, hover, script];
}};
// the view each side draws, as HTML (its timing attributes left out)
window.__dom = async (side, which) => {{
  await window.__one(side, which);
  const el = [...document.querySelectorAll(".cx-bench")].pop();
  for (const a of ["data-render-ms", "data-ready-ms", "data-rendered-at"]) el.removeAttribute(a);
  return el.outerHTML;
}};
window.__ready = true;
</script></body></html>"""


def _fast(xs: list) -> float:
    """The mean of the fastest tenth: what a run costs when the machine lets it run (a shared machine's load only
    ever adds time)."""
    xs = sorted(xs)[:max(1, len(xs) // 10)]
    return sum(xs) / len(xs)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--against", type=Path, required=True, help="a checkout whose dist/explorer.js to compare with")
    p.add_argument("--rounds", type=int, default=20)
    a = p.parse_args()
    from frontend_report import synthetic
    from frontend_side import to_script_json
    from playwright.sync_api import sync_playwright
    from test_browser import HOVER_JS, chromium_path

    from explorer.present.page import styles_text
    from explorer.present.payload import build

    report = synthetic()
    page_payload, _ = build(report, pictures="inline")
    widget_payload, _ = build(report, pictures="lazy", defer=True)
    files = {
        "/index.html": _PAGE.format(css=styles_text(), page=to_script_json(page_payload),
                                    widget=to_script_json(widget_payload), hover=HOVER_JS),
        "/this.js": (HERE.parents[1] / BUNDLE).read_text(encoding="utf-8"),
        "/against.js": (a.against.resolve() / BUNDLE).read_text(encoding="utf-8"),
    }
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; payloads "
          f"{len(json.dumps(page_payload)) / 1e6:.2f} MB (page), {len(json.dumps(widget_payload)) / 1e6:.2f} MB "
          "(widget)")
    got: dict[tuple[str, str], list] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})

        def serve(route):
            path = route.request.url.split("cx.bench", 1)[1]
            kind = "text/html" if path.endswith(".html") else "text/javascript"
            route.fulfill(status=200, content_type=kind, body=files[path])

        pg.route("http://cx.bench/**", serve)
        pg.goto("http://cx.bench/index.html")
        pg.wait_for_function("window.__ready === true")
        sides = ["this", "against"]
        for which in ("page", "widget"):  # (and warm: each module's first mount compiles its code)
            doms = [pg.evaluate("([s, w]) => window.__dom(s, w)", [side, which]) for side in sides]
            print(f"  {which}: the two draw the same DOM: {doms[0] == doms[1]} ({len(doms[0]):,} characters)")
        for i in range(a.rounds):
            for which in ("page", "widget"):
                for side in sides if i % 2 == 0 else sides[::-1]:
                    got.setdefault((side, which), []).append(pg.evaluate("([s, w]) => window.__one(s, w)",
                                                                         [side, which]))
        browser.close()

    def ratio(xs: list, ys: list) -> str:
        per = statistics.median(x / y for x, y in zip(xs, ys) if y > 0)
        return (f"{statistics.median(xs) / statistics.median(ys):.3f} (per round {per:.3f}; of the fastest tenths "
                f"{_fast(xs) / _fast(ys):.3f})")

    for which, i, what in (("page", 0, "page first paint (mount -> laid out -> next frame)"),
                           ("page", 2, "  of which mount()'s script"),
                           ("widget", 0, "widget big view (mount of the deferred payload, 5 views above)"),
                           ("widget", 2, "  of which mount()'s script"),
                           ("page", 1, "hover (mouseover -> next frame, median over every 7th line)")):
        xs, ys = ([r[i] for r in got[(s, which)]] for s in sides)
        print(f"{what}: this {statistics.median(xs):.1f} ms (min {min(xs):.1f}), against "
              f"{statistics.median(ys):.1f} ms (min {min(ys):.1f}); this / against = {ratio(xs, ys)}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; {a.rounds} rounds")


if __name__ == "__main__":
    main()
