"""``%compile --why f(x)`` and the view's "why would this call recompile?": one call, checked, not run.

The magic's line and the widget's kernel action both evaluate the call's
function and arguments in the notebook's namespace and ask the clinic which
cached compilation the call would reuse, or which guard fails. It lives here,
below both, so neither imports the other.
"""

from __future__ import annotations

from typing import Any


def why_recompile_line(namespace: Any, expr: str) -> Any:
    """``%compile --why f(x, n=2)``: the call's function and arguments are evaluated in ``namespace`` (the
    notebook's variables: a dict, or an IPython shell's ``user_ns``), f is not called."""
    import ast

    from .clinic import why_recompile

    UsageError = _usage_error()
    namespace = getattr(namespace, "user_ns", namespace)

    try:
        call = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError as e:
        raise UsageError(f"--why needs a call such as f(x): {e.msg}") from None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        raise UsageError("--why needs a plain call such as f(x, n=2) (no *args or **kwargs)")
    ev = lambda node: eval(compile(ast.Expression(node), "<why>", "eval"), namespace)  # noqa: E731
    try:
        fn = ev(call.func)
        args = [ev(a) for a in call.args]
        kwargs = {k.arg: ev(k.value) for k in call.keywords}
    except Exception as e:  # noqa: BLE001 - the user's own expression failed (a name not defined yet): one line
        raise UsageError(f"--why {expr.strip()}: {type(e).__name__}: {e}") from None
    try:
        verdicts = why_recompile(fn, *args, **kwargs)
    except TypeError as e:  # not a function it can check (a builtin), or arguments its signature does not take
        raise UsageError(f"--why {expr.strip()}: {e}") from None
    if not verdicts:
        print(f"{ast.unparse(call.func)} has no compiled entry yet: this call would compile it")
    for v in verdicts:
        print(v)
    if verdicts and not any(v.reused for v in verdicts):
        print("=> this call would recompile")
    return None


def _usage_error() -> type:
    """IPython's UsageError (a magic's error, shown without a traceback) where IPython is here; marimo may not
    have it, and a ValueError says the same there."""
    try:
        from IPython.core.error import UsageError
    except ImportError:
        return ValueError
    return UsageError
