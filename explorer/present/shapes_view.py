"""The dynamic-shapes pane's blocks: the compilation's symbols, then what fixed or constrained them, each row at the
user's line, with the fix in the user's terms; each specialization and guard added links to the recompiles it
caused (``clinic.shape_causes``), and a recompile on a size links back to the row that made the size matter
(``recompile_cause``).

Pure functions of a compilation's ``DynamicShapes`` (``capturing.shapes``) and the clinic's recompiles; ``panes``
places them.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ..capturing.graph_model import SourceLoc
from ..capturing.shapes import DynamicShapes, RealValue, ShapeGuard, ShapeSymbol, Specialization
from ..clinic.recompiles import RecompileExplanation
from ..clinic.shape_causes import GUARD, SPECIALIZATION, ShapeCause, caused
from ..plural import counted
from .blocks import Block, Origin, Row, Run, Runs
from .fmt import flat, loc_text, origin_of, stage_anchor

# a condition torch prints as a symbol against a constant: Eq(s77, 8), Ne(s0, 1), u0 >= 2, s3 < 64
_AGAINST_CONSTANT = re.compile(r"^(?:(?P<fn>Eq|Ne)\((?P<a>[su]\d+), (?P<b>-?\d+)\)"
                               r"|(?P<c>[su]\d+) (?P<op>[<>]=?) (?P<d>-?\d+))$")
_SYMBOL = re.compile(r"\b[su]\d+\b")
_SIZE_SOURCE = re.compile(r"^L\['(?P<name>\w+)'\]\.size\(\)\[(?P<dim>\d+)\]$")  # Dynamo's source of an input size
_HEAD_SYMBOLS = ["symbol", "stands for", "range", "kind", "created at"]
_HEAD_CONSTRAINTS = ["what", "condition", "user line"]
_COMPARES = re.compile(r"==|!=|<|>|\bin\b|\bif\b|\bwhile\b|\bassert\b")  # a line that compares a value
_CHECKS = re.compile(r"\b_check\w*\(")  # torch._check(...), torch._check_is_size(...): a fact the user states
_BACKED = "backed (an input's size: guarded, recompiles when a guard fails)"
_UNBACKED = "unbacked (data-dependent: unknown while tracing, asserted at run time)"


def blocks(shapes: DynamicShapes, cid: str = "", recompiles: Sequence[RecompileExplanation] = ()) -> list[Block]:
    """A summary line, the symbols' table, and the specializations' and guards' table; ``cid``: the compilation
    they are of, ``recompiles``: the report's explained recompiles (the rows link to those they caused)."""
    sources = {s.name: s.source for s in shapes.symbols if s.source}
    unbacked = sum(1 for s in shapes.symbols if not s.backed)
    links = [(e.compile_id, f.against, f.shape_cause) for e in recompiles for f in e.failures]
    out: list[Block] = [{"t": "p", "cls": "cx-muted", "r": (
        f"{counted(len(shapes.symbols), 'symbol')} ({unbacked} unbacked), "
        f"{counted(len(shapes.specializations), 'specialization')} to a constant, "
        f"{counted(len(shapes.guards), 'guard')} added on symbols"
        + (f", {counted(len(shapes.real_values), 'answer')} read from the real tensors." if shapes.real_values
           else "."))}]
    if shapes.symbols:
        out.append({"t": "table", "cls": "cx-shapes", "caption": "symbols", "head": _HEAD_SYMBOLS,
                    "rows": [_symbol_row(s, shapes.real_values) for s in shapes.symbols]})
    rows = ([_specialization_row(s, caused(links, cid, SPECIALIZATION, i))
             for i, s in enumerate(shapes.specializations)]
            + [_guard_row(g, sources, shapes.real_values, caused(links, cid, GUARD, i))
               for i, g in enumerate(shapes.guards)])
    if rows:
        out.append({"t": "table", "cls": "cx-shapes", "caption": "specializations and guards added",
                    "head": _HEAD_CONSTRAINTS, "rows": rows})
    return out


def recompile_cause(e: RecompileExplanation) -> list[Block]:
    """What a recompile on a size comes from: the specialization or guard added of the compilation whose check
    failed, at its user line, linked to that compilation's dynamic shapes; nothing for any other recompile."""
    out: list[Block] = []
    for f in e.failures:
        if f.shape_cause is not None:
            out.append({"t": "p", "cls": "cx-shape-cause", "r": cause_runs(f.against, f.shape_cause)})
    return out


def cause_runs(against: str, cause: ShapeCause) -> Runs:
    """``made by the specialization s77 = 8 at cell [4], line 6 (in 0/0)``, the compilation a link to its dynamic
    shapes."""
    what = "the specialization" if cause.row == SPECIALIZATION else "the guard added"
    where: Runs = ""
    if cause.user_loc is not None:
        where = [" at ", {"code": loc_text(cause.user_loc.filename, cause.user_loc.lineno),
                          "origin": origin_of(cause.user_loc.filename, cause.user_loc.lineno)},
                 {"muted": [" ", {"code": cause.user_loc.code}]} if cause.user_loc.code else ""]
    return ["made by ", what, " ", {"code": cause.what}, where, " (in ", _to_pane(against, "dynamic_shapes"), ")"]


def _to_pane(cid: str, stage: str) -> Run:
    """A link to another compilation's pane (the static copy: to its stage's section)."""
    return {"go": {"stage": stage, "cid": cid, "anchor": stage_anchor(cid, stage)}, "code": f"[{cid}]"}


def _caused_runs(recompiles: Sequence[str]) -> Runs:
    """``caused recompile [0/1], [0/2]``: each a link to that recompile's reason."""
    if not recompiles:
        return ""
    links: list[Runs] = []
    for i, r in enumerate(recompiles):
        links += [", " if i else "", _to_pane(r, "graph_break")]
    return [{"br": True}, "caused recompile" + ("s " if len(recompiles) > 1 else " "), links]


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


def _symbol_row(s: ShapeSymbol, real: Sequence[RealValue]) -> Row:
    stands: Runs = "a value computed in the graph"
    if s.source:
        stands = [{"code": s.source}, f" = {s.value}" if s.value is not None else ""]
    answers = [r for r in real if s.name in _SYMBOL.findall(r.expression)]
    if answers:  # what torch took from the real tensors for it (propagate_real_tensors)
        stands = [stands, {"br": True}, {"muted": ["on the real tensors: ", [
            [", " if i else "", {"code": f"{r.expression} → {r.result}"}] for i, r in enumerate(answers)]]}]
    return {"c": [{"code": s.name}, stands, s.range, _BACKED if s.backed else _UNBACKED,
                  _where(s.user_loc, s.framework)], "origin": _origin(s.user_loc)}


def _specialization_row(s: Specialization, recompiles: Sequence[str]) -> Row:
    source = ", ".join(s.sources) or s.symbol
    return _with_fix({"c": [[f"specialized ({s.reason})", _caused_runs(recompiles)],
                            [{"code": f"{s.symbol} = {s.value}"}, f" ({source})"],
                            _where(s.user_loc, s.framework)], "origin": _origin(s.user_loc)},
                     _specialization_fix(s))


def _specialization_fix(s: Specialization) -> str:
    """Why the symbol is a constant now and what keeps it dynamic, as torch behaves (symbolic_shapes.py): a
    specialization is silent under dynamic=True and maybe_mark_dynamic; under mark_dynamic torch raises
    ConstraintViolationError ("You marked ... as dynamic but your code specialized it to be a constant")."""
    if s.symbol.startswith("u"):
        return (f"fix: {s.symbol} is data-dependent: this line fixed it to {s.value} (a torch._check or a comparison "
                f"torch took as a fact); torch asserts it at run time, a call where it differs raises, it never "
                f"recompiles. If {s.value} is not always right, don't state it as a fact.")
    name = _in_user_terms(s.sources[0] if s.sources else s.symbol)
    code = s.user_loc.code if s.user_loc is not None else None
    if code and _COMPARES.search(code):
        why = (f"this line compares {name} with the constant {s.value}: the graph holds for {s.value} only, "
               f"a recompile per value. Keep the comparison out of the compiled code (branch before the call)")
    else:
        torch_fn = f" ({s.framework.function} in torch)" if s.framework is not None and s.framework.function else ""
        why = (f"an operation on this line{torch_fn} needs {name} to be {s.value} (e.g. it meets a tensor whose "
               f"size is {s.value}): the graph holds for {s.value} only, a recompile per value. Make the other "
               f"operand's size follow {name}")
    return (f"fix: {why}. dynamic=True and maybe_mark_dynamic do not stop this; {_mark_dynamic(s.sources)} makes "
            f"torch raise ConstraintViolationError at this line instead of specializing silently.")


def _guard_row(g: ShapeGuard, sources: dict[str, str], real: Sequence[RealValue], recompiles: Sequence[str]) -> Row:
    symbols = _SYMBOL.findall(g.expression)
    what = "runtime assertion" if symbols and all(s.startswith("u") for s in symbols) else "guard added"
    row: Row = {"c": [[what, _caused_runs(recompiles)], {"code": g.expression}, _where(g.user_loc, g.framework)],
                "origin": _origin(g.user_loc)}
    answer = next((r for r in real if r.expression == g.expression), None)
    if answer is not None:
        return _with_fix(row, _real_fix(g.expression, answer))
    if symbols and all(s.startswith("u") for s in symbols):
        return _with_fix(row, _unbacked_fix(g, symbols))
    return _with_fix(row, _guard_fix(g.expression, sources))


def _real_fix(expression: str, answer: RealValue) -> str:
    """A condition torch could not decide while tracing and answered from the real tensors (propagate_real_tensors:
    ``evaluate_expr`` then keeps it as a runtime assertion)."""
    return (f"fix: torch could not decide `{expression}` while tracing and took the real tensors' answer "
            f"({answer.result}, propagate_real_tensors): the graph holds only while it does, a call where it does "
            f"not raises at run time. If it is a fact, torch._check it; if both answers must work, branch with "
            f"torch.cond, or use guard_or_false / guard_or_true (torch.fx.experimental.symbolic_shapes) where the "
            f"other branch is right for every value.")


def _unbacked_fix(g: ShapeGuard, symbols: Sequence[str]) -> str:
    """A condition on data-dependent symbols: a fact the user stated (torch._check) or one torch needed."""
    names = ", ".join(dict.fromkeys(symbols))
    code = g.user_loc.code if g.user_loc is not None else None
    if code and _CHECKS.search(code):
        return (f"this line's torch._check states `{g.expression}` as a fact about {names} (data-dependent): torch "
                f"assumes it while compiling and asserts it at run time; a call where it is false raises, it never "
                f"recompiles.")
    return (f"fix: {names} is data-dependent (unbacked): torch asserts `{g.expression}` at run time and never "
            f"recompiles on it. A branch on such a value that torch cannot decide is a data-dependent error: "
            f"torch._check(...) before it (if it is a fact), or guard_or_false / guard_or_true "
            f"(torch.fx.experimental.symbolic_shapes) where the other branch is right for every value.")


def _guard_fix(expression: str, sources: dict[str, str]) -> Optional[str]:
    """The fix for a condition comparing one backed symbol with a constant; None for any other condition."""
    m = _AGAINST_CONSTANT.match(expression)
    if m is None:
        return None
    symbol, constant = m.group("a") or m.group("c"), m.group("b") or m.group("d")
    name = _in_user_terms(sources.get(symbol, symbol))
    if m.group("fn") == "Eq":
        mark = _mark_dynamic([sources.get(symbol, "")])
        return (f"fix: this line compares {name} with the constant {constant}: the graph holds for that value only, "
                f"a recompile per value. Keep the branch out of the compiled code; {mark} makes torch raise "
                "ConstraintViolationError here instead.")
    return (f"fix: this line compares {name} with the constant {constant}: a call where `{expression}` no longer "
            "holds recompiles (a second graph, for the other side). If it always holds, torch._check it; if the "
            "size should not matter, don't branch on it.")


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
