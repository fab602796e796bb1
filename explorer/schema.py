"""The report's JSON Schema, derived from the dataclasses that make a report.

``explorer/report.schema.json`` ships with the package for other tools; it is
written by ``python -m explorer.schema`` and a test checks it equals what the
dataclasses say today, so it cannot drift from the code. Every key is
required (a stage that was not captured is ``null``, never absent), and no
object takes keys the schema does not name. What each object and key means is
its ``description``, written beside the code it describes (the docs' JSON
reference is made from them): an object's is its class docstring's first
paragraph; a key's is the string statement right under its field (an attribute
docstring, as Sphinx reads it), or its property's docstring for a key the class
derives (``_json_derived``). Python keeps no trace of the strings under fields,
so they are read from the source with ``ast``: a field written ``x: int``,
``x: Optional[str] = None`` or ``x: T = field(...)`` over several lines, and a
field a class inherits from a base, are described alike.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import os
import types
import typing
from functools import cache
from typing import Any, Union

from .capturing.compile_id import KEY_PATTERN, CompileKey
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
    root["properties"]["schema_version"] = {"const": SCHEMA_VERSION, **_described(Report, "schema_version")}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/compile-explorer/compile-explorer/report.schema.json",
            "title": "compile-explorer report", **root, "$defs": dict(sorted(defs.items()))}


def _object(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = _hints(cls)
    names = named_fields(cls) or [f.name for f in dataclasses.fields(cls) if f.compare]
    props = {name: {**_type(hints[name], defs), **_described(cls, name)} for name in names}
    for name in getattr(cls, "_json_derived", ()):
        props[name] = {**_type(typing.get_type_hints(getattr(cls, name).fget)["return"], defs),
                       **_described(cls, name)}
    return {"type": "object", "description": _paragraph(cls.__doc__) or cls.__name__,
            "properties": props, "required": sorted(props), "additionalProperties": False}


def _described(cls: type, key: str) -> dict[str, str]:
    text = key_docs(cls).get(key)
    return {"description": text} if text else {}


def key_docs(cls: type) -> dict[str, str]:
    """Each key of ``cls`` that says what it means: a field with a string right under it (its own or a base's), a
    derived key (``_json_derived``) with a docstring on its property; the string's first paragraph, on one line."""
    docs = dict(_attribute_docs(cls))
    for name in getattr(cls, "_json_derived", ()):
        text = _paragraph(getattr(cls, name).fget.__doc__)
        if text:
            docs[name] = text
    return docs


@cache
def _attribute_docs(cls: type) -> dict[str, str]:
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):  # a base's first: a subclass's string for the same field wins
        if dataclasses.is_dataclass(klass) or named_fields(klass) is not None:
            docs.update(_strings_under_fields(klass))
    return docs


def _strings_under_fields(cls: type) -> dict[str, str]:
    body = _class_node(cls).body
    return {stmt.target.id: _paragraph(after.value.value)
            for stmt, after in zip(body, body[1:])
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)}


def _class_node(cls: type) -> ast.ClassDef:
    """The class statement of ``cls`` in its module's source, found by its qualified name."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        path = None
    if not path or not os.path.exists(path):
        raise LookupError(f"the source of {cls.__module__}.{cls.__qualname__} is not on disk: the schema's "
                          f"descriptions are read from the strings under the fields")
    nodes: list[ast.stmt] = _module_body(path)
    for part in cls.__qualname__.split("."):
        found = [n for n in nodes if isinstance(n, ast.ClassDef) and n.name == part]
        if not found:
            raise LookupError(f"no class statement for {cls.__qualname__} in {path}")
        nodes = found[-1].body  # the last statement of that name is the one the module keeps
    return found[-1]


@cache
def _module_body(path: str) -> list[ast.stmt]:
    with open(path, encoding="utf-8") as fh:
        return ast.parse(fh.read(), filename=path).body


def _paragraph(doc: str | None) -> str:
    """A docstring's first paragraph, its lines joined with single spaces (the rest is for readers of the code)."""
    return " ".join(inspect.cleandoc(doc or "").split("\n\n")[0].split())


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
