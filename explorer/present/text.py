"""Plain text of the view model: the CLI's summary, ``repr(report)``, a notebook's text/plain, one stage.

The words are the view model's (``present.viewmodel`` and friends; ``present.summary_view`` composes the
one-screen summary); this module only lays blocks out as lines: a block's ``text`` where it has one (its
plain form), else its runs, a section's body and a list item's body two spaces in.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import diff_view, summary_view
from . import viewmodel as vm
from .blocks import Drawn
from .fmt import flat, short_path

rel = short_path
__all__ = ["clinic_text", "flat", "lines", "rel", "stage_text", "summary", "timing_text"]


# ---- blocks as text ----

def plain(b: Drawn, indent: str) -> list[str]:
    """A block's (or row's, or item's) ``text``: one line, or a list of them."""
    text = b["text"]
    return [indent + line for line in ([text] if isinstance(text, str) else text)]


def lines(bs: Sequence[Drawn], comp: Any = None, indent: str = "") -> list[str]:
    """Blocks as lines; code blocks read their text from ``comp``."""
    out: list[str] = []
    for b in bs:
        t = b["t"]
        if b.get("interactive") or b.get("summary") is False or t in ("button", "chart"):
            continue
        if "text" in b and t != "section":  # its plain form
            out += plain(b, indent)
        elif t in ("p", "h", "note"):
            out.append(indent + flat(b["r"]))
        elif t == "section":
            out += plain(b, indent) if "text" in b else [indent + b["title"]]
            out += lines(b["body"], comp, indent + "  ")
        elif t == "list":
            for i in b["items"]:  # an item's "text" is its whole plain form
                out += plain(i, indent) if "text" in i else [indent + flat(i["r"])]
                out += [] if "text" in i else lines(i.get("body", ()), comp, indent + "  ")
        elif t == "table":
            out += [indent + b["caption"]] if b.get("caption") else []
            out += [line for r in b["rows"] if r.get("summary") is not False
                    for line in (plain(r, indent) if "text" in r else [indent + "  ".join(flat(c) for c in r["c"])])]
        elif t == "code":
            if b.get("title"):
                out.append(f"{indent}# {b['title']}")
            out += (vm.resolve(comp, b["src"]) or "").rstrip("\n").split("\n")
        elif t == "graph":
            out += lines([b["code"]], comp, indent)
        elif t in ("details", "div"):
            if t == "details":
                out.append(indent + flat(b["s"]))
            out += lines(b["body"], comp, indent)
        elif t == "diff":
            out += diff_lines(b, comp, indent)
    return out


def _text_of(comp: Any) -> diff_view.TextOf:
    """The texts a compilation's code blocks name (``viewmodel.resolve``)."""
    return lambda src: vm.resolve(comp, src)


def diff_lines(b: Drawn, comp: Any, indent: str = "") -> list[str]:
    """A diff as a unified diff: its heading, then each row ``-``, ``+`` or `` `` (folded runs as one line).
    ``comp``: the compilations its sides name, ``{cid: compilation}`` (one compilation: both sides')."""
    head = " ".join(x for x in (b["del"], "→", b["add"], b.get("note"), b.get("counts"), b.get("same")) if x)
    if "rows" not in b:
        return [indent + head, indent + b["missing"]]
    comps = comp if isinstance(comp, dict) else {}
    sides = [comps.get(s["cid"], comp) for s in (b["a"], b["b"])]
    a_lines, b_lines = (diff_view.side_lines(segs, _text_of(c)) for c, segs in zip(sides, b["lines"]))
    out = [indent + head]
    for row in b["rows"]:
        tag = row[0]
        if tag == "fold":
            out.append(f"{indent}  {row[4]}")
        elif tag == "=":
            out += [f"{indent}  {b_lines[row[2] + k]}" for k in range(row[3])]
        elif tag == "-":
            out += [f"{indent}- {a_lines[row[1] + k]}" for k in range(row[2])]
        elif tag == "+":
            out += [f"{indent}+ {b_lines[row[1] + k]}" for k in range(row[2])]
        else:  # "~": the removed lines, then those that replace them
            out += [f"{indent}- {a_lines[row[1] + k]}" for k in range(row[3])]
            out += [f"{indent}+ {b_lines[row[2] + k]}" for k in range(row[3])]
    return out


# ---- the clinic ----

def clinic_text(report: Any) -> str:
    """The clinic alone (what CI logs want): break sites, then recompiles."""
    return "\n".join(lines(summary_view.clinic_blocks(vm.as_report(report))))


# ---- timing ----

def timing_text(timing: Any, comparisons: Sequence[Any] = ()) -> list[str]:
    """A timing report's section as lines: a line per graph (times, speedup, compile cost, break-even), its
    costliest kernels, notes and warnings; the modes compared."""
    if timing is None and not comparisons:
        return []
    body = vm.timing_blocks(timing, timing.graphs if timing else (), tuple(comparisons), timeit=True)
    return lines(body)


# ---- the whole report ----

def summary(report: Any, *, max_rows: int = 12, model: Optional[dict] = None) -> str:
    """One screen: counts, compilations, what to fix, recompiles, findings, problems, timing
    (``summary_view.summary_blocks``); each line cut at its first line break."""
    report = vm.as_report(report)
    model = model or vm.build(report, panes=False)
    said = lines(summary_view.summary_blocks(report, model, max_rows=max_rows))
    return "\n".join(line.split("\n")[0] for line in said)


# ---- one stage ----

def stage_text(report: Any, stage: Any, comp: Any) -> str:
    """A stage of one compilation as plain text: title, explanation, then its content or why there is none."""
    return "\n".join(lines(summary_view.stage_blocks(vm.as_report(report), stage, comp), comp))
