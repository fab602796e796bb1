"""The panes of fixed reports, before and after a change to how the view model builds them (issue 42).

Each report under ``tests/data/panes/`` (``NAME.report.json.gz``: a report's JSON, frozen, so no torch runs) has
its view model and payload saved beside it (``NAME.panes.json.gz``): every pane of every compilation (built all
at once, and built alone by ``ensure_panes``, which must agree), the header, the recompiles' diffs, the ranks'
blocks and the payload the page and the widget draw (less the report's own JSON, which the view model does not
make). A change to the view model that changes what a user sees shows here as a difference; a change meant to
change it saves the files again:

    CX_SAVE_PANES=1 python -m pytest -q tests/test_payload_panes.py

The reports: a program with graph breaks, recompiles and kernels whose chains name their records
(``report_v2``); a merged two-rank job (``merged_v3``); every part of real programs' use (``usage``: warm
caches, regions, a guard filter, a refused recompile, an exported program); a model of repeated layers, one odd
(``llama``: outlines, folded pictures, guard groups, launches); torch's traces opened (``trace_breaks``,
``trace_collectives``: the collective schedule).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from explorer.present import payload, viewmodel
from explorer.report import Report

HERE = Path(__file__).parent / "data" / "panes"
NAMES = ("report_v2", "merged_v3", "usage", "llama", "trace_breaks", "trace_collectives")
# A view reads a user line's text from its file when the report does not hold it (a guard's line). The reports were
# captured in checkouts and a venv of one machine: their files are moved to folders no machine has, so that every
# machine reads none of them and draws the same panes (in the order of the same names).
_MOVED = (("/work/main/.venv/", "/work/main/.venv-captured/"), ("/work/wt/", "/work/wt-captured/"))


def load(name: str) -> Report:
    text = gzip.decompress((HERE / f"{name}.report.json.gz").read_bytes()).decode("utf-8")
    for old, new in _MOVED:
        text = text.replace(old, new)
    return Report.from_json(text)


def views(report: Report) -> dict:
    """What the views are given for ``report``: the view model with every pane, and the payload."""
    model = viewmodel.build(report)
    alone = viewmodel.build(report, panes=False)
    for comp, view in zip(report.capture.compilations, alone["compilations"]):
        viewmodel.ensure_panes(view, comp, report)
    page, _ = payload.build(report, pictures="none", made_at=0.0)
    page.pop("report")  # the report's own JSON: not the view model's
    return {"model": model, "alone": [v["panes"] for v in alone["compilations"]], "payload": page}


def canonical(obj: object) -> object:
    """JSON's own form (tuples as lists), so a saved file and a fresh build compare as equal."""
    return json.loads(json.dumps(obj, sort_keys=True, default=str))


@pytest.mark.parametrize("name", NAMES)
def test_panes_are_as_saved(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # paths under the working directory read relative: here none is, wherever it runs
    got = canonical(views(load(name)))
    saved = HERE / f"{name}.panes.json.gz"
    if os.environ.get("CX_SAVE_PANES"):
        saved.write_bytes(gzip.compress(json.dumps(got, sort_keys=True, indent=0).encode("utf-8"), mtime=0))
    want = json.loads(gzip.decompress(saved.read_bytes()))
    # every pane built alone reads as it does built with the others
    # (the timing pane is the report's, not a stage's: ensure_panes does not build it)
    assert got["alone"] == [{k: p for k, p in v["panes"].items() if k != "timing"}
                            for v in got["model"]["compilations"]]
    for part in ("model", "payload"):
        for key in sorted(set(want[part]) | set(got[part])):
            assert got[part].get(key) == want[part].get(key), f"{name}: {part}.{key} differs from the saved"
