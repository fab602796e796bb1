"""The pictures of the README and the docs, taken from real runs of the examples.

    python tests/screenshots.py            # every picture, into assets/ (about 8 minutes on 2 busy cores)
    python tests/screenshots.py usage lab  # some of them

Each picture is what a user gets from a command the docs show: ``python -m explorer run`` of examples/demo.py,
of examples/distributed/ddp_transformer_block.py and tests/programs/distributed/diverge.py on two ranks and of
examples/usage.py (twice, ``--warm``: the second run's caches hit), drawn by the standalone page in headless
Chromium; and the workshop's quickstart notebook run in a live JupyterLab (the README's first picture). Playwright
drives Debian's Chromium (``apt-get install chromium``, or set ``CX_CHROMIUM``). Each page is laid out 900 CSS px
wide and drawn at twice the pixels, so its text stays readable (11 px or more) where the README and the docs show it.
Everything the runs write goes to a temporary folder of the script's own, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ASSETS = REPO / "assets"  # the docs site reads it through the link docs/assets
sys.path.insert(0, str(REPO / "tests" / "benchmarks"))
from own_tmp import own_tmp  # noqa: E402

# The README and the docs show a picture at most ~830 px wide (GitHub's column, MkDocs Material's): a page laid out
# 900 CSS px wide keeps the view's 12 px text at 11 px or more there; drawn at twice the pixels, it stays sharp on
# high-density screens and when zoomed.
WIDTH, HEIGHT, SCALE = 900, 1000, 2


def explorer_run(work: Path, *args: str) -> None:
    """``python -m explorer run ARGS`` from the repository root, as the docs show it; its output goes to a log."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "explorer", "run", *args]
    print("$ python -m explorer run", " ".join(args), flush=True)
    with open(work / "runs.log", "a") as log:
        log.write(f"$ {' '.join(cmd)}\n")
        log.flush()
        code = subprocess.run(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    if code not in (0, 1):  # 1: the script raised (usage.py --refuse ends with the call its stance refuses)
        raise SystemExit(f"the run failed ({code}): see {work / 'runs.log'}")


def chromium() -> str:
    for path in (os.environ.get("CX_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if path and os.access(path, os.X_OK):
            return path
    raise SystemExit("no Chromium: apt-get install chromium, or set CX_CHROMIUM")


def open_page(browser, path: Path, scheme: str = "light"):
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=SCALE,
                            color_scheme=scheme)
    page.goto(path.as_uri())
    page.wait_for_selector("#cx-root[data-ready]")
    return page, page.locator("#cx-root")


def pane(view, which: str):
    return view.locator(f".cx-pane[data-side={which}]")


def light_line(view, text: str, right_stage: str) -> None:
    """The source in the left pane, ``right_stage`` in the right one, and the user line holding ``text`` clicked:
    the line-level chain lit in both."""
    pane(view, "left").locator(".cx-stage-pick").select_option("source")
    pane(view, "right").locator(".cx-stage-pick").select_option(right_stage)
    pane(view, "left").locator(".cx-ln", has_text=text).first.click()
    lit = pane(view, "right").locator(".cx-code .cx-ln.cx-lit")
    if lit.count():
        lit.first.scroll_into_view_if_needed()


def shoot(target, name: str, full_page: bool = False) -> None:
    """A screenshot of a page (the whole of it with ``full_page``) or of one element."""
    path = ASSETS / name
    target.screenshot(path=str(path), **({"full_page": True} if full_page else {}))
    shrink(path)
    mark_scale(path)
    print("wrote", path.relative_to(REPO), flush=True)


def shrink(path: Path) -> None:
    """The picture in 256 colours, as many as a page's screenshot holds that matter (text, flat fills, a few syntax
    colours): under half the bytes, the text as sharp. Without Pillow it stays as Chromium wrote it."""
    try:
        from PIL import Image
    except ImportError:
        print("(without Pillow the pictures are kept as Chromium wrote them, 2-3x bigger: pip install pillow)")
        return
    with Image.open(path) as image:
        fewer = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    fewer.save(path, optimize=True)


def mark_scale(path: Path) -> None:
    """Writes in the PNG at what scale it was drawn: its pHYs chunk at 72 dpi per CSS px (how macOS marks a
    Retina screenshot), so a reader knows the width the page was laid out at (tests/test_readme.py checks it)."""
    data = path.read_bytes()
    per_metre = round(72 * SCALE / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind != b"pHYs":
            chunks.append(data[at:at + 12 + length])
        at += 12 + length
    phys = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    path.write_bytes(data[:8] + chunks[0] + phys + b"".join(chunks[1:]))  # after IHDR, as PNG wants


# ---- the pictures ----

def demo(browser, work: Path) -> None:
    """The README's demo command: the chain from the block's first line to the kernels computing it."""
    explorer_run(work, "examples/demo.py", "--html", str(work / "demo.html"), "--json", str(work / "demo.json"))
    for scheme, name in (("light", "standalone-report.png"), ("dark", "standalone-dark.png")):
        page, view = open_page(browser, work / "demo.html", scheme)
        light_line(view, "gelu", "kernels")
        shoot(page, name, full_page=scheme == "light")
        page.close()


def ranks(browser, work: Path) -> None:
    """The DDP example on two CPU ranks (gloo): ranks compared and one rank's panes; then a job whose ranks differ
    (tests/programs/distributed/diverge.py), the difference clicked."""
    explorer_run(work, "--nproc-per-node", "2", "--html", str(work / "ddp.html"), "--json", str(work / "ddp.json"),
                 "examples/distributed/ddp_transformer_block.py", "--backend", "aot_eager")
    page, view = open_page(browser, work / "ddp.html")
    comps = view.locator(".cx-comp-pick option").evaluate_all("os => os.map(o => o.value)")
    view.locator(".cx-comp-pick").select_option(comps[-1])  # the model's forward, the graph DDPOptimizer split
    light_line(view, "self.head(x)", "graph")
    shoot(page, "distributed-ranks.png", full_page=True)
    page.close()
    # ranks that differ: rank 1 alone prints inside the compiled step and gets a short last batch (the job the
    # docs' transcript shows)
    explorer_run(work, "--nproc-per-node", "2", "--html", str(work / "diverge.html"), "--json",
                 str(work / "diverge.json"), "tests/programs/distributed/diverge.py", "--backend", "aot_eager")
    page, view = open_page(browser, work / "diverge.html")
    view.locator("ul.cx-rank-diffs > li", has_text="graph break at diverge.py").click()
    shoot(page, "distributed-diverge.png", full_page=True)
    page.close()


def usage(browser, work: Path) -> None:
    """examples/usage.py run twice with --warm --export --refuse: the second run's cache hits, its regions, the
    refused recompile; and the exported program with AOTInductor's package."""
    env_cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / "inductor-cache")  # empty: the first run fills it
    try:
        for run in ("first", "second"):
            explorer_run(work, "--warm", "--export", "--html", str(work / f"usage-{run}.html"),
                         "examples/usage.py", "--refuse")
    finally:
        if env_cache is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR")
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = env_cache
    page, view = open_page(browser, work / "usage-second.html")
    left, right = pane(view, "left"), pane(view, "right")
    right.locator(".cx-cid-pick").select_option("0/0")  # served from the caches: the "from where" strip
    right.locator(".cx-stage-pick").select_option("output_code")
    left.locator(".cx-cid-pick").select_option("1/0")  # the frame with the compiled region
    left.locator(".cx-stage-pick").select_option("graph")
    left.locator("ul.cx-regions").scroll_into_view_if_needed()
    shoot(page, "standalone-usage.png", full_page=True)
    view.locator("ul.cx-exports > li").first.click()  # the exported program leads to its AOTInductor compile
    left.locator(".cx-cid-pick").select_option("aoti/0")
    left.locator(".cx-stage-pick").select_option("kernels")
    right.locator(".cx-ln", has_text="torch.ops.aten.sin").first.click()  # the chain, down to the C++ kernel
    lit = left.locator(".cx-code .cx-ln.cx-lit")
    if lit.count():
        lit.first.scroll_into_view_if_needed()
    right.locator("table.cx-package").scroll_into_view_if_needed()
    shoot(page, "standalone-export.png", full_page=True)
    page.close()


# The first torch.compile of a process pays once for what every later one reuses (Inductor's imports, probing the
# C++ compiler's vector instructions): 15-45 s on 2 busy cores, where the quickstart's cell itself takes 3-6 s. The
# kernel compiles a throwaway function first, silently (no cell, no output, nothing left in the notebook's names),
# so the picture's compile time is the cell's own, as in any cell but a session's first. Its caches stay cold:
# nothing of the quickstart's graphs was compiled before.
WARM_UP = ("import torch as _t\n_t.compile(lambda x: (x.sin() + 1).sum())(_t.randn(4))\n"
           "_t._dynamo.reset()\ndel _t")  # reset: the cell's compilations are numbered from 0/0, as in a first cell


def lab(browser, work: Path) -> None:
    """notebooks/quickstart.ipynb run in a live JupyterLab (after ``WARM_UP``): its %%compile cell's view, light and
    dark."""
    folder = work / "lab"
    settings = folder / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false",
                                                                          "checkForUpdates": False}))
    shutil.copy(REPO / "notebooks" / "quickstart.ipynb", folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    log = open(work / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root", f"--ServerApp.root_dir={folder}",
         f"--LabApp.user_settings_dir={folder / '.settings'}", f"--LabApp.workspaces_dir={folder / '.workspaces'}",
         "--LabApp.expose_app_in_browser=True"], env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"JupyterLab did not start: see {work / 'lab.log'}") from None
                time.sleep(0.5)
        # tall enough for the whole cell: a cell taller than the notebook panel is drawn under Lab's own bars
        page = browser.new_page(viewport={"width": WIDTH, "height": 2400}, device_scale_factor=SCALE)
        page.goto(f"{url}/lab/tree/quickstart.ipynb")
        page.wait_for_function("window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-Cell')",
                               timeout=120_000)
        page.wait_for_function("(() => { const w = window.jupyterapp.shell.currentWidget;"
                               " const k = w && w.sessionContext && w.sessionContext.session"
                               " && w.sessionContext.session.kernel; return k && k.status === 'idle'; })()",
                               timeout=120_000)
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        print("warming the kernel's torch.compile", flush=True)
        page.evaluate(f"async () => {{ const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;"
                      f" await k.requestExecute({{code: {json.dumps(WARM_UP)}, silent: true,"
                      f" store_history: false}}).done; }}")
        print("running notebooks/quickstart.ipynb in JupyterLab", flush=True)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function("document.querySelectorAll('.jp-OutputArea .cxv[data-ready]').length >= 1",
                               timeout=600_000)
        cell = page.locator(".jp-Cell", has=page.locator(".cxv[data-ready]")).first
        view = cell.locator(".cxv[data-ready]")
        light_line(view, "model(x)", "graph")
        cell.scroll_into_view_if_needed()
        shoot(cell, "jupyterlab-view.png")
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme',"
                      " {theme: 'JupyterLab Dark'})")
        page.wait_for_function("document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
        page.wait_for_function("!document.getElementById('jupyterlab-splash')", timeout=30_000)
        page.wait_for_function("(v) => v.classList.contains('cx-dark')", arg=view.element_handle(), timeout=10_000)
        cell.scroll_into_view_if_needed()
        shoot(cell, "jupyterlab-dark.png")
        page.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


PICTURES = {"demo": demo, "ranks": ranks, "usage": usage, "lab": lab}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pictures", nargs="*", help=f"which of {', '.join(PICTURES)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.pictures if name not in PICTURES]
    if unknown:
        parser.error(f"no picture named {', '.join(unknown)}; the pictures are {', '.join(PICTURES)}")
    work = Path(own_tmp("cx-screenshots-"))
    ASSETS.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            for name in args.pictures or PICTURES:
                started = time.time()
                PICTURES[name](browser, Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work)))
                print(f"{name}: {time.time() - started:.0f} s", flush=True)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
