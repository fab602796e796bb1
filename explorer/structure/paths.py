"""Module paths from the names Dynamo writes: guard sources, graph inputs, type checks.

Dynamo names every value it reads by the source it read it from:
``L['model']._modules['layers']._modules['0']._modules['attn']._parameters['weight']`` in a guard, and the
same source flattened into a graph input's name (``L_model_modules_layers_modules_0_modules_attn_parameters_weight_``).
Both spell the module path (``model.layers.0.attn``) and survive in torch's own printed records, in process and
in a TORCH_TRACE alike. A type check (``___check_type_id(L['model']._modules['layers']._modules['0'], ...),
type=<class 'model.Block'>``) names the module's class.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from ..capturing.model import Guard

# a frame's local or global, with the items taken of it (``L['args'][0]``: a decorator's wrapper's argument)
_ROOT = re.compile(r"""(?P<scope>\b[LG])\[['"](?P<name>[^'"]+)['"]\](?P<items>(?:\[\d+\])*)""")
_ITEM = re.compile(r"\d+")
SELF = "self"  # the compiled function's module, as a method's frame names it
_MODULE_STEP = re.compile(r"""\._modules\[['"](?P<name>[^'"]+)['"]\]""")
_TENSOR_STEP = re.compile(r"""\._(?:parameters|buffers)\[['"](?P<name>[^'"]+)['"]\]""")
_TYPE = re.compile(r"type=<class '(?P<cls>[^']+)'>")
_FLAT_SPLIT = re.compile(r"_(?:parameters|buffers)_")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def join(*parts: str, root: str = SELF) -> str:
    """A module path of parts; the compiled function's module (``root``: ``self``, or ``args_0`` in a decorator's
    wrapper around its forward, ``root_of``) is left out (``self.layers.0`` is ``layers.0``)."""
    parts = tuple(p for p in parts if p)
    if parts and parts[0] == root:
        parts = parts[1:]
    return ".".join(parts)


def _root_name(m: re.Match) -> str:
    """``L['args'][0]`` -> ``args_0``, as Dynamo flattens the source into a graph input's name."""
    return "_".join([m["name"], *_ITEM.findall(m["items"])])


def root_of(module_source: Optional[str]) -> str:
    """The first part of module paths that is the compiled function's module: ``self``, or the root a decorator's
    wrapper holds it in (``Entry.module_source``, ``L['args'][0]`` -> ``args_0``)."""
    m = _ROOT.fullmatch(module_source or "")
    return _root_name(m) if m is not None else SELF


def parent_of(path: str) -> str:
    return path.rpartition(".")[0]


def is_under(path: str, ancestor: str) -> bool:
    """``path`` is ``ancestor`` or inside it ("" holds everything)."""
    return not ancestor or path == ancestor or path.startswith(ancestor + ".")


def common(paths: Iterable[str]) -> str:
    """The deepest module holding all of ``paths``."""
    out: Optional[list[str]] = None
    for p in paths:
        parts = p.split(".") if p else []
        if out is None:
            out = parts
            continue
        n = 0
        while n < len(out) and n < len(parts) and out[n] == parts[n]:
            n += 1
        del out[n:]
        if not out:
            break
    return ".".join(out or [])


def source_module(source: Optional[str], root: str = SELF) -> Optional[tuple[str, int]]:
    """The module a Dynamo source reaches (``L['m']._modules['0'].x`` -> ``m.0``) and where its path ends in the
    text; None when it does not start at a frame's local or global."""
    if not source:
        return None
    m = _ROOT.search(source)
    if m is None:
        return None
    parts, end = [_root_name(m)], m.end()
    while True:
        step = _MODULE_STEP.match(source, end)
        if step is None:
            break
        parts.append(step["name"])
        end = step.end()
    return join(*parts, root=root), end


def guard_module(g: Guard, roots: frozenset[str] = frozenset(), root: str = SELF) -> str:
    """The module a guard checks something of: its subject's (or else its code's first source's) module,
    "" when it checks no module (an input tensor, a global, the grad mode). ``roots``: the frame's locals and
    globals that are modules (``module_roots``), so a check on ``L['model']`` itself counts as the model's."""
    for text in (g.subject, g.code):
        found = source_module(text, root)
        if found is None:
            continue
        # a module step right after the source's root (not one of a later source in the same check: the
        # aliasing check on ``L['kwargs']['input_ids']`` and a module's buffers is no module of ``kwargs``)
        at = _ROOT.search(text or "").end()
        stepped = _MODULE_STEP.match(text or "", at) or _TENSOR_STEP.match(text or "", at)
        if stepped or found[0].split(".")[0] in roots or (not found[0] and root in roots):
            return found[0]
    return ""


def module_roots(guards: Iterable[Guard]) -> frozenset[str]:
    """The frame's locals and globals that Dynamo stepped into as modules (``L['model']._modules[...]``)."""
    out = set()
    for g in guards:
        for text in (g.subject, g.code):
            for m in _ROOT.finditer(text or ""):
                if _MODULE_STEP.match(text, m.end()) or _TENSOR_STEP.match(text, m.end()):
                    out.add(_root_name(m))
    return frozenset(out)


def tensor_sources(guards: Iterable[Guard], root: str = SELF) -> dict[str, str]:
    """Each parameter's and buffer's Dynamo source, flattened as a graph input's name is -> its module path."""
    out: dict[str, str] = {}
    for g in guards:
        subject = g.subject or ""
        found = source_module(subject, root)
        if found is None or not _TENSOR_STEP.fullmatch(subject, found[1]):
            continue
        out[flat(subject)] = found[0]
    return out


def flat(name: str) -> str:
    """A source or a graph input's name, flattened so both compare: ``L['m']._modules['0']`` -> ``l_m_modules_0``."""
    return _NON_WORD.sub("_", name).strip("_").lower()


def input_module(name: str, known: dict[str, str], root: str = SELF) -> Optional[str]:
    """The module of a graph input named after a parameter or buffer (``l_model_modules_layers_modules_0_...``),
    or None for any other input. ``known`` (``tensor_sources``) answers exactly; else the name is split."""
    key = flat(name)
    if key in known:
        return known[key]
    if not re.match(r"^[lg]_", key):
        return None
    parts = _FLAT_SPLIT.split(key[2:])
    if len(parts) < 2:
        return None
    return join(*parts[0].split("_modules_"), root=root)


def classes(guards: Iterable[Guard], root: str = SELF) -> dict[str, str]:
    """Module path -> its class's qualified name, from Dynamo's type checks on modules."""
    out: dict[str, str] = {}
    for g in guards:
        if g.kind != "TYPE_MATCH":
            continue
        t = _TYPE.search(g.code)
        found = source_module(g.subject, root)
        if t is None or found is None or found[1] != len(g.subject or ""):
            continue
        if t["cls"] in ("dict", "collections.OrderedDict", "tuple", "list"):  # the containers a frame passes
            continue
        out.setdefault(found[0], t["cls"])
    return out


def short_class(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1] if qualified else ""


def is_builtin(qualified: Optional[str]) -> bool:
    """A module class of torch's own (``torch.nn.modules.linear.Linear``): its forward is not user code, so torch's
    stack traces show its caller's line for what it computes."""
    return bool(qualified) and qualified.startswith("torch.")
