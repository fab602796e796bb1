"""The report's JSON Schema, derived from the dataclasses that make a report.

``explorer/report.schema.json`` ships with the package for other tools; it is
written by ``python -m explorer.schema`` and a test checks it equals what the
dataclasses say today, so it cannot drift from the code. Every key is
required (a stage that was not captured is ``null``, never absent), and no
object takes keys the schema does not name. What each object and key means is
its ``description``, from ``schema_docs`` (the docs' JSON reference is made
from them).
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from typing import Any, Union

from .capturing.compile_id import KEY_PATTERN, CompileKey
from .schema_docs import FIELDS, OBJECTS
from .serial import _hints, named_fields

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json")
_ROOT: dict[str, Any] = {}  # the root object's place in ``defs`` while the schema is made: refer to it as "#"
_PRIMITIVES = {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
               bool: {"type": "boolean"}}


def report_schema() -> dict[str, Any]:
    from .report import SCHEMA_VERSION, Report

    defs: dict[str, Any] = {Report.__name__: _ROOT}  # a report inside the report (a job's rank) is the root's
    root = _object(Report, defs)
    del defs[Report.__name__]
    root["properties"]["schema_version"] = {"const": SCHEMA_VERSION, **_described("Report", "schema_version")}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/compile-explorer/compile-explorer/report.schema.json",
            "title": "compile-explorer report", **root, "$defs": dict(sorted(defs.items()))}


def _object(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = _hints(cls)
    names = named_fields(cls) or [f.name for f in dataclasses.fields(cls) if f.compare]
    props = {name: {**_type(hints[name], defs), **_described(cls.__name__, name)} for name in names}
    for name in getattr(cls, "_json_derived", ()):
        props[name] = {**_type(typing.get_type_hints(getattr(cls, name).fget)["return"], defs),
                       **_described(cls.__name__, name)}
    doc = (cls.__doc__ or "").strip().splitlines()
    return {"type": "object", "description": OBJECTS.get(cls.__name__) or (doc[0] if doc else cls.__name__),
            "properties": props, "required": sorted(props), "additionalProperties": False}


def _described(cls: str, key: str) -> dict[str, str]:
    text = FIELDS.get(f"{cls}.{key}")
    return {"description": text} if text else {}


def _type(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin is Union or origin is getattr(types, "UnionType", Union):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        inner = _type(options[0], defs) if len(options) == 1 else {}
        return {"anyOf": [inner, {"type": "null"}]}
    if origin in (tuple, list):
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        return {"type": "array", "items": _type(args[0], defs) if args else {}}
    if origin is dict:
        args = typing.get_args(hint)
        return {"type": "object", "additionalProperties": _type(args[1], defs) if len(args) == 2 else {}}
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or named_fields(hint) is not None):
        if defs.get(hint.__name__) is _ROOT:
            return {"$ref": "#"}
        if hint.__name__ not in defs:
            defs[hint.__name__] = {}  # placeholder first: the classes nest
            defs[hint.__name__] = _object(hint, defs)
        return {"$ref": f"#/$defs/{hint.__name__}"}
    if hint is CompileKey:  # a compilation's key: only CompileId reads it back into its parts
        return {"type": "string", "pattern": KEY_PATTERN}
    if hint in _PRIMITIVES:
        if hint is float:
            return {"type": "number"}
        return dict(_PRIMITIVES[hint])
    return {}  # Any: numbers, strings, lists of them (compile metrics)


def schema_text() -> str:
    return json.dumps(report_schema(), indent=1, sort_keys=False) + "\n"


def write() -> str:
    with open(SCHEMA_PATH, "w", encoding="utf-8") as fh:
        fh.write(schema_text())
    return SCHEMA_PATH


if __name__ == "__main__":
    print(write())
