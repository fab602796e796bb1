"""What a call costs end to end: the compiled function as the user calls it, against eager.

A graph's time leaves out what Dynamo adds around it on every call: the guard
checks that pick a cached entry, the rewritten frame that unpacks arguments
and calls the graph, resume functions and the Python between graphs after a
graph break. For small work this is most of the cost, so the speedup a user
sees is computed from whole calls.

Timing must not change the user's objects nor repeat their side effects, so
the call is re-run only where the capture shows nothing that could:

* Dynamo replays no side effect after the graph on an object that existed
  before the call (``mutations``: its ``dynamo_side_effects`` record says which
  objects the call created, such as a Hugging Face model's ``DynamicCache``;
  those cannot be the user's; an existing object is copied and must come out
  of the first re-calls unchanged, else it is restored and the call is not
  re-timed), and no global or closure variable is rebound;
* every graph break is of a kind that runs no user code with effects
  (data-dependent branching, ``.item()``, ``.tolist()``, an explicit
  ``torch._dynamo.graph_break()``); a ``print`` is silenced while timing;
* no graph updates in place a tensor that is not one of the call's arguments
  (module buffers, parameters, globals). Arguments a graph updates in place
  are replaced by private copies, and the copies must pass the cached guards
  (checked first, so timing can never recompile; Dynamo is also told to fail
  rather than recompile while timing).

Otherwise ("guards + graphs"): the cached entries' guards are evaluated on the
call's own arguments (read-only) and each graph's compiled and eager times are
added; ``not_timed`` lists what that leaves out. The global random state is
restored afterwards either way.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import operator
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..capturing import torch_door
from . import bench
from . import verdict as judging
from .model import EndToEnd, Measurement
from .mutations import Watched, created_summary, judge_mutations

# graph-break causes that run no user code with effects between the graphs
_PURE_BREAKS = ("data-dependent branching", "data dependent", "generic_jump", "item()", "tensor.item",
                "tolist", "dynamic shape operator", "unbacked", "torch._dynamo.graph_break()")
# attribute/method names Dynamo's rewritten bytecode uses to replay mutations it traced
_REPLAY_NAMES = {"object_setattr_ignore_descriptor", "update", "clear", "append", "extend", "insert", "pop",
                 "remove", "setdefault", "add", "discard", "__setitem__", "__delitem__"}
_REPLAY_OPS = {"STORE_GLOBAL", "STORE_ATTR", "STORE_DEREF", "DELETE_ATTR", "DELETE_GLOBAL", "DELETE_DEREF"}
_INPLACE_FUNCTIONS = {operator.setitem, operator.iadd, operator.isub, operator.imul, operator.itruediv,
                      operator.ifloordiv, operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor}
METHOD_RECALL = "re-called"
METHOD_PARTS = "guards + graphs"


@dataclass
class Call:
    """One call as the user made it: how to repeat it eagerly and compiled."""

    label: str
    eager: Callable[..., Any]  # the user's function, uncompiled
    compiled: Callable[..., Any]  # what the user called
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    code: Any = None  # the frame Dynamo compiled (its cache entries hold the guards)
    frame_locals: Optional[Callable[[tuple, dict], dict]] = None  # args -> the frame's f_locals
    around: Optional[Callable[[], Any]] = None  # a context each repeat runs in (a cell's names)
    arg_sources: tuple[str, ...] = ()  # Dynamo's sources of the arguments: L['x'], ...


def call_of(fn: Any, compiled: Any, args: tuple, kwargs: dict, label: str = "the call") -> Call:
    """A ``Call`` for ``fn(*args, **kwargs)`` (a function or an nn.Module) and its compiled form."""
    raw = torch_door.dynamo.compiled_original(fn)
    target = getattr(raw, "forward", raw) if not inspect.isfunction(raw) and not inspect.ismethod(raw) else raw
    func = getattr(target, "__func__", target)
    code = getattr(func, "__code__", None)
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        sig = None

    def frame_locals(a: tuple, k: dict) -> dict:
        if sig is None:
            return {}
        bound = sig.bind(*a, **k)
        bound.apply_defaults()
        out = dict(bound.arguments)
        if getattr(target, "__self__", None) is not None and code is not None and code.co_varnames[:1] == ("self",):
            out = {"self": target.__self__, **out}
        return out

    sources = tuple(f"L['{n}']" for n in (sig.parameters if sig is not None else ()))
    if not inspect.isfunction(raw) and not inspect.ismethod(raw):
        # torch.compile(module) compiles Dynamo's own wrapper frame, not forward: its guards are
        # inside the end-to-end figure but cannot be timed apart from here
        return Call(label=label, eager=raw, compiled=compiled, args=tuple(args), kwargs=dict(kwargs),
                    arg_sources=sources)
    return Call(label=label, eager=raw, compiled=compiled, args=tuple(args), kwargs=dict(kwargs), code=code,
                frame_locals=frame_locals, arg_sources=sources)


# ---- is re-calling faithful and harmless? ----

# what keeps a call from being re-timed, one line per kind in ``not_timed``
RISK_KINDS = {
    "cudagraphs": "CUDA graphs",
    "mutation": "the call mutates objects that existed before it",
    "changed": "re-calling changed objects that existed before the call (each was restored)",
    "writeback": "the rewritten bytecode writes back state",
    "break": "graph breaks run Python whose effects the explorer cannot rule out",
    "inplace": "graphs update tensors in place that are not the call's arguments",
    "recall": "re-calling could not be done",
}


@dataclass
class Verdict:
    risks: dict[str, list[str]] = field(default_factory=dict)  # kind -> why re-calling could change user state
    mutated_args: list[str] = field(default_factory=list)  # arguments a graph updates in place: copy them
    silenced: list[str] = field(default_factory=list)  # output the call writes, silenced while timing
    created: list[str] = field(default_factory=list)  # objects the call makes, whose write-back is harmless
    watched: list[Watched] = field(default_factory=list)  # existing objects it mutates: must come out unchanged

    def add(self, kind: str, detail: str) -> None:
        details = self.risks.setdefault(kind, [])
        if detail not in details:
            details.append(detail)

    def lines(self) -> list[str]:
        """One line per kind of reason (not one per attribute)."""
        return [f"{RISK_KINDS.get(kind, kind)}: {'; '.join(details)}" for kind, details in self.risks.items()]


def judge(capture: Any, graphs: Sequence[Any], call: Call, recorder: Any = None) -> Verdict:
    v = Verdict()
    if getattr(recorder, "uses_cudagraphs", False) and any(str(g.device).startswith("cuda") for g in graphs):
        v.add("cudagraphs", "a re-call replays the recorded graph into the same output memory, overwriting the "
                            "outputs the user holds from their call")
    # torch's side-effect record names every object the compiled code mutates; when this torch writes it and
    # none failed to read, a compilation without one replays no mutation (its bytecode's list slicing after a
    # graph break is Dynamo's own stack handling)
    problems = getattr(capture, "problems", ()) if capture is not None else ()
    trusted = torch_door.dynamo.records_side_effects() and not any(
        getattr(p, "event", None) == "artifact:dynamo_side_effects" for p in problems)
    for c in getattr(capture, "compilations", ()) if capture is not None else ():
        _judge_bytecode(c, v, trusted)
        if c.side_effects:
            found = judge_mutations(c, call)
            v.created += found.created
            v.watched += found.watched
            for risk in found.risks:
                v.add("mutation", f"{c.compile_id}: {risk}")
        brk = c.graph_break
        if brk is not None:
            text = " ".join(filter(None, (brk.reason, brk.explanation, brk.source_line, brk.detail))).lower()
            where = f"{brk.filename.rsplit('/', 1)[-1] if brk.filename else '?'}:{brk.lineno}"
            if "print" in text:
                v.silenced.append(f"the print at {where} (graph break)")
            elif not any(p in text for p in _PURE_BREAKS):
                v.add("break", f"{where} ({brk.reason})")
    for g in graphs:
        _judge_graph(g, call, v)
    return v


def _judge_bytecode(c: Any, v: Verdict, trusted: bool = False) -> None:
    """Writes Dynamo's rewritten bytecode replays after the graph. With torch's side-effects record, attribute,
    list and dict write-backs are judged by the object they touch (``mutations``); rebinding a global or a
    closure variable is judged here either way. A frame Dynamo gave up on runs as its original code on a
    re-call (a cell's loop with a graph break in it): that code's writes are judged instead."""
    code = c.rewritten_bytecode if c.status in ("compiled", "no_graph") else None
    original = code is None
    if original:
        code = c.original_bytecode
        if code is None:
            if c.status in ("failed", "skipped"):
                v.add("writeback", f"{c.compile_id}: {c.frame.name} ran as its original code, which the capture "
                                   "does not show")
            return
    by_record = (trusted or bool(c.side_effects)) and not original
    found: dict[str, None] = {}
    prev = None
    for ins in code.instructions:
        name = ins.argrepr.split(" + ")[-1]
        if ins.opname in _REPLAY_OPS and not (by_record and ins.opname in ("STORE_ATTR", "DELETE_ATTR")):
            found[f"{ins.opname} {ins.argrepr}"] = None
        elif not by_record and ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and name in _REPLAY_NAMES:
            found[f"replays {name}"] = None
        elif not by_record and ins.opname == "STORE_SUBSCR" and prev == "BUILD_SLICE":
            found["replays a list mutation"] = None
        prev = ins.opname if ins.opname not in ("LOAD_CONST", "LOAD_FAST", "LOAD_GLOBAL", "COPY", "SWAP") else prev
        if ins.opname == "BUILD_SLICE":
            prev = "BUILD_SLICE"
    if found:
        gave_up = " (its original code: Dynamo gave up on the frame)" if original else ""
        v.add("writeback", f"{c.compile_id}{gave_up}: {', '.join(found)}")


def _judge_graph(g: Any, call: Call, v: Verdict) -> None:
    gm = getattr(g, "gm", None)
    if gm is None:
        return
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    sources = dict(zip(placeholders, torch_door.dynamo.dynamo_graph_sources(gm)))
    for node in gm.graph.nodes:
        if not _mutates(node):
            continue
        root = _root(node.args[0] if node.args else None)
        if root is None or root.op != "placeholder":
            continue
        src = sources.get(root.name) or root.name
        if any(src == s or src.startswith(s + "[") or src.startswith(s + ".") for s in call.arg_sources
               if s != "L['self']"):
            arg = next(s for s in call.arg_sources if src == s or src.startswith((s + "[", s + ".")))
            if arg not in v.mutated_args:
                v.mutated_args.append(arg)
        else:
            v.add("inplace", f"{g.label} updates {src} ({_target_name(node)}), so a re-run would change it")


def _mutates(node: Any) -> bool:
    if node.op not in ("call_function", "call_method"):
        return False
    if node.kwargs.get("out") is not None:
        return True
    if node.op == "call_function" and node.target in _INPLACE_FUNCTIONS:
        return True
    name = _target_name(node)
    return name.endswith("_") and not name.endswith("__")


def _target_name(node: Any) -> str:
    t = node.target
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))


_VIEWS = {"view", "reshape", "transpose", "permute", "t", "expand", "narrow", "select", "squeeze", "unsqueeze",
          "flatten", "unflatten", "view_as", "as_strided", "diagonal", "detach", "__getitem__", "getitem",
          "contiguous", "split", "chunk", "unbind", "movedim"}


def _root(node: Any) -> Any:
    for _ in range(64):
        if node is None or not hasattr(node, "op"):
            return None
        if node.op == "placeholder":
            return node
        if node.op in ("call_method", "call_function") and _target_name(node) in _VIEWS and node.args:
            node = node.args[0]
            continue
        return None
    return None


# ---- timing ----

def time_end_to_end(call: Call, *, capture: Any = None, graphs: Sequence[Any] = (), graph_timings: Sequence[Any] = (),
                    device: str = "cpu", first_call_s: Optional[float] = None, compile_time_s: Optional[float] = None,
                    budget_s: float = bench.DEFAULT_BUDGET_S, repeats: int = bench.DEFAULT_REPEATS,
                    recorder: Any = None) -> EndToEnd:
    verdict = judge(capture, graphs, call, recorder)
    notes: list[str] = []
    with torch_door.devices.preserved_rng():
        guards = _time_guards(call, notes, budget_s, repeats)
        if verdict.risks:
            result = _parts(call, verdict, guards, graph_timings, device, notes)
        else:
            result = _recall(call, verdict, guards, graph_timings, device, notes, budget_s, repeats, recorder)
    notes.append("the global random state was restored after timing")
    return dataclasses.replace(
        result, first_call_s=first_call_s, compile_time_s=compile_time_s,
        break_even_calls=judging.break_even(compile_time_s, result.eager, result.compiled,
                                            result.ratio.value if result.ratio is not None else None,
                                            result.verdict),
        notes=tuple(result.notes) + tuple(notes))


def _time_guards(call: Call, notes: list[str], budget_s: float, repeats: int) -> Optional[Measurement]:
    """Evaluating the cached entries in Dynamo's order until one accepts the call's own arguments (read-only)."""
    if call.code is None or call.frame_locals is None:
        notes.append("guards not timed apart: a module's compiled frame is Dynamo's own wrapper "
                     "(the re-called figure includes them)")
        return None
    try:
        managers = torch_door.dynamo_cache.guard_managers(call.code)
        f_locals = call.frame_locals(call.args, call.kwargs)
    except Exception as e:  # noqa: BLE001 - the guards are one part of the answer
        notes.append(f"guards not timed: {type(e).__name__}: {e}")
        return None
    if not managers:
        notes.append("guards not timed: Dynamo holds no cached entry for this frame")
        return None

    def check() -> bool:
        for m in managers:
            if m.check(f_locals):
                return True
        return False

    try:
        if not check():
            notes.append("no cached entry accepts these arguments any more: the guards were timed failing")
        return bench.measure(check, device="cpu", budget_s=min(budget_s, 0.02), repeats=repeats)
    except Exception as e:  # noqa: BLE001
        notes.append(f"guards not timed: {type(e).__name__}: {e}")
        return None


def _parts(call: Call, verdict: Verdict, guards: Optional[Measurement], graph_timings: Sequence[Any], device: str,
           notes: list[str]) -> EndToEnd:
    """Re-calling could change the user's state: the parts that can be timed without it, added up."""
    comp = [g.compiled for g in graph_timings]
    eag = [g.eager for g in graph_timings]
    compiled = eager = None
    if comp and all(comp) and all(eag):
        extra = guards.median_s if guards else 0.0
        compiled = _sum_measurement(comp, extra, "sum: guard checks + each graph's compiled median")
        eager = _sum_measurement(eag, 0.0, "sum: each graph's eager median")
    not_timed = [f"the call itself was not re-run, since {line}" for line in verdict.lines()]
    not_timed += ["the Python around the graphs: Dynamo's frame entry and argument handling, the rewritten frame, "
                 "graph-break glue and resume functions (so the compiled figure is a lower bound), and the eager "
                 "Python between the graphs"]
    timed = [t for t in ("Dynamo's guard checks on the call's own arguments (read-only)" if guards else None,
                         "each graph, compiled and eager, on private copies of its inputs") if t]
    # each graph's repeats were interleaved, so the sums of repeat i hold the same clock on both sides
    ratio = bench.ratio_of(eager.times_s, compiled.times_s) if eager and compiled else None
    verdict, warnings = judging.assess(eager, compiled, device=device, ratio=ratio)
    return EndToEnd(label=call.label, method=METHOD_PARTS, device=device, eager=eager, compiled=compiled,
                    speedup=ratio.value if ratio else _ratio(eager, compiled), ratio=ratio,
                    graphs_compiled_s=_sum_of(comp), overhead_s=None,
                    guards=guards, timed=tuple(timed), not_timed=tuple(not_timed), warnings=tuple(warnings),
                    verdict=verdict)


def _recall(call: Call, verdict: Verdict, guards: Optional[Measurement], graph_timings: Sequence[Any], device: str,
            notes: list[str], budget_s: float, repeats: int, recorder: Any) -> EndToEnd:
    args, kwargs = call.args, call.kwargs
    timed = ["the compiled function called as the user calls it: guards, Dynamo's frame, the graphs, "
             "resume functions and graph-break glue", "the user's function called eagerly, the same way"]
    if verdict.mutated_args:
        args, kwargs = _private(call.args), _private(call.kwargs)
        notes.append(f"a graph updates {', '.join(verdict.mutated_args)} in place: both sides ran on private "
                     "copies of the arguments")
        why = _guards_refuse(call, args, kwargs)
        if why:
            return _parts(call, Verdict(risks={"recall": [why]}), guards, graph_timings, device, notes)
    if verdict.created:
        notes.append("the call writes back objects it creates itself (" + created_summary(verdict.created) +
                     "): they do not exist before the call, so re-calling changes nothing the user holds")
    before = len(getattr(recorder, "graphs", ()))
    printed = io.StringIO()
    compiled_call = lambda: call.compiled(*args, **kwargs)  # noqa: E731
    eager_call = lambda: call.eager(*args, **kwargs)  # noqa: E731
    # output silenced and a cell's names seeded once around each measurement, not per call: a context
    # manager per call would cost more than Dynamo's own overhead on a tiny function
    quiet = lambda: _quiet(printed, call.around)  # noqa: E731
    try:
        with quiet():
            with torch_door.dynamo.fail_on_recompile():  # the first calls: a recompile would raise, not happen
                warm = _first_calls(compiled_call, device)
    except Exception as e:  # noqa: BLE001 - e.g. Dynamo would have recompiled: say so, time the parts
        _restore(verdict.watched)
        reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if verdict.watched:
            reason += ("; the call mutates objects that existed before it, which its guards may check: " +
                       ", ".join(w.label for w in verdict.watched))
        return _parts(call, Verdict(risks={"recall": [reason]}), guards, graph_timings, device, notes)
    changed = _changed(verdict.watched)
    if changed:
        return _parts(call, Verdict(risks={"changed": changed}), guards, graph_timings, device, notes)
    if verdict.watched:
        notes.append("the call also mutates objects that existed before it (" +
                     ", ".join(w.label for w in verdict.watched) + "): after three re-calls each was as the "
                     "user's call had left it (the same values), so re-calling changes nothing the user holds")
    try:
        with quiet():
            eager, compiled, ratio = bench.measure_pair(eager_call, compiled_call, device=device, budget_s=budget_s,
                                                        repeats=repeats)
    except Exception as e:  # noqa: BLE001 - say so, time the parts
        _restore(verdict.watched)
        reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return _parts(call, Verdict(risks={"recall": [reason]}), guards, graph_timings, device, notes)
    changed = _changed(verdict.watched)
    if changed:
        notes.append("timing changed objects that existed before the call; each was restored: " + "; ".join(changed))
    if len(getattr(recorder, "graphs", ())) != before:
        notes.append("a graph was compiled while timing (unexpected): the figures include it")
    if verdict.silenced or printed.getvalue():
        notes.append("the call's output (" + (", ".join(verdict.silenced) or "prints") +
                     ") was silenced while timing")
    if ratio.drift_note:
        notes.append(ratio.drift_note)
    graphs_s = _sum_of([g.compiled for g in graph_timings])
    judged, warnings = judging.assess(eager, compiled, device=device, ratio=ratio)
    return EndToEnd(label=call.label, method=METHOD_RECALL, device=device, eager=eager, compiled=compiled,
                    speedup=ratio.value, ratio=ratio, graphs_compiled_s=graphs_s,
                    overhead_s=compiled.median_s - graphs_s if graphs_s is not None else None,
                    guards=guards, warmup_s=tuple(warm), timed=tuple(timed),
                    not_timed=("compiling (compile_time_s and first_call_s are apart)",),
                    warnings=tuple(warnings), verdict=judged)


def _changed(watched: Sequence[Watched]) -> list[str]:
    """The watched objects a re-call changed, named; all of them restored to the user's state."""
    changed = [w.label for w in watched if not w.unchanged()]
    if changed:
        _restore(watched)
    return changed


def _restore(watched: Sequence[Watched]) -> None:
    for w in watched:
        w.restore()


@contextlib.contextmanager
def _quiet(sink: io.StringIO, around: Optional[Callable[[], Any]]) -> Any:
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            (around() if around else contextlib.nullcontext()):
        yield


def _first_calls(fn: Callable[[], Any], device: str, n: int = 3) -> list[float]:
    """The first calls one by one (lazy initialisation, CUDA graph warm-up and recording land here)."""
    import torch

    out = []
    for _ in range(n):
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        out.append(time.perf_counter() - t0)
    return out


def _guards_refuse(call: Call, args: tuple, kwargs: dict) -> Optional[str]:
    if call.code is None or call.frame_locals is None:
        return None
    try:
        f_locals = call.frame_locals(args, kwargs)
        entries = torch_door.dynamo_cache.cache_entries(call.code)
        if not any(torch_door.dynamo_cache.evaluate_entry_guards(e, f_locals)[0] for e in entries):
            return "private copies of the arguments would not pass the cached guards (a re-call would recompile)"
    except Exception:  # noqa: BLE001 - fail_on_recompile still stands guard
        return None
    return None


def _private(value: Any) -> Any:
    """A copy with every tensor cloned (same shape, strides, dtype, device, requires_grad)."""
    import torch

    memo: dict[int, Any] = {}

    def clone(t: torch.Tensor) -> torch.Tensor:
        out = torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device=t.device)
        with torch.no_grad():
            out.copy_(t)
        return out.requires_grad_(t.requires_grad)

    def walk(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            if id(v) not in memo:
                memo[id(v)] = clone(v)
            return memo[id(v)]
        if isinstance(v, tuple):
            return type(v)(*[walk(x) for x in v]) if hasattr(v, "_fields") else tuple(walk(x) for x in v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value)


def _sum_measurement(parts: Sequence[Measurement], extra: float, method: str) -> Measurement:
    n = min(len(p.times_s) for p in parts)
    per = [sum(p.times_s[i] for p in parts) + extra for i in range(n)]
    m = bench.summarize(per, min(p.loops for p in parts), method)
    return dataclasses.replace(m, median_s=sum(p.median_s for p in parts) + extra)


def _sum_of(ms: Sequence[Optional[Measurement]]) -> Optional[float]:
    if not ms or any(m is None for m in ms):
        return None
    return float(sum(m.median_s for m in ms))  # type: ignore[union-attr]


def _ratio(eager: Optional[Measurement], compiled: Optional[Measurement]) -> Optional[float]:
    return eager.median_s / compiled.median_s if eager and compiled and compiled.median_s > 0 else None
