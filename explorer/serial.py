"""Frozen dataclasses <-> JSON-ready values, driven by their type hints.

Every piece of a report (capture, clinic, timing) is a frozen dataclass of
strings and numbers, so one generic pair of functions writes and reads all of
them: ``to_jsonable`` turns tuples into lists and adds the read-only figures a
class names in ``_json_derived`` (for readers of the JSON); a ``NamedTuple``
(a small value kept as a tuple for speed, such as the chain's ``Origin``) is an
object of its fields, like a dataclass; ``from_jsonable``
rebuilds the exact objects from the field annotations and ignores those
derived keys, so ``from_jsonable(T, to_jsonable(x)) == x``.
Imports nothing of the explorer: every layer may use it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from functools import cache
from typing import Any, Union

_PLAIN = (str, int, float, bool, type(None))


def to_jsonable(obj: Any) -> Any:
    if isinstance(obj, _PLAIN):  # most values of a report: no dataclass machinery for them
        return obj
    names = _json_names(type(obj))
    if names is not None:
        return {name: to_jsonable(getattr(obj, name)) for name in names}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    return obj


@cache
def _json_names(cls: type) -> Any:
    """A dataclass's field names, then its ``_json_derived`` ones; a NamedTuple's fields; None for any other class.
    A field left out of the class's equality (``compare=False``: a report's ``result``, the value the explored call
    returned) is no part of what the object holds, and is not written."""
    if not dataclasses.is_dataclass(cls):
        return named_fields(cls)
    return (tuple(f.name for f in dataclasses.fields(cls) if f.compare)
            + tuple(getattr(cls, "_json_derived", ())))


def from_jsonable(hint: Any, value: Any) -> Any:
    """``value`` (parsed JSON) as an instance of ``hint`` (a class or a typing form)."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (Union, getattr(types, "UnionType", Union)):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return from_jsonable(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = typing.get_args(hint)
        item = args[0] if args else Any
        return tuple(from_jsonable(item, v) for v in value)
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return [from_jsonable(item, v) for v in value]
    if origin is dict:
        args = typing.get_args(hint)
        item = args[1] if len(args) == 2 else Any
        return {k: from_jsonable(item, v) for k, v in value.items()}
    if named_fields(hint) is not None:
        hints = _hints(hint)
        return hint(**{name: from_jsonable(hints[name], value[name]) for name in hint._fields if name in value})
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        kwargs = {f.name: from_jsonable(hints[f.name], value[f.name])
                  for f in dataclasses.fields(hint) if f.init and f.name in value}
        return hint(**kwargs)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def named_fields(cls: Any) -> Any:
    """A NamedTuple class's field names; None for anything else."""
    return cls._fields if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields") else None


@cache
def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, vars(module) if module else None)
