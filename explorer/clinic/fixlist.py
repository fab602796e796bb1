"""The de-duplicated "what to fix" list: one row per distinct graph-break site.

A break site is a user line plus the reason torch gave there: the same line hit
by several compilations (recompiles, loops re-entering a resume function) is
one row with a count, and two different reasons on one line are two rows,
because each needs its own fix.

Order, most costly first: how many compilations hit the site (each hit ends a
graph and runs that line in Python), then how many resume functions it spawned
(each is a further frame to compile and guard), then file and line order so
the list is stable. How many operations ran outside graphs is not known from
the capture, so it is not used.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..capturing.compile_id import CompileKey
from ..capturing.model import CaptureData, Compilation, GraphBreak, SourceLoc
from ..capturing.parse_breaks import in_loop
from ..capturing.torch_door.dynamo import resumed
from ..hosts import cell_frame_name
from .locate import basename, is_library_file, rel, repaired, user_frame


@dataclass(frozen=True)
class BreakSite:
    """One place in user code where Dynamo ended a graph, with everything needed to fix it."""

    filename: Optional[str]
    """The user line's file."""
    lineno: Optional[int]
    """The user line."""
    source_line: Optional[str]
    """Its text."""
    function: Optional[str]
    """Its function."""
    reason: str
    """torch's reason."""
    explanation: Optional[str] = None
    """torch's explanation."""
    hints: tuple[str, ...] = ()
    """What to try."""
    gb_code: Optional[str] = None
    """torch's graph-break code."""
    doc_url: Optional[str] = None
    """Its page."""
    compile_ids: tuple[CompileKey, ...] = ()  # compilations that hit this site
    """The compilations that hit it."""
    resume_ids: tuple[CompileKey, ...] = ()  # compilations of the resume functions that picked up after it
    """The compilations that picked up after it."""
    resume_functions: tuple[str, ...] = ()
    """The resume functions that picked up after it."""
    user_traceback: tuple[SourceLoc, ...] = ()
    """The user frames down to the break."""
    stopped_at: Optional[SourceLoc] = None  # where Dynamo stopped, when that is library code
    """Library code Dynamo stopped in."""
    frame_abandoned: bool = False  # Dynamo gave up on the whole frame: all of it ran in Python
    """Whether Dynamo gave up on the frame."""
    in_loop: bool = False  # the break is inside a loop: Dynamo skipped the frame, on this call and later ones
    """Whether the break is inside a loop, so that Dynamo skips the whole frame, on this call and later ones."""
    ran_as_python: str = ""  # plain words: what then ran outside any graph
    """What then ran outside any graph, in words."""
    breaks: tuple[GraphBreak, ...] = field(default=(), repr=False)
    """The break records of the site."""
    # the site as the user names it, what every view prints: "cell [5], line 3" in a notebook, "file:line"
    # in a script, and where Dynamo stopped when that is inside a library ("..., inside torch.optim (adam.py:213)")
    where: str = ""
    """The site as the user names it, what every view prints: `cell [5], line 3`, `path:3`, with `, inside LIBRARY
    (file:line in fn)` for a break inside a library."""
    library: Optional[str] = None  # the library the break happened inside (not the user's line to fix)
    """That library, e.g. `torch.optim`."""
    by_explorer: bool = False  # the explorer's own doing (it runs that line as plain Python: see its finding)
    """The explorer's own break: it runs that line as plain Python."""

    @property
    def count(self) -> int:
        return len(self.compile_ids)

    @property
    def location(self) -> str:
        if self.where:
            return self.where
        return f"{rel(self.filename)}:{self.lineno}" if self.lineno else rel(self.filename)

    def line(self) -> str:
        """``file:line: reason  [GBxxxx] (N compilations)``: the CLI's and CI's format."""
        code = f"  [{self.gb_code}]" if self.gb_code else ""
        n = f" ({self.count} compilation{'s' if self.count != 1 else ''})"
        return f"{self.location}: {self.reason}{code}{n}"


FileNamer = Callable[[str], Optional[str]]  # a file -> how the user names it ("cell [5]"), or None


def fix_list(data: CaptureData, name_file: Optional[FileNamer] = None) -> list[BreakSite]:
    """Every distinct graph-break site in ``data``, most costly first (see module docstring).

    ``name_file`` names a notebook cell's file as the user knows it (``cell [5]``);
    other files are named by their path.
    """
    groups: dict[tuple, list[tuple[Compilation, GraphBreak]]] = {}
    for comp, brk in data.graph_breaks:
        groups.setdefault(_key(brk), []).append((comp, brk))
    sites = [_site(hits, data, name_file) for hits in groups.values()]
    return sorted(sites, key=lambda s: (-s.count, -len(s.resume_ids), s.filename or "~", s.lineno or 0, s.reason))


def _key(brk: GraphBreak) -> tuple:
    loc = _user_loc(brk)
    return (loc.filename if loc else brk.filename, loc.lineno if loc else brk.lineno, brk.gb_code or brk.reason)


def _user_loc(brk: GraphBreak) -> Optional[SourceLoc]:
    loc = user_frame(brk.user_traceback)
    if loc is not None:
        return loc
    if brk.filename:
        return SourceLoc(brk.filename, brk.lineno, None, brk.source_line)
    return None


def _site(hits: list[tuple[Compilation, GraphBreak]], data: CaptureData,
          name_file: Optional[FileNamer] = None) -> BreakSite:
    comp, brk = hits[0]
    loc = _user_loc(brk)
    stopped = _stopped_at(brk, loc)
    resumes = _resumes([b for _, b in hits], data)
    abandoned = any(c.status == "failed" for c, _ in hits)
    function = (loc.function if loc else None) or _frame_function(brk) or comp.frame.name
    source = (loc.code if loc and loc.code else None) or (brk.source_line if stopped is None else None)
    site = BreakSite(
        filename=loc.filename if loc else brk.filename, lineno=loc.lineno if loc else brk.lineno,
        source_line=source, function=function, reason=brk.reason, explanation=brk.explanation,
        hints=brk.hints, gb_code=brk.gb_code, doc_url=brk.doc_url,
        compile_ids=tuple(dict.fromkeys(c.compile_id for c, _ in hits)),
        resume_ids=tuple(c.compile_id for c in resumes),
        resume_functions=tuple(dict.fromkeys(_frame_label(c, name_file) for c in resumes)),
        user_traceback=repaired(brk.user_traceback), stopped_at=stopped, frame_abandoned=abandoned,
        in_loop=any(in_loop(b, c.failure or "") for c, b in hits),
        breaks=tuple(b for _, b in hits), library=library_of(stopped.filename) if stopped else None,
        by_explorer=any(_EXPLORER_MARK in _text_of(b) for _, b in hits),
    )
    site = dataclasses.replace(site, reason=_with_subject(brk), hints=_hints(site),
                               where=_where(site, name_file))
    return _with_words(site, [c for c, _ in hits], name_file)


_EXPLORER_MARK = "__compile_explorer"  # the names of the explorer's own helpers in a cell
_SUBJECT = re.compile(r"(?:builtin operator|builtin|function|callable) `(?P<name>[\w.]+)`")


def _text_of(brk: GraphBreak) -> str:
    return " ".join(filter(None, (brk.reason, brk.explanation, brk.detail)))


def _with_subject(brk: GraphBreak) -> str:
    """torch's reason, naming what it could not trace when torch's explanation does ("... `print`")."""
    m = _SUBJECT.search(brk.explanation or "")
    if m is None or m["name"] in brk.reason or _EXPLORER_MARK in m["name"]:
        return brk.reason
    return f"{brk.reason}: `{m['name']}`"


def _hints(site: BreakSite) -> tuple[str, ...]:
    if site.gb_code == "GB0223" or "torch.compile call" in site.reason:
        return ("this code calls torch.compile itself: %%compile --capture-only runs a cell as it is and shows "
                "what its own torch.compile calls compile",) + site.hints
    return site.hints


def _where(site: BreakSite, name_file: Optional[FileNamer]) -> str:
    """``cell [5], line 3`` (a notebook cell), ``path:3`` (a file), and the library frame when it is one."""
    cell = name_file(site.filename) if name_file and site.filename else None
    if cell:
        where = f"{cell}, line {site.lineno}" if site.lineno else cell
    else:
        where = f"{rel(site.filename)}:{site.lineno}" if site.lineno else rel(site.filename)
    if site.library and site.stopped_at is not None:
        s = site.stopped_at
        fn = f" in {s.function}" if s.function else ""
        where += f", inside {site.library} ({basename(s.filename)}:{s.lineno}{fn})"
    return where


def library_of(filename: Optional[str]) -> Optional[str]:
    """``torch.optim``, ``scipy``: the installed package (or standard library module) a file belongs to."""
    if not filename or not is_library_file(filename):
        return None
    parts = filename.replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            rest = [p for p in parts[parts.index(marker) + 1:] if p]
            if not rest:
                return None
            pkg = rest[0].removesuffix(".py")
            if pkg == "torch" and len(rest) > 2:  # torch is large: name its subpackage
                return f"torch.{rest[1].removesuffix('.py')}"
            return pkg
    name = parts[-1].removesuffix(".py")
    return name or None


def _stopped_at(brk: GraphBreak, user: Optional[SourceLoc]) -> Optional[SourceLoc]:
    """Where Dynamo stopped, when that is not the user's line (a library function it called)."""
    if user is None or not brk.filename or (user.filename, user.lineno) == (brk.filename, brk.lineno):
        return None
    return SourceLoc(brk.filename, brk.lineno, _frame_function(brk), brk.source_line)


def _frame_function(brk: GraphBreak) -> Optional[str]:
    frames = repaired(brk.user_traceback)
    for loc in reversed(frames):
        if (loc.filename, loc.lineno) == (brk.filename, brk.lineno):
            return loc.function
    return frames[-1].function if frames else None


def _resumes(breaks: list[GraphBreak], data: CaptureData) -> list[Compilation]:
    """Compilations of ``torch_dynamo_resume_in_<fn>_at_<line>`` for any frame of the break's traceback."""
    wanted = {(loc.filename, loc.function, loc.lineno) for b in breaks for loc in repaired(b.user_traceback)}
    return [c for c in data.compilations if resume_of(c) is not None
            and (c.frame.filename, *resume_of(c)) in wanted]


def _frame_label(comp: Compilation, name_file: Optional[FileNamer]) -> str:
    """A frame by the name its user knows: ``cell [5], resumed after line 3`` for a resume function of a notebook
    cell's own code (torch's ``torch_dynamo_resume_in_compiled_cell_at_3``), else torch's name for it."""
    cell = name_file(comp.frame.filename) if name_file and comp.frame.filename else None
    return cell_frame_name(cell, comp.frame.name) if cell else comp.frame.name


def _innermost_name(fn: str) -> str:
    """A resume function of a resume function is named after the original function."""
    resume = resumed(fn)
    return _innermost_name(resume[0]) if resume else fn


def resume_of(comp: Compilation) -> Optional[tuple[str, int]]:
    """(function, line) a resume function continues after, or None for an ordinary frame."""
    resume = resumed(comp.frame.name)
    return (_innermost_name(resume[0]), resume[1]) if resume else None


def _with_words(site: BreakSite, comps: list[Compilation], name_file: Optional[FileNamer] = None) -> BreakSite:
    """The plain-words account of what ran outside any graph because of this break."""
    fn = site.function or "the function"
    line = f"line {site.lineno}" + (f" (`{site.source_line}`)" if site.source_line else "")
    if site.in_loop:
        skipped = ", ".join(dict.fromkeys(_frame_label(c, name_file) for c in comps)) or fn
        words = (f"{line} is inside a loop, where Dynamo cannot resume after a break: it dropped the graph it had "
                 f"traced and skips {skipped}, which runs entirely as ordinary Python, on this call and every later "
                 f"one (the functions it calls are still compiled, each as a frame of its own).")
    elif site.frame_abandoned:
        gave_up = ", ".join(dict.fromkeys(_frame_label(c, name_file) for c in comps if c.status == "failed"))
        words = (f"Dynamo could not continue after this break and gave up on {gave_up}: the graph traced before it "
                 f"was dropped, and that frame ran entirely as ordinary Python, with no graph.")
    elif site.resume_functions:
        names = ", ".join(site.resume_functions)
        words = (f"{line} ran as ordinary Python, outside any graph; execution then continued in "
                 f"{names} (compilation{'s' if len(site.resume_ids) > 1 else ''} {', '.join(site.resume_ids)}).")
    else:
        words = f"{line} and the rest of {fn} after it ran as ordinary Python, outside any graph."
    if site.stopped_at is not None:
        words += (f" Dynamo stopped inside {basename(site.stopped_at.filename)}:{site.stopped_at.lineno}"
                  f" ({site.stopped_at.function or '?'}), called from this line.")
    if site.library:
        words += (f" The break happens inside {site.library}, not in your code: there is nothing to fix on this "
                  "line (calling it outside the compiled code, or compiling less, avoids it).")
    if site.by_explorer:
        words += (" This break is the explorer's own: it runs this line as plain Python so that the cell ends as "
                  "a plain run does (see its finding); not yours to fix.")
    return dataclasses.replace(site, ran_as_python=words)
