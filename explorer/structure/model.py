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
    """a stage id of `explorer.stages`, `guards`, or one loop-IR dump as `STAGE:PART` (`ir_pre_fusion:1`: the second
    dump before fusion, the backward's)."""
    paths: tuple[str, ...] = ()  # the module paths its items belong to, each once ("" the function itself)
    """The module paths its items belong to, each once, as the user names them (`model.layers.3.attn`); `""` is the
    compiled function itself, outside any module."""
    of: tuple[int, ...] = ()  # per item, in the stage's order: an index into ``paths``
    """Per item (the graph's nodes in order, the guards in order, or a loop-IR dump's scheduler nodes in order): an
    index into `paths`. Read from torch's printed records (parameter names, user lines, guard sources); inferred
    where a node reads no parameter (`explorer.structure.assign` says how); a scheduler node is in the module of most
    of the post-grad nodes it computes."""


@dataclass(frozen=True)
class Launch:
    """One call of a kernel (or a library call) in a generated wrapper, and the modules whose nodes it computes."""

    kernel: str  # the kernel's name as the wrapper calls it (cpp_fused_add_0, extern_kernels.mm)
    """The kernel (or library call) as the wrapper calls it."""
    graph_kind: str = ""  # forward | backward | inference
    """`forward`, `backward` or `inference`."""
    modules: tuple[str, ...] = ()  # the modules of the post-grad nodes it computes, most nodes first
    """The modules of the post-grad nodes torch's provenance says this call computes, most nodes first."""


@dataclass(frozen=True)
class ListingHunk:
    """One place where a group's listing differs from the family's first group's, with a line alike either side:
    lines ``first_start`` on (``first_count`` of them) of the first group's listing against ``this_start`` on
    (``this_count``) of this group's, lines counted from 0."""

    first_start: int
    """Where the hunk starts in the first group's listing (its first member's), counted from 0."""
    first_count: int
    """How many lines of the first group's listing it spans."""
    this_start: int
    """Where it starts in this group's listing, counted from 0."""
    this_count: int
    """How many lines of this group's listing it spans."""
    lines: tuple[str, ...] = ()
    """Its lines in order, from the two listings (the last hunk kept may be cut short: `diff_cut`):
    `inner.module: target(inputs) -> type` for a graph's node, a guard's check, a kernel launch, a loop-IR line."""
    sides: str = ""
    """Per line, whose it is: ` ` alike in both listings, `-` the first group's only, `+` this group's only."""


@dataclass(frozen=True)
class MemberGroup:
    """Members of one repeated family that are alike in one stage (same ops, shapes and inner modules)."""

    members: tuple[str, ...]  # their names under the family's parent ("0", "1", ...), in model order
    """The members' names under the container (`"0"`, `"1"`, ...), in model order."""
    size: int = 0  # nodes (guards, kernel launches) of one member
    """Nodes (guards, kernel launches, scheduler nodes) of one member."""
    diff: tuple[ListingHunk, ...] = ()
    """How these members differ from the first group: the hunks of a diff of the two listings, each member's own
    names written away (empty for the first group, and for members that differ only in their class)."""
    kind: str = ""
    """Their class, when it is not the family's."""
    diff_cut: int = 0
    """Lines of the diff left out (a hunk's heading counted as one): a diff is kept to its first 40 lines."""


@dataclass(frozen=True)
class Repeat:
    """Sibling modules of one container (``layers.0`` … ``layers.79``) compared in one stage.

    The first group holds the most members (the representative is its first member); every other
    group differs from it, and says how.
    """

    stage: str  # a graph stage id, "guards" or "kernels"
    """a stage id of `explorer.stages`, `guards`, `kernels`, or one loop-IR dump (`ir_post_fusion:0`)."""
    parent: str  # the container's path: model.layers
    """The container: `model.layers`."""
    kind: str = ""
    """The members' class (`Block`), when Dynamo's type guards name it."""
    groups: tuple[MemberGroup, ...] = ()
    """Members alike, the group with the most members first (its first member is the one the views show); every other
    group differs from it."""

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(sorted((m for g in self.groups for m in g.members), key=member_key))

    def path(self, member: str) -> str:
        return f"{self.parent}.{member}" if self.parent else member


@dataclass(frozen=True)
class Structure:
    """One compilation's modules: what each stage's items belong to, the kernels' launches, what repeats."""

    compile_id: str
    """The compilation."""
    classes: dict[str, str] = field(default_factory=dict)  # module path -> class (qualified), from type guards
    """Module path -> its class's qualified name, as Dynamo's type guards name it."""
    stages: tuple[StageModules, ...] = ()
    """Per graph stage (and `guards`, and each loop-IR dump), which module each item came from."""
    launches: tuple[Launch, ...] = ()  # every kernel and library call of the wrappers, in call order
    """Every kernel and library call of the generated wrappers, in call order."""
    repeats: tuple[Repeat, ...] = ()
    """Per stage (a graph stage, `guards`, `kernels`, a loop-IR dump), the numbered siblings of one container
    compared: the members alike in groups, the biggest first."""
    notes: tuple[str, ...] = ()
    """What could not be read, in words."""

    def stage(self, stage_id: str) -> Optional[StageModules]:
        return next((s for s in self.stages if s.stage == stage_id), None)

    def repeats_of(self, stage_id: str) -> tuple[Repeat, ...]:
        return tuple(r for r in self.repeats if r.stage == stage_id)


def member_key(name: str) -> tuple[int, str]:
    """Members in model order: ``2`` before ``10``."""
    return (int(name), "") if name.isdigit() else (1 << 30, name)
