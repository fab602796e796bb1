"""The Source pane's second half: the functions Dynamo inlined into the frame, where a model's operations are written.

A model compiled whole is one frame of a few lines (``x = block(x)`` per layer); the graph's operations come from
the functions Dynamo inlined into it (each module's ``forward``, helpers: ``Compilation.inlined``). Each of the
user's is shown once, however many layers call it, as a code block whose lines link through the chain like the
frame's own (block ``source:K+1`` is ``inlined[K]``). torch's and Python's own functions are named in one line,
not shown; so is a function whose lines are shown already (a generator expression inside a shown function).
Blocks as ``present.viewmodel`` documents them.
"""

from __future__ import annotations

from typing import Optional

from ..capturing.model import Compilation, InlinedFunction
from ..clinic.locate import is_torch_or_python_file
from .blocks import Block, Code
from .fmt import loc_text

Span = tuple[str, int, int]  # a function's file, first and last line as shown


def entry_index(comp: Compilation) -> Optional[int]:
    """Where the forward a decorator's wrapper frame wraps (``Entry.decorated``) is in ``comp.inlined``, when its
    source was read: the Source pane shows it first."""
    e = comp.entry
    if e is None or not e.decorated:
        return None
    return next((k for k, f in enumerate(comp.inlined) if f.source and (f.name, f.filename, f.firstlineno)
                 == (e.name, e.filename, e.lineno)), None)


def inlined_blocks(comp: Compilation, shown_first: Optional[int] = None) -> list[Block]:
    """The inlined functions' blocks; ``shown_first``: one the pane already shows above the frame (left out)."""
    ours = [(k, f) for k, f in enumerate(comp.inlined) if not is_torch_or_python_file(f.filename)]
    spans = [_span(f.filename, f.firstlineno, f.source) for _, f in ours if f.source]
    if comp.original_bytecode is not None and comp.original_bytecode.source:
        bc = comp.original_bytecode
        spans.append(_span(bc.filename, bc.firstlineno, bc.source))
    shown = [(k, f) for k, f in ours if f.source and not _inside(_span(f.filename, f.firstlineno, f.source), spans)
             and k != shown_first]
    files = list(dict.fromkeys(f.filename for _, f in shown))
    shown.sort(key=lambda kf: (files.index(kf[1].filename), kf[1].firstlineno))
    out: list[Block] = []
    if shown:
        out.append({"t": "h", "r": f"Inlined into this frame ({len(shown)} function{'s' if len(shown) > 1 else ''})"})
        out.append({"t": "p", "cls": "cx-muted", "r": "Dynamo traced these calls instead of making them, so the "
                    "graph's operations come from their lines: a line lights what it became in every call."})
    for k, _ in shown:
        out += function_blocks(comp, k)
    listed = {k for k, _ in shown} | {shown_first}
    return out + _not_shown([f for f in comp.inlined if is_torch_or_python_file(f.filename)],
                            [f for _, f in ours if not f.source],
                            [f for k, f in ours if f.source and k not in listed])


def function_blocks(comp: Compilation, k: int) -> list[Block]:
    """``comp.inlined[k]``'s name, place and count, then its code; a graph break on one of its lines is marked."""
    f = comp.inlined[k]
    file, first, last = _span(f.filename, f.firstlineno, f.source)
    gb = comp.graph_break
    at = gb.lineno if gb is not None and gb.filename == file else None
    mark = at - first + 1 if at is not None and first <= at <= last else None
    head: Block = {"t": "p", "cls": "cx-muted", "r": [{"b": f.name}, f" — {loc_text(f.filename, f.firstlineno)}",
                                                     f", inlined {f.calls}×" if f.calls > 1 else ""]}
    body: Code = {"t": "code", "key": f"source:{k + 1}", "src": f"inlined.{k}.source", "lang": "python",
                  "first": first, "linenos": True, "file": file}
    if mark:
        body["marks"] = [mark]
    return [head, body]


def _not_shown(torchs: list[InlinedFunction], unread: list[InlinedFunction],
               nested: list[InlinedFunction]) -> list[Block]:
    out: list[Block] = []
    for words, fns in (("of torch and Python {was} inlined, not shown", torchs),
                       ("{was} inlined whose source could not be read", unread),
                       ("{was} inlined within the lines above", nested)):
        if fns:
            names = ", ".join(f.name + (f" ×{f.calls}" if f.calls > 1 else "") for f in fns)
            many = len(fns) > 1
            out.append({"t": "p", "cls": "cx-muted", "r": f"{len(fns)} more function{'s' if many else ''} "
                        + words.format(was="were" if many else "was") + f": {names}"})
    return out


def _span(filename: str, first: int, source: Optional[str]) -> Span:
    return filename, first, first + max(len((source or "").splitlines()), 1) - 1


def _inside(span: Span, spans: list[Span]) -> bool:
    """Whether ``span`` lies within another of ``spans`` (a nested function or a generator expression)."""
    file, first, last = span
    return any(f == file and a <= first and last <= b and (a, b) != (first, last) for f, a, b in spans)
