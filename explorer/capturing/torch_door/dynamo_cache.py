"""Dynamo's cache per code object: its entries, their guards, the guard filter, forgetting compilations.

Subsystem: TorchDynamo's code cache (``torch._dynamo.eval_frame``: ``_debug_get_cache_entry_list``, ``reset_code``;
``resume_execution.ContinueExecutionCache``; ``utils.CleanupManager``; ``guards.get_guard_fail_reason_helper``)
and ``torch.compiler``'s ``guard_filter_fn``.

Version differences: none among 2.11-2.14 (``CacheEntry.compile_id`` and ``.backend``, a guard manager's
``check_verbose`` and the recompile-reason helper's four parameters exist in all four; the helper's signature is
read, so an older torch's three-parameter form still works).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from ..compile_id import CompileId
from . import dynamo


def cache_entries(code: Any) -> list[Any]:
    """Dynamo's cached (guards, code) entries for a code object, most recently used first (the order its frame
    evaluator tries them)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return list(_debug_get_cache_entry_list(code))


def cache_entry_facts(code: Any) -> list[tuple[Optional[CompileId], str, str]]:
    """Dynamo's cache of a code object as data, in the order its frame evaluator tries it: (the compile id that made
    each entry, the name of the code object it runs, its backend by name).

    The C frame evaluator (``torch/csrc/dynamo/extra_state.cpp``, 2.11-2.14: ``lookup``) walks the entries front to
    back, tries an entry only under an equal backend, and moves the entry whose guards passed to the front; a new
    entry goes in front (``create_cache_entry``). ``CacheEntry.compile_id`` and ``.backend`` exist in 2.11-2.14.
    """
    out = []
    for entry in cache_entries(code):
        cid = getattr(entry, "compile_id", None)
        frame = getattr(cid, "frame_id", None)
        made = CompileId(frame, getattr(cid, "frame_compile_id", None) or 0) if isinstance(frame, int) else None
        out.append((made, str(getattr(getattr(entry, "code", None), "co_name", "?")),
                    dynamo.backend_name(getattr(entry, "backend", None))))
    return out


def guard_managers(code: Any) -> list[Any]:
    """The guard managers of Dynamo's cached entries for ``code``, most recently used first."""
    return [e.guard_manager for e in cache_entries(code)]


def entry_compile_id(entry: Any) -> Optional[str]:
    """A cached entry's compile id, as the report's key (torch prints ``0/1``; an attempt folds into it)."""
    cid = getattr(entry, "compile_id", None)
    return None if cid is None else CompileId.key_of(str(cid))


def evaluate_entry_guards(entry: Any, f_locals: dict[str, Any]) -> tuple[bool, Optional[str]]:
    """(all guards pass, torch's text for the first failing guard), without compiling.

    The guard manager's ``check_verbose`` names the failing leaf; torch's own
    recompile-reason helper turns a lambda guard's many code parts into the one
    that failed, as ``TORCH_LOGS=recompiles`` would print it.
    """
    manager = entry.guard_manager
    invalidated = getattr(manager, "invalidation_reason", None)  # DeletedGuardManagerWrapper
    if invalidated:
        return False, str(invalidated)
    verdict = manager.check_verbose(f_locals)
    if verdict.result:
        return True, None
    parts = "; ".join(str(p) for p in verdict.verbose_code_parts)
    try:
        import inspect

        from torch._dynamo.guards import get_guard_fail_reason_helper as helper

        extra = [getattr(entry, "backend", None)] if len(inspect.signature(helper).parameters) >= 4 else []
        return False, helper(manager, f_locals, getattr(entry, "compile_id", None), *extra) or parts
    except Exception as e:  # noqa: BLE001 - the verbose parts still answer; the reader sees why they are terser
        return False, f"{parts} (torch's recompile-reason helper failed: {type(e).__name__}: {e})"


def forget_compilations(fn: Any) -> int:
    """Drops Dynamo's cached compilations of ``fn`` (and of its resume functions).

    Dynamo reuses a frame's cached compilation when its guards pass, and then
    nothing is compiled and nothing can be captured. ``explore`` promises a
    fresh compile, so it forgets earlier ones first. Returns how many code
    objects were reset. ``reset_code`` takes any code object (one Dynamo never
    saw included), so an exception here is a torch change to hear about: it propagates.
    """
    return sum(len(forget_code(code)) for code in _code_objects(fn))


def _code_objects(fn: Any) -> list[Any]:
    fn = dynamo.compiled_original(fn)
    out = []
    for candidate in (fn, getattr(fn, "forward", None), getattr(fn, "__call__", None)):  # noqa: B004 - its code, not callability
        candidate = getattr(candidate, "__func__", candidate)
        code = getattr(candidate, "__code__", None)
        if code is not None and code not in out:
            out.append(code)
    return out


def forget_code(code: Any) -> list[Any]:
    """Drops Dynamo's cached compilations of one code object and of its resume functions.

    Returns every code object reset (``code`` and its resume functions), for
    ``release_helper_globals``.
    """
    from torch._dynamo.eval_frame import reset_code
    from torch._dynamo.resume_execution import ContinueExecutionCache

    todo, done = [code], []
    while todo:
        c = todo.pop()
        reset_code(c)
        done.append(c)
        resumes = ContinueExecutionCache.cache.get(c)
        if resumes:
            todo.extend(resumes.values())
    return done


def release_helper_globals(codes: list[Any], rewritten: Iterable[Any] = ()) -> None:
    """Removes the helper globals Dynamo put in a frame's globals for these code objects' compilations.

    Dynamo registers, per rewritten code object, the clean-up of its helpers
    (``__compiled_fn_N``, ``__resume_at_N``, ``__builtins_dict___N``, ...) to run
    when that code object is freed (``CleanupManager``). Once the compilations are
    forgotten nothing can run the rewritten code again, but it may stay referenced
    for a while (and its clean-up would then fire at interpreter exit, after the
    namespace is gone: ``KeyError`` noise on stderr). This runs that clean-up now,
    exactly once, for the rewritten code of ``codes``. ``rewritten`` names that code
    itself (from the bytecode hook): after ``torch._dynamo.reset()`` Dynamo's map from
    rewritten to original code is empty, but the clean-ups are still pending.
    """
    from torch._dynamo.utils import CleanupManager, orig_code_map

    ours = {id(c) for c in codes}
    new = {id(c) for c in rewritten}
    manager = CleanupManager.instance
    for idx in list(manager.values):
        original = orig_code_map.values.get(idx)
        if idx not in new and (original is None or id(original) not in ours):
            continue
        for hook in manager.values.pop(idx, ()):
            if hook.name in hook.scope:
                hook()  # Dynamo's own clean-up: deletes the global, counts it done
            else:  # the user deleted it already: only the bookkeeping is left
                CleanupManager.count -= 1
        manager.refs.pop(idx, None)  # its weakref callback then finds nothing to do


def pending_cleanup_names(namespace: dict) -> set[str]:
    """Names in ``namespace`` that Dynamo will delete itself when their compiled code is freed."""
    from torch._dynamo.utils import CleanupManager

    names = set()
    for hooks in list(CleanupManager.instance.values.values()):
        for hook in hooks:
            if getattr(hook, "scope", None) is namespace:
                names.add(hook.name)
    return names


def recording_guard_filter(fn: Callable[[Any], Any], sink: Callable[[Optional[CompileId], list], None]
                           ) -> Callable[[Any], Any]:
    """``fn`` as a ``guard_filter_fn`` that also hands ``sink(compile id, rows)`` every guard it was asked
    about (torch's ``GuardFilterEntry``), kept or not: torch drops the others without a record.

    A row is (kept, guard type, subject, value, derived types, is_global, file, line, source). ``fn``'s
    own answer is returned unchanged, and a failure of the sink never reaches the compile.
    """
    def guard_filter_fn(entries: Any) -> Any:
        keep = fn(entries)
        try:
            sink(dynamo.current_compile_id(), [_guard_row(e, bool(k)) for e, k in zip(entries, list(keep))])
        except Exception as e:  # noqa: BLE001 - recording must not break the compile: the sink is told
            sink(dynamo.current_compile_id(), [e])
        return keep

    guard_filter_fn.__name__ = getattr(fn, "__name__", "guard_filter_fn")
    return guard_filter_fn


def _guard_row(e: Any, kept: bool) -> tuple:
    value = None
    if getattr(e, "has_value", False):
        try:
            value = " ".join(repr(e.value).split())
        except Exception as err:  # noqa: BLE001 - a value whose repr fails: say so instead
            value = f"<repr failed: {type(err).__name__}>"
        value = value if len(value) <= 80 else value[:77] + "..."
    guard = getattr(e, "orig_guard", None)
    frame = _user_frame(getattr(guard, "user_stack", None)) or _user_frame(getattr(guard, "stack", None))
    return (kept, str(getattr(e, "guard_type", "?")), str(getattr(e, "name", "")), value,
            tuple(str(t) for t in getattr(e, "derived_guard_types", ()) or ()), bool(getattr(e, "is_global", False)),
            *(frame or (None, None, None)))


def _user_frame(stack: Any) -> Optional[tuple[str, int, Optional[str]]]:
    """The innermost frame of ``stack`` outside torch's own files, else its innermost frame."""
    import os

    if stack is not None and hasattr(stack, "summary"):  # torch.utils._traceback.CapturedTraceback
        stack = stack.summary()
    if not stack:
        return None
    import torch

    torch_dir = os.path.dirname(torch.__file__) + os.sep
    frames = list(stack)
    pick = next((f for f in reversed(frames) if not str(f.filename).startswith(torch_dir)), frames[-1])
    return str(pick.filename), int(pick.lineno or 0), (pick.line or "").strip() or None


def guard_filter_by_name(name: str) -> Optional[Callable[..., Any]]:
    """One of torch.compiler's guard filters by name (``skip_guard_on_inbuilt_nn_modules_unsafe``), or None."""
    import torch

    fn = getattr(torch.compiler, name, None)
    return fn if callable(fn) and name.endswith("_unsafe") else None
