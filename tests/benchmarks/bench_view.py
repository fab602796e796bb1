"""How long the notebook view takes to open for a big real report (issue 3).

A stack of transformer blocks captured on CPU (big_report.py; ~1,500 Dynamo-graph
nodes, ~100 kernels), loaded from JSON, then timed: building the widget, showing
the default panes, switching to the FX graph and kernel panes, and the static HTML
that rides along in the same output. Prints times and HTML size.

    python tests/benchmarks/big_report.py      # once: captures and caches the report
    python tests/benchmarks/bench_view.py
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))

from big_report import load

from explorer.widget import ExplorerView


def timed(fn, n=5):
    runs = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), out


def main() -> None:
    report = load()
    data = report.data
    c = max(data.compilations, key=lambda c: c.graph.num_nodes if c.graph else 0)
    print(f"report: {len(data.compilations)} compilations, graph {c.graph.num_nodes} nodes, "
          f"post-grad {c.post_grad_graph.num_nodes if c.post_grad_graph else 0} nodes, {len(data.kernels)} kernels")

    def build():
        view = ExplorerView(data)
        view.widget()  # header, picker, two default panes (bytecode before/after)
        return view

    t_build, view = timed(build)
    idx = data.compilations.index(c)

    def switch():
        v = ExplorerView(data)
        v.widget()
        v.select(comp_index=idx, left="graph", right="kernels")
        return v

    t_switch, _ = timed(switch)
    t_html, html = timed(lambda: view._repr_mimebundle_()["text/html"], n=3)
    print(f"open the widget (header + default panes): {t_build * 1e3:.0f} ms")
    print(f"open + switch to FX graph | kernels:      {t_switch * 1e3:.0f} ms")
    print(f"static HTML in the same output:           {t_html * 1e3:.0f} ms, {len(html) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
