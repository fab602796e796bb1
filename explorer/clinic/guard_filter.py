"""What a ``guard_filter_fn`` dropped, and what can go wrong when a dropped guard's value changes.

A guard is Dynamo's check that a compiled graph still fits the call. Dropping
one makes every call cheaper to check, but a change it would have caught no
longer recompiles: the compiled code keeps running what it traced for the old
value. These are the usual consequences per kind of guard (torch's guard
types), worded for the value the guard was on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..capturing.model import Compilation, FilteredGuard

_RISKS = {
    "TENSOR_MATCH": "if {s} is replaced by a tensor of another shape, stride, dtype, device or requires_grad, the "
                    "compiled code still assumes the old one's: wrong results or a crash instead of a recompile "
                    "(updating its values in place stays safe)",
    "TYPE_MATCH": "if {s} is replaced by an object of another type, the compiled code keeps running what it traced "
                  "for the old type",
    "ID_MATCH": "if {s} is replaced by another object, the compiled code keeps using what it read from the old one",
    "CONSTANT_MATCH": "if {s} changes (it was {v}), the compiled code keeps the traced value: silently wrong results",
    "EQUALS_MATCH": "if {s} changes (it was {v}), the compiled code keeps the traced value: silently wrong results",
    "BOOL_MATCH": "if {s} flips (it was {v}), the compiled code keeps the traced branch",
    "NOT_PRESENT_IN_GENERIC_DICT": "assigning an instance attribute on {s} (for example a patched forward) is "
                                   "not noticed: the compiled code runs the method it traced",
    "EMPTY_NN_MODULE_HOOKS_DICT": "hooks added later to {s} (register_forward_hook and the like) do not run in "
                                  "the compiled code",
    "DICT_KEYS_MATCH": "adding or removing entries of {s} (submodules, parameters) is not noticed",
    "DICT_VERSION": "changes to the dict {s} are not noticed",
    "SEQUENCE_LENGTH": "a different length of {s} is not noticed: the compiled code iterates the traced length",
    "CLOSURE_MATCH": "if {s} is replaced by another function, the compiled code keeps calling the traced one",
    "FUNCTION_MATCH": "if {s} is replaced by another function, the compiled code keeps calling the traced one",
}
_DEFAULT = "a change to {s} no longer triggers a recompile: the compiled code keeps what it traced"
_SCOPE_RE = re.compile(r"\b[LG]\[\s*['\"](?P<name>[^'\"]+)['\"]\s*\]")
_CONTAINER_RE = re.compile(r"\._(?:modules|parameters|buffers)\[['\"](?P<name>[^'\"]+)['\"]\]")


def user_name(subject: str) -> str:
    """``G['m']._modules['0']._parameters['weight']`` -> ``m[0].weight``: the names the user writes."""
    def container(m: re.Match) -> str:
        name = m["name"]
        return f".{name}" if name.isidentifier() else f"[{name}]"

    return _CONTAINER_RE.sub(container, _SCOPE_RE.sub(lambda m: m["name"], subject or ""))


@dataclass(frozen=True)
class DroppedGuard:
    guard: FilteredGuard
    risk: str

    def one_line(self) -> str:
        where = f" (from {self.guard.filename.rsplit('/', 1)[-1]}:{self.guard.lineno})" \
            if self.guard.filename and self.guard.lineno else ""
        return f"dropped {self.guard.kind} on {user_name(self.guard.subject)}{where}: {self.risk}"


def risk_of(g: FilteredGuard) -> str:
    kinds = (g.kind, *g.derived)
    text = next((_RISKS[k] for k in kinds if k in _RISKS), _DEFAULT)
    return text.format(s=user_name(g.subject) or "the value", v=g.value if g.value is not None else "?")


# the dropped guards most likely to cost correctness come first: tensors and values, then objects, then the rest
_ORDER = ("TENSOR_MATCH", "CONSTANT_MATCH", "EQUALS_MATCH", "BOOL_MATCH", "ID_MATCH", "TYPE_MATCH",
          "CLOSURE_MATCH", "FUNCTION_MATCH", "DICT_KEYS_MATCH", "SEQUENCE_LENGTH", "NOT_PRESENT_IN_GENERIC_DICT")


def dropped_guards(comp: Compilation) -> list[DroppedGuard]:
    """The guards the filter dropped, each with what can go wrong, the riskiest kinds first; a guard
    repeated (same kind and subject) once."""
    seen: set[tuple[str, str]] = set()
    out = []
    for g in comp.filtered_guards:
        if g.kept or (g.kind, g.subject) in seen:
            continue
        seen.add((g.kind, g.subject))
        out.append(DroppedGuard(g, risk_of(g)))
    rank = {kind: i for i, kind in enumerate(_ORDER)}
    return sorted(out, key=lambda d: rank.get(d.guard.kind, len(_ORDER)))
