"""The report JSON is public: a JSON Schema ships with the package and every report must match it.

The schema is derived from the dataclasses (``python -m explorer.schema`` writes it);
changing a field means regenerating it, and a new field says what it means in the string right
under it (the docs' JSON reference is generated from those descriptions).
"""

import dataclasses
import json
import re
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Optional

import jsonschema
import pytest

from explorer.lineage import Origin
from explorer.report import SCHEMA_VERSION, Report
from explorer.schema import SCHEMA_PATH, key_docs, report_schema
from explorer.serial import named_fields

REPORTS = ["breaks_report", "module_report", "dynamic_report", "timed_report"]


def _schema():
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def test_the_shipped_schema_is_what_the_code_writes():
    assert _schema() == json.loads(json.dumps(report_schema())), \
        "explorer/report.schema.json is stale: run `python -m explorer.schema`"


@pytest.mark.parametrize("fixture", REPORTS)
def test_reports_validate_against_the_schema(fixture, request):
    doc = json.loads(request.getfixturevalue(fixture).to_json())
    assert doc["schema_version"] == SCHEMA_VERSION
    jsonschema.validate(doc, _schema())


def test_the_schema_catches_a_wrong_report(breaks_report):
    doc = json.loads(breaks_report.to_json())
    doc["capture"]["compilations"][0]["guards"][0]["kind"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, _schema())
    del doc["clinic"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, _schema())


@pytest.mark.parametrize("fixture", REPORTS)
def test_round_trip_gives_back_an_equal_report(fixture, request):
    report = request.getfixturevalue(fixture)
    again = Report.from_json(report.to_json())
    assert again == report
    assert again.to_json() == report.to_json()


def test_round_trip_keeps_timing_and_clinic(timed_report, breaks_report):
    assert timed_report.timing is not None and timed_report.timing.graphs
    assert Report.from_json(timed_report.to_json()).timing == timed_report.timing
    assert breaks_report.clinic.fix_list and breaks_report.clinic.recompiles
    assert Report.from_json(breaks_report.to_json()).clinic == breaks_report.clinic


def test_a_report_of_another_schema_version_is_refused(breaks_report):
    doc = json.loads(breaks_report.to_json())
    for version in (1, SCHEMA_VERSION + 1, "3"):
        doc["schema_version"] = version
        with pytest.raises(ValueError, match=f"schema_version {version!r}"):
            Report.from_json(json.dumps(doc))


# ---- a report of the previous version: tests/data/report_v2.json ----
# conftest's breaks_report program (print and a data-dependent branch, backward, then a recompile on a new size),
# captured and saved by the explorer of schema version 2 (torch 2.13 on a CPU), before ids were typed in the JSON

V2 = Path(__file__).parent / "data" / "report_v2.json"


def _v2_doc():
    return json.loads(V2.read_text(encoding="utf-8"))


def test_a_version_2_report_loads_as_this_version_and_round_trips():
    doc = _v2_doc()
    assert doc["schema_version"] == 2 and isinstance(doc["lineage"][0]["origins"][0], str)  # "FILE:LINE" then
    old = Report.from_dict(doc)
    assert old.schema_version == SCHEMA_VERSION
    text = old.to_json()
    jsonschema.validate(json.loads(text), _schema())  # what it holds now is this version's JSON
    again = Report.from_json(text)
    assert again == old and again.to_json() == text
    origins = [o for lin in old.lineage for o in lin.origins]
    assert origins and all(isinstance(o, Origin) and o.line > 0 and o.file.endswith(".py") for o in origins)
    assert {f"{o.file}:{o.line}" for o in origins} == {o for lin in doc["lineage"] for o in lin["origins"]}


def test_a_version_2_problem_gives_its_attempt_beside_the_compilations_key():
    """Version 2 wrote a restart's problem as torch prints the id (``0/1_2``): it loads as the key and the attempt."""
    doc = _v2_doc()
    doc["capture"]["problems"] = [{"where": "decoder", "message": "bad record", "event": "dynamo_output_graph",
                                   "compile_id": "0/1_2"}]
    doc["capture"]["graph_execution"] = ["0/0", "[0/1]"]
    doc["problems"] = [{"where": "timing", "message": "no time", "event": None, "compile_id": None}]
    old = Report.from_dict(doc)
    (p,) = old.capture.problems
    assert (p.compile_id, p.attempt) == ("0/1", 2) and "[0/1_2]" in p.one_line()
    assert old.capture.graph_execution == ("0/0", "0/1") and old.problems[0].compile_id is None
    jsonschema.validate(json.loads(old.to_json()), _schema())


def test_a_version_2_report_shows_its_stages_labels_and_fixes_in_the_three_views():
    """The page, the static copy and the text of an old report: every compilation with its present stages,
    its label and the fix list's rows, read from what the upgrade made."""
    from explorer.present.html import render_fragment
    from explorer.present.payload import build
    from explorer.present.viewmodel import build as view_model

    old = Report.load(V2)
    model = view_model(old)
    comps = old.capture.compilations
    assert [c["cid"] for c in model["compilations"]] == [c.compile_id for c in comps] == [
        "0/0", "0/1", "1/0", "1/1", "2/0", "2/1"]
    assert [c["label"][len(c["cid"]):] for c in model["compilations"]][:2] == [" breaks (basics.py:5)"] * 2
    page = old.to_html()
    assert 'id="cx-payload"' in page
    payload, _ = build(old, pictures="none")
    assert payload["lineage"]["origins"] and all(set(o) == {"file", "line"} for o in payload["lineage"]["origins"])
    assert [v["present"] for v in payload["views"]] == [c["present"] for c in model["compilations"]]
    frag = render_fragment(old, pictures=False)
    for c in model["compilations"]:
        part = frag[frag.index(f'data-compile-id="{c["cid"]}"'):]
        assert re.findall(r'<details class="cx-stage" data-stage="([a-z_]+)"', part)[:len(c["present"])] == \
            c["present"]
    text = old.summary()
    assert text.startswith("compile-explorer: 6 compilations, 6 graphs, 4 graph breaks, 3 recompiles, 10 kernels")
    for site in old.clinic.fix_list:
        assert site.reason in text and f"basics.py:{site.lineno}" in text
    assert len(old.clinic.fix_list) == 2 and old.clinic.recompiles


# stages whose records a capture keeps since the version 2 report was saved (the explorer of then dropped them)
NEWER = {"compile_time", "dynamic_shapes"}


def test_a_version_2_report_shows_what_the_same_programs_version_3_report_shows(breaks_report):
    """The same program captured now: the same compilations (by frame), stages, labels and fix rows."""
    from explorer.clinic.locate import basename
    from explorer.present.viewmodel import build

    old = Report.load(V2)
    if breaks_report.capture.torch_version.split("+")[0] != old.capture.torch_version.split("+")[0]:
        pytest.skip(f"the old report was captured with torch {old.capture.torch_version}")

    def shown(report):  # compile ids count on across a test session: compilations are compared in order
        model = build(report)
        return ([(c["frame"], c["label"][len(c["cid"]):], [s for s in c["present"] if s not in NEWER],
                  sorted(set(c["why"]) - NEWER), c["kernels"])
                 for c in model["compilations"]],
                [(basename(s.filename), s.lineno, s.reason, s.count) for s in report.clinic.fix_list],
                [e.primary.describe() if e.primary else e.reason_text for e in report.clinic.recompiles],
                model["stages"], model["labels"])

    assert shown(old) == shown(breaks_report)


# ---- a merged job of the previous version: tests/data/merged_v3.json ----
# tests/programs/distributed/diverge.py on two ranks (rank 1 alone breaks and recompiles), merged by the explorer of
# schema version 3 (torch 2.13 on a CPU), whose ranks held copies of some of their parts' fields

MERGED_V3 = Path(__file__).parent / "data" / "merged_v3.json"


def test_a_version_3_merged_job_loads_each_rank_as_a_whole_report_with_each_problem_once():
    from explorer.capturing.model import Problem
    from explorer.present.payload import build, job_origins, rank_payload

    doc = json.loads(MERGED_V3.read_text(encoding="utf-8"))
    rank1 = doc["distributed"]["ranks"][1]
    assert doc["schema_version"] == 3 and {"capture", "fix_list", "failure"} <= set(rank1)
    bad = {"where": "decoder", "message": "an op without a name", "event": "artifact", "compile_id": "0/0",
           "attempt": 0}
    rank1["capture"]["problems"] = [bad]
    rank1["problems"] = [bad]  # version 3 listed its capture's problems, then its own
    old = Report.from_dict(doc)
    text = old.to_json()
    jsonschema.validate(json.loads(text), _schema())
    assert Report.from_json(text) == old and Report.from_json(text).to_json() == text
    one = old.rank(1)
    assert one.all_problems == (Problem("decoder", "an op without a name", "artifact", "0/0"),)
    assert one.summary().count("an op without a name") == 1
    assert [c.compile_id for c in one.capture.compilations] == ["0/0", "0/1", "1/0", "1/1"]
    assert len(one.clinic.fix_list) == 1 and len(one.clinic.recompiles) == 2
    assert (one.distributed.rank, one.distributed.info.rank, one.distributed.merged) == (1, 1, False)
    zero = old.rank(0)  # the top level was rank 0's part: its module structure and cells are rank 0's
    assert zero.capture == old.capture and zero.structure == old.structure and zero.structure
    assert [r.status for r in old.distributed.ranks] == ["ok", "ok"]
    alone, _ = build(one, pictures="none", made_at=0.0, origins=job_origins(old))
    assert rank_payload(old, 1, pictures="none", made_at=0.0)[0] == alone


def test_a_compile_id_is_one_key_the_schema_names(breaks_report):
    """Every compile id in the JSON is a compilation's key (no attempt, no brackets): the schema's pattern."""
    doc = json.loads(breaks_report.to_json())
    jsonschema.validate(doc, _schema())
    for bad in ("0/1_2", "[0/1]", "0/1|graph"):
        doc["capture"]["compilations"][0]["compile_id"] = bad
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, _schema())
    doc["capture"]["compilations"][0]["compile_id"] = "g1 0/0"
    jsonschema.validate(doc, _schema())


def test_missing_stages_are_null_with_a_reason(module_report):
    c = json.loads(module_report.to_json())["capture"]["compilations"][0]
    assert c["aot_backward"] is None and c["missing"]["aot_backward"]
    assert c["graph_break"] is None and c["recompile_reason"] is None


def _objects():
    schema = _schema()
    return {"Report": schema, **schema["$defs"]}


def test_every_key_of_the_report_says_what_it_means():
    """The reference is generated from the schema: a key without a description would be a bare name there."""
    undescribed = [f"{name}.{key}" for name, obj in _objects().items()
                   for key, prop in obj["properties"].items() if not prop.get("description")]
    assert not undescribed, f"write what each means in a string under its field: {undescribed}"
    bare = [name for name, obj in _objects().items() if obj["description"].startswith(f"{name}(")]
    assert not bare, f"these objects' description is the dataclass's signature (give them a docstring): {bare}"


def _report_classes():
    """Every dataclass and NamedTuple a report holds, found from ``Report``'s type hints."""
    found, todo = {}, [Report]
    while todo:
        cls = todo.pop()
        if cls.__name__ in found:
            continue
        found[cls.__name__] = cls
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        todo += [t for hint in hints.values() for t in _classes_in(hint)]
    return found


def _classes_in(hint):
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or named_fields(hint) is not None):
        return [hint]
    return [t for arg in typing.get_args(hint) for t in _classes_in(arg)]


def test_every_field_of_every_report_class_is_described_under_it():
    """Each field the JSON holds has its description in the string under it (a derived key, on its property), and
    each class a docstring: read from the classes, not from the schema file."""
    classes = _report_classes()
    assert set(classes) == set(_objects()), "the schema's objects are the report's classes"
    undescribed = []
    for name, cls in classes.items():
        keys = named_fields(cls) or [f.name for f in dataclasses.fields(cls) if f.compare]
        docs = key_docs(cls)
        for key in [*keys, *getattr(cls, "_json_derived", ())]:
            if not docs.get(key):
                undescribed.append(f"{name}.{key}")
        if not cls.__doc__ or cls.__doc__.startswith(f"{name}("):
            undescribed.append(name)
    assert not undescribed, f"write what each means in a string right under its field: {undescribed}"


# classes shaped like the report's, to show where a description is read from
@dataclass(frozen=True)
class _Base:
    """A base.

    Its second paragraph is for readers of the code."""

    kept: int
    """Inherited, and described where it is declared."""
    renamed: str = ""
    """The base's words, which a subclass may replace."""


@dataclass(frozen=True)
class _Child(_Base):
    """A child."""

    note: Optional[str] = None  # a comment is no description
    """An optional field with a default,
    over two lines."""
    spread: tuple[int, ...] = field(
        default=(), compare=True)
    """A field(...) over two lines.

    A second paragraph the schema leaves out."""
    renamed: str = "x"
    """The child's words."""
    bare: int = 0
    not_a_field = 1
    """A class attribute: no key of the JSON."""

    @property
    def total(self) -> int:
        """A derived key: its property's docstring."""
        return self.kept + sum(self.spread)

    _json_derived = ("total",)


class _Pair(NamedTuple):
    left: int
    """A NamedTuple's field."""
    right: int = 0


def test_a_description_is_the_string_under_its_field_wherever_the_field_is_declared():
    assert key_docs(_Child) == {  # not "bare" (no string under it), nor "not_a_field" (no field)
        "kept": "Inherited, and described where it is declared.",
        "note": "An optional field with a default, over two lines.",
        "spread": "A field(...) over two lines.",
        "renamed": "The child's words.",
        "total": "A derived key: its property's docstring.",
    }
    assert key_docs(_Pair) == {"left": "A NamedTuple's field."}
    from explorer.schema import _object

    shape = _object(_Child, {})
    assert shape["description"] == "A child."
    assert set(shape["properties"]) == {"kept", "note", "spread", "renamed", "bare", "total"}
    assert "description" not in shape["properties"]["bare"]  # which the test above reports, for a report class
    assert _object(_Base, {})["description"] == "A base."


def test_one_stage_shows_its_explanation_and_content(breaks_report):
    first = breaks_report.capture.compilations[0].compile_id  # ids count on across the test session
    view = breaks_report.stage("graph", f"[{first}]")
    assert view.content is breaks_report.capture.compilations[0].graph
    assert view.explanation in repr(view) and "def forward" in repr(view)
    assert "cx-explain" in view._repr_html_()
    assert "not captured" in repr(breaks_report.stage("aot_inference"))
    with pytest.raises(KeyError):
        breaks_report.stage("no_such_stage")
    with pytest.raises(LookupError):
        breaks_report.compilation("9/9")


# ---- a report of the previous version: tests/data/report_v4.json.gz ----
# tests/programs/llama_blocks.py at four layers, the third with GELU (a training step), captured with
# `python -m explorer run --fresh --json` by the explorer of schema version 4 (torch 2.13 on a CPU): its graphs
# held their pictures as Graphviz text (`dot`) and its repeated members' diffs were unified-diff text

V4 = Path(__file__).parent / "data" / "report_v4.json.gz"


def test_a_version_4_report_loads_without_its_pictures_and_with_its_diffs_as_data():
    import gzip

    from explorer.structure import compilation_structure

    doc = json.loads(gzip.decompress(V4.read_bytes()))
    comp = doc["capture"]["compilations"][0]
    assert doc["schema_version"] == 4 and comp["graph"]["dot"].startswith("digraph")
    diffs = [g["diff"] for s in doc["structure"] for r in s["repeats"] for g in r["groups"] if g["diff"]]
    assert diffs and all(d[0].startswith("@@ -") for d in diffs) and any(d[-1].endswith(" more diff lines")
                                                                         for d in diffs)
    old = Report.from_dict(doc)
    text = old.to_json()
    jsonschema.validate(json.loads(text), _schema())
    assert '"dot"' not in text and "@@ -" not in text
    again = Report.from_json(text)
    assert again == old and again.to_json() == text
    # the diffs read from version 4's text are those this explorer finds in the same capture
    (s,) = [s for s in old.structure if s.compile_id == old.capture.compilations[0].compile_id]
    assert s.repeats and compilation_structure(old.capture.compilations[0]) == s
    assert any(g.diff_cut for r in s.repeats for g in r.groups)
