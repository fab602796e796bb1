"""The dynamic-shapes pane's blocks: the compilation's symbols, then what fixed or constrained them, each row at the
user's line, with the fix in the user's terms where a row compares a symbol with a constant.

Pure functions of a compilation's ``DynamicShapes`` (``capturing.shapes``); ``panes`` places them.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ..capturing.graph_model import SourceLoc
from ..capturing.shapes import DynamicShapes, ShapeGuard, ShapeSymbol, Specialization
from ..plural import counted
from .blocks import Block, Origin, Row, Runs
from .fmt import flat, loc_text, origin_of

# a condition torch prints as a symbol against a constant: Eq(s77, 8), Ne(s0, 1), u0 >= 2, s3 < 64
_AGAINST_CONSTANT = re.compile(r"^(?:(?P<fn>Eq|Ne)\((?P<a>[su]\d+), (?P<b>-?\d+)\)"
                               r"|(?P<c>[su]\d+) (?P<op>[<>]=?) (?P<d>-?\d+))$")
_SYMBOL = re.compile(r"\b[su]\d+\b")
_SIZE_SOURCE = re.compile(r"^L\['(?P<name>\w+)'\]\.size\(\)\[(?P<dim>\d+)\]$")  # Dynamo's source of an input size
_HEAD_SYMBOLS = ["symbol", "stands for", "range", "kind", "created at"]
_HEAD_CONSTRAINTS = ["what", "condition", "user line"]
_BACKED = "backed (an input's size: guarded, recompiles when a guard fails)"
_UNBACKED = "unbacked (data-dependent: unknown while tracing, asserted at run time)"


def blocks(shapes: DynamicShapes) -> list[Block]:
    """A summary line, the symbols' table, and the specializations' and guards' table."""
    sources = {s.name: s.source for s in shapes.symbols if s.source}
    unbacked = sum(1 for s in shapes.symbols if not s.backed)
    out: list[Block] = [{"t": "p", "cls": "cx-muted", "r": (
        f"{counted(len(shapes.symbols), 'symbol')} ({unbacked} unbacked), "
        f"{counted(len(shapes.specializations), 'specialization')} to a constant, "
        f"{counted(len(shapes.guards), 'guard')} added on symbols.")}]
    if shapes.symbols:
        out.append({"t": "table", "cls": "cx-shapes", "caption": "symbols", "head": _HEAD_SYMBOLS,
                    "rows": [_symbol_row(s) for s in shapes.symbols]})
    rows = ([_specialization_row(s) for s in shapes.specializations]
            + [_guard_row(g, sources) for g in shapes.guards])
    if rows:
        out.append({"t": "table", "cls": "cx-shapes", "caption": "specializations and guards added",
                    "head": _HEAD_CONSTRAINTS, "rows": rows})
    return out


def _where(loc: Optional[SourceLoc], framework: Optional[SourceLoc]) -> Runs:
    """The user's line, and beside it, muted, the frame inside torch that acted on it."""
    cell: list[Runs] = []
    if loc is not None:
        cell.append({"code": loc_text(loc.filename, loc.lineno, loc.function),
                     "origin": origin_of(loc.filename, loc.lineno)})
        if loc.code:
            cell.append({"muted": [" ", {"code": loc.code}]})
    if framework is not None:
        cell.append({"muted": [" (in torch: ", {"code": loc_text(_in_torch(framework.filename), framework.lineno,
                                                                  framework.function)}, ")"]})
    return cell or "?"


def _in_torch(filename: str) -> str:
    """A file of the installed torch from its package down (``torch/_dynamo/variables/tensor.py``)."""
    cut = filename.replace("\\", "/").rfind("/torch/")
    return filename[cut + 1:] if cut >= 0 else filename


def _origin(loc: Optional[SourceLoc]) -> Optional[Origin]:
    return origin_of(loc.filename, loc.lineno) if loc is not None else None


def _symbol_row(s: ShapeSymbol) -> Row:
    stands: Runs = "a value computed in the graph"
    if s.source:
        stands = [{"code": s.source}, f" = {s.value}" if s.value is not None else ""]
    return {"c": [{"code": s.name}, stands, s.range, _BACKED if s.backed else _UNBACKED,
                  _where(s.user_loc, s.framework)], "origin": _origin(s.user_loc)}


def _specialization_row(s: Specialization) -> Row:
    source = ", ".join(s.sources) or s.symbol
    fix = (f"fix: {_in_user_terms(source)} is a constant ({s.value}) from this line on: each other value compiles "
           f"again. Keep the comparison of the size with a constant out of the compiled code; "
           f"{_mark_dynamic(s.sources)} makes this line an error instead of a silent specialization "
           f"(dynamic=True does not stop it).")
    return _with_fix({"c": [f"specialized ({s.reason})", [{"code": f"{s.symbol} = {s.value}"}, f" ({source})"],
                            _where(s.user_loc, s.framework)], "origin": _origin(s.user_loc)}, fix)


def _guard_row(g: ShapeGuard, sources: dict[str, str]) -> Row:
    symbols = _SYMBOL.findall(g.expression)
    what = "runtime assertion" if symbols and all(s.startswith("u") for s in symbols) else "guard added"
    row: Row = {"c": [what, {"code": g.expression}, _where(g.user_loc, g.framework)],
                "origin": _origin(g.user_loc)}
    return _with_fix(row, _guard_fix(g.expression, sources))


def _guard_fix(expression: str, sources: dict[str, str]) -> Optional[str]:
    """The fix for a condition comparing one symbol with a constant; None for any other condition."""
    m = _AGAINST_CONSTANT.match(expression)
    if m is None:
        return None
    symbol, constant = m.group("a") or m.group("c"), m.group("b") or m.group("d")
    if symbol.startswith("u"):
        return (f"fix: {symbol} is data-dependent (unbacked): torch asserts this at run time and never recompiles "
                f"on it. A branch on such a value that torch cannot decide is a data-dependent error: "
                f"torch._check(...) before it (as a fact) or guard_or_false answers it.")
    name = _in_user_terms(sources.get(symbol, symbol))
    if m.group("fn") == "Eq":
        mark = _mark_dynamic([sources.get(symbol, "")])
        return (f"fix: this line compares {name} with the constant {constant}: the graph holds for that value only, "
                f"a recompile per value. Keep the branch out of the compiled code, or {mark} to have torch stop here "
                "instead.")
    return (f"fix: this line compares {name} with the constant {constant}: a call where `{expression}` no longer "
            "holds recompiles. If it always holds, torch._check it; if the size should not matter, don't branch on "
            "it.")


def _with_fix(row: Row, fix: Optional[str]) -> Row:
    """A muted line with the fix under the row's last cell (the text summary prints it as a line of its own)."""
    if fix is None:
        return row
    cells = row["c"]
    row["c"] = cells[:-1] + [[cells[-1], {"br": True}, {"muted": fix}]]
    row["text"] = ["  ".join(flat(c) for c in cells), "    " + fix]
    return row


def _in_user_terms(source: str) -> str:
    """``L['x'].size()[0]`` as the user writes it: ``x.size(0)``."""
    m = _SIZE_SOURCE.match(source)
    return f"{m.group('name')}.size({m.group('dim')})" if m else source


def _mark_dynamic(sources: Sequence[str]) -> str:
    for source in sources:
        m = _SIZE_SOURCE.match(source)
        if m:
            return f"torch._dynamo.mark_dynamic({m.group('name')}, {m.group('dim')})"
    return "torch._dynamo.mark_dynamic(tensor, dim)"
