"""notebooks/quickstart.ipynb through a real Jupyter kernel: what a user of JupyterLab gets.

Slow (a kernel start and one Inductor compile, ~20-40 s on 2 cores), so it is
marked ``slow``; it is still collected by default.
"""

import os
import re
import time

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = os.path.join(os.path.dirname(__file__), os.pardir, "notebooks", "quickstart.ipynb")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _kernel_name():
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    if "python3" not in specs:
        pytest.skip("no python3 kernelspec: run `python -m ipykernel install --user`")
    return "python3"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "keep the notebook's outputs cleared"
    t0 = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=600, kernel_name=_kernel_name(),
                            resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}).execute()
    print(f"quickstart.ipynb executed in {time.perf_counter() - t0:.1f} s")
    return nb


def _compile_cell(nb):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%compile"))


@pytest.mark.slow
def test_compile_cell_shows_the_view_and_the_static_report(executed):
    outputs = _compile_cell(executed).outputs
    assert not [o for o in outputs if o.output_type == "error"]
    views = [o for o in outputs if o.output_type in ("display_data", "execute_result") and WIDGET_MIME in o.data]
    assert views, [o.output_type for o in outputs]
    data = views[-1].data
    assert re.search(r"\d+/\d+ cell \[\d+\] \(line 1\)", data["text/plain"]), data["text/plain"]  # named by its cell
    # nbclient draws nothing and saves the notebook (hosts.headless): the static copy is an output of its own, which
    # nbconvert's page shows without a network (test_browser_hosts.py), and not also the widget output's HTML
    copies = [o for o in outputs
              if o.output_type == "display_data" and "cx-offline-copy" in o.data.get("text/html", "")]
    assert len(copies) == 1 and "cx-report" in copies[0].data["text/html"] and WIDGET_MIME not in copies[0].data
    assert "text/html" not in data
    # the progress line was replaced by the view (same display id), not left beside it
    assert not any("compile-explorer: " in o.data.get("text/plain", "") and WIDGET_MIME not in o.data
                   for o in outputs if o.output_type == "display_data")


@pytest.mark.slow
def test_cell_prints_and_value_and_namespace_like_a_plain_run(executed):
    outputs = _compile_cell(executed).outputs
    stdout = "".join(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout")
    assert "output shape: (2, 4)" in stdout
    results = [o for o in outputs if o.output_type == "execute_result"]
    assert results and "tensor(" in results[-1].data["text/plain"]
    line_magic = next(c for c in executed.cells if c.cell_type == "code" and c.source.startswith("%compile"))
    assert "torch.Size([2, 2])" in line_magic.outputs[-1].data["text/plain"]
