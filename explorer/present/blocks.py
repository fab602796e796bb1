"""The view model's blocks: one ``TypedDict`` per kind, every key a renderer reads (the front end, the static copy
``present.html``, the text ``present.text``), checked by mypy (``pyproject.toml``, ``[tool.mypy]``).

This module is the list of kinds: a key a renderer reads that is not typed here is a defect (the front end's
JSDoc typedefs mirror these, ``frontend/src/``). A block is ``{"t": KIND, ...}``; keys a kind may leave out are in
its ``total=False`` half. A renderer only knows how to draw these kinds; a new pane or section adds blocks, never a
renderer's branch.

Blocks:
  p        {r, [cls], [interactive]}          a paragraph of inline runs; ``interactive``: only views that light
                                              lines draw it (the hint "hover or click a line")
  h        {r, [cls]}                         a small heading
  note     {r, cls, [stage]}                  a coloured box: cx-missing (why not), cx-bad (failed), cx-finding;
                                              ``stage``: a finding's, shown at the top of that stage's pane
  list     {items: [Item], [ordered], [cls]}
  table    {rows: [Row], [head], [cls], [key], [caption]}
           key: the lineage block of the rows (row i is line i + 1 of it, or the row's own ``line``)
  code     {key, src, lang, [first], [linenos], [marks], [title], [sub], [file]}
           key: the lineage block (``context.block_key``: ``STAGE:PART``, ``kernels:REF``; a name, never split);
           src: the text's path in the compilation (``"graph.code"``, ``"kernels.3.source"``), which the renderer
           reads from the report it has; marks: rows (1-based) to mark; file: the user file the text is (its lines
           link to themselves)
  details  {s: runs, body: [blocks], [open], [cls], [lazy]}   lazy: its body is drawn when first opened
  section  {title, body, [open]}              a header section (the fix list, recompiles)
  div      {body, cls, [data], [id], [fold]}  a group (one kernel: data {"kernel": name, "ref": ref}); fold: a
                                              summary under which a long page may fold it
  graph    {stage, code: code block, num_nodes, [folded]}   an FX graph: its code and its picture; folded: why the
                                              picture is drawn folded (``present.fold_picture``)
  chart    {title, rows: [[label, value, text, colour]]}   bars
  svg      {svg, title, links}                a picture drawn in Python (``timeline_svg``), the same in every view;
                                              its elements' ``data-link="i"`` lead to ``links[i]`` (``Go``)
  button   {r, go: {stage, [diff]}}           interactive views only: moves the pane (static views skip it); diff:
                                              the pane to diff against (``diff_view.side``)
  diff     a pane against another, computed in Python (``present.diff_view`` has its format)
Every block may carry ``text`` (its plain form where its runs would not read as a line: the text summary prints it
instead; a list of strings is several lines; on a section, its heading line) and ``summary: False`` (left out of
the text). A table row (``Row``) or a list item (``Item``) may carry ``go`` (``Go``: where a click on it leads in
the interactive views: a rank, its compilation and stage, a diff's other side, user lines to light; static views
ignore it), ``origin`` (its own user line), ``cls``, ``text`` and ``summary``; a row ``th`` (its first cell heads
it) and ``line`` (its line of the table's ``key``, where rows are not in order: a folded group's).
An origin (``Origin``) is a user line as an object ``{file, line}`` (``fmt.origin_of``; the views write it
``FILE:LINE`` in their ``data-origin`` attribute, ``fmt.origin_key``).

Inline runs (``Runs``): a string (or a number), a list of runs, or {b: runs} | {muted: runs} | {a: text, href}
| {chip: str} | {go: {stage, [kernel], [anchor], [cid]}, code: str} (a link to another pane: ``kernel`` names one
kernel of the kernels stage by its key, ``context.kernel_refs``; ``cid`` another compilation's) | {code: str,
[origin]} (code, linked to a user line) | {code, line, key} (a line of one of the pane's code blocks: a module
outline's row) | {origin} (code linked to a user line; its text the origin) | {bar: percent} | {br: true}.

Nothing here builds a pane; ``note`` is the one constructor every floor of the view model uses.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping, Optional, TypedDict, Union


class Origin(TypedDict):
    """A user line, as the chain names it (``lineage.Origin`` as JSON)."""

    file: str
    line: int


# ---- inline runs ----

class Bold(TypedDict):
    b: Runs


class Muted(TypedDict):
    muted: Runs


class Link(TypedDict):
    a: str
    href: str


class Chip(TypedDict):
    chip: str


class _PaneLink(TypedDict):
    stage: str


class PaneLink(_PaneLink, total=False):
    """Where a pane link leads: a stage, of the kernels stage one kernel (its key), an element in it; another
    compilation's (``cid``: a recompile and the specialization that caused it)."""

    kernel: Optional[str]
    anchor: str
    cid: str


class GoRun(TypedDict):
    go: PaneLink
    code: str


class _CodeRun(TypedDict):
    code: str


class CodeRun(_CodeRun, total=False):
    origin: Optional[Origin]  # the user line it is
    line: int  # with ``key``: a line of the pane's code block ``key`` (a click shows it)
    key: str


class OriginRun(TypedDict):
    origin: Optional[Origin]


class Bar(TypedDict):
    bar: float


class Br(TypedDict):
    br: bool


Run = Union[str, int, float, None, Bold, Muted, Link, Chip, GoRun, CodeRun, OriginRun, Bar, Br]
Runs = Union[Run, list["Runs"]]


# ---- where a click leads ----

class _Side(TypedDict):
    cid: str
    stage: str


class Side(_Side, total=False):
    """A pane a diff compares (``diff_view.side``): its compilation and stage, a kernel, another rank's."""

    kernel: str
    rank: int


class Go(TypedDict, total=False):
    """Where a row or an item leads in the interactive views."""

    rank: int
    cid: str
    stage: str
    diff: Side
    origins: list[Origin]


class _ButtonGo(TypedDict):
    stage: str


class ButtonGo(_ButtonGo, total=False):
    diff: Side


# ---- what every block may carry ----

class _Common(TypedDict, total=False):
    text: Union[str, list[str]]  # its plain form (the text summary's)
    summary: bool  # False: left out of the text summary


# ---- rows and items ----

class _Row(TypedDict):
    c: list[Runs]


class Row(_Row, _Common, total=False):
    origin: Optional[Origin]
    cls: str
    th: bool
    go: Go
    line: int


class _Item(TypedDict):
    r: Runs


class Item(_Item, _Common, total=False):
    body: list[Block]
    origin: Optional[Origin]
    go: Go
    cls: str


# ---- blocks ----

class _P(TypedDict):
    t: Literal["p"]
    r: Runs


class P(_P, _Common, total=False):
    cls: str
    interactive: bool


class _H(TypedDict):
    t: Literal["h"]
    r: Runs


class H(_H, _Common, total=False):
    cls: str


class _Note(TypedDict):
    t: Literal["note"]
    cls: str
    r: Runs


class Note(_Note, _Common, total=False):
    stage: str


class _ListBlock(TypedDict):
    t: Literal["list"]
    items: list[Item]


class ListBlock(_ListBlock, _Common, total=False):
    ordered: bool
    cls: str


class _Table(TypedDict):
    t: Literal["table"]
    rows: list[Row]


class Table(_Table, _Common, total=False):
    head: list[str]
    cls: str
    key: str
    caption: str


class _Code(TypedDict):
    t: Literal["code"]
    key: str
    src: str
    lang: Optional[str]


class Code(_Code, _Common, total=False):
    first: int
    linenos: bool
    marks: list[int]
    title: str
    sub: str
    file: str


class _Details(TypedDict):
    t: Literal["details"]
    s: Runs
    body: list[Block]


class Details(_Details, _Common, total=False):
    open: bool
    cls: str
    lazy: bool


class _Section(TypedDict):
    t: Literal["section"]
    title: str
    body: list[Block]


class Section(_Section, _Common, total=False):
    open: bool


class _Div(TypedDict):
    t: Literal["div"]
    cls: str
    body: list[Block]


class Div(_Div, _Common, total=False):
    data: dict[str, str]
    id: str
    fold: Runs


class _Graph(TypedDict):
    t: Literal["graph"]
    stage: str
    code: Code
    num_nodes: int


class Graph(_Graph, _Common, total=False):
    folded: str


class _Chart(TypedDict):
    t: Literal["chart"]
    title: str
    rows: list[list]  # [label, value, text, colour]


class Chart(_Chart, _Common, total=False):
    pass


class _Svg(TypedDict):
    t: Literal["svg"]
    svg: str  # every text in it escaped where it was drawn
    title: str
    links: list[Go]


class Svg(_Svg, _Common, total=False):
    pass


class _Button(TypedDict):
    t: Literal["button"]
    r: Runs
    go: ButtonGo


class Button(_Button, _Common, total=False):
    pass


# "del" is a keyword: the required keys in the functional form
_Diff = TypedDict("_Diff", {"t": Literal["diff"], "a": Side, "b": Side, "lines": list, "del": str, "add": str})


class Diff(_Diff, _Common, total=False):
    """``b``'s pane against ``a``'s (``present.diff_view`` has the format of ``lines`` and ``rows``)."""

    note: str
    counts: str
    same: str
    rows: list[list]
    missing: str


Block = Union[P, H, Note, ListBlock, Table, Code, Details, Section, Div, Graph, Chart, Button, Diff, Svg]


# What a renderer reads: a block of any kind, read by its "t" (the producers are the ones typed by kind)
Drawn = Mapping[str, Any]


def note(cls: str, runs: Runs) -> Note:
    """A coloured box (``cls``: cx-missing, cx-bad, cx-finding, ...)."""
    return {"t": "note", "cls": cls, "r": runs}
