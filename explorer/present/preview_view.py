"""The CUDA preview (``--target cuda``) in the report's header: what was lowered for the GPU, and each graph the
preview could not lower, named with the reason, in the text summary, the page and the widget alike."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .blocks import Block, Item, Section


def header_blocks(report: Any) -> list[Block]:
    """A section: the preview's line, one item per graph (what was lowered, its symbolic sizes); then a line for
    the preview's failure and for each graph not previewed, with why; the preview's notes, in the views only."""
    p = getattr(report, "preview", None)
    if p is None:
        return []
    outcomes = p.outcomes
    lowered = sum(1 for o in outcomes if o.previewed)
    title = f"CUDA preview, not run ({p.target}): {lowered} of {_n(len(outcomes), 'graph')} lowered"
    if p.capture is not None:
        title += f", {_kernel_counts(p.capture.kernels)}"
    items: list[Item] = [{"r": [{"code": o.label}, f": {_what(o)}"]} for o in outcomes]
    section: Section = {"t": "section", "title": title, "open": bool(p.not_previewed or p.error),
                     "body": [{"t": "list", "cls": "cx-preview", "items": items}] if items else []}
    section["body"] += [{"t": "p", "cls": "cx-muted", "r": n, "summary": False} for n in p.notes]
    out: list[Block] = [section]
    if p.error:
        out.append(_note("cx-bad cx-preview-failed", [{"b": "The CUDA preview failed: "}, _first_line(p.error)]))
    for o in p.not_previewed:
        out.append(_note("cx-bad cx-not-previewed", [{"b": "Not in the CUDA preview: "}, {"code": o.label},
                                                     f": {_first_line(o.reason or 'no reason given')}"]))
    return out


def _note(cls: str, runs: list) -> Block:
    return {"t": "note", "cls": cls, "r": runs}


def _what(o: Any) -> str:
    if not o.previewed:
        return "not previewed (why: below)"
    sizes = f", symbolic sizes {', '.join(o.symbols)}" if o.symbols else ", static sizes"
    return f"{o.lowered}{sizes}"


def _kernel_counts(kernels: Any) -> str:
    """``6 kernels (2 forward, 4 backward)``: the previewed kernels by the graph they belong to."""
    kinds = Counter(k.graph_kind or "inference" for k in kernels)
    parts = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
    return _n(len(kernels), "kernel") + (f" ({parts})" if parts else "")


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _first_line(text: str) -> str:
    return text.strip().split("\n")[0]
