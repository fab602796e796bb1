"""Would this call reuse a compiled graph? Evaluates the cached guards, compiles nothing.

Dynamo keeps, per code object, a list of (guards, compiled code) entries and
runs the first entry whose guards all pass. Here each entry's guards are
checked against the new arguments, bound to the frame's parameter names the
way Dynamo sees them (``f_locals``), and the first failing guard is named. Only
the top-level frame is checked: resume functions after a graph break see
locals that exist only mid-call.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..capturing import torch_door
from .recompiles import GuardFailure, classify, failure_from, reason_entries


@dataclass(frozen=True)
class GuardVerdict:
    """One cached entry, in the order Dynamo tries them (most recently used first)."""

    compile_id: Optional[str]
    reused: bool  # every guard passes: this entry's graph would run
    reason: Optional[str] = None  # torch's words for the first failing guard
    failure: Optional[GuardFailure] = None  # the same, parsed: guard kind, subject, old -> new

    def __str__(self) -> str:
        if self.reused:
            return f"{self.compile_id}: guards pass, this compiled entry would be reused"
        what = self.failure.describe() if self.failure else (self.reason or "a guard failed")
        return f"{self.compile_id}: fails: {what}"


def why_recompile(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[GuardVerdict]:
    """For each compiled entry of ``fn``, would ``fn(*args, **kwargs)`` reuse it, and if not, why.

    ``fn`` may be the original function or module, or what ``torch.compile``
    returned. An empty list means nothing is compiled for it yet: the call
    would compile. No entry reused means the call would recompile.
    """
    code, f_locals = _frame_locals(torch_door.dynamo.compiled_original(fn), args, kwargs)
    verdicts = []
    for entry in torch_door.dynamo_cache.cache_entries(code):
        cid = torch_door.dynamo_cache.entry_compile_id(entry)
        ok, reason = torch_door.dynamo_cache.evaluate_entry_guards(entry, f_locals)
        verdicts.append(GuardVerdict(cid, ok, reason, None if ok else _parsed(cid, reason, f_locals)))
    return verdicts


def would_reuse(verdicts: list[GuardVerdict]) -> Optional[str]:
    """The compile id whose graph would run (the first entry that passes), or None: a recompile."""
    return next((v.compile_id for v in verdicts if v.reused), None)


def _frame_locals(target: Any, args: tuple, kwargs: dict) -> tuple[Any, dict[str, Any]]:
    """(code object Dynamo caches on, the frame's locals at entry) for a function, method or module."""
    if hasattr(target, "forward") and callable(target) and not inspect.isfunction(target):
        func, bound_self = type(target).forward, target  # nn.Module: Dynamo compiles forward
    elif inspect.ismethod(target):
        func, bound_self = target.__func__, target.__self__
    else:
        func, bound_self = target, None
    func = inspect.unwrap(func)
    if not hasattr(func, "__code__"):
        raise TypeError(f"why_recompile needs a Python function, method or nn.Module, not {type(target).__name__}")
    sig = inspect.signature(func)
    bound = sig.bind(bound_self, *args, **kwargs) if bound_self is not None else sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return func.__code__, dict(bound.arguments)


def _parsed(cid: Optional[str], reason: Optional[str], f_locals: dict[str, Any]) -> Optional[GuardFailure]:
    if not reason:
        return None
    blocks = reason_entries(reason)
    block = blocks[0][1] if blocks else reason
    info = classify(block.splitlines()[0])
    subject = info.get("subject")
    if info.get("new") is None and subject in f_locals:
        info["new"] = _short_repr(f_locals[subject])  # the argument itself is the new value
    return failure_from(cid or "?", block, info)


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
