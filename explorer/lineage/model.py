"""The chain's data: one compilation's lines of every stage and the user lines they came from.

Plain frozen dataclasses (``explorer.lineage`` says how they are stored and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Optional

from ..capturing.compile_id import CompileKey


class Origin(NamedTuple):
    """A user line an element came from: the file as the capture names it, and the line in it.

    A tuple (cheap to hash and compare, ordered by file then line, as the chain keeps origin sets); in the JSON an
    object ``{"file", "line"}``. The views' ``data-origin`` attribute writes it ``FILE:LINE``
    (``present.fmt.origin_key``, and the front end's ``originKey``): built from these two, never split.
    """

    file: str
    """The file, as the capture names it: a script's or module's path, a notebook cell's file name."""
    line: int
    """The line in it (1-based)."""


@dataclass(frozen=True)
class LineLink:
    """One line of one stage's text and the user lines it came from."""

    stage: str  # a stage id of explorer.stages ("kernels" for a kernel's source)
    line: int  # 1-based line of that text as shown
    origins: tuple[Origin, ...] = ()  # the user lines; empty: no user line (glue)
    part: int = 0  # which item of the stage's content (IR dump, wrapper module, kernel) the line is in
    kernel: Optional[str] = None  # for stage "kernels": the kernel's name
    element: Optional[str] = None  # what the line defines: an FX node, a buffer, a scheduler node


# what a text's links were read from, by stage (kernels and wrappers say which of torch's records served)
SOURCES = {
    "source": "the code object's own lines",
    "inlined": "the lines of a function Dynamo inlined into the frame (its code object as Dynamo listed it; in a "
               "trace read from a file, found from the graph's stack traces)",
    "original_bytecode": "the code object's line table",
    "rewritten_bytecode": "the line table; Dynamo's calls of the graph and resume functions by their names",
    "decompiled": "the rewritten code's calls by name (inferred for the graph-break line)",
    "graph": "torch's stack traces (the # File: comments); nodes without one inherit (inferred)",
    "ir": "the call writing each scheduler node's buffers; loop-body lines matched by op (inferred)",
    "provenance": "torch's provenance (kernel -> post-grad nodes); lines inside matched by op (inferred)",
    "kernel_trace": "torch's per-kernel record (kernel_information.json or the op trace) and its provenance; "
                    "lines inside matched by op (inferred)",
    "fragment": "the kernel's Graph fragment header (no provenance record); lines inside matched by op (inferred)",
    "nodes": "the kernel's source-node comment (no provenance record); lines inside matched by op (inferred)",
    "by_name": "no provenance record: kernel calls by their Graph fragment header, library calls by op name in "
               "graph order (inferred)",
    "wrapper_provenance": "torch's provenance debug handles (each call -> the post-grad nodes it computes); "
                          "allocations follow the call writing their buffer",
}


@dataclass(frozen=True)
class TextLines:
    """The lines of one text a view shows: a stage's text, one IR dump or wrapper module, one kernel."""

    stage: str
    """a stage id of `explorer.stages`."""
    part: int = 0  # index into the stage's content when it is a list (IR dumps, wrapper modules, kernels)
    """The index in the stage's list: which IR dump, which wrapper module, which kernel."""
    kernel: Optional[str] = None  # stage "kernels": the kernel's name (part is its index in the compilation's kernels)
    """For stage `kernels`, the kernel's name."""
    runs: tuple[int, ...] = ()  # the lines' origin sets, run-length coded: (set index, how many lines) pairs, flat
    """The lines' origin sets, run-length coded as flat pairs `[set index, how many lines, ...]`."""
    elements: dict[str, str] = field(default_factory=dict)  # line number -> what that line defines
    """Line number -> what the line defines: an FX node, a scheduler node `op3`, a buffer `buf2`, the kernel a
    wrapper line calls, or the post-grad node a kernel line computes."""
    source: str = ""  # where the links came from (``SOURCES``): torch's own data, or inferred
    """Which record the links came from, in words (`explorer.lineage.SOURCES`)."""

    def sets_per_line(self) -> list[int]:
        """The index into ``Lineage.sets`` of each line (index 0 is line 1)."""
        out: list[int] = []
        for i in range(0, len(self.runs), 2):
            out.extend([self.runs[i]] * self.runs[i + 1])
        return out


@dataclass(frozen=True)
class Lineage:
    """One compilation's chain: every line of every stage, with the user lines it came from."""

    compile_id: CompileKey
    """The compilation."""
    origins: tuple[Origin, ...] = ()  # the user lines named anywhere here, each once
    """The user lines, each once."""
    sets: tuple[tuple[int, ...], ...] = ((),)  # distinct origin sets, as indices into origins; sets[0] == ()
    """The distinct sets of them, as indices into `origins`; `sets[0]` is the empty set."""
    texts: tuple[TextLines, ...] = ()
    """One per text a view shows."""

    def text(self, stage: str, part: int = 0) -> Optional[TextLines]:
        return next((t for t in self.texts if t.stage == stage and t.part == part), None)

    def origins_at(self, stage: str, line: int, part: int = 0) -> tuple[Origin, ...]:
        """The user lines of one line of one text (() for glue or a line not covered)."""
        t = self.text(stage, part)
        if t is None or line < 1:
            return ()
        for i in range(0, len(t.runs), 2):
            if line <= t.runs[i + 1]:
                return tuple(self.origins[j] for j in self.sets[t.runs[i]])
            line -= t.runs[i + 1]
        return ()

    def iter_links(self) -> Iterator[LineLink]:
        named = [tuple(self.origins[i] for i in s) for s in self.sets]
        for t in self.texts:
            for i, idx in enumerate(t.sets_per_line()):
                yield LineLink(t.stage, i + 1, named[idx], t.part, t.kernel, t.elements.get(str(i + 1)))

    @property
    def links(self) -> tuple[LineLink, ...]:
        """One LineLink per line of every text."""
        return tuple(self.iter_links())

    def reached_from(self, origin: Origin) -> tuple[LineLink, ...]:
        """Every line that came from the user line ``origin`` (``Origin(file, line)``)."""
        return tuple(link for link in self.iter_links() if origin in link.origins)
