"""A marimo notebook that shows reports the three ways users write (tests/test_browser_hosts.py runs it).

``explorer.show(report)``, a report as a cell's last expression, and ``mo.ui.anywidget(report.widget())``;
``sin_twice`` is a named cell (the view names it so), the cell that shows the report has no name (``cell 3``).
"""

import marimo

app = marimo.App()


@app.cell
def setup():
    import os
    import sys

    sys.path.insert(0, os.environ["CX_TESTS"])  # tests/: its programs
    import marimo as mo
    import torch

    import explorer

    return explorer, mo, torch


@app.cell
def sin_twice(explorer, torch):
    def f(x):
        y = torch.sin(x)
        print("a graph break")
        return y * 2

    with explorer.capture() as report:
        cf = torch.compile(f)
        cf(torch.randn(8))
        cf(torch.randn(16))
    return cf, report


@app.cell
def _(explorer, report):
    explorer.show(report)
    return


@app.cell
def _(report):
    report
    return


@app.cell
def _(mo, report):
    mo.ui.anywidget(report.widget())
    return


if __name__ == "__main__":
    app.run()
