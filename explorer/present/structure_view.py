"""The panes of a model built of repeated blocks, folded: one entry for the identical members, the odd ones apart.

A real model repeats one block 32 or 80 times, and so does every stage: a graph of 11,000 nodes, 11,500 guards,
the same kernels launched once per layer. From a compilation's ``Structure`` (``explorer.structure``) this module
makes the blocks that the pane builders (``present.panes``) place:

* a graph stage: a module outline over the code, each family of members in one row ("79× Block
  (model.layers.0–16, 18–79)"), each member that differs in a row of its own with its diff; a row's lines lead
  to the code (the chain is the graph's own: a user line still lights its nodes in every layer);
* the guards: per family one folded group holding one member's guards, and per odd member its diff, then the
  guards of no member; a group's rows are drawn only when it is opened;
* the kernels: per kernel, which modules launch it ("defined once, launched 80×, by model.layers.0–79"), and per
  family whether its members launch the same kernels;
* the compilation's summary line (``summary``), which the text summary prints.

The words are here, with the rest of the view model's; the renderers draw the usual blocks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Optional, Sequence

from ..capturing.inductor_code.loop_ir import scheduler_node_rows
from ..capturing.model import Compilation, FxGraph, IrDump
from ..plural import counted, noun
from ..stages import BY_ID
from ..structure import Repeat, Structure, compilation_structure
from ..structure.paths import short_class
from .blocks import Block, Details, Item, P, Row, Runs, Table
from .graphviz_svg import MAX_NODES
from .member_diff import changed_lines, diff_block, first_change

FOLD_GUARDS_AT = 2  # members in a family before the guards pane folds it
PLAIN_MAX = MAX_NODES  # a picture of at most this many nodes is drawn node by node (present.fold_picture)
FOLDED = ("Drawn folded: one box per module, a run of alike members in one box. Click a box to open it in place "
          "(the static copy shows the boxes closed).")
_CACHE: dict[int, tuple[Compilation, Structure]] = {}  # a report made without the structure step: computed once


def structure_for(report: Any, comp: Compilation) -> Optional[Structure]:
    """The compilation's structure: the report's (``Report.structure``), else read now (a report made without it:
    bare capture data, an older JSON file)."""
    for s in getattr(report, "structure", ()) or ():
        if s.compile_id == comp.compile_id:
            return s
    if comp.graph is None:
        return None
    hit = _CACHE.get(id(comp))
    if hit is not None and hit[0] is comp:
        return hit[1]
    if len(_CACHE) > 64:
        _CACHE.clear()
    s = compilation_structure(comp)
    _CACHE[id(comp)] = (comp, s)
    return s


def picture_folds(fx: FxGraph, s: Optional[Structure], stage: str) -> bool:
    """A graph's picture is drawn folded when it is big or its modules repeat (``present.fold_picture``)."""
    return len(fx.nodes) > PLAIN_MAX or bool(s is not None and s.repeats_of(stage))


# ---- words ----

def members_text(parent: str, members: Sequence[str]) -> str:
    """``model.layers.0–16, 18–79``: numbered members as ranges."""
    nums = sorted(int(m) for m in members if m.isdigit())
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(str(nums[i]) if i == j else f"{nums[i]}–{nums[j]}")
        i = j + 1
    parts += [m for m in members if not m.isdigit()]
    return f"{parent}.{', '.join(parts)}" if parent else ", ".join(parts)


def group_title(r: Repeat, k: int = 0) -> str:
    """``3× Block (model.layers.0–1, 3)``, or for a group that differs, ``model.layers.2 differs``."""
    g = r.groups[k]
    kind = g.kind or r.kind
    if k == 0:
        alike = "" if len(r.groups) == 1 else " alike"
        return f"{len(g.members)}× {kind or 'module'} ({members_text(r.parent, g.members)}){alike}"
    verb = "differs" if len(g.members) == 1 else f"differ ({len(g.members)}×)"
    return f"{members_text(r.parent, g.members)} {verb}" + (f" (a {kind})" if g.kind else "")


def summary(s: Optional[Structure], comp: Compilation) -> list[str]:
    """One line per repeated family: how many alike, and each member that differs, in which stages and how."""
    if s is None or not s.repeats:
        return []
    out = []
    for parent in dict.fromkeys(r.parent for r in s.repeats):
        reps = [r for r in s.repeats if r.parent == parent]
        total = len(reps[0].members)
        kind = next((r.kind for r in reps if r.kind), "") or "module"
        odd: dict[str, list[str]] = {}
        how: dict[str, str] = {}
        for r in reps:
            for g in r.groups[1:]:
                for m in g.members:
                    odd.setdefault(m, []).append(_stage_name(r.stage, comp))
                    how.setdefault(m, first_change(g.diff) if r.stage in GRAPH_STAGES else "")
        if not odd:
            out.append(f"repeated: {total}× {kind} ({members_text(parent, reps[0].members)}), alike in every stage")
            continue
        same = [m for m in reps[0].members if m not in odd]
        line = f"repeated: {total}× {kind} ({members_text(parent, reps[0].members)})"
        if same:
            line += f"; {members_text(parent, same)} alike in every stage"
        parts = []
        for m, stages in odd.items():
            change = f" ({how[m]})" if how.get(m) else ""
            parts.append(f"{members_text(parent, [m])} differs{change} in {', '.join(dict.fromkeys(stages))}")
        out.append(line + "; " + "; ".join(parts))
    return out


GRAPH_STAGES = ("graph", "aot_forward", "aot_inference", "aot_joint", "post_grad_graph", "aot_backward",
                 "post_grad_graph_backward")


def _stage_name(stage: str, comp: Compilation) -> str:
    """A stage's title; one loop-IR dump's (``ir_pre_fusion:1``) with the graph it lowered (``(backward)``)."""
    sid, _, part = stage.partition(":")
    title = {"guards": "guards", "kernels": "kernels"}.get(sid) or (BY_ID[sid].title if sid in BY_ID else sid)
    dumps = getattr(comp, sid, None) or () if part.isdigit() else ()
    return f"{title} ({dumps[int(part)].graph_kind})" if int(part or 0) < len(dumps) else title


# ---- a graph's and a loop-IR dump's modules ----

def outline(s: Structure, stage: str, fx: FxGraph, lines: Mapping[str, int]) -> list[Block]:
    """The graph's modules, one row each at the depth its repeated members sit (or the top modules), a family's
    alike members in one row; the members that differ, each with its diff."""
    at = [lines.get(n.name) for n in fx.nodes]
    inputs = [n.op == "placeholder" for n in fx.nodes]
    return outline_of(s, stage, f"{stage}:0", at, inputs, "nodes")


def ir_outline(s: Structure, key: str, dump: IrDump) -> list[Block]:
    """A loop-IR dump's scheduler nodes by module (``key``: ``ir_pre_fusion:1``), as a graph's outline."""
    rows = scheduler_node_rows(dump.text)
    if len(rows) != len(s.stage(key).of):
        return []
    return outline_of(s, key, key, [row + 1 for row in rows], None, "scheduler nodes", f"{dump.graph_kind}: ")


def outline_of(s: Structure, stage: str, key: str, at: list[Optional[int]], inputs: Optional[list[bool]],
               unit: str, what: str = "") -> list[Block]:
    """The outline of one text's items by module (``stage``: its id in the structure; ``key``: its code block;
    ``at``: each item's line in it; ``inputs``: the graph's inputs, which sit at the top of its code)."""
    st = s.stage(stage)
    reps = s.repeats_of(stage)
    paths = [st.paths[i] for i in st.of]
    depth = max((r.parent.count(".") + 2 if r.parent else 1 for r in reps), default=_top_depth(paths))
    rows: dict[str, list[int]] = {}
    # in the order their computation starts (graph inputs, listed first in the code, last)
    for i in sorted(range(len(paths)), key=lambda i: (bool(inputs and inputs[i]), i)):
        rows.setdefault(".".join(paths[i].split(".")[:depth]) if paths[i] else "", []).append(i)
    rows = {k: sorted(v) for k, v in rows.items()}
    member_of = {r.path(m): (r, k) for r in reps for k, g in enumerate(r.groups) for m in g.members}
    out_rows, seen, odd_blocks = [], set(), []
    for name, idx in rows.items():
        hit = member_of.get(name)
        if hit is None:
            klass = short_class(s.classes.get(name, ""))
            out_rows.append(_outline_row(name or "(the compiled function itself)", klass, f"{len(idx):,}", idx, at,
                                         inputs, key, unit))
            continue
        r, k = hit
        if (r.parent, k) in seen:
            continue
        seen.add((r.parent, k))
        g = r.groups[k]
        first = rows.get(r.path(g.members[0]), idx)
        label = group_title(r, k)
        each = f"{g.size:,} each" if len(g.members) > 1 else f"{g.size:,}"
        out_rows.append(_outline_row(label, g.kind or r.kind, each, first, at, inputs, key, unit,
                                     shown=r.path(g.members[0]) if len(g.members) > 1 else "",
                                     cls="cx-rep-odd" if k else "cx-rep-same"))
        if k:
            odd_blocks.append(diff_block(f"{group_title(r, k)} from {r.path(r.groups[0].members[0])}"
                                         + (f": {first_change(g.diff)}" if first_change(g.diff) else ""), g))
    n_mod = sum(1 for p in set(paths) if p)
    head = f"{what}Modules: {counted(n_mod, 'module')}"
    if reps:
        head += "; " + "; ".join(group_title(r, k) for r in reps for k in range(len(r.groups)))
    table: Block = {"t": "table", "cls": "cx-modules", "head": ["module", "class", unit, "code"], "rows": out_rows}
    return [{"t": "details", "cls": "cx-rep", "open": bool(reps), "s": head, "body": [table, *odd_blocks]}]


def _top_depth(paths: Iterable[str]) -> int:
    """Without a repeated family: the first depth at which the modules split into several."""
    depth = 1
    while depth < 6 and len({".".join(p.split(".")[:depth]) for p in paths if p}) < 2:
        depth += 1
    return depth


def _outline_row(name: str, klass: str, count: str, idx: list[int], at: list[Optional[int]],
                 inputs: Optional[list[bool]], key: str, unit: str, *, shown: str = "", cls: str = "") -> Row:
    ops = [i for i in idx if not (inputs and inputs[i])] or idx  # the inputs sit at the top of the code
    found = sorted(line for line in (at[i] for i in ops) if line)
    where: Runs = ""
    if found:
        text = f"lines {found[0]:,}–{found[-1]:,}" if found[-1] != found[0] else f"line {found[0]:,}"
        where = [{"code": text, "line": found[0], "key": key}, {"muted": f" ({shown})"} if shown else ""]
    row: Row = {"c": [name, klass, count, where], "text": f"{name}  {klass}  {count} {unit}"}
    if cls:
        row["cls"] = cls
    return row


# ---- guards ----

def guard_families(s: Structure) -> list[Repeat]:
    """The families whose guards fold into groups (none: the guards are one table)."""
    if s.stage("guards") is None:
        return []
    return [r for r in s.repeats_of("guards") if len(r.members) >= FOLD_GUARDS_AT]


def guard_groups(s: Structure, rows: list[Row], head: list[str]) -> list[Block]:
    """The guards (``rows``: one per guard, in order) as: per family one folded group (one member's guards; every
    alike member checks the same, with its own index), then each member that differs, then the guards of no
    repeated member."""
    st = s.stage("guards")
    reps = guard_families(s)
    paths = [st.paths[i] for i in st.of] if st is not None else []

    def table(idx: list[int]) -> Table:
        return {"t": "table", "cls": "cx-guards", "key": "guards:0", "rows": [rows[i] for i in idx], "head": head}

    owned = {}
    for r in reps:
        for name in r.members:
            owned[r.path(name)] = r
    member = [_member(p, owned) for p in paths]
    loose = [i for i, m in enumerate(member) if m is None]
    out: list[Block] = []
    for r in reps:
        idx_of: dict[str, list[int]] = {}
        for i, m in enumerate(member):
            if m is not None and m[0] is r:
                idx_of.setdefault(m[1], []).append(i)
        g0 = r.groups[0]
        rep = g0.members[0]
        title = (f"{group_title(r)}: {counted(g0.size, 'guard')} each, {len(g0.members) * g0.size:,} in all — "
                 f"{r.path(rep)}'s shown, the others check the same with their own index")
        out.append(group("cx-rep cx-rep-same", title, [table(idx_of.get(rep, []))]))
        for k, g in enumerate(r.groups[1:], 1):
            first = g.members[0]
            gone, new = changed_lines(g)
            n = max(gone, new)
            title = (f"{group_title(r, k)}: {counted(g.size, 'guard')}, {n} of them unlike {r.path(rep)}'s"
                     if n else f"{group_title(r, k)}: {counted(g.size, 'guard')}")
            diff = diff_block(f"the diff: {r.path(rep)} (−) and {r.path(first)} (+)", g)
            every = group("cx-rep", f"all {counted(g.size, 'guard')} of {r.path(first)}",
                          [table(idx_of.get(first, []))])
            out.append(group("cx-rep cx-rep-odd", title, [diff, every]))
    if loose:
        text = (f"The other {counted(len(loose), 'guard')} (the function's inputs and globals, modules outside the "
                "families)")
        out += [{"t": "h", "r": text, "text": text}, table(loose)]
    return out


def group(cls: str, title: str, body: list[Block]) -> Details:
    """A folded group: its rows are drawn when it is opened (``lazy``), so an 80-layer pane stays small."""
    return {"t": "details", "cls": cls, "lazy": True, "s": title, "body": body}


def _member(path: str, owned: dict[str, Repeat]) -> Optional[tuple[Repeat, str]]:
    parts = path.split(".") if path else []
    for k in range(len(parts), 0, -1):
        r = owned.get(".".join(parts[:k]))
        if r is not None:
            return r, parts[k - 1]
    return None


# ---- kernels ----

def launch_texts(s: Structure) -> dict[tuple[str, str], str]:
    """Per kernel (graph kind, name), who launches it: ``defined once, launched 80×, by model.layers.0–79``."""
    fams = {r.path(m): r for r in s.repeats_of("kernels") for m in r.members}
    by_kernel: dict[tuple[str, str], list[str]] = {}
    for k in s.launches:
        top = k.modules[0] if k.modules else ""
        by_kernel.setdefault((k.graph_kind, k.kernel), []).append(_launcher(top, fams))
    return {key: launched_text(who) for key, who in by_kernel.items()}


def launched_note(text: str) -> P:
    """A kernel's line saying who launches it (``launch_texts``)."""
    return {"t": "p", "cls": "cx-launches", "r": text, "text": text}


def launch_families(s: Structure) -> list[Block]:
    """Over the kernels: whether each family's members launch the same ones (none without launches)."""
    reps = s.repeats_of("kernels")
    if not reps or not s.launches:
        return []
    items: list[Item] = []
    for r in reps:
        for k, g in enumerate(r.groups):
            if k == 0:
                calls = noun(g.size, "kernel or library call", "kernels and library calls")
                text = f"{group_title(r)} launch the same {g.size:,} {calls} each"
                items.append({"r": text, "text": text})
            else:
                text = f"{group_title(r, k)}: {counted(g.size, 'launch', 'launches')}"
                items.append({"r": text, "text": text, "body": [diff_block("the diff of their launches", g)]})
    return [{"t": "details", "cls": "cx-rep", "open": True, "s": "Launches by module",
             "body": [{"t": "list", "items": items}]}]


def _launcher(path: str, fams: dict[str, Repeat]) -> str:
    parts = path.split(".") if path else []
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in fams:
            return ".".join(parts[:k])
    return path


def launched_text(who: list[str]) -> str:
    """``defined once, launched 80×, by model.layers.0–79``; a module launching it more than once says how often."""
    n = len(who)
    counts = Counter(who)
    by_parent: dict[str, list[str]] = {}
    total: dict[str, int] = {}
    for p, k in counts.items():
        parent, _, last = p.rpartition(".")
        key = parent if last.isdigit() else p
        if last.isdigit():
            by_parent.setdefault(parent, []).append(last)
        else:
            by_parent.setdefault(p, [])
        total[key] = total.get(key, 0) + k
    names = []
    for parent, ms in by_parent.items():
        name = members_text(parent, ms) if ms else (parent or "the compiled function itself")
        each = len(ms) or 1
        names.append(name if total[parent] == each else f"{name} ({total[parent]}×)")
    if n == 1:
        return f"launched once, by {names[0]}"
    return f"defined once, launched {n}×, by {', '.join(names)}"
