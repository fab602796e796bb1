"""The walk of ``payload.build``: how often building one report's payload moves between the modules of
``explorer/present`` (issue 42). A pane composed once stays in its builder; a pane built in passes that splice into
each other's output keeps going back.

Definitions. Run ``payload.build`` on one fixed report (``tests/data/panes/NAME.report.json.gz``; default
``report_v2``: graph breaks, recompiles, kernels with chains) under ``sys.setprofile``. At every Python call and
return, take the innermost frame whose module is ``explorer.*``; when that module is in ``explorer.present``,
append it to the walk (a frame outside ``explorer.present``, in the analyses below it, adds nothing). Collapse
consecutive repeats. Then:

* stays: the number of segments of the walk (each a run of events in one module);
* returns: the segments that enter a module the walk already visited earlier.

    python tests/benchmarks/bench_walk.py [NAME] [--path]   # --path prints the walk's segments too
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from explorer.present import payload  # noqa: E402
from explorer.report import Report  # noqa: E402


def load(name: str) -> Report:
    path = ROOT / "tests" / "data" / "panes" / f"{name}.report.json.gz"
    return Report.from_json(gzip.decompress(path.read_bytes()).decode("utf-8"))


def walk(report: Report) -> list[str]:
    """The explorer.present modules payload.build sits in, consecutive repeats collapsed."""
    path: list[str] = []

    def profile(frame, event, arg):  # sys.setprofile's signature
        if event not in ("call", "return"):
            return
        f = frame
        while f is not None and not f.f_globals.get("__name__", "").startswith("explorer."):
            f = f.f_back
        if f is None:
            return
        module = f.f_globals["__name__"]
        if module.startswith("explorer.present.") and (not path or path[-1] != module):
            path.append(module)

    sys.setprofile(profile)
    try:
        payload.build(report, pictures="lazy", made_at=0.0)
    finally:
        sys.setprofile(None)
    return path


def figures(path: list[str]) -> tuple[int, int]:
    """(stays, returns) of a walk."""
    seen: set[str] = set()
    returns = 0
    for module in path:
        returns += module in seen
        seen.add(module)
    return len(path), returns


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    name = args[0] if args else "report_v2"
    os.chdir(ROOT)
    path = walk(load(name))
    stays, returns = figures(path)
    print(f"payload.build of {name}: {stays} stays, {returns} returns")
    if "--path" in sys.argv:
        print("\n".join(m.removeprefix("explorer.present.") for m in path))


if __name__ == "__main__":
    main()
