"""``%%compile`` (a cell) and ``%compile EXPR`` (one expression or statement).

The cell's own code is what torch.compile compiles (see ``cell.py``); the
explorer captures every stage while it runs, shows a live status line, then
the side-by-side view (``widget.py``). Errors stay the user's: the exception a
plain run would raise is re-raised unchanged, its traceback shown from the
cell's lines with the explorer's and Dynamo's frames left out, after the
stages captured before the failure.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, Optional

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .cell import build_cell_function, register_source
from .options import MODES, Options, parse_compare
from .progress import Progress

_VALUE_OPTIONS = ("--backend", "--mode", "--html", "--json", "--compare", "--target", "--inductor-backend")  # options followed by a value

_EXPLORER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# torch's compiler machinery: frames a plain run of the cell would not show
_TORCH_INTERNAL = ("_dynamo", "_inductor", "_functorch", "fx", "_subclasses", "_higher_order_ops",
                   "_logging", "_guards.py", "_compile.py", "_utils_internal.py", "_strobelight")


@magics_class
class CompileMagics(Magics):
    @magic_arguments()
    @argument("--backend", default="inductor",
              help="torch.compile backend: inductor (default), aot_eager, eager, any registered one, "
                   "or the name of a backend function defined in the notebook")
    @argument("--mode", default=None, choices=MODES, help="torch.compile mode")
    @argument("--dynamic", dest="dynamic", action="store_true", default=None,
              help="compile with dynamic shapes from the start")
    @argument("--no-dynamic", dest="dynamic", action="store_false",
              help="never compile with dynamic shapes (specialise on every size)")
    @argument("--fullgraph", action="store_true", help="fail instead of breaking the graph")
    @argument("--capture-only", dest="capture_only", action="store_true",
              help="compile nothing: run the cell as it is and capture the torch.compile calls it makes itself")
    @argument("-o", dest="return_report", action="store_true",
              help="return the report as the cell's value (like %%timeit -o); it displays as the view")
    @argument("-q", dest="quiet", action="store_true", help="show no view (and no status line)")
    @argument("--html", metavar="FILE", default=None, help="also save the standalone HTML report to FILE")
    @argument("--json", metavar="FILE", default=None, help="also save the report as JSON to FILE")
    @argument("--timeit", action="store_true",
              help="also re-run the whole cell eager and compiled, like %%timeit: its side effects repeat")
    @argument("--no-time", dest="no_time", action="store_true",
              help="skip timing (by default each captured graph is timed compiled vs eager on copies "
                   "of its inputs, which changes nothing in the notebook)")
    @argument("--why", action="store_true",
              help="line magic only: %%compile --why f(new_args) says, without compiling or running f, "
                   "which cached compilation of f these arguments would reuse, or which guard fails")
    @argument("--compare", metavar="MODES", default=None,
              help="comma-separated modes to compile and time side by side, "
                   "e.g. default,reduce-overhead,max-autotune-no-cudagraphs")
    @argument("--target", default=None, choices=("cuda",), help="also preview the Triton kernels a CUDA GPU would get (not run)")
    @argument("--inductor-backend", dest="inductor_backend", default=None, choices=("halide", "triton", "cpp"), help="Inductor's code generator, e.g. halide")
    @no_var_expand
    @line_cell_magic
    def compile(self, line: str, cell: Optional[str] = None) -> Any:
        """Compile a cell (``%%compile``) or one expression (``%compile EXPR``) and explore every stage.

        The cell runs once, through torch.compile; its variables, imports,
        functions and classes land in the namespace as in a plain run, and its
        last expression is the cell's value.
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        if cell is None:
            options, expr = split_line(line)
            args = parse_argstring(self.compile, options)
            if not expr.strip():
                from IPython.core.error import UsageError

                raise UsageError("%compile needs an expression, e.g. %compile model(x)")
            if args.why:
                return why_recompile_line(self.shell, expr)
            return run_compiled(self.shell, args, expr, f"%compile {line}", first_line=1)
        args = parse_argstring(self.compile, line)
        return run_compiled(self.shell, args, self.shell.transform_cell(cell), f"%%compile {line}\n{cell}",
                            first_line=2)


def register(ipython: Any) -> None:
    """Called by ``%load_ext explorer``."""
    ipython.register_magics(CompileMagics)
    cleanup = getattr(ipython, "input_transformers_cleanup", None)
    if cleanup is not None and not any(getattr(t, "_explorer_syntax_check", False) for t in cleanup):
        cleanup.append(_syntax_check(ipython))


def _syntax_check(shell: Any) -> Any:
    """An input transformer: a ``%%compile`` cell whose code does not parse fails as a plain cell.

    Without it the SyntaxError would surface from inside the magic, and IPython
    would print the frames that led there. Given the cell's own code instead,
    IPython raises the error itself before running anything, pointing at the
    cell line (a blank first line stands for the ``%%compile`` line).
    """
    def check(lines: list[str]) -> list[str]:
        if not lines or not lines[0].startswith("%%compile"):
            return lines
        try:
            code = shell.transform_cell("".join(lines[1:]))
            compile(code, "<cell>", "exec", dont_inherit=True)
        except SyntaxError:
            return ["\n"] + code.splitlines(True)
        except Exception:  # noqa: BLE001 - the magic reports whatever this could not check
            pass
        return lines

    check._explorer_syntax_check = True  # type: ignore[attr-defined]
    return check


def why_recompile_line(shell: Any, expr: str) -> Any:
    """``%compile --why f(x, n=2)``: the call's function and arguments are evaluated, f is not called."""
    import ast

    from IPython.core.error import UsageError

    from .clinic import why_recompile

    try:
        call = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError as e:
        raise UsageError(f"--why needs a call such as f(x): {e.msg}") from None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        raise UsageError("--why needs a plain call such as f(x, n=2) (no *args or **kwargs)")
    ev = lambda node: eval(compile(ast.Expression(node), "<why>", "eval"), shell.user_ns)  # noqa: E731,S307
    fn = ev(call.func)
    verdicts = why_recompile(fn, *[ev(a) for a in call.args], **{k.arg: ev(k.value) for k in call.keywords})
    if not verdicts:
        print(f"{ast.unparse(call.func)} has no compiled entry yet: this call would compile it")
    for v in verdicts:
        print(v)
    if verdicts and not any(v.reused for v in verdicts):
        print("=> this call would recompile")
    return None


def split_line(line: str) -> tuple[str, str]:
    """``--backend eager -q f(x)`` -> (``--backend eager -q``, ``f(x)``): options end where code starts."""
    rest = line.strip()
    options = []
    while rest.startswith("-"):
        token, _, rest = rest.partition(" ")
        rest = rest.lstrip()
        options.append(token)
        if token in _VALUE_OPTIONS and rest:
            value, _, rest = rest.partition(" ")
            options.append(value)
            rest = rest.lstrip()
    return " ".join(options), rest


def run_compiled(shell: Any, args: Any, source: str, display_text: str, *, first_line: int) -> Any:
    """Runs ``source`` as one torch.compile'd function under capture; shows the view; returns the value."""
    __tracebackhide__ = True  # noqa: F841
    from . import pipeline
    from .widget import ExplorerView

    options = options_from_args(args)
    backend_fn = shell.user_ns.get(args.backend) if callable(shell.user_ns.get(args.backend)) else None
    filename = register_source(display_text, shell)
    cell_fn = build_cell_function(source, filename, shell.user_global_ns, first_line=first_line)
    with Progress(enabled=not args.quiet) as progress:
        try:
            outcome = pipeline.run(pipeline.CellTarget(cell_fn), options, backend_fn=backend_fn, progress=progress)
        except Exception as e:  # the setup failed (an unknown backend, a mode it does not take): nothing ran
            progress.finish(None)
            _show_from_cell(e, shell)
            raise
        report = outcome.report
        if not args.quiet and not args.return_report:
            view = ExplorerView(report)
            if not progress.finish(view):
                _display(view)
        else:
            progress.finish(None)
    if outcome.error is not None:
        from .api import attach_report

        _show_from_cell(outcome.error, shell)
        attach_report(outcome.error, report)
        raise outcome.error
    if args.return_report:
        from .widget import NotebookReport

        return NotebookReport.of(report)
    return outcome.value if cell_fn.returns_value else None


def options_from_args(args: Any) -> Options:
    """The magic's flags as the pipeline's options (the same names as explore() and the CLI)."""
    timing = not args.no_time
    return Options(backend=args.backend, mode=args.mode, dynamic=args.dynamic, fullgraph=args.fullgraph,
                   time=timing or args.timeit, timeit=args.timeit, compare=parse_compare(args.compare),
                   capture_only=args.capture_only, target=args.target, inductor_backend=args.inductor_backend,
                   html=args.html, json=args.json)


def _display(obj: Any) -> None:
    from IPython.display import display

    display(obj)


# ---- errors: the user's exception, shown from the cell's lines ----

def _show_from_cell(exc: BaseException, shell: Any) -> None:
    """Makes IPython show ``exc`` with explorer and Dynamo frames left out.

    The exception object and its type are untouched (the same one a plain run
    raises); IPython asks an exception for ``_render_traceback_`` before
    formatting it, so that is where the trimmed traceback goes.
    """
    if isinstance(exc, SyntaxError) or exc.__traceback__ is None:
        return  # IPython shows a SyntaxError as file and line, no frames
    trimmed = user_traceback(exc.__traceback__)

    def render() -> list[str]:
        return shell.InteractiveTB.structured_traceback(type(exc), exc, trimmed, tb_offset=0)

    try:
        exc._render_traceback_ = render  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # an exception type without __dict__: full traceback
        pass


def user_traceback(tb: types.TracebackType) -> Optional[types.TracebackType]:
    """The traceback without frames from the explorer and torch's compiler machinery.

    Where Dynamo resumed the cell after a graph break, the cell's frame calls a
    resume function at the same file: only the resume frame (the line that
    raised) is kept. None when every frame was internal (an error raised while
    Dynamo traced the cell: its message names the cell line itself).
    """
    kept = []
    walk: Optional[types.TracebackType] = tb
    while walk is not None:
        if not _is_internal(walk.tb_frame.f_code.co_filename):
            kept.append((walk.tb_frame, walk.tb_lasti, walk.tb_lineno))
        walk = walk.tb_next
    kept = [entry for i, entry in enumerate(kept) if not _calls_resume(entry, kept[i + 1:i + 2])]
    new: Optional[types.TracebackType] = None
    for frame, lasti, lineno in reversed(kept):
        new = types.TracebackType(new, frame, lasti, lineno)
    return new


def _calls_resume(entry: tuple, following: list) -> bool:
    if not following:
        return False
    code, next_code = entry[0].f_code, following[0][0].f_code
    return code.co_filename == next_code.co_filename and next_code.co_name.startswith("torch_dynamo_resume_in_")


def _is_internal(filename: str) -> bool:
    if filename.startswith(_EXPLORER_DIR):
        return True
    torch_dir = _torch_dir()
    if torch_dir and filename.startswith(torch_dir):
        rest = filename[len(torch_dir):]
        return rest.split(os.sep, 1)[0] in _TORCH_INTERNAL
    return False


def _torch_dir() -> Optional[str]:
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None
