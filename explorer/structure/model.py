"""The model's structure as data: which module each node, guard and kernel launch came from, and what repeats.

Plain frozen dataclasses (``explorer.structure`` says how they are read and why). A module path is a
string in the names the user writes (``model.layers.0.attn``; ``""`` is the compiled function itself,
outside any module). Stored once per compilation in ``Report.structure``, so the JSON says what the views fold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class StageModules:
    """Which module each item of one stage came from: the nodes of a graph (in order) or the guards."""

    stage: str  # a stage id of explorer.stages: graph, aot_forward, post_grad_graph_backward, ..., guards
    paths: tuple[str, ...] = ()  # the module paths its items belong to, each once ("" the function itself)
    of: tuple[int, ...] = ()  # per item, in the stage's order: an index into ``paths``


@dataclass(frozen=True)
class Launch:
    """One call of a kernel (or a library call) in a generated wrapper, and the modules whose nodes it computes."""

    kernel: str  # the kernel's name as the wrapper calls it (cpp_fused_add_0, extern_kernels.mm)
    graph_kind: str = ""  # forward | backward | inference
    modules: tuple[str, ...] = ()  # the modules of the post-grad nodes it computes, most nodes first


@dataclass(frozen=True)
class ListingHunk:
    """One place where a group's listing differs from the family's first group's, with a line alike either side:
    lines ``first_start`` on (``first_count`` of them) of the first group's listing against ``this_start`` on
    (``this_count``) of this group's, lines counted from 0."""

    first_start: int
    first_count: int
    this_start: int
    this_count: int
    lines: tuple[str, ...] = ()  # in order; the last hunk kept may be cut short (``MemberGroup.diff_cut``)
    sides: str = ""  # per line, whose it is: " " alike in both listings, "-" the first group's only, "+" this group's


@dataclass(frozen=True)
class MemberGroup:
    """Members of one repeated family that are alike in one stage (same ops, shapes and inner modules)."""

    members: tuple[str, ...]  # their names under the family's parent ("0", "1", ...), in model order
    size: int = 0  # nodes (guards, kernel launches) of one member
    diff: tuple[ListingHunk, ...] = ()  # how their listing differs from the family's first group's (none: alike)
    kind: str = ""  # their class, when it differs from the family's
    diff_cut: int = 0  # lines of the diff left out (a hunk's heading counted as one): a diff is read, not stored whole


@dataclass(frozen=True)
class Repeat:
    """Sibling modules of one container (``layers.0`` … ``layers.79``) compared in one stage.

    The first group holds the most members (the representative is its first member); every other
    group differs from it, and says how.
    """

    stage: str  # a graph stage id, "guards" or "kernels"
    parent: str  # the container's path: model.layers
    kind: str = ""  # the members' class (Block), when Dynamo's type guards name it
    groups: tuple[MemberGroup, ...] = ()

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(sorted((m for g in self.groups for m in g.members), key=member_key))

    def path(self, member: str) -> str:
        return f"{self.parent}.{member}" if self.parent else member


@dataclass(frozen=True)
class Structure:
    """One compilation's modules: what each stage's items belong to, the kernels' launches, what repeats."""

    compile_id: str
    classes: dict[str, str] = field(default_factory=dict)  # module path -> class (qualified), from type guards
    stages: tuple[StageModules, ...] = ()
    launches: tuple[Launch, ...] = ()  # every kernel and library call of the wrappers, in call order
    repeats: tuple[Repeat, ...] = ()
    notes: tuple[str, ...] = ()  # what could not be read, in words

    def stage(self, stage_id: str) -> Optional[StageModules]:
        return next((s for s in self.stages if s.stage == stage_id), None)

    def repeats_of(self, stage_id: str) -> tuple[Repeat, ...]:
        return tuple(r for r in self.repeats if r.stage == stage_id)


def member_key(name: str) -> tuple[int, str]:
    """Members in model order: ``2`` before ``10``."""
    return (int(name), "") if name.isdigit() else (1 << 30, name)
