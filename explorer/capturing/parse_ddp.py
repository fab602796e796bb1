"""DDPOptimizer's records -> its buckets: which parameters each subgraph holds, and their bytes.

DDPOptimizer (torch/_dynamo/backends/distributed.py) logs its bucket table only through
``tabulate`` at DEBUG; the structured trace has the subgraphs instead. Each subgraph's
placeholders that are parameters (Dynamo names them ``l_self_modules_<m>_parameters_<p>_``)
are that bucket's parameters: the same assignment DDPOptimizer made, since it cuts the graph
where a bucket fills. Sizes come from the placeholders' dtype and shape (their storage, as
DDPOptimizer counts).
"""

from __future__ import annotations

import math
import re
from typing import Optional

from .model import DdpBucket, DdpSubgraph, FxNode

# bytes per element of the dtype prefixes torch prints in graph types ("f32[512, 512]")
DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1,
               "b8": 1, "c64": 8, "c128": 16, "f8e4m3fn": 1, "f8e5m2": 1, "f8e4m3fnuz": 1, "f8e5m2fnuz": 1}
_TYPE_RE = re.compile(r"^(?P<dtype>[a-z]+\d*[a-z0-9]*)\[(?P<shape>[^\]]*)\]")
_CAP_RE = re.compile(r"DDPOptimizer used bucket cap (?P<cap>\d+) and created (?P<n>\d+) buckets")
_PARAM_MARK = "_parameters_"


def parse_log_line(message: str) -> tuple[Optional[int], Optional[int], Optional[str]]:
    """``(bucket cap in bytes, bucket count, note)`` from one of DDPOptimizer's log messages."""
    m = _CAP_RE.search(message)
    if m:
        return int(m["cap"]), int(m["n"]), None
    text = message.strip()
    if text.startswith(("Some buckets were extended", "DDPOptimizer extended")):
        return None, None, text.splitlines()[0]
    return None, None, None


def param_name(placeholder: str) -> Optional[str]:
    """``l_self_modules_layers_modules_0_parameters_weight_`` -> ``layers.0.weight``; None if not a parameter.

    Dynamo's name mangles the source ``L['self']._modules['layers']._modules['0']._parameters['weight']``;
    a module attribute whose own name holds ``_modules_`` cannot be told apart (rare).
    """
    name = placeholder.lower()
    if _PARAM_MARK not in name:
        return None
    name = name.rstrip("_")
    for prefix in ("l_self_", "l__self___", "self_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    name = re.sub(r"(?:^|_)(?:modules|parameters)_", ".", name)
    return name.strip(".") or placeholder


def type_bytes(type_text: Optional[str]) -> Optional[int]:
    """Bytes of a tensor from its printed type (``bf16[64, 64]`` -> 8192); None for symbolic sizes."""
    m = _TYPE_RE.match(type_text or "")
    if not m or m["dtype"] not in DTYPE_BYTES:
        return None
    dims = [d.strip() for d in m["shape"].split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        return None
    return DTYPE_BYTES[m["dtype"]] * math.prod(int(d) for d in dims)


def buckets_of(subgraphs: tuple[DdpSubgraph, ...]) -> tuple[DdpBucket, ...]:
    """One bucket per subgraph: its parameter placeholders, each counted once (in the first subgraph using it)."""
    seen: set[str] = set()
    out = []
    for sub in subgraphs:
        params: list[str] = []
        sizes: list[int] = []
        for node in sub.graph.nodes:
            name = _placeholder_param(node)
            if name is None or name in seen:
                continue
            seen.add(name)
            params.append(name)
            sizes.append(type_bytes(node.type) or 0)
        out.append(DdpBucket(sub.name, sum(sizes), tuple(params), tuple(sizes)))
    return tuple(out)


def _placeholder_param(node: FxNode) -> Optional[str]:
    if node.op != "placeholder":
        return None
    return param_name(node.target) or param_name(node.name)
