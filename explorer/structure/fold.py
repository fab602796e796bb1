"""Repeated siblings (``layers.0`` … ``layers.79``) compared member by member, in one stage.

A *family* is the numbered children of one container (an ``nn.ModuleList`` or ``nn.Sequential``). Each member
is written as a listing with its own names taken out (a node is its op, its shape and which earlier node of the
same member it reads; a guard is its check with the member's index written away; a kernel launch is the kernel
without its number), so two members compare equal exactly when they compute the same thing. Members that read
alike form a group; the biggest group comes first and every other group says how it differs from it: the
hunks of a diff of the two listings, as data (``present.member_diff`` writes them as a unified diff).
"""

from __future__ import annotations

import difflib
import re
from typing import Callable, Sequence

from ..capturing.inductor_code.kernels import unnumbered
from ..capturing.inductor_code.loop_ir import node_listing
from ..capturing.model import FxNode, Guard
from .model import Launch, ListingHunk, MemberGroup, Repeat, member_key
from .paths import short_class

MAX_DIFF_LINES = 40  # a diff is for reading: the head of a long one, and how many lines were left out


def families(paths: Sequence[str]) -> dict[str, list[str]]:
    """Container path -> its numbered members, for containers with two or more: the outermost only (a family
    inside a member of another is compared as part of that member)."""
    found: dict[str, set[str]] = {}
    for path in set(paths):
        parts = path.split(".") if path else []
        for k, part in enumerate(parts):
            if part.isdigit():
                found.setdefault(".".join(parts[:k]), set()).add(part)
                break  # the outermost numbered step only
    return {p: sorted(ms, key=member_key) for p, ms in found.items() if len(ms) >= 2}


def repeats(stage: str, item_paths: Sequence[str], listing: Callable[[str, list[int]], list[str]],
            classes: dict[str, str]) -> list[Repeat]:
    """The families of a stage whose items belong to ``item_paths`` (one path per item), members compared
    by ``listing(member path, its item indices)``."""
    out = []
    for parent, members in sorted(families(item_paths).items()):
        full = {m: f"{parent}.{m}" if parent else m for m in members}
        items: dict[str, list[int]] = {m: [] for m in members}
        prefix = f"{parent}." if parent else ""
        for i, path in enumerate(item_paths):  # the step after the parent's names the member (an 80-layer graph's
            if path.startswith(prefix):         # 60,000 nodes against 80 members each took seconds a stage)
                got = items.get(path[len(prefix):].partition(".")[0])
                if got is not None:
                    got.append(i)
        listings = {m: listing(full[m], items[m]) for m in members}
        out.append(_grouped(stage, parent, members, listings, {m: classes.get(full[m], "") for m in members}))
    return out


def _grouped(stage: str, parent: str, members: list[str], listings: dict[str, list[str]],
             kinds: dict[str, str]) -> Repeat:
    by_listing: dict[tuple, list[str]] = {}
    for m in members:
        by_listing.setdefault((kinds[m], tuple(listings[m])), []).append(m)
    groups = sorted(by_listing.values(), key=lambda ms: (-len(ms), member_key(ms[0])))
    first = groups[0][0]
    kind = short_class(kinds[first])
    out = []
    for g in groups:
        m = g[0]
        diff, cut = ((), 0) if m == first else _diff(listings[first], listings[m])
        own = short_class(kinds[m])
        out.append(MemberGroup(members=tuple(g), size=len(listings[m]), diff=diff, kind=own if own != kind else "",
                               diff_cut=cut))
    return Repeat(stage=stage, parent=parent, kind=kind, groups=tuple(out))


def _diff(a: list[str], b: list[str]) -> tuple[tuple[ListingHunk, ...], int]:
    """The hunks of ``b`` against ``a`` (a line alike either side, as a unified diff has them) while the diff is at
    most ``MAX_DIFF_LINES`` lines long, a hunk's heading counted; and how many lines were left out."""
    hunks, room, cut = [], MAX_DIFF_LINES, 0
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(1):
        lines: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [(" ", x) for x in a[i1:i2]]
                continue
            lines += [("-", x) for x in a[i1:i2]]  # replace, delete: the first group's lines
            lines += [("+", x) for x in b[j1:j2]]  # replace, insert: this group's in their place
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        if room == 0:
            cut += 1 + len(lines)
            continue
        kept = lines[:room - 1]
        cut += len(lines) - len(kept)
        room -= 1 + len(kept)
        hunks.append(ListingHunk(i1, i2 - i1, j1, j2 - j1, tuple(x for _, x in kept), "".join(s for s, _ in kept)))
    return tuple(hunks), cut


# ---- listings: one line per item, the member's own names taken out ----

def graph_listing(nodes: Sequence[FxNode], paths: Sequence[str]) -> Callable[[str, list[int]], list[str]]:
    """A member's nodes: ``inner.module: target(inputs) -> type``, inputs as ``%k`` (the member's k-th node) or
    ``in`` (from outside the member). A constant made from nothing (``full``, ``iota``) is ``const`` wherever it
    sits: torch makes it once and shares it between layers, in whichever layer comes first."""
    made_from_nothing = {n.name for n in nodes if n.op not in ("placeholder", "output") and not n.inputs}

    def listing(member: str, idx: list[int]) -> list[str]:
        idx = [i for i in idx if nodes[i].name not in made_from_nothing]
        local = {nodes[i].name: k for k, i in enumerate(idx)}
        out = []
        for i in idx:
            node = nodes[i]
            rel = paths[i][len(member) + 1:] if paths[i] != member else ""
            args = ", ".join(f"%{local[x]}" if x in local else "const" if x in made_from_nothing else "in"
                             for x in node.inputs)
            what = "input" if node.op == "placeholder" else node.target
            out.append(f"{rel or '.'}: {what}({args}) -> {node.type or '?'}")
        return out
    return listing


def guard_listing(guards: Sequence[Guard], paths: Sequence[str]) -> Callable[[str, list[int]], list[str]]:
    """A member's guards: each check with the member's own index written ``*``."""
    def listing(member: str, idx: list[int]) -> list[str]:
        parent, _, name = member.rpartition(".")
        last = parent.rpartition(".")[2] if parent else "self"
        # the container's step (``._modules['layers']``, or the frame's ``L['layers']``) and then the member's
        own = re.compile(r"(\[['\"]" + re.escape(last) + r"['\"]\])\._modules\[['\"]" + re.escape(name) + r"['\"]\]")
        return [f"{guards[i].kind}: {own.sub(_star, guards[i].code)}" for i in idx]
    return listing


def _star(m: re.Match) -> str:
    return m.group(1) + "._modules[*]"


def kernel_listing(launches: Sequence[Launch]) -> Callable[[str, list[int]], list[str]]:
    """A member's kernel launches, in call order: the kernel without its number, and the inner module."""
    def listing(member: str, idx: list[int]) -> list[str]:
        out = []
        for i in idx:
            k = launches[i]
            top = k.modules[0] if k.modules else ""
            rel = top[len(member) + 1:] if top != member else ""
            out.append(f"{k.graph_kind} {unnumbered(k.kernel)} ({rel or '.'})")
        return out
    return listing


def ir_listing(text: str, starts: Sequence[int]) -> Callable[[str, list[int]], list[str]]:
    """A member's scheduler nodes in a loop-IR dump (each starting on row ``starts[i]``): each node's kind and the
    ops of its loop body (or the library call it makes), the names' numbers written away."""
    lines = text.split("\n")
    ends = list(starts[1:]) + [len(lines)]

    def listing(member: str, idx: list[int]) -> list[str]:
        return [line for i in idx for line in node_listing(lines, starts[i], ends[i])]
    return listing
