"""The report JSON is public (README.md, "Report JSON"): this pins its keys.

Adding a key is fine but must be deliberate: update PINNED and the README together.
"""

import json
import os
import re

from explorer.capturing.model import from_json

TOP = {"schema_version", "torch_version", "device", "python_version", "compilations", "wall_time_s",
       "notes", "error", "events", "timing"}
COMPILATION = {"compile_id", "frame", "status", "original_bytecode", "rewritten_bytecode", "graph", "guards",
               "guard_tree", "recompile_reason", "graph_break", "restarts", "aot_joint", "aot_forward",
               "aot_backward", "aot_inference", "post_grad_graph", "post_grad_graph_backward", "ir_pre_fusion",
               "ir_post_fusion", "output_code", "kernels", "compile_time_s", "metrics", "failure", "missing",
               "events"}
NESTED = {
    "frame": {"name", "filename", "lineno"},
    "graph": {"code", "num_nodes", "nodes", "dot"},
    "guard": {"kind", "code", "subject", "source", "filename", "lineno", "function"},
    "graph_break": {"reason", "filename", "lineno", "source_line", "explanation", "hints", "gb_code", "doc_url",
                    "user_traceback", "detail"},
    "kernel": {"name", "language", "source", "graph_kind", "source_nodes", "aten_ops", "user_lines",
               "wrapper_lineno"},
    "bytecode": {"name", "filename", "firstlineno", "listing", "instructions", "source", "decompiled",
                 "decompile_error"},
}
README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def test_keys_are_pinned(breaks_report):
    doc = json.loads(breaks_report.to_json())
    assert set(doc) == TOP
    assert doc["schema_version"] == 1
    c = doc["compilations"][0]
    assert set(c) == COMPILATION
    assert set(c["frame"]) == NESTED["frame"]
    assert set(c["graph"]) == NESTED["graph"]
    assert set(c["guards"][0]) == NESTED["guard"]
    assert set(c["graph_break"]) == NESTED["graph_break"]
    assert set(c["kernels"][0]) == NESTED["kernel"]
    assert set(c["original_bytecode"]) == NESTED["bytecode"]


def test_missing_stages_are_null_with_a_reason(module_report):
    c = json.loads(module_report.to_json())["compilations"][0]
    assert c["aot_backward"] is None and c["missing"]["aot_backward"]
    assert c["graph_break"] is None and c["recompile_reason"] is None


def test_round_trip(breaks_report):
    assert from_json(breaks_report.to_json()) == breaks_report.data


def test_readme_documents_every_key():
    with open(README) as fh:
        text = fh.read()
    documented = set(re.findall(r"`([a-z_]+)`", text))
    missing = (TOP | COMPILATION | set().union(*NESTED.values())) - documented
    assert not missing, f"README.md's JSON section lacks {sorted(missing)}"
