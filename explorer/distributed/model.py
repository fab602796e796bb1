"""A distributed job's report as plain data: who each rank was, what it compiled, where ranks differ.

A rank's *part* is an ordinary report whose ``distributed`` field says which rank made it
(``report.Distributed.rank`` and ``info``). A *merged* report holds the lowest rank that wrote a part at
its top level (so every single-report view shows it unchanged) and every rank in
``Distributed.ranks``, each as the report its part held (``report.RankRun``), with what the merge found
(the classes here): the ranks that compiled the same grouped, each difference stated once with its user
line and ranks, the collectives each graph issues, and notes. ``Distributed`` and ``RankRun`` live with the
``Report`` they hold (a rank's report is a whole report, so nothing of it can be left behind in a copy);
what the comparison reads of a rank is ``ComparedRank``. Frozen dataclasses of strings and numbers, like the
capture: no torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional, Protocol

from ..capturing.compile_id import CompileKey
from ..capturing.model import CaptureData
from ..clinic.fixlist import BreakSite
from ..clinic.recompiles import RecompileExplanation
from ..lineage import Lineage


class ComparedRank(Protocol):
    """What ``compare`` and the views read of one rank of a job (``report.RankRun`` is one): its number, how it
    ended, and what its report holds (``capture`` None: the rank left no report)."""

    @property
    def rank(self) -> int: ...

    @property
    def status(self) -> str: ...  # ok | failed | missing

    @property
    def info(self) -> Optional[RankInfo]: ...

    @property
    def failure(self) -> Optional[RankFailure]: ...

    @property
    def capture(self) -> Optional[CaptureData]: ...

    @property
    def fix_list(self) -> tuple[BreakSite, ...]: ...

    @property
    def recompiles(self) -> tuple[RecompileExplanation, ...]: ...

    @property
    def lineage(self) -> tuple[Lineage, ...]: ...


@dataclass(frozen=True)
class RankFailure:
    """How a rank ended other than normally, in words, and the user line where it did."""

    kind: str  # raised, exit, terminated, interrupted or missing
    message: str  # "RuntimeError: boom", "exit code 3", "terminated by SIGTERM ...", "wrote no part ..."
    exit_code: Optional[int] = None
    filename: Optional[str] = None  # the script's line the exception came from
    lineno: Optional[int] = None
    source_line: Optional[str] = None
    traceback: str = ""  # the script's frames, as Python prints them

    def one_line(self) -> str:
        where = f" ({_base(self.filename)}:{self.lineno})" if self.filename and self.lineno else ""
        return f"{self.message.splitlines()[0] if self.message else self.kind}{where}"


@dataclass(frozen=True)
class RankInfo:
    """The process that wrote a rank's part: its place in the job (torchrun's environment) and its end."""

    rank: int
    world_size: int
    local_rank: Optional[int] = None
    local_world_size: Optional[int] = None
    node_rank: Optional[int] = None  # torchrun's GROUP_RANK
    host: str = ""
    pid: Optional[int] = None
    run_id: Optional[str] = None  # torchrun's TORCHELASTIC_RUN_ID: the same for every rank of one job
    restart: int = 0  # TORCHELASTIC_RESTART_COUNT
    backend: Optional[str] = None  # the default process group's backend (gloo, nccl), when it was seen
    started_at: Optional[float] = None  # seconds since the epoch
    ended_at: Optional[float] = None
    exit_code: Optional[int] = None
    failure: Optional[RankFailure] = None


@dataclass(frozen=True)
class RankCounts:
    """One rank in numbers, for the "ranks compared" table."""

    rank: int
    status: str  # ok | failed | missing
    compilations: int = 0
    graphs: int = 0
    graph_breaks: int = 0
    recompiles: int = 0
    guards: int = 0
    kernels: int = 0
    collectives: int = 0
    compile_time_s: float = 0.0


@dataclass(frozen=True)
class RankGroup:
    """Ranks that compiled the same: the same compilations, graphs, guards, breaks, recompiles, collectives."""

    ranks: tuple[int, ...]
    text: str  # "5 compilations, 2 graphs, 1 graph break, ..." (compile times differ and are given per rank)


class MatchKey(NamedTuple):
    """Which compilation of which frame, as ranks are matched: the frame (name, file, first line) and how many times
    it was compiled before (``nth``). Its ``text`` is a ``MatchedCompilation``'s ``key``: a name other parts of the
    report refer to it by (``Difference.key``, ``GraphCollectives.key``), written here and never split."""

    frame: str
    filename: str
    lineno: int
    nth: int

    @property
    def site(self) -> str:
        """``step@train.py:12``: the frame, in words."""
        return f"{self.frame}@{_base(self.filename)}:{self.lineno}"

    @property
    def text(self) -> str:
        """``step@train.py:12#0``."""
        return f"{self.site}#{self.nth}"


@dataclass(frozen=True)
class MatchedCompilation:
    """One compilation as each rank numbered it: the same frame, compiled for the same time (``nth``).

    Compile ids are counters of each process, so a rank that broke or recompiled where the others
    did not numbers everything after it differently; frames and their order do not shift.
    ``compile_ids`` maps a rank (as text, a JSON key) to its compile id.
    """

    key: str  # "step@train.py:12#0" (MatchKey.text): a name for references; its parts are the fields below
    frame: str
    filename: str
    lineno: int
    nth: int
    compile_ids: dict[str, CompileKey] = field(default_factory=dict)
    differs: tuple[str, ...] = ()  # what differs between the ranks that have it; empty when all agree

    @property
    def match(self) -> MatchKey:
        return MatchKey(self.frame, self.filename, self.lineno, self.nth)


@dataclass(frozen=True)
class Difference:
    """One way ranks differ, stated once, with the user line and the ranks concerned."""

    kind: str  # failure | missing | graph_break | recompile | compilation | graph | guards | collectives
    text: str  # the whole statement: "rank 1 only: graph break at train.py:41 `print(x)`: ..."
    ranks: tuple[int, ...]  # the ranks it concerns (the odd ones out)
    filename: Optional[str] = None
    lineno: Optional[int] = None
    key: Optional[str] = None  # the MatchedCompilation it concerns (a recompile: the one it made), if one
    hang: bool = False  # a collective issued in another order or kind: ranks can wait on each other forever


@dataclass(frozen=True)
class Collective:
    """One collective a graph issues (a functional collective node), with what must match across ranks."""

    op: str  # all_reduce, all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single, broadcast, ...
    target: str  # as the graph calls it: torch.ops._c10d_functional.all_reduce.default
    node: str
    group: Optional[str] = None  # the process group's name ("0" is the default group)
    group_size: Optional[int] = None
    reduce_op: Optional[str] = None  # sum, avg, max, ...
    type: Optional[str] = None  # the result: "f32[4, 4]"
    input_type: Optional[str] = None
    filename: Optional[str] = None  # the user line that issued it
    lineno: Optional[int] = None
    code: Optional[str] = None
    # how that line was found: "graph" (the node's own stack trace, as the graph prints it), "call" (Dynamo's
    # trace_call log: the user line that called the library function making the node), "inferred" (the n-th
    # user line of the graph naming this kind of collective); "" when none was found
    line_from: str = ""
    operand: Optional[str] = None  # the graph input it reduces or gathers, by the user's name ("a", "self.w")

    def signature(self) -> str:
        """What two ranks must agree on for the collective to match: kind, group, reduction, size."""
        parts = [p for p in (self.reduce_op, f"group {self.group}" if self.group is not None else None,
                             self.input_type) if p]
        return f"{self.op}({', '.join(parts)})"

    def identity(self) -> Optional[str]:
        """What the collective combines, as ranks must agree on it beyond kind and size: the input it reads,
        else the user code that issued it (its text: ranks in different branches have different line numbers
        for the same call); None when neither is known."""
        if self.operand:
            return self.operand
        return self.statement() if self.code and self.line_from in ("graph", "call") else None

    def statement(self) -> str:
        """The code of its user line, without a trailing comment."""
        quote = None
        text = self.code or ""
        for i, ch in enumerate(text):
            if quote is None and ch == "#":
                return text[:i].strip()
            if ch in "'\"":
                quote = None if quote == ch else ch if quote is None else quote
        return text.strip()

    def described(self) -> str:
        """``all_reduce(sum, group 0, f32[64]) of a``: the signature and what it combines, when known."""
        return self.signature() + (f" of {self.operand}" if self.operand else "")


@dataclass(frozen=True)
class GraphCollectives:
    """The collectives of one graph of one rank, in the order the graph issues them."""

    rank: int
    compile_id: CompileKey
    key: str  # the MatchedCompilation key
    stage: str  # the stage read: graph, aot_forward, aot_backward, aot_inference, post_grad_graph, ...
    collectives: tuple[Collective, ...] = ()


def _base(path: Optional[str]) -> str:
    return (path or "?").rsplit("/", 1)[-1]
