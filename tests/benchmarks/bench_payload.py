"""How big a big report's JSON is, and how long its payload takes to build and its pictures' DOT to write.

The report: big_report.py's 40 transformer blocks (a 1,500-node Dynamo graph, a 2,800-node post-grad graph,
84 kernels), captured once and cached as JSON. Timed, one run each (the machine's 2 shared cores make a second
run no steadier): loading the JSON (``Report.from_json``), building the widget's payload with its pictures named
but not drawn (``payload.build(pictures="lazy")``, what a notebook pays before the view shows), and writing the
DOT text of every picture it names (``dot_text``: what drawing them asks first; Graphviz's own time left out).
Printed with the report's JSON size (as loaded, and as this explorer writes it again) and the payload's.

    PYTHONPATH=. python tests/benchmarks/big_report.py      # once: captures and caches the report
    PYTHONPATH=. python tests/benchmarks/bench_payload.py [REPORT.json]

Figures (2026-12-07; torch 2.13 CPU, Python 3.11; 2 cores shared with other work, load average about 9, so
the times differ by noise alone), one run each, the same cached report (made by the explorer of schema version
4), the explorer before and after schema version 5 (issue 42 part 4: graphs and member diffs kept as data,
pictures drawn from the nodes):

                                   before (v4)   after, v4 file   after, its v5 file
    report JSON written              13.56 MB       13.65 MB          13.65 MB
    payload JSON                      7.07 MB        7.11 MB           7.11 MB
    load the report                   1.32 s         1.65 s            1.39 s
    build the payload (lazy)          1.51 s         1.38 s            1.67 s
    write every picture's DOT         0.02 s         0.02 s            0.02 s

Its graphs are all over 400 nodes, so version 4 kept no DOT text for them (`null`); the member diffs' hunks take
a little more room than their text did (0.7%). tests/data/report_v4.json.gz (four Llama blocks, a 263-node
graph whose DOT version 4 kept) goes from 4.22 MB to 4.15 MB, tests/data/report_v2.json from 0.54 MB to 0.50 MB.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))


def main(path: str) -> None:
    from explorer import Report
    from explorer.present import payload as pl

    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    t0 = time.perf_counter()
    report = Report.from_json(text)
    t_load = time.perf_counter() - t0
    again = report.to_json()
    t0 = time.perf_counter()
    payload, dots = pl.build(report, pictures="lazy", made_at=0.0)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    written = sum(len(pl.dot_text(d)) for d in dots.values())
    t_dots = time.perf_counter() - t0
    size = len(pl.to_json(payload).encode("utf-8"))
    version = json.loads(text).get("schema_version")
    print(f"report JSON as loaded:          {len(text.encode('utf-8')) / 1e6:8.2f} MB (schema version {version})")
    print(f"report JSON as written now:     {len(again.encode('utf-8')) / 1e6:8.2f} MB")
    print(f"payload JSON:                   {size / 1e6:8.2f} MB")
    print(f"load the report:                {t_load:8.2f} s")
    print(f"build the payload (lazy):       {t_build:8.2f} s")
    print(f"write every picture's DOT:      {t_dots:8.2f} s ({len(dots)} pictures, {written / 1e6:.2f} MB of DOT)")
    if len(sys.argv) > 2:  # the report as this explorer writes it, to time loading its own version
        with open(sys.argv[2], "w", encoding="utf-8") as fh:
            fh.write(again)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cx_big_report.json")
