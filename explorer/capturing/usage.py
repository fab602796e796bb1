"""How real programs use torch.compile, as plain data: caches, compiled regions, guard filters, export.

Every capture leaves torch's caches on, as a plain run has them (``--fresh``
turns the graph caches off); these records say what the caches did for each
compilation (which cache served which stage), which parts of a frame torch
compiled apart (``nested_compile_region``) or left alone (``disable``,
``nonstrict_trace``), which guards a ``guard_filter_fn`` dropped, and what
``torch.export`` and AOTInductor made of a model. Frozen values of strings and
numbers, like the rest of ``model``; no torch here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .compile_id import CompileKey
from .graph_model import FxGraph


@dataclass(frozen=True)
class CacheLookup:
    """One cache torch consulted while compiling, and what came of it.

    ``cache``: ``fx_graph`` (Inductor's compiled graph, keyed by the post-grad
    graph and config), ``aotautograd`` (AOTAutograd's forward/backward, which
    then loads Inductor's entries), ``dynamo`` (the precompile cache of whole frames).
    """

    cache: str
    """`fx_graph`, `aotautograd` or `dynamo`."""
    outcome: str  # hit | miss | bypass | ... (torch's cache_state)
    """`hit`, `miss` or `bypass`."""
    key: Optional[str] = None
    """The entry's key."""
    graph_kind: str = ""  # fx_graph: the lowering it served (forward | backward | inference)
    """`forward`, `backward` or `inference`."""
    detail: str = ""  # torch's cache_status_detailed, or why the cache was bypassed
    """torch's reason for a bypass, and other details."""
    time_saved_s: Optional[float] = None  # hit: the compile time the entry saves, as torch measured it when filled
    """A hit: what the cold compile that filled the entry took, as torch measured it."""
    time_taken_s: Optional[float] = None  # miss: what the compile that fills the entry took
    """A miss: this compile's time."""
    bundled_kernels: tuple[str, ...] = ()  # Triton kernels the entry brought along (loaded, not compiled)
    """Triton kernels the entry brought."""
    why: Optional[KeyComparison] = None  # a miss: its key's components against the last seen for the same lines
    """A miss: which components of its key differ from the last lookup of the same lines (`capturing.cache_keys`)."""


@dataclass(frozen=True)
class KeyChange:
    """One component of a cache key that differs from the last lookup of the same lines (torch's ``components``:
    one line per input of the key, ``[<hash>] <component>: <value>``)."""

    component: str  # torch's name: gm, example_inputs[0], inductor_config[max_autotune], cache_key_tag, ...
    """torch's name of the component: `gm`, `inductor_config[max_autotune]`, `cache_key_tag`; an input's field after
    a dot: `example_inputs[0].dtype`."""
    words: str  # "graph input 0's dtype: float32 -> float16", "Inductor config max_autotune: False -> True"
    """The change in words: `graph input 0's dtype: float32 -> float16`, `Inductor config max_autotune: False ->
    True`."""
    old: str = ""
    """The value before (shortened), "" where the component was not there."""
    new: str = ""
    """The value now (shortened), "" where the component is gone."""
    diff: str = ""  # gm: a short unified diff of the graph's text
    """The graph's code: a short diff of its text (torch's print of the graph it keys)."""
    filename: Optional[str] = None  # the user line it applies to (an input's or the graph's: the frame's)
    """The user's file the change applies to (the compiled frame's), None for a setting."""
    lineno: Optional[int] = None
    """That line."""


@dataclass(frozen=True)
class KeyComparison:
    """Why a cache lookup missed: its key's components against the last ones seen for the same lines.

    ``against``: ``earlier`` (an earlier lookup in this capture or trace, ``compile_id``), ``stored`` (the last
    capture of the same lines, kept in the explorer's key store, ``at``), ``none`` (nothing to compare with: the
    first capture of these lines, lowered cold) or ``unknown`` (torch wrote no components, ``note`` says why).
    """

    against: str  # earlier | stored | none | unknown
    """`earlier` (a lookup earlier in this run), `stored` (the last capture of the same lines), `none` (no earlier
    capture of these lines) or `unknown` (torch wrote no components: `note`)."""
    changes: tuple[KeyChange, ...] = ()
    """The components that differ, most telling first (empty: the same key, see `note`)."""
    compile_id: str = ""  # earlier: the compilation whose lookup it is compared with (0/0)
    """`earlier`: the compilation whose lookup it was compared with (`0/0`)."""
    at: Optional[float] = None  # stored: when that capture ran (epoch seconds)
    """`stored`: when that capture ran (seconds since the epoch)."""
    more: int = 0  # changes left out of ``changes`` (a long tail of config values)
    """How many more components differ than `changes` lists."""
    note: str = ""
    """Why there is no comparison, or what the same components mean."""


@dataclass(frozen=True)
class StoredStages:
    """What the explorer's stage store did for one graph an FX graph cache hit served (``capturing.stage_store``).

    A hit skips lowering: torch writes the post-grad graph, the output code and its provenance again from the
    entry, not the loop-level IR or the runtime estimates. ``replayed``: a capture lowered this graph before and
    the store gave back its records (``records``, as torch wrote them then, ``lowered_at``); ``missing``: the store
    has none for it (``records`` are those a hit skips, ``detail`` says why).
    """

    outcome: str  # replayed | missing
    """`replayed` (the store gave them back) or `missing` (it has none for this lowering)."""
    records: tuple[str, ...]  # torch's record names: ir_pre_fusion, ir_post_fusion, artifact:inductor_runtime_...
    """torch's record names: `ir_pre_fusion`, `ir_post_fusion`, `artifact:inductor_runtime_and_tensor_meta`, ..."""
    key: Optional[str] = None
    """The FX graph cache key of the hit."""
    graph_kind: str = ""  # the lowering it served (forward | backward | inference)
    """`forward`, `backward` or `inference`."""
    lowered_at: Optional[float] = None  # replayed: when the capture that lowered the graph stored them (epoch s)
    """When the capture that lowered the graph stored them (seconds since the epoch)."""
    detail: str = ""
    """`missing`: why the store could not give them."""


@dataclass(frozen=True)
class Region:
    """A part of a compiled frame torch treats apart.

    ``nested_compile_region``: compiled once into its own subgraph and called
    ``calls`` times (``invoke_subgraph``); ``disable``: a ``torch.compiler.disable``d
    function, which the graph breaks around and runs as plain Python;
    ``nonstrict_trace``: a ``torch._dynamo.nonstrict_trace`` function, called
    opaquely from the graph without Dynamo tracing its body.
    """

    kind: str  # nested_compile_region | disable | nonstrict_trace
    """`nested_compile_region`, `disable` or `nonstrict_trace`."""
    name: str  # the subgraph's name (subgraph_0) or the function's
    """The region's or function's name."""
    calls: int = 0  # how often the compiled frame calls it
    """How many times the frame calls it."""
    graph: Optional[FxGraph] = None  # nested_compile_region: the region's own Dynamo graph, compiled once
    """A region's own graph, once."""
    aot_name: Optional[str] = None  # its name after AOTAutograd and in the wrapper (repeated_subgraph0)
    """Its AOTAutograd name (`repeated_subgraph0`)."""
    kernels: tuple[str, ...] = ()  # the kernels and library calls its compiled body runs, reused by every call
    """What its compiled body runs, reused by every call."""
    filename: Optional[str] = None  # the user line that calls it
    """The calling line's file."""
    lineno: Optional[int] = None
    """The calling line."""
    source: Optional[str] = None
    """The calling line's text."""
    options: Optional[str] = None  # per-region options, where torch's trace states them
    """Per-region options, where torch states them."""
    note: str = ""
    """What the view says about it."""


@dataclass(frozen=True)
class FilteredGuard:
    """One guard a ``guard_filter_fn`` was asked about (``torch._dynamo.types.GuardFilterEntry``)."""

    kept: bool
    """Whether the filter kept it."""
    kind: str  # TENSOR_MATCH, TYPE_MATCH, CONSTANT_MATCH, ...
    """The guard's kind."""
    subject: str  # the guarded value, e.g. G['m']._modules['0']._parameters['weight']
    """The guarded value."""
    value: Optional[str] = None
    """The value it was compiled for, shortened."""
    derived: tuple[str, ...] = ()
    """The guard kinds it stands for (torch's `derived_guard_types`)."""
    is_global: bool = False
    """Whether it guards a global."""
    filename: Optional[str] = None  # the user line that made it (else the innermost line torch recorded)
    """The user line that made it (else the innermost line torch recorded): its file."""
    lineno: Optional[int] = None
    """The line that made it."""
    source: Optional[str] = None
    """That line's text."""


@dataclass(frozen=True)
class ExportSpec:
    """One input or output of an exported program (torch's graph signature)."""

    kind: str  # USER_INPUT, PARAMETER, BUFFER, CONSTANT_TENSOR, USER_OUTPUT, ...
    """`USER_INPUT`, `PARAMETER`, `BUFFER`, `USER_OUTPUT`, ..."""
    name: str  # the placeholder or output node
    """The graph's name for it."""
    target: Optional[str] = None  # the module attribute it stands for (lin.weight)
    """The attribute it stands for (`lin.weight`)."""
    type: Optional[str] = None  # e.g. f32[s77, 8]
    """Its type and shape (`f32[s77, 8]`)."""


@dataclass(frozen=True)
class RangeConstraint:
    """A dynamic dimension's symbol and the range export proved for it."""

    symbol: str  # s77
    """The symbol (`s77`)."""
    low: Optional[str] = None
    """The lowest value."""
    high: Optional[str] = None  # "int_oo" when unbounded, as torch prints it
    """The highest value; `int_oo` when unbounded, as torch prints it."""
    sources: tuple[str, ...] = ()  # where it appears: x.size(0)
    """Where it comes from, such as `x.size(0)`."""


@dataclass(frozen=True)
class Decomposition:
    """One node of the exported program and the post-grad nodes AOTInductor lowered it to (torch's provenance)."""

    node: str
    """The exported node."""
    op: str  # e.g. aten.linear.default
    """Its op."""
    into: tuple[str, ...] = ()
    """The post-grad nodes it became."""
    into_ops: tuple[str, ...] = ()
    """Their ops."""

    @property
    def decomposed(self) -> bool:
        return bool(self.into_ops) and tuple(self.into_ops) != (self.op,)


@dataclass(frozen=True)
class PackageFile:
    """One file of an AOTInductor package."""

    name: str
    """The file's path in the package."""
    size: int  # bytes
    """Its size in bytes."""


@dataclass(frozen=True)
class ExportedProgram:
    """A ``torch.export`` program: its graph, signature and ranges, and the AOTInductor compile made from it."""

    text: str  # torch's own print of the program (graph, signature, range constraints)
    """torch's print of the program."""
    graph: Optional[FxGraph] = None
    """Its graph."""
    inputs: tuple[ExportSpec, ...] = ()
    """User inputs, parameters with their attribute, buffers."""
    outputs: tuple[ExportSpec, ...] = ()
    """Its outputs."""
    range_constraints: tuple[RangeConstraint, ...] = ()
    """The ranges export proved for its dynamic dimensions."""
    compile_id: Optional[CompileKey] = None  # the AOTInductor compilation made from it (``aoti/0``), if any
    """Its AOTInductor compilation, `aoti/N`."""
    decompositions: tuple[Decomposition, ...] = ()
    """What each exported node was lowered to (torch's provenance)."""
    package_path: Optional[str] = None  # the .pt2 package AOTInductor wrote, when known
    """The `.pt2` package."""
    package_files: tuple[PackageFile, ...] = ()
    """The package's files."""
    notes: tuple[str, ...] = ()
    """What the view says."""
