"""Why a frame was compiled again: torch's recompile reason -> guard, old -> new value, remedy.

torch writes one reason per cached entry it tried, in the order it tried them (most recently used first), each
``<compile id>: <first failing check>`` (local names lose their ``L['...']``),
optionally followed by ``User stack trace:`` lines. The check is either a tensor
message from the C++ guard (``tensor 'x' size mismatch at index 0. expected 8,
actual 16``; dtype, stride, rank, requires_grad, device, dispatch keys) or the
code of the guard that failed (``n == 3  # user line  # file:line in fn``,
``___check_obj_id(...)``, a shape range like ``2 <= x.size()[0]``).
Hitting the recompile limit is not a reason line: torch fails the next
compilation with "Dynamo recompile limit exceeded" (GB0039), which is what
``explain_recompile`` looks for.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, replace
from typing import Optional

from ..capturing.compile_id import TORCH_ID, CompileId
from ..capturing.inductor_code import stack_frames
from ..capturing.model import Bytecode, CaptureData, Compilation, Frame, Guard
from .locate import first_read, is_library_file
from .shape_causes import SPECIALIZATION, ShapeCause, shape_cause

_ENTRY_RE = re.compile(rf"^(?P<cid>\[?{TORCH_ID}\]?): (?P<text>.*)$")
_TENSOR_RE = re.compile(r"^tensor '(?P<name>.+?)' (?P<what>.*)$")
_AT_INDEX_RE = re.compile(r"(?P<kind>size|stride) mismatch at index (?P<dim>\d+)\. "
                          r"expected (?P<old>[^,]+), actual (?P<new>.+)$")
_EXPECTED_RE = re.compile(r"(?P<kind>dtype|rank|dispatch key set) mismatch\. "
                          r"expected (?P<old>.+?), actual (?P<new>.+)$")
_REQUIRES_GRAD_RE = re.compile(r"requires_grad mismatch\. expected requires_grad=(?P<old>\d)")
_DEVICE_RE = re.compile(r"device index mismatch\. Expected device index to be (?P<old>\S+?),? actual (?P<new>\S+)",
                        re.I)
_EQUALS_RE = re.compile(r"^(?P<subject>[\w.\[\]'\"]+) == (?P<old>.+)$")
_BOOL_RE = re.compile(r"^(?P<neg>not )?(?P<subject>[\w.\[\]'\"]+)$")
_OBJ_ID_RE = re.compile(r"___check_obj_id\((?P<subject>.+?), \d+\)")
_TYPE_ID_RE = re.compile(r"___check_type_id\((?P<subject>.+?), \d+\)")
_SHAPE_RE = re.compile(r"(?P<subject>[\w.]+)\.size\(\)\[(?P<dim>\d+)\]")
_LIMIT_RE = re.compile(r"recompile[_ ]limit|cache_size_limit|cache size limit", re.I)
_LIMIT_VALUE_RE = re.compile(r"currently set to (?P<n>\d+)")
_LOCAL_RE = re.compile(r"L\[\s*['\"](.*?)['\"]\s*\]")


@dataclass(frozen=True)
class GuardFailure:
    """One cached entry's first failing guard, in the user's terms."""

    against: str
    """The report's key of the cached entry whose guard failed (`0/0`); torch's own text when it named no compile
    id."""
    text: str  # torch's words for the failing check
    """torch's failure text."""
    # size | stride | rank | dtype | requires_grad | device | dispatch_keys | value | identity | type
    # | shape | global_state | invalidated | backend | other
    kind: str
    """What changed: `shape`, `size`, `stride`, `rank`, `dtype`, `dispatch_keys`, `device`, `requires_grad`, `value`,
    `type`, `identity`, `training`, `global_state`, `invalidated`, `backend`, or `other`."""
    subject: Optional[str] = None
    """The guarded value as the user names it, e.g. `x` or `self.w`."""
    dim: Optional[int] = None
    """The dimension, for a size."""
    old: Optional[str] = None
    """The value the cached graph was specialised to."""
    new: Optional[str] = None
    """The value this call had, when torch or the new graph shows it."""
    guard: Optional[Guard] = None  # the matching guard of compilation ``against``
    """The matching guard."""
    remedy: str = ""
    """The usual remedy."""
    filename: Optional[str] = None  # the user line that introduced the guard
    """The user line that made the guard: its file."""
    lineno: Optional[int] = None
    """That line."""
    source: Optional[str] = None
    """Its text."""
    shape_cause: Optional[ShapeCause] = None
    """For a size or shape check: the specialization or guard added of compilation `against` on the same size that
    made the check exist (`null` when the size was static from the start: no symbol made it matter)."""

    def describe(self) -> str:
        """E.g. ``size of x at dim 0: 8 -> 16``."""
        what = {"size": "size", "stride": "stride", "rank": "number of dims", "dtype": "dtype",
                "requires_grad": "requires_grad", "device": "device", "dispatch_keys": "dispatch keys",
                "value": "value", "identity": "object identity", "type": "type",
                "shape": "shape range", "training": "mode"}.get(self.kind)
        if what is None or not self.subject:
            return self.text
        if self.kind == "training":
            module = self.subject[:-len(".training")]
            modes = {"True": "train()", "False": "eval()"}
            old, new = modes.get(self.old or "", "?"), modes.get(self.new or "", "the other mode")
            return f"mode of {module}: {old} -> {new}"
        if self.kind == "shape":
            return f"size of {self.subject} at dim {self.dim} left the range compiled for: {self.old}"
        where = f" at dim {self.dim}" if self.dim is not None else ""
        change = ""
        if self.old is not None or self.new is not None:
            old = self.old if self.old is not None else "?"
            change = f": {old} -> {self.new if self.new is not None else 'a new value'}"
        return f"{what} of {self.subject}{where}{change}"

    @property
    def guard_line(self) -> Optional[str]:
        """``file:line `source``` of the user line that introduced the guard, if torch recorded it."""
        return self.guard_where()

    def guard_where(self, cells: Optional[dict[str, str]] = None) -> Optional[str]:
        """``guard_line``, a notebook cell's file named as the user names the cell (``cells``: ``Clinic.cells``,
        ``{file: "cell [5]"}``): ``cell [5], line 2 `source```."""
        if not self.lineno:
            return None
        cell = (cells or {}).get(self.filename or "")
        where = f"{cell}, line {self.lineno}" if cell else f"{(self.filename or '?').rsplit('/', 1)[-1]}:{self.lineno}"
        return where + (f" `{self.source}`" if self.source else "")


@dataclass(frozen=True)
class RecompileExplanation:
    """One recompile explained: which guard failed, the old and new value, the user line, the usual remedy."""

    compile_id: str
    """The compilation the recompile made."""
    frame_name: str
    """The frame."""
    failures: tuple[GuardFailure, ...] = ()  # one per cached entry torch tried, in its order (most recently used)
    """One per cached entry torch tried, in its order (most recently used first)."""
    limit_hit: bool = False
    """Whether the recompile limit was hit."""
    limit: Optional[int] = None
    """The limit."""
    reason_text: str = ""
    """torch's reason text."""
    # the stance that refused this recompile (set_stance("fail_on_recompile")): it never compiled, the call raised
    refused_by: Optional[str] = None
    """The stance that refused it, e.g. `fail_on_recompile`: it never compiled, the call raised."""

    @property
    def primary(self) -> Optional[GuardFailure]:
        return self.failures[0] if self.failures else None

    @property
    def remedy(self) -> str:
        if self.refused_by:
            cause = f"{self.primary.remedy}; or " if self.primary else ""
            return (f"{cause}let it compile: call it outside the set_stance({self.refused_by!r}) block, or use "
                    f"set_stance('eager_on_recompile') to run such calls eagerly instead of raising")
        if self.limit_hit:
            limit = f"now {self.limit}; " if self.limit is not None else ""
            cause = f", or remove the cause: {self.primary.remedy}" if self.primary else ""
            return f"raise torch._dynamo.config.recompile_limit ({limit}cache_size_limit on older torch){cause}"
        return self.primary.remedy if self.primary else ""

    def one_line(self, cells: Optional[dict[str, str]] = None) -> str:
        """``0/1 f: size of x at dim 0: 8 -> 16 (guard from f.py:3 `y = x.sin()`); fix: ...``; ``cells`` names the
        notebook cells' files (``Clinic.cells``)."""
        head = f"{self.compile_id} {self.frame_name}: "
        if self.refused_by:
            head += (f"recompile refused by set_stance({self.refused_by!r}) (the call raised instead of "
                     f"compiling): ")
        if self.limit_hit:
            head += (f"recompile limit ({self.limit if self.limit is not None else '?'}) hit: "
                     f"new inputs of this frame now run without compiling; last failure: ")
        p = self.primary
        if p is None:
            return head + (self.reason_text.splitlines()[0] if self.reason_text else "recompiled")
        line = f" (guard from {p.guard_where(cells)})" if p.lineno else ""
        return f"{head}{p.describe()}{line}; fix: {self.remedy}"


def explain_recompile(comp: Compilation, data: CaptureData) -> Optional[RecompileExplanation]:
    """Explains ``comp``'s recompile (or its hitting the recompile limit); None if it was a first compile."""
    limit_hit = bool(comp.failure and _LIMIT_RE.search(comp.failure))
    if not comp.recompile_reason and not limit_hit:
        return None
    by_id = {c.compile_id: c for c in data.compilations}
    entries = _in_generation(reason_entries(comp.recompile_reason or ""), comp.cid)
    failures = tuple(_failure(key, block, by_id.get(key), comp) for _, key, block in entries)
    limit = None
    if limit_hit:
        m = _LIMIT_VALUE_RE.search(comp.failure or "")
        limit = int(m["n"]) if m else None
    return RecompileExplanation(compile_id=comp.compile_id, frame_name=_frame_name(comp, data),
                                failures=failures, limit_hit=limit_hit, limit=limit,
                                reason_text=comp.recompile_reason or "")


def explain_recompiles(data: CaptureData) -> list[RecompileExplanation]:
    """Every recompile in ``data``, in compile order; then one a stance refused, if the code raised so."""
    out = [explain_recompile(c, data) for c in data.compilations]
    refused = explain_refusal(data)
    return [e for e in out if e is not None] + ([refused] if refused is not None else [])


# torch's words when set_stance("fail_on_recompile") refuses (torch/_dynamo/eval_frame.py, 2.11-2.14)
_REFUSED_RE = re.compile(r"Detected recompile when torch\.compile stance is '(?P<stance>\w+)'\. "
                         r"filename: '(?P<file>[^']*)', function name: '(?P<fn>[^']*)', line number: (?P<line>\d+)")


def explain_refusal(data: CaptureData) -> Optional[RecompileExplanation]:
    """The recompile a stance refused, from the exception torch raised (no compilation and no trace
    record exist for it): its guard failures read like any recompile's, against the cached entries."""
    m = _REFUSED_RE.search(data.error or "")
    if m is None:
        return None
    text = (data.error or "")[m.end():]
    failures_text = "\n".join(line.strip()[2:] if line.strip().startswith("- ") else line.strip()
                              for line in text.splitlines() if line.strip()
                              and not line.strip().startswith("triggered by"))
    ids = [c.cid for c in data.compilations if c.cid is not None]
    latest = max(ids, default=None)  # the refusal came after every compilation: torch's ids are in its generation
    entries = _in_generation(reason_entries(failures_text), latest)
    by_id = {c.compile_id: c for c in data.compilations}
    first = next((cid for cid, _, _ in entries if cid is not None), None)
    newest = max((c for c in ids if first is not None and c.same_frame(first)), default=None)
    next_id = (replace(newest.compilation, frame_compile_id=newest.frame_compile_id + 1).key
               if newest is not None else "?")
    placeholder = Compilation(next_id, Frame(m["fn"], m["file"], int(m["line"])), "refused")
    failures = tuple(_failure(key, block, by_id.get(key), placeholder) for _, key, block in entries)
    return RecompileExplanation(compile_id=next_id, frame_name=m["fn"], failures=failures,
                                reason_text=failures_text, refused_by=m["stance"])


def _in_generation(entries: list[tuple[str, str]],
                   of: Optional[CompileId]) -> list[tuple[Optional[CompileId], str, str]]:
    """Torch's ids in a recompile reason as (id, the report's key, the entry's text): in the generation of the
    compilation they explain (torch numbers from 0/0 again after a reset, and prints no generation); text that
    names no id is kept as its key."""
    generation = of.generation if of is not None else 0
    out = []
    for text, block in entries:
        cid = CompileId.from_torch(text, generation)
        out.append((cid, cid.key if cid is not None else text, block))
    return out


def reason_entries(text: str) -> list[tuple[str, str]]:
    """``[(compile id, that entry's text with its user stack trace)]``, newest cached entry first."""
    entries: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        m = _ENTRY_RE.match(line)
        if m:
            entries.append((m["cid"], [m["text"]]))
        elif entries:
            entries[-1][1].append(line)
    if not entries and text.strip():
        return [("?", text.strip())]
    return [(cid, "\n".join(lines)) for cid, lines in entries]


def _reason_location(block: str) -> tuple[Optional[str], Optional[int], Optional[str]]:
    """(file, line, source) of the user line behind a failing check, from torch's own text.

    torch's "User stack trace" ends where the guarded value was read, often inside
    torch or another library (``nn/modules/dropout.py`` reads ``self.training``):
    the line the user can change is the innermost frame in their own code.
    """
    frames = stack_frames(block)
    if frames:
        users = [f for f in frames if not is_library_file(f.filename)]
        f = users[-1] if users else frames[-1]
        return f.filename, f.lineno, f.code
    parts = [p.strip() for p in re.split(r"\s+# ", block.splitlines()[0].strip())]
    if len(parts) >= 3:
        loc = re.match(r"^(?P<file>\S+):(?P<line>\d+) in ", parts[2])
        if loc:
            return loc["file"], int(loc["line"]), parts[1] or None
    return None, None, None


def classify(text: str) -> dict:
    """The failing check's kind, subject, dim and old/new values, from torch's words alone."""
    check = _code_part(text)
    m = _TENSOR_RE.match(check)
    if m:
        return _tensor_failure(_strip_locals(m["name"]), m["what"])
    if "invalidated" in check or "deallocated" in check:
        return {"kind": "invalidated"}
    if check.startswith("BACKEND_MATCH"):
        return {"kind": "backend"}
    if "global_state" in check.lower() or "GLOBAL_STATE" in check or "torch_function_mode_stack" in check:
        return {"kind": "global_state", "old": _global_state_detail(check)}
    m = _OBJ_ID_RE.search(check)
    if m:
        return {"kind": "identity", "subject": _strip_locals(m["subject"])}
    m = _TYPE_ID_RE.search(check)
    if m:
        return {"kind": "type", "subject": _strip_locals(m["subject"])}
    m = _SHAPE_RE.search(check)
    if m:
        return {"kind": "shape", "subject": _strip_locals(m["subject"]), "dim": int(m["dim"]), "old": check}
    m = _EQUALS_RE.match(check)
    if m:
        subject = _strip_locals(m["subject"])
        kind = "training" if subject.endswith(".training") else "value"
        return {"kind": kind, "subject": subject, "old": m["old"].strip()}
    m = _BOOL_RE.match(check)  # torch also writes a bool guard as `x.training` / `not x.training`
    if m and m["subject"].endswith(".training"):
        return {"kind": "training", "subject": _strip_locals(m["subject"]), "old": str(not m["neg"])}
    return {"kind": "other"}


def _tensor_failure(name: str, what: str) -> dict:
    m = _AT_INDEX_RE.search(what)
    if m:
        return {"kind": m["kind"], "subject": name, "dim": int(m["dim"]), "old": m["old"].strip(),
                "new": m["new"].strip()}
    m = _EXPECTED_RE.search(what)
    if m:
        kind = "dispatch_keys" if m["kind"] == "dispatch key set" else m["kind"]
        return {"kind": kind, "subject": name, "old": m["old"].strip(), "new": m["new"].strip()}
    m = _REQUIRES_GRAD_RE.search(what)
    if m:
        old = m["old"] == "1"
        return {"kind": "requires_grad", "subject": name, "old": str(old), "new": str(not old)}
    m = _DEVICE_RE.search(what)
    if m:
        return {"kind": "device", "subject": name, "old": m["old"], "new": m["new"]}
    return {"kind": "other", "subject": name}


def _code_part(text: str) -> str:
    """The check without torch's trailing ``# user line  # file:line`` comments."""
    return re.split(r"\s+# ", text.strip(), maxsplit=1)[0].strip()


_CONTAINER_RE = re.compile(r"\._(?:modules|parameters|buffers)\[['\"](?P<name>\w+)['\"]\]")


def _strip_locals(s: str) -> str:
    """``L['self']._modules['drop'].training`` -> ``self.drop.training``: the names the user writes."""
    return _CONTAINER_RE.sub(r".\g<name>", _LOCAL_RE.sub(r"\1", s)).strip()


def _global_state_detail(check: str) -> Optional[str]:
    m = re.search(r"GLOBAL_STATE changed: (.*)", check)
    return m.group(1).strip() if m else None


def _failure(cid: str, block: str, cached: Optional[Compilation], new: Compilation) -> GuardFailure:
    text = block.splitlines()[0].strip()
    info = classify(text)
    guard = _matching_guard(cached, info, text) if cached is not None else None
    if info.get("kind") in ("value", "training") and info.get("new") is None:
        info["new"] = _new_value(new, info.get("subject"))
    if info.get("kind") == "training" and info.get("new") is None and info.get("old") in ("True", "False"):
        info["new"] = str(info["old"] == "False")  # a flag that failed its guard has the other value
    failure = failure_from(cid, block, info, guard, in_resume=new.frame.name if new.is_resume else None)
    cause = shape_cause(info["kind"], info.get("subject"), info.get("dim"), failure.lineno, cached)
    if cause is not None:
        failure = replace(failure, shape_cause=cause, remedy=_remedy_of_cause(cause, info))
    if cached is not None and cached.original_bytecode is not None and \
            (failure.filename is None or is_library_file(failure.filename)):
        failure = _at_first_read(failure, cached.original_bytecode)
    return failure


def _remedy_of_cause(cause: ShapeCause, info: dict) -> str:
    """A size made to matter by a specialization or a guard added is not fixed by marking it dynamic: the line
    fixed the symbol to a constant (or guarded the dynamic size), and torch.compile keeps doing so under dynamic=True
    and maybe_mark_dynamic; under mark_dynamic the specializing line raises torch's ConstraintViolationError ("You
    marked ... as dynamic but your code specialized it to be a constant")."""
    line = f"line {cause.user_loc.lineno}" if cause.user_loc is not None and cause.user_loc.lineno else "a line"
    if cause.row != SPECIALIZATION:  # the size is dynamic already: a guard on it, not a constant, failed
        return (f"the size is already dynamic; {line} guarded it ({cause.what}) and this call is on the other side, "
                "so it gets a graph of its own (one per side, not one per value): if the condition always holds, "
                "torch._check it; if the size should not matter, don't branch on it")
    dim = info.get("dim") if info.get("dim") is not None else 0
    return (f"{line} fixed the size to a constant ({cause.what}), so each other size compiles again: keep the "
            f"comparison of {info.get('subject') or 'the input'}.size({dim}) with a constant out of the compiled "
            "code (mark_dynamic would make that line raise ConstraintViolationError, and dynamic=True does not "
            "stop the specialization)")


def _at_first_read(failure: GuardFailure, code: Bytecode) -> GuardFailure:
    """A guard torch placed inside a library (``self.norm(x)`` checks ``x`` in ``F.layer_norm``) is
    moved to the line of the compiled frame that first hands the guarded value on."""
    line = first_read(failure.subject, code)
    if line is None:
        return failure
    return replace(failure, filename=code.filename, lineno=line,
                   source=linecache.getline(code.filename, line).strip() or None)


def failure_from(key: str, block: str, info: dict, guard: Optional[Guard] = None,
                 in_resume: Optional[str] = None) -> GuardFailure:
    """A GuardFailure against the cached entry ``key`` names (the report's key of its compilation, ``?`` when
    torch's text named none), located at the guard's user line, else at the line torch's text names."""
    where = _reason_location(block)
    if guard is not None and guard.lineno and (not is_library_file(guard.filename) or not where[1]):
        # the guard's text loses a source line's own "# comment" (the tree uses "  # " as separator)
        full = linecache.getline(guard.filename or "", guard.lineno).strip()
        where = (guard.filename, guard.lineno, full or guard.source)
    return GuardFailure(against=key, text=block.splitlines()[0].strip(), guard=guard,
                        remedy=remedy_for(info, in_resume), filename=where[0], lineno=where[1], source=where[2], **info)


def _matching_guard(comp: Compilation, info: dict, text: str) -> Optional[Guard]:
    """The cached compilation's guard that failed: same check code, else same subject and kind."""
    code = _code_part(text)
    for g in comp.guards:
        if _strip_locals(g.code) == code:
            return g
    subject = info.get("subject")
    if not subject:
        return None
    wanted_kinds = {"size": ("TENSOR_MATCH",), "stride": ("TENSOR_MATCH",), "rank": ("TENSOR_MATCH",),
                    "dtype": ("TENSOR_MATCH",), "requires_grad": ("TENSOR_MATCH",), "device": ("TENSOR_MATCH",),
                    "dispatch_keys": ("TENSOR_MATCH",), "value": ("EQUALS_MATCH", "CONSTANT_MATCH"),
                    "training": ("TRUE_MATCH", "FALSE_MATCH", "EQUALS_MATCH", "ID_MATCH"),
                    "identity": ("ID_MATCH",), "type": ("TYPE_MATCH",)}.get(info["kind"], ())
    same = [g for g in comp.guards if g.subject and _strip_locals(g.subject) == subject]
    for g in same:
        if g.kind in wanted_kinds:
            return g
    return same[0] if same else None


def _new_value(new: Compilation, subject: Optional[str]) -> Optional[str]:
    """The new compilation's own ``== value`` guard on the same subject shows the value this call had."""
    if not subject:
        return None
    for g in new.guards:
        if g.subject and _strip_locals(g.subject) == subject:
            m = _EQUALS_RE.match(_strip_locals(g.code))
            if m:
                return m["old"].strip()
    return None


def remedy_for(info: dict, in_resume: Optional[str] = None) -> str:
    """The usual change that avoids this recompile, in words a user can act on.

    In a resume function the guarded value is a local carried across a graph
    break, which the user cannot mark; the fix is on the input it came from.
    """
    kind, subject, dim = info.get("kind"), info.get("subject") or "the input", info.get("dim")
    if in_resume and kind in ("size", "shape", "value", "stride"):
        return (f"{subject} is a local carried across a graph break into {in_resume}; mark the input it comes "
                f"from dynamic (torch._dynamo.mark_dynamic(input, dim)) or use torch.compile(..., dynamic=True), "
                f"and fixing the graph break removes this recompile")
    if kind in ("size", "shape"):
        d = dim if dim is not None else 0
        arg = subject.split(".")[0].split("[")[0]
        return (f"mark the dimension dynamic before the first call: torch._dynamo.mark_dynamic({arg}, {d}) "
                f"(or torch.compile(..., dynamic=True)); without that Dynamo makes it dynamic itself "
                f"after this one recompile")
    if kind in ("stride", "rank"):
        return f"pass {subject} with a consistent layout (e.g. .contiguous()) and number of dims"
    if kind == "dtype":
        return (f"convert {subject} to one dtype before the call (e.g. {subject}.float()); "
                f"each dtype needs its own graph")
    if kind == "requires_grad":
        return (f"call with the same requires_grad for {subject} each time (or always under torch.no_grad()); "
                f"training and inference need different graphs")
    if kind == "device":
        return f"keep {subject} on one device; each device needs its own graph"
    if kind == "training":
        module = subject[:-len(".training")] if subject.endswith(".training") else subject
        return (f"{module} switched between train() and eval(): Dynamo compiles each mode once and keeps both, "
                f"so this recompile happens once per mode (expected, nothing to fix); if it repeats, "
                f"something creates or re-wraps the module per call")
    if kind == "value":
        old = info.get("old") or ""
        if old in ("True", "False"):
            return (f"{subject} is a Python bool the graph was specialised on: each value gets its own graph "
                    f"(at most two); if it changes per call, pass it as a tensor and branch with torch.where "
                    f"or torch.cond")
        if not re.fullmatch(r"-?\d+(\.\d*)?(e-?\d+)?", old):
            return (f"{subject} is a Python constant baked into the graph: each value gets its own graph; keep it "
                    f"the same across calls, or read it outside the compiled function")
        return (f"{subject} is a Python constant baked into the graph: pass it as a tensor (torch.tensor({subject})), "
                f"or let it be dynamic (torch.compile(..., dynamic=True)); an int used in control flow "
                f"such as range({subject}) stays specialised")
    if kind == "identity":
        return (f"{subject} is a different object than before (a new module, function or lambda per call?): "
                f"create it once and reuse it")
    if kind == "type":
        return f"pass {subject} with the same type each call"
    if kind == "global_state":
        return "keep grad mode, autocast and similar global settings the same across calls"
    if kind == "invalidated":
        return "an object the graph depended on was freed or changed; keep it alive and unchanged"
    if kind == "backend":
        return "reuse one backend object across torch.compile calls"
    return "see the failing guard; TORCH_LOGS=recompiles_verbose lists every failing guard"


def _frame_name(comp: Compilation, data: CaptureData) -> str:
    """A compilation that failed early lacks its frame; earlier compilations of the same frame id have it."""
    if comp.frame.name != "?":
        return comp.frame.name
    cid = comp.cid
    for c in data.compilations:
        other = c.cid
        if cid is not None and other is not None and other.same_frame(cid) and c.frame.name != "?":
            return c.frame.name
    return "?"
