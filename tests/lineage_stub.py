"""Hand-made line-level chains for the front-end tests, until ``explorer.lineage.lineage_of`` fills them.

The front end is written against the contract of ``explorer.lineage``: per
compilation, ``LineLink(stage, line, origins, part, kernel, element)`` for the
lines of each stage's text as shown. This builds such links from what a capture
already holds, crudely: bytecode rows by the listing's line numbers, FX graph
lines by their ``# File: PATH:LINE`` comments, loop-IR and kernel lines by the
op names they spell (``ops.sin``, ``tmp0.sin()``) matched to post-grad nodes,
wrapper lines by the kernels they call; guards and the rest are glue. Enough
for the browser tests to click ``torch.sin``'s line and see its FX node and
kernel line light up.

``with_lineage(report)`` keeps a real chain when the report has one, so the
real ``lineage_of`` slots into the same tests; ``install()`` does the same for
reports the pipeline makes (the live JupyterLab test runs it in the kernel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from explorer.lineage import LineLink

_DIS = re.compile(r"^\s*(?:(\d+)\s+)?(?:>>)?\s*\d+\s+[A-Z_]")
_FILE = re.compile(r"#\s*File: (.+?):(\d+) in ")
_NODE = re.compile(r"^\s*(\w+)(?:\s*:\s*\"[^\"]*\")?\s*=\s*(.+)$")
_ATEN = re.compile(r"(?:torch\.ops\.aten\.|torch\.|operator\.)(\w+)")


@dataclass(frozen=True)
class HandLineage:
    """Shaped like ``explorer.lineage.Lineage`` as the payload reads it (compile_id, links)."""

    compile_id: str
    links: tuple[LineLink, ...] = ()


def _graph_links(stage: str, code: str, ops: dict[str, set[str]]) -> list[LineLink]:
    out, origin = [], None
    for i, text in enumerate(code.splitlines(), 1):
        m = _FILE.search(text)
        if m:
            origin = f"{m.group(1)}:{m.group(2)}"
            out.append(LineLink(stage, i, (origin,)))
            continue
        node = _NODE.match(text)
        if node and origin and "return" not in text:
            out.append(LineLink(stage, i, (origin,), element=node.group(1)))
            op = _ATEN.search(node.group(2))
            if op:
                ops.setdefault(op.group(1).split(".")[0], set()).add(origin)
        elif text.strip():
            out.append(LineLink(stage, i, ()))  # signature, inputs, return: glue
    return out


def _op_lines(stage: str, text: str, ops: dict[str, set[str]], *, part: int = 0,
              kernel: Optional[str] = None) -> list[LineLink]:
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        hit = sorted({o for op, origins in ops.items() if re.search(rf"(?:\.|\bops\.|std::|tl_math\.)?\b{op}\(", line)
                      for o in origins})
        if hit:
            out.append(LineLink(stage, i, tuple(hit), part=part, kernel=kernel))
        elif line.strip():
            out.append(LineLink(stage, i, (), part=part, kernel=kernel))
    return out


def hand_links(comp) -> tuple[LineLink, ...]:
    links: list[LineLink] = []
    for stage in ("original_bytecode", "rewritten_bytecode"):
        bc = getattr(comp, stage)
        if bc is None:
            continue
        current = None
        for i, text in enumerate(bc.listing.splitlines(), 1):
            m = _DIS.match(text)
            if not m:
                continue
            if m.group(1):
                current = int(m.group(1))
            links.append(LineLink(stage, i, (f"{bc.filename}:{current}",) if current else ()))
    ops: dict[str, set[str]] = {}
    for stage in ("graph", "aot_joint", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph",
                  "post_grad_graph_backward"):
        fx = getattr(comp, stage)
        if fx is not None:
            links += _graph_links(stage, fx.code, ops if stage.startswith("post_grad") else {})
    ops.pop("getitem", None)
    for stage in ("ir_pre_fusion", "ir_post_fusion"):
        for part, dump in enumerate(getattr(comp, stage) or ()):
            links += _op_lines(stage, dump.text, ops, part=part)
    for part, k in enumerate(comp.kernels):
        links += _op_lines("kernels", k.source, ops, part=part, kernel=k.name)
    for part, o in enumerate(comp.output_code or ()):
        for i, line in enumerate(o.code.splitlines(), 1):
            k = next((k for k in comp.kernels if re.search(rf"\b{re.escape(k.name)}\(", line)), None)
            origins = tuple(sorted(f"{u.filename}:{u.lineno}" for u in k.user_lines)) if k else ()
            if line.strip():
                links.append(LineLink("output_code", i, origins, part=part))
    return tuple(links)


def hand_lineage(data) -> tuple[HandLineage, ...]:
    return tuple(HandLineage(c.compile_id, hand_links(c)) for c in data.compilations)


def with_lineage(report):
    """``report`` with a chain: its own if the real ``lineage_of`` made one, else the hand-made one."""
    if not report.lineage:
        report.lineage = hand_lineage(report.capture)
    return report


def install() -> None:
    """Reports made by the pipeline get the hand-made chain when the real one is empty."""
    from explorer import pipeline

    real = pipeline.lineage_of
    if getattr(real, "_hand_made", False):
        return

    def lineage_of(data):
        return real(data) or hand_lineage(data)

    lineage_of._hand_made = True  # type: ignore[attr-defined]
    pipeline.lineage_of = lineage_of
