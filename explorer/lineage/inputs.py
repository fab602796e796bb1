"""The user's names of a graph's inputs: ``l_b_`` is ``b``, ``primals_3`` is ``x``, ``primals_4`` ``self.fc2.weight``.

Dynamo names each input of its graph after the source it read (``L['self']._modules['fc2']._parameters
['weight']`` -> ``L_self_modules_fc2_parameters_weight_``); AOTAutograd takes the Dynamo graph's inputs in
that order and renames them (``primals_N`` in a training graph, ``argN_1`` in an inference graph), so
the n-th input of each is the same value. Read from the printed graphs only: pure functions, no torch.
"""

from __future__ import annotations

import re
from typing import Optional

from ..capturing.model import FxGraph

_TYPE_RE = re.compile(r"^([a-z]+\d*[a-z0-9]*\[[^\]]*\])")
_OWN_INPUTS = ("tangents_", "bwd_seed", "bwd_base_offset")  # a backward's inputs that are no Dynamo input


def user_name(placeholder: str) -> str:
    """``L_self_modules_fc_parameters_weight_`` -> ``self.fc.weight``; ``L_b_`` -> ``b``; ``G_scale_`` -> ``scale``."""
    name = re.sub(r"^[LG]_", "", placeholder).rstrip("_")
    return re.sub(r"_(?:modules|parameters|buffers)_", ".", name)


def dynamo_input_names(graph: Optional[FxGraph]) -> dict[str, str]:
    """A Dynamo graph's inputs (its placeholders' node names) by the user's names."""
    if graph is None:
        return {}
    return {n.name: user_name(n.target) for n in graph.nodes if n.op == "placeholder"}


def aot_input_names(graph: Optional[FxGraph], dynamo: Optional[FxGraph]) -> dict[str, str]:
    """An AOT graph's inputs (``primals_2``, ``arg1_1``) by the user's names, where the Dynamo graph's inputs
    line up with them one for one (same count, same dtype and shape); {} where they do not."""
    if graph is None or dynamo is None:
        return {}
    ours = [n for n in graph.nodes if n.op == "placeholder" and not n.name.startswith(_OWN_INPUTS)]
    theirs = [n for n in dynamo.nodes if n.op == "placeholder"]
    if len(ours) != len(theirs) or any(short_type(a.type) != short_type(b.type) for a, b in zip(ours, theirs)):
        return {}
    return {a.name: user_name(b.target) for a, b in zip(ours, theirs)}


def short_type(type_text: Optional[str]) -> Optional[str]:
    """``f32[4, 4][4, 1]cpu`` -> ``f32[4, 4]``: the dtype and shape, without strides and device."""
    if not type_text:
        return None
    m = _TYPE_RE.match(type_text)
    return m.group(1) if m else type_text
