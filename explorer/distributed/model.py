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

    kind: str
    """`raised`, `exit`, `terminated`, `interrupted` or `missing`."""
    message: str  # "RuntimeError: boom", "exit code 3", "terminated by SIGTERM ...", "wrote no part ..."
    """What happened."""
    exit_code: Optional[int] = None
    """The exit code."""
    filename: Optional[str] = None  # the script's line the exception came from
    """The user line's file."""
    lineno: Optional[int] = None
    """The user line."""
    source_line: Optional[str] = None
    """Its text."""
    traceback: str = ""  # the script's frames, as Python prints them
    """The traceback."""

    def one_line(self) -> str:
        where = f" ({_base(self.filename)}:{self.lineno})" if self.filename and self.lineno else ""
        return f"{self.message.splitlines()[0] if self.message else self.kind}{where}"


@dataclass(frozen=True)
class RankInfo:
    """The process that wrote a rank's part: its place in the job (torchrun's environment) and its end."""

    rank: int
    """The rank."""
    world_size: int
    """The world size."""
    local_rank: Optional[int] = None
    """Its rank on its machine."""
    local_world_size: Optional[int] = None
    """Ranks on its machine."""
    node_rank: Optional[int] = None  # torchrun's GROUP_RANK
    """Its machine: torchrun's `GROUP_RANK`."""
    host: str = ""
    """Its host name."""
    pid: Optional[int] = None
    """Its process id."""
    run_id: Optional[str] = None  # torchrun's TORCHELASTIC_RUN_ID: the same for every rank of one job
    """torchrun's, the same for every rank of one launch."""
    restart: int = 0  # TORCHELASTIC_RESTART_COUNT
    """torchrun's restart count (`TORCHELASTIC_RESTART_COUNT`)."""
    backend: Optional[str] = None  # the default process group's backend (gloo, nccl), when it was seen
    """The process group's backend."""
    started_at: Optional[float] = None  # seconds since the epoch
    """When it started, seconds since the epoch."""
    ended_at: Optional[float] = None
    """When it ended."""
    exit_code: Optional[int] = None
    """Its exit code."""
    failure: Optional[RankFailure] = None
    """`null`, or how it failed."""


@dataclass(frozen=True)
class RankCounts:
    """One rank in numbers, for the "ranks compared" table."""

    rank: int
    """The rank."""
    status: str  # ok | failed | missing
    """`ok`, `failed` or `missing`."""
    compilations: int = 0
    """Compilations."""
    graphs: int = 0
    """Graphs."""
    graph_breaks: int = 0
    """Graph breaks."""
    recompiles: int = 0
    """Recompiles."""
    guards: int = 0
    """Guards."""
    kernels: int = 0
    """Kernels."""
    collectives: int = 0
    """Collectives."""
    compile_time_s: float = 0.0
    """Compile time."""


@dataclass(frozen=True)
class RankGroup:
    """Ranks that compiled the same: the same compilations, graphs, guards, breaks, recompiles, collectives."""

    ranks: tuple[int, ...]
    """The ranks."""
    text: str  # "5 compilations, 2 graphs, 1 graph break, ..." (compile times differ and are given per rank)
    """The group in words."""


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
    """Its name, which `Difference.key` and `GraphCollectives.key` refer to it by: `step@train.py:10#0`. A name only:
    its parts are `frame`, `filename`, `lineno` and `nth`."""
    frame: str
    """The frame."""
    filename: str
    """Its file."""
    lineno: int
    """Its line."""
    nth: int
    """Which compilation of the frame."""
    compile_ids: dict[str, CompileKey] = field(default_factory=dict)
    """Rank -> compile id."""
    differs: tuple[str, ...] = ()  # what differs between the ranks that have it; empty when all agree
    """What differs."""

    @property
    def match(self) -> MatchKey:
        return MatchKey(self.frame, self.filename, self.lineno, self.nth)


@dataclass(frozen=True)
class Difference:
    """One way ranks differ, stated once, with the user line and the ranks concerned."""

    kind: str  # failure | missing | graph_break | recompile | compilation | graph | guards | collectives
    """`failure`, `missing`, `graph_break`, `recompile`, `compilation`, `graph`, `guards` or `collectives`."""
    text: str  # the whole statement: "rank 1 only: graph break at train.py:41 `print(x)`: ..."
    """The difference in words."""
    ranks: tuple[int, ...]
    """The ranks it concerns (the odd ones out)."""
    filename: Optional[str] = None
    """The user line's file."""
    lineno: Optional[int] = None
    """The user line."""
    key: Optional[str] = None
    """The compilation it concerns (a `MatchedCompilation` key; for a recompile, the compilation it made)."""
    hang: bool = False  # a collective issued in another order or kind: ranks can wait on each other forever
    """Whether it may hang the job (another order or kind of collective)."""


@dataclass(frozen=True)
class Collective:
    """One collective a graph issues (a functional collective node), with what must match across ranks."""

    op: str
    """`all_reduce`, `all_gather_into_tensor`, `reduce_scatter_tensor`, `all_to_all_single`, `broadcast`, ..."""
    target: str  # as the graph calls it: torch.ops._c10d_functional.all_reduce.default
    """The node's target."""
    node: str
    """The node."""
    group: Optional[str] = None
    """The process group's name (`"0"` is the default group)."""
    group_size: Optional[int] = None
    """Its size."""
    reduce_op: Optional[str] = None  # sum, avg, max, ...
    """The reduction."""
    type: Optional[str] = None
    """The result: `f32[4, 4]`."""
    input_type: Optional[str] = None
    """The input's type and size."""
    filename: Optional[str] = None  # the user line that issued it
    """The user line's file (inferred from the graph's own lines)."""
    lineno: Optional[int] = None
    """The user line."""
    code: Optional[str] = None
    """Its text."""
    # how that line was found: "graph" (the node's own stack trace, as the graph prints it), "call" (Dynamo's
    # trace_call log: the user line that called the library function making the node), "inferred" (the n-th
    # user line of the graph naming this kind of collective); "" when none was found
    line_from: str = ""
    """How its user line was found: `graph` (the node's stack), `call` (Dynamo's call stack, `call_sites`) or
    `inferred`."""
    operand: Optional[str] = None  # the graph input it reduces or gathers, by the user's name ("a", "self.w")
    """The graph input it combines, by the user's name (`a`, `self.weight`): two ranks issuing the same collectives
    on other values in another order are flagged as mixed values."""

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
    """The rank."""
    compile_id: CompileKey
    """The compilation."""
    key: str  # the MatchedCompilation key
    """The matched compilation's key."""
    stage: str  # the stage read: graph, aot_forward, aot_backward, aot_inference, post_grad_graph, ...
    """The stage read: `graph`, `aot_forward`, `aot_backward`, `post_grad_graph`, ..."""
    collectives: tuple[Collective, ...] = ()
    """Its collectives, in order."""


def _base(path: Optional[str]) -> str:
    return (path or "?").rsplit("/", 1)[-1]
