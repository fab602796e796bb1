"""The pipeline as a table of steps over a run context (``pipeline.STEPS``): the capture is complete before
anything reads it, no step rewrites what an earlier step read, and a failing step is a problem that leaves
the report's other parts standing. Runs on a recorded trace, without torch."""

import dataclasses

import pytest
from fixtures import tape

from explorer import pipeline
from explorer.capturing.assemble import assemble
from explorer.capturing.model import Finding
from explorer.options import Options
from explorer.report import Report


def _overlaps(a: str, b: str) -> bool:
    """``capture`` covers ``capture.compilations``; two fields of the capture are apart."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def test_no_step_rewrites_what_an_earlier_step_read():
    for i, step in enumerate(pipeline.STEPS):
        for earlier in pipeline.STEPS[:i]:
            clash = [(w, r) for w in step.written for r in earlier.reads if _overlaps(w, r)]
            assert not clash, f"{step.name!r} writes what {earlier.name!r} read: {clash}"


def test_the_capture_is_complete_before_anything_reads_it():
    first_reader = next(i for i, s in enumerate(pipeline.STEPS) if s.reads)
    completing = [i for i, s in enumerate(pipeline.STEPS) if s.written == (pipeline.CAPTURE,)]
    assert completing and max(completing) < first_reader
    parts = [s.part for s in pipeline.STEPS if s.part != pipeline.CAPTURE]
    assert len(parts) == len(set(parts)), parts  # every other part of the report is made by one step


def _capture():
    return assemble(tape.replay("recompile").raw, torch_version="t", device="cpu", python_version="3",
                    wall_time_s=0.0, notes=[], error=None)


class _BrokenPackage:
    def annotate(self, data):
        raise RuntimeError("no package here")


def test_a_failing_step_is_a_problem_and_the_rest_of_the_report_stands():
    data = _capture()
    report = Report(entry="call", options=Options(time=False))
    first = data.compilations[0].compile_id
    ctx = pipeline.RunContext(report.options, data, target=_BrokenPackage(),
                              findings=(Finding("in a pane", "graph_break", f"[{first}_1]"),
                                        Finding("in the header", None, "99/0")))
    pipeline.finish(report, ctx)
    assert [p.where for p in report.problems] == ["export package"]
    assert "no package here" in report.problems[0].message
    assert [c.compile_id for c in report.capture.compilations] == [c.compile_id for c in data.compilations]
    assert report.clinic.recompiles and report.lineage  # the analyses ran on the capture as it was
    assert [f.compile_id for f in report.findings] == [first, None]


def test_the_report_is_frozen_once_the_pipeline_has_run():
    """Every view and file reads the finished report: a field set afterwards would show in some and not others."""
    data = _capture()
    report = Report(entry="call", options=Options(time=False))
    assert pipeline.finish(report, pipeline.RunContext(report.options, data)) is report
    with pytest.raises(dataclasses.FrozenInstanceError, match=r"dataclasses\.replace"):
        report.timing = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.data = None  # the capture's old name
    changed = dataclasses.replace(report, findings=(Finding("added later"),))
    assert changed.capture is report.capture and report.findings == ()
    changed.problems = ()  # a copy is the caller's own
    empty = pipeline.finish(Report(), pipeline.RunContext(Options(), None))  # nothing captured: frozen all the same
    with pytest.raises(dataclasses.FrozenInstanceError):
        empty.capture = data

