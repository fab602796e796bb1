"""MkDocs hook: the JSON reference page, generated from the shipped schema each time the docs are built.

``docs/reference/json.md`` holds the page's prose and a marker; this hook puts in its place one section per object
of ``explorer/report.schema.json`` (the report first, then each object in the order a reader meets it), with a
table of its keys: name, type (linked to the object it holds) and the schema's description. The schema is written
from the dataclasses and its descriptions from the strings under their fields, so the page cannot drift from the code.
It reads the JSON file only: building the docs needs no torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MARKER = "<!-- json-reference: generated from explorer/report.schema.json -->"
SCHEMA = Path(__file__).resolve().parents[2] / "explorer" / "report.schema.json"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    with open(SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    return markdown.replace(MARKER, reference(schema))


def reference(schema: dict[str, Any]) -> str:
    defs = schema["$defs"]
    sections = [_section("Report", schema, defs)]
    sections += [_section(name, defs[name], defs) for name in _reading_order(schema, defs)]
    return "\n".join(sections)


def _reading_order(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """Every object once, breadth first from the report: the top level's parts before what they hold."""
    seen: list[str] = []
    queue = [schema]
    while queue:
        for prop in queue.pop(0)["properties"].values():
            for name in _refs(prop):
                if name not in seen and name in defs:
                    seen.append(name)
                    queue.append(defs[name])
    return seen + sorted(set(defs) - set(seen))


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [_ref_name(node["$ref"])] if "$ref" in node else []
        return found + [r for key, value in node.items() if key != "$ref" for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _ref_name(ref: str) -> str:
    """``#/$defs/Frame`` -> ``Frame``; ``#`` (the root: a merged job's rank holds a whole report) -> ``Report``."""
    return "Report" if ref == "#" else ref.rsplit("/", 1)[1]


def _section(name: str, obj: dict[str, Any], defs: dict[str, Any]) -> str:
    rows = [f"| `{key}` | {_type(prop)} | {prop.get('description', '')} |" for key, prop in obj["properties"].items()]
    return "\n".join([f"## {name}", "", obj.get("description", ""), "", "| key | type | what it holds |",
                      "|---|---|---|", *rows, ""])


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = _ref_name(prop["$ref"])
        return f"[{name}](#{name.lower()})"
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "anyOf" in prop:
        return " or ".join(_type(option) for option in prop["anyOf"])
    kind = prop.get("type")
    if kind == "string" and "pattern" in prop:  # the one patterned string: a compilation's key
        return "[compile key](#compile-keys)"
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if kind == "object":
        return f"map of string to {_type(prop['additionalProperties'])}" if prop.get("additionalProperties") \
            else "object"
    return kind or "any"
