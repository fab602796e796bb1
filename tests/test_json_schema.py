"""The report JSON is public: a JSON Schema ships with the package and every report must match it.

The schema is derived from the dataclasses (``python -m explorer.schema`` writes it);
changing a field means regenerating it and describing the field in ``explorer/schema_docs.py``
(the docs' JSON reference is generated from those descriptions).
"""

import json

import jsonschema
import pytest

from explorer.report import SCHEMA_VERSION, Report
from explorer.schema import SCHEMA_PATH, report_schema
from explorer.schema_docs import FIELDS, OBJECTS

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
    doc["schema_version"] = 1
    with pytest.raises(ValueError, match="schema_version 1"):
        Report.from_json(json.dumps(doc))


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
    assert not undescribed, f"describe them in explorer/schema_docs.py: {undescribed}"
    bare = [name for name, obj in _objects().items() if obj["description"].startswith(f"{name}(")]
    assert not bare, f"these objects' description is the dataclass's signature: {bare}"


def test_every_description_names_a_key_the_report_has():
    objects = _objects()
    stale = [key for key in FIELDS if key.split(".")[0] not in objects
             or key.split(".", 1)[1] not in objects[key.split(".")[0]]["properties"]]
    assert not stale and set(OBJECTS) <= set(objects), (stale, set(OBJECTS) - set(objects))


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
