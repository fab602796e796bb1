"""The objects a compiled call mutates: which ones existed before the call, and whether a re-call changes them.

Dynamo writes back, after the graph, every Python object the traced call mutated, and its
``dynamo_side_effects`` record (``Compilation.side_effects``) says for each whether it was created during
the call (a Hugging Face model's ``DynamicCache``, its layers, the output object) or reached from before it
(a global, an argument, an attribute of one). Objects the call creates do not exist before it: re-calling
makes new ones and changes nothing the user holds. So does a dict or tuple the call itself makes for its
``**kwargs`` / ``*args``. An object that existed before is looked up from Dynamo's name for it
(``G['mod']._active_collector``) and its state copied; a re-call that leaves it as the user's call left it
(transformers' output collector sets a flag and resets it) is harmless; one that changes it (a counter)
is restored to the copy and the call is not re-timed. What cannot be looked up or copied is not re-called.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional

_BASE = re.compile(r"^(?P<scope>[GL])\[(?P<q>['\"])(?P<name>.+?)(?P=q)\]")
_STEP = re.compile(r"\.(?P<attr>[A-Za-z_]\w*)|\[(?P<q>['\"])(?P<key>.*?)(?P=q)\]|\[(?P<index>-?\d+)\]")


@dataclass
class Watched:
    """An object that existed before the call and that the call mutates, with a copy of its state."""

    source: str  # Dynamo's name for it
    type_name: str
    where: str  # the user line that mutates it, file:line
    obj: Any
    saved: tuple[str, Any]

    @property
    def label(self) -> str:
        return f"{self.source} ({self.type_name}, mutated at {self.where})"

    def unchanged(self) -> bool:
        now = snapshot(self.obj)
        return now is not None and _same(self.saved, now)

    def restore(self) -> None:
        kind, value = self.saved
        if kind == "dict":
            self.obj.clear()
            self.obj.update(value)
        elif kind == "list":
            self.obj[:] = value
        elif kind == "set":
            self.obj.clear()
            self.obj.update(value)
        elif kind == "attrs":
            state = vars(self.obj)
            for k in [k for k in state if k not in value]:
                del state[k]
            state.update(value)


@dataclass
class Judged:
    """What the side effects of one compilation mean for a re-call."""

    created: list[str]  # objects the call makes (type names, or Dynamo names of *args/**kwargs)
    watched: list[Watched]  # existing objects, copied: a re-call must leave them as they are
    risks: list[str]  # existing objects that cannot be checked: no re-call


def judge_mutations(comp: Any, call: Any) -> Judged:
    """Sorts ``comp.side_effects`` into objects the call creates, existing ones it can check, and the rest."""
    out = Judged([], [], [])
    fresh = call_made_locals(comp, getattr(call, "code", None))
    scope_g = frame_globals(comp, getattr(call, "eager", None))
    scope_l = _frame_locals(comp, call)
    for m in comp.side_effects:
        where = _where(m)
        if m.origin == "created":
            out.created.append(m.type_name)
            continue
        if m.origin == "other" and m.type_name.startswith("<"):
            continue  # a global variable's store: the rewritten bytecode's STORE_GLOBAL says it
        base = _BASE.match(m.source or "")
        if m.origin == "existing" and base and base["scope"] == "L" and base["name"] in fresh \
                and base.end() == len(m.source):
            out.created.append(f"{m.source} (the {m.type_name} the call makes for its {fresh[base['name']]})")
            continue
        what = f"{m.source or m.type_name} ({m.type_name}, mutated at {where})"
        if m.origin != "existing" or not m.source:
            out.risks.append(f"{what}: an object that existed before the call, which the explorer cannot look up")
            continue
        found, obj = resolve(m.source, scope_g, scope_l)
        if not found:
            out.risks.append(f"{what}: an object that existed before the call, not found from the explored call")
            continue
        saved = snapshot(obj)
        if saved is None:
            out.risks.append(f"{what}: an object that existed before the call, whose state cannot be copied")
            continue
        out.watched.append(Watched(m.source, m.type_name, where, obj, saved))
    return out


def created_summary(names: list[str]) -> str:
    counts = Counter(names)
    return ", ".join(f"{n} x{c}" if c > 1 else n for n, c in counts.items())


# ---- looking objects up ----

def resolve(source: str, scope_g: Optional[dict], scope_l: Optional[dict]) -> tuple[bool, Any]:
    """The live object Dynamo names ``G['x'].a['k'][0]`` (frame globals) or ``L['x']...`` (frame locals)."""
    m = _BASE.match(source)
    if m is None:
        return False, None
    name = m["name"]
    if m["scope"] == "G":
        if scope_g is not None and name in scope_g:
            obj = scope_g[name]
        elif name.startswith("__import_"):  # a module Dynamo installed as a global: __import_a_dot_b
            obj = sys.modules.get(name[len("__import_"):].replace("_dot_", "."))
            if obj is None:
                return False, None
        else:
            return False, None
    else:
        if scope_l is None or name not in scope_l:
            return False, None
        obj = scope_l[name]
    pos = m.end()
    while pos < len(source):
        step = _STEP.match(source, pos)
        if step is None:
            return False, None
        try:
            if step["attr"] is not None:
                obj = getattr(obj, step["attr"])
            elif step["index"] is not None:
                obj = obj[int(step["index"])]
            else:
                obj = obj[step["key"]]
        except Exception:  # noqa: BLE001 - not there any more: not found
            return False, None
        pos = step.end()
    return True, obj


def frame_globals(comp: Any, fn: Any) -> Optional[dict]:
    """The globals of the frame Dynamo compiled: the explored function's (or module's ``forward``), else the
    module whose file the frame is in."""
    filename = getattr(getattr(comp, "frame", None), "filename", None)
    for cand in (fn, getattr(fn, "forward", None)):
        func = getattr(cand, "__func__", cand)
        code = getattr(func, "__code__", None)
        if code is not None and code.co_filename == filename and isinstance(getattr(func, "__globals__", None), dict):
            return func.__globals__
    if filename:
        real = os.path.realpath(filename)
        for mod in list(sys.modules.values()):
            f = getattr(mod, "__file__", None)
            if f and os.path.realpath(f) == real:
                return vars(mod)
    return None


def _frame_locals(comp: Any, call: Any) -> Optional[dict]:
    code = getattr(call, "code", None)
    frame = getattr(comp, "frame", None)
    if code is None or frame is None or call.frame_locals is None:
        return None
    if code.co_name != frame.name or code.co_firstlineno != frame.lineno:
        return None
    try:
        out = dict(call.frame_locals(call.args, call.kwargs))
    except Exception:  # noqa: BLE001 - the arguments do not bind: nothing found through them
        return None
    fn = getattr(call.eager, "__func__", call.eager)  # a closure's free variables are the frame's locals too
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            out.setdefault(name, cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return out


def call_made_locals(comp: Any, code: Any = None) -> dict[str, str]:
    """{name: "*args" or "**kwargs"}: the frame's parameters the call itself makes (a fresh tuple or dict)."""
    out: dict[str, str] = {}
    frame = getattr(comp, "frame", None)
    source = getattr(getattr(comp, "original_bytecode", None), "source", None)
    if source:
        try:
            tree = ast.parse(textwrap.dedent(source))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (frame is None or node.name == frame.name):
                    if node.args.vararg is not None:
                        out[node.args.vararg.arg] = "*args"
                    if node.args.kwarg is not None:
                        out[node.args.kwarg.arg] = "**kwargs"
                    return out
        except SyntaxError:
            pass
    if code is not None and frame is not None and code.co_name == frame.name:
        n = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & inspect.CO_VARARGS:
            out[code.co_varnames[n]] = "*args"
            n += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            out[code.co_varnames[n]] = "**kwargs"
    return out


def _where(m: Any) -> str:
    if not m.locations:
        return "?"
    loc = m.locations[-1]
    return f"{os.path.basename(loc.filename)}:{loc.lineno}"


# ---- state copies ----

def snapshot(obj: Any) -> Optional[tuple[str, Any]]:
    """A shallow copy of what a mutation can change: a dict's items, a list's, a set's, an object's ``__dict__``."""
    if isinstance(obj, dict):
        return "dict", dict(obj)
    if isinstance(obj, list):
        return "list", list(obj)
    if isinstance(obj, set):
        return "set", set(obj)
    state = getattr(obj, "__dict__", None)
    if isinstance(state, dict) and not getattr(type(obj), "__slots__", None):
        return "attrs", dict(state)
    return None


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    x, y = a[1], b[1]
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_equal(x[k], y[k]) for k in x)
    if isinstance(x, set):
        return x == y
    return len(x) == len(y) and all(_equal(p, q) for p, q in zip(x, y))


def _equal(x: Any, y: Any) -> bool:
    """The same object, or an equal plain value (a tensor counts only as itself)."""
    if x is y:
        return True
    if type(x) is not type(y) or type(x).__module__.startswith("torch"):
        return False
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 - no plain equality: not the same
        return False
