"""The view in the notebook hosts other than a live JupyterLab (test_browser.py has Lab), in a real browser.

- marimo (``marimo run``): ``explorer.show(report)``, a report as a cell's value and
  ``mo.ui.anywidget(report.widget())`` draw the interactive view; every action it offers works ("why would this
  call recompile?" evaluates the call in the notebook's variables, pictures are drawn by the kernel). Lines are
  named by the notebook's own file there, and by the cell's name (``cell sin_twice``) where marimo compiles a cell
  under a temporary file of its own (its editor, its export), never by that file.
- ``marimo export html``: a page with no kernel behind it. The views draw from their saved state, offer no kernel
  action, and say in one line what needs a kernel; nothing waits for ever.
- Notebook 7: a displayed ``explore()`` report draws the interactive view.
- nbconvert: the HTML of a saved notebook shows the report (its static copy, where the page has no widget
  manager) and says where the pictures are; a notebook run by ``jupyter nbconvert --execute`` (its widgets' state
  kept) becomes a page that shows the static copy with the network off.

marimo and Notebook 7 come with the ``test`` extra; without them (or Playwright, or Chromium) these tests skip.
The pages of ``marimo export html`` load marimo's front end from a CDN: the test serves it from the marimo
package's own copy (``marimo/_static``), as the machine may have no network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_browser import REPO, TESTS, Console, _free_port, browser, check_side_by_side, show, side  # noqa: F401

pytestmark = pytest.mark.slow
NOTEBOOK = TESTS / "programs" / "marimo_view.py"  # copied to a temporary folder first: marimo writes beside it
VIEW = ".cxv[data-ready]"
# marimo's own noise in a headless browser without network, not ours
MARIMO_NOISE = (r"Failed to load resource", r"favicon", r"net::ERR", r"fonts", r"WebSocket", r"status of 404",
                r"\[marimo\]", r"Content Security Policy", r"copilot", r"lsp", r"CORS")


def _env():
    paths = [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), CX_TESTS=str(TESTS))


def _serve(args, cwd, url_path, log):
    """Starts a notebook server on a free loopback port; its URL once it answers."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", *args(port)], env=_env(), cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=open(log, "w"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            urllib.request.urlopen(f"{url}{url_path}", timeout=2)
            return proc, url
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail(f"{args(port)[0]} did not start: {Path(log).read_text()[-2000:]}")
            time.sleep(0.5)


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _views(pg, count, timeout=600):
    """The views once ``count`` are drawn (marimo draws a widget in a shadow root: a locator looks inside)."""
    views = pg.locator(VIEW)
    deadline = time.time() + timeout
    while views.count() < count:
        assert time.time() < deadline, f"{views.count()} views drawn, not {count}"
        pg.wait_for_timeout(500)
    return views


def _shot(pg, name):
    """A screenshot under /tmp (CX_SHOTS=dir to keep them elsewhere), to look at what the host showed."""
    folder = Path(os.environ.get("CX_SHOTS", "/tmp/cx-host-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(folder / f"{name}.png"), full_page=True)


# ---- marimo ----

@pytest.fixture(scope="module")
def marimo_run(tmp_path_factory):
    pytest.importorskip("marimo", reason="marimo is not installed (it comes with the test extra)")
    root = tmp_path_factory.mktemp("marimo")
    notebook = shutil.copy(NOTEBOOK, root)
    proc, url = _serve(lambda port: ["marimo", "run", str(notebook), "--headless", "--host", "127.0.0.1",
                                     f"--port={port}", "--no-token"], root, "/", root / "server.log")
    yield url
    _stop(proc)


@pytest.fixture(scope="module")
def marimo_page(browser, marimo_run):  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    pg = ctx.new_page()
    pg.console = Console(pg, ignore=MARIMO_NOISE)
    pg.goto(marimo_run)
    _views(pg, 3)
    yield pg
    ctx.close()
    assert pg.console.ours() == [], pg.console.errors


def test_marimo_draws_every_way_of_showing_a_report_interactively(marimo_page):
    views = marimo_page.locator(VIEW)
    assert views.count() == 3  # explorer.show(report), the report as the cell's value, mo.ui.anywidget(...)
    for i in range(3):
        view = views.nth(i)
        view.scroll_into_view_if_needed()
        assert view.get_attribute("data-ready") == "1"
        check_side_by_side(view)
        marimo_page.wait_for_function("(v) => v.querySelector('.cx-kernel-actions[data-kernel=up]')",
                                      arg=view.element_handle(), timeout=30_000)
    _shot(marimo_page, "marimo-run")


def test_marimo_offers_only_actions_that_work(marimo_page):
    view = marimo_page.locator(VIEW).nth(0)
    view.scroll_into_view_if_needed()
    view.locator(".cx-why-input").fill("cf(torch.randn(32))")
    view.locator(".cx-kernel-actions button", has_text="Check guards").click()
    out = view.locator(".cx-action-out")
    marimo_page.wait_for_function("(o) => o.textContent && o.textContent !== '…'", arg=out.element_handle(),
                                  timeout=30_000)
    assert "reused" in out.inner_text() or "fails" in out.inner_text(), out.inner_text()
    show(side(view, "right"), "graph")
    side(view, "right").locator(".cx-seg button", has_text="Picture").click()
    marimo_page.wait_for_function("(v) => v.querySelector('.cx-pane[data-side=right] .cx-svg svg')"
                                  " || /not found/.test(v.querySelector('.cx-pane[data-side=right]').textContent)",
                                  arg=view.element_handle(), timeout=30_000)
    _shot(marimo_page, "marimo-run-actions")


def test_marimo_run_names_lines_by_the_notebooks_file(marimo_page):
    """``marimo run`` compiles each cell under the notebook's own file, at its own lines: that file is named."""
    view = marimo_page.locator(VIEW).nth(0)
    text = view.locator(".cx-header").inner_text()
    assert "marimo_view.py:" in text and "__marimo__cell_" not in text, text


def _route_marimo_cdn(pg):
    """The exported page's marimo front end, from the installed marimo package instead of the CDN."""
    import marimo

    static = Path(marimo.__file__).parent / "_static"

    def fulfil(route):
        rel = re.sub(r"^https://cdn\.jsdelivr\.net/npm/@marimo-team/frontend@[^/]+/dist/", "", route.request.url)
        path = static / rel.split("?")[0]
        if path.is_file():
            route.fulfill(path=str(path))
        else:
            route.abort()

    pg.route(re.compile(r"^https://cdn\.jsdelivr\.net/npm/@marimo-team/frontend@.*"), fulfil)
    pg.route(re.compile(r"^https?://(?!127\.0\.0\.1)(?!cdn\.jsdelivr\.net/npm/@marimo-team).*"),
             lambda route: route.abort())


def test_marimo_export_html_says_what_needs_a_kernel(browser, tmp_path):  # noqa: F811
    pytest.importorskip("marimo", reason="marimo is not installed (it comes with the test extra)")
    out = tmp_path / "view.html"
    notebook = shutil.copy(NOTEBOOK, tmp_path)
    run = subprocess.run([sys.executable, "-m", "marimo", "export", "html", str(notebook), "-o", str(out)],
                         env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.is_file(), run.stderr[-2000:]
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    pg = ctx.new_page()
    pg.console = Console(pg, ignore=MARIMO_NOISE)
    _route_marimo_cdn(pg)
    pg.goto(out.as_uri())
    views = _views(pg, 3, timeout=60)
    view = views.nth(0)
    view.scroll_into_view_if_needed()
    pg.wait_for_function("(v) => v.querySelector('.cx-kernel-actions[data-kernel=none]')",
                         arg=view.element_handle(), timeout=15_000)
    # marimo's editor and its export compile each cell under a temporary file of its own: the cell is named
    header = view.locator(".cx-header").inner_text()
    assert "cell sin_twice, line 3" in header and "__marimo__cell_" not in header, header
    assert "guard from cell sin_twice, line 2" in header, header  # the recompiles, too
    note = view.locator(".cx-kernel-actions").inner_text()
    assert "none answered" in note and view.locator(".cx-why-input").count() == 0, note
    show(side(view, "right"), "graph")
    side(view, "right").locator(".cx-seg button", has_text="Picture").click()
    right = side(view, "right").inner_text()
    assert "none answered" in right and "Drawing the picture" not in right, right
    _shot(pg, "marimo-export-html")
    ctx.close()
    assert pg.console.ours() == [], pg.console.errors


# ---- Notebook 7 and nbconvert ----

EXPLORE_CELLS = [
    f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport torch\nimport explorer",
    "def h(x):\n    y = torch.cos(x)\n    print('a graph break')\n    return y + 1\n\n"
    "r = explorer.explore(h, torch.randn(8))\nr",
]


def _notebook(folder):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in EXPLORE_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "explore.ipynb"
    nbformat.write(nb, path)
    return path


def test_notebook7_draws_a_displayed_report_interactively(browser, tmp_path):  # noqa: F811
    pytest.importorskip("notebook", reason="Notebook 7 is not installed (it comes with the test extra)")
    _notebook(tmp_path)
    proc, url = _serve(lambda port: ["notebook", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                                     "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
                                     f"--ServerApp.root_dir={tmp_path}", "--expose-app-in-browser"],
                       tmp_path, "/api/status", tmp_path / "server.log")
    try:
        ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
        pg = ctx.new_page()
        pg.goto(f"{url}/notebooks/explore.ipynb")
        pg.wait_for_function("document.querySelector('.jp-Notebook .jp-Cell')", timeout=90_000)
        pg.wait_for_function("(() => { const a = window.jupyterapp; const w = a && a.shell.currentWidget;"
                             " const k = w && w.sessionContext && w.sessionContext.session"
                             " && w.sessionContext.session.kernel;"
                             " return k && k.status === 'idle' && k.connectionStatus === 'connected'; })()",
                             timeout=90_000)
        pg.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        view = _views(pg, 1).nth(0)
        view.scroll_into_view_if_needed()
        check_side_by_side(view)
        pg.wait_for_function("(v) => v.querySelector('.cx-kernel-actions[data-kernel=up]')",
                             arg=view.element_handle(), timeout=30_000)
        _shot(pg, "notebook7")
        ctx.close()
    finally:
        _stop(proc)


def test_nbconvert_html_of_a_saved_notebook_shows_the_report_and_says_where_pictures_are(browser, tmp_path):  # noqa: F811
    """A notebook run and saved without its widgets' state (JupyterLab's default) becomes a page with the static
    copy of each report: the page has no widget manager; its pictures are named as drawn in the interactive view."""
    import nbformat
    from nbclient import NotebookClient

    path = _notebook(tmp_path)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=_env())
    outputs = [o for o in nb.cells[1].outputs if o.get("output_type") == "execute_result"]
    assert outputs and "application/vnd.jupyter.widget-view+json" in outputs[0]["data"]  # the kernel made the view
    nbformat.write(nb, path)
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path)], env=_env(),
                   check=True, capture_output=True, timeout=300)
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    pg = ctx.new_page()
    pg.route(re.compile(r"^https?://.*"), lambda route: route.abort())
    pg.goto(path.with_suffix(".html").as_uri())
    report = pg.locator(".cx-report").first
    assert "h (" in report.inner_text() or "cos" in report.inner_text()
    assert pg.get_by_text("The picture is drawn in the interactive view").count() >= 1
    _shot(pg, "nbconvert")
    ctx.close()


MAGIC_CELLS = [
    "%load_ext explorer\nimport torch\n\ndef f(x):\n    y = torch.sin(x)\n    print('a graph break')\n"
    "    return y * 2\n\nx = torch.randn(8)",
    "%%compile --no-time\nout = f(x)",
]


def test_an_executed_notebook_exported_to_html_shows_the_view_offline(browser, tmp_path):  # noqa: F811
    """``jupyter nbconvert --execute --to html`` of a notebook with a ``%%compile`` cell: nbclient keeps the widgets'
    state, so nbconvert's page draws the widget with a widget manager it loads from a CDN. Opened with every request
    but the file's own refused, the page shows the view's static copy: its header and its graph break."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in MAGIC_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "magic.ipynb"
    nbformat.write(nb, path)
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--execute", "--to", "html", str(path)],
                          env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    pg = ctx.new_page()
    refused = []
    pg.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
             else (refused.append(route.request.url), route.abort()))
    pg.goto(path.with_suffix(".html").as_uri())
    pg.wait_for_load_state("load")
    assert refused, "the page asked for nothing from the network: the test no longer tests offline"
    report = pg.locator(".cx-report")
    assert report.count() == 1 and report.is_visible()
    fixes = report.locator("text=print('a graph break')").first
    assert fixes.is_visible(), report.inner_text()[:2000]
    header = report.inner_text()
    assert re.search(r"graph breaks? 1", header) and "compilations" in header, header[:2000]
    _shot(pg, "nbconvert-execute-offline")
    # where the page does draw the widget (online: its widget manager from the CDN), the copy steps aside
    pg.evaluate("() => { const v = document.createElement('div'); v.className = 'cxv';"
                " document.querySelector('.jupyter-widgets').appendChild(v); }")
    assert report.is_hidden()
    ctx.close()
