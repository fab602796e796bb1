"""A pane against another, as the views draw it: computed once, here, and sent as data (the ``diff`` block).

What a diff compares is a pane's text as lines (``pane_lines``): its code and its keyed tables (guard rows),
or, where it has neither, its words; each line keeps its block and line, so the chain lights it. Lines are
compared after the bookkeeping torch numbers per compile (``clinic.diff.normalise``) and, between two
ranks, each rank's own device index and object ids (``distributed.compare.norm_rank``) are written away;
they are shown as they are. The line diff is ``clinic.diff.line_opcodes``, the explorer's only one.

A ``diff`` block::

    {"t": "diff", "a": SIDE, "b": SIDE,          # SIDE: {"cid", "stage", ["kernel"], ["rank"]}: the removed side,
     "lines": [SEGMENTS_A, SEGMENTS_B],           #   the added side (the pane that shows it); how each reads as lines:
                                                  #   {"key", "src", ["head"]} a code block's text (after its
                                                  #   heading line), {["key"], "rows"} lines given as they are
     "del", "add", ["note"], "counts", ["same"],  # the heading's words
     "rows": [ROW, ...] | absent, ["missing"]}    # the rows, or why there are none
    ROW: ["=", i, j, n]  n equal lines | ["-", i, n] removed | ["+", j, n] added
       | ["~", i, j, n, [[prefix, suffix], ...]]  n removed lines then the n added that replace them, each pair's
                                                  #   changed middle between its common prefix and suffix
       | ["fold", i, j, n, words]                 n equal lines folded away (more than CONTEXT from a change)

Which diffs are made (``viewmodel``, which builds the panes): a recompile's against the compilation it
replaced, for ``DIFF_STAGES`` (the button of its graph-break pane, the static copy's section; in the
compilation's ``diffs``); two ranks' panes where the ranks compiled differently (``present.ranks``: the
``go`` of a differing graph or guards, in ``ranks.diffs``). Any other pair the widget asks the kernel for
(``viewmodel.pane_diff``: its ``diff`` action); the standalone page, which has no kernel, offers only those it
carries.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from ..clinic.diff import common_ends, line_opcodes, normalise
from ..distributed.compare import norm_rank
from .blocks import Diff, Drawn, Side
from .fmt import flat

DIFF_STAGES = ("guards", "graph", "output_code")
CONTEXT = 3  # unchanged lines kept around each change; longer runs fold
Pane = tuple[list[dict], list[str]]  # a pane as lines: the segments to read them back from, the lines
TextOf = Callable[[str], Optional[str]]  # the text a code block names (its ``src``)


# ---- a pane as lines ----

def _trimmed(text: Optional[str]) -> str:
    """A code block's text as the views show it (one trailing newline dropped)."""
    text = text or ""
    return text[:-1] if text.endswith("\n") else text


def pane_lines(blocks: Sequence[Drawn], text_of: TextOf) -> tuple[list[dict], list[str]]:
    """A pane's text as lines: (the segments a view reads them back from, the lines). ``text_of(src)``: the text
    a code block names (``viewmodel.resolve`` in its compilation)."""
    segs: list[dict] = []
    lines: list[str] = []

    def walk(bs: Sequence[Drawn]) -> None:
        for b in bs:
            if b["t"] in ("code", "graph"):
                c = b["code"] if b["t"] == "graph" else b
                seg = {"key": c["key"], "src": c["src"]}
                if c.get("title"):
                    seg["head"] = f"### {c['title']}"
                    lines.append(seg["head"])
                segs.append(seg)
                lines.extend(_trimmed(text_of(c["src"])).split("\n"))
            elif b["t"] == "table" and b.get("key"):
                rows = ["  ".join(flat(c) for c in r["c"][:2]) for r in b["rows"]]
                segs.append({"key": b["key"], "rows": rows})
                lines.extend(rows)
            elif b.get("body"):
                walk(b["body"])

    walk(blocks)
    if not lines:  # no code, no keyed table: its words
        rows = [line for b in blocks if "r" in b for line in flat(b["r"]).split("\n")]
        if rows:
            segs.append({"rows": rows})
            lines.extend(rows)
    return segs, lines


def side_lines(segs: Sequence[dict], text_of: TextOf) -> list[str]:
    """A side's lines read back from its segments (the static copy and the text draw them)."""
    out: list[str] = []
    for seg in segs:
        if "rows" in seg:
            out.extend(seg["rows"])
            continue
        if "head" in seg:
            out.append(seg["head"])
        out.extend(_trimmed(text_of(seg["src"])).split("\n"))
    return out


# ---- the diff ----

def diff_block(a: Side, a_pane: Pane, b: Side, b_pane: Pane, titles: tuple[str, str] = ("", "")) -> Diff:
    """``b``'s pane against ``a``'s (sides ``{"cid", "stage", ["rank"]}``; panes as ``pane_lines`` gives them;
    ``titles``: what each pane is, for the heading)."""
    ranks = a.get("rank") is not None and a.get("rank") != b.get("rank")
    norm: Callable[[str], str] = (lambda t: norm_rank(normalise(t))) if ranks else normalise
    (a_segs, a_text), (b_segs, b_text) = a_pane, b_pane
    block: Diff = {"t": "diff", "a": a, "b": b, "lines": [a_segs, b_segs], "del": "− " + _side_words(a, titles[0]),
                   "add": "+ " + _side_words(b, titles[1])}
    if ranks:
        block["note"] = "(device indexes and object ids written away)"
    if not a_text or not b_text:
        block["counts"], block["missing"] = "", "Nothing to compare: one of the two stages has no text here."
        return block
    rows, counts = diff_rows(a_text, b_text, norm)
    adds, dels, same = counts
    block["rows"], block["counts"] = rows, f"{adds:,} added, {dels:,} removed, {same:,} unchanged lines"
    if not adds and not dels:
        block["same"] = "— identical"
    return block


def _side_words(side: Side, title: str) -> str:
    rank = f"rank {side['rank']} " if side.get("rank") is not None else ""
    return f"{rank}{side['cid']} {title}"


def diff_rows(a: Sequence[str], b: Sequence[str], norm: Callable[[str], str] = normalise) -> tuple[list, tuple]:
    """The rows of ``b`` against ``a`` (compared as ``norm`` writes them) and (added, removed, unchanged)."""
    ops = line_opcodes([norm(x) for x in a], [norm(x) for x in b])
    rows: list[list] = []
    adds = dels = same = 0
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            same += i2 - i1
            rows += _equal_rows(i1, j1, i2 - i1, first=n == 0, last=n == len(ops) - 1)
            continue
        dels += i2 - i1
        adds += j2 - j1
        if tag == "replace" and i2 - i1 == j2 - j1:
            rows.append(["~", i1, j1, i2 - i1, [changed_span(a[i1 + k], b[j1 + k]) for k in range(i2 - i1)]])
            continue
        if i2 > i1:
            rows.append(["-", i1, i2 - i1])
        if j2 > j1:
            rows.append(["+", j1, j2 - j1])
    return rows, (adds, dels, same)


def _equal_rows(i: int, j: int, n: int, *, first: bool, last: bool) -> list[list]:
    """An unchanged run: CONTEXT lines kept next to each change around it, the rest folded."""
    keep_head = 0 if first else min(CONTEXT, n)
    keep_tail = 0 if last else min(CONTEXT, n - keep_head)
    folded = n - keep_head - keep_tail
    rows: list[list] = []
    if keep_head:
        rows.append(["=", i, j, keep_head])
    if folded:
        rows.append(["fold", i + keep_head, j + keep_head, folded, f"⋯ {folded:,} unchanged lines"])
    if keep_tail:
        rows.append(["=", i + n - keep_tail, j + n - keep_tail, keep_tail])
    return rows


def changed_span(a: str, b: str) -> list[int]:
    """The changed middle of two lines: [common prefix length, common suffix length]."""
    return list(common_ends(a, b))


# ---- which panes ----

def side(cid: str, stage: str, rank: Optional[int] = None, *, kernel: Optional[str] = None) -> Side:
    """A pane a diff compares, and where a diff target leads (a ``go``'s ``diff``): its compilation, its stage (and of
    the kernels stage, one kernel by its key), and its rank when it is another rank's. An object the views read as
    it is: no string to split."""
    out: Side = {"cid": cid, "stage": stage}
    if kernel is not None:
        out["kernel"] = kernel
    if rank is not None:
        out["rank"] = rank
    return out
