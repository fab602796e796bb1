"""How long lineage_of takes on a big real report, how much JSON it adds, and how many lines it links.

    python tests/benchmarks/big_report.py          # once: captures and caches the report
    python tests/benchmarks/bench_lineage.py       # or: bench_lineage.py some_report.json ...

Prints, per report: lineage_of's time (min and median of repeats, wall and CPU), the lineage JSON
against the capture JSON, and per stage the share of lines that have a user line (for kernels also
the share of their statements: lines that define or use a CSE variable).
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))

from explorer.capturing.model import CaptureData
from explorer.lineage import build as lineage_build
from explorer.lineage import lineage_of
from explorer.serial import from_jsonable, to_jsonable


def coverage(data, lineages) -> dict[str, tuple[int, int]]:
    """stage -> (lines with a user line, lines); "kernels (statements)" counts only tmp lines."""
    out: dict[str, list[int]] = {}
    for comp, lin in zip(data.compilations, lineages):
        for t in lin.texts:
            per = t.sets_per_line()
            linked = [bool(lin.sets[i]) for i in per]
            row = out.setdefault(t.stage, [0, 0])
            row[0] += sum(linked)
            row[1] += len(linked)
            if t.stage == "kernels":
                lines = comp.kernels[t.part].source.splitlines()
                stmts = [ok for ok, line in zip(linked, lines) if "tmp" in line]
                row = out.setdefault("kernels (statements)", [0, 0])
                row[0] += sum(stmts)
                row[1] += len(stmts)
    return {k: (v[0], v[1]) for k, v in out.items()}


def main(paths: list[str]) -> None:
    if not paths:
        from big_report import DEFAULT, load

        load()
        paths = [DEFAULT]
    for path in paths:
        with open(path, encoding="utf-8") as fh:  # the capture only: a report of any explorer version
            data = from_jsonable(CaptureData, json.load(fh)["capture"])
        wall, cpu = [], []
        for _ in range(15):
            lineage_build._RECENT.clear()  # lineage_of keeps recent chains (a job's ranks): time the reading
            t0, c0 = time.perf_counter(), time.process_time()
            lineages = lineage_of(data)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        lines = sum(sum(t.runs[1::2]) for lin in lineages for t in lin.texts)
        nodes = sum(c.graph.num_nodes for c in data.compilations if c.graph)
        print(f"{path}: {len(data.compilations)} compilations, {nodes} Dynamo-graph nodes, "
              f"{len(data.kernels)} kernels, {lines} lines linked")
        print(f"  lineage_of: wall min {min(wall) * 1e3:.0f} ms, median {statistics.median(wall) * 1e3:.0f} ms; "
              f"CPU min {min(cpu) * 1e3:.0f} ms")
        lineage_json = json.dumps(to_jsonable(lineages), indent=1)
        capture_json = json.dumps(to_jsonable(data), indent=1)
        per_line = json.dumps([to_jsonable(link) for lin in lineages for link in lin.iter_links()], indent=1)
        print(f"  JSON (indent=1): lineage {len(lineage_json) / 1e3:.0f} KB beside a capture of "
              f"{len(capture_json) / 1e6:.2f} MB; one LineLink object per line would be {len(per_line) / 1e6:.1f} MB")
        for stage, (linked, total) in coverage(data, lineages).items():
            share = 100 * linked / max(total, 1)
            print(f"  {stage:24s} {linked:6d} / {total:6d} lines with a user line ({share:.0f} %)")


if __name__ == "__main__":
    main(sys.argv[1:])
