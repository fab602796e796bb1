"""``%%compile`` (a cell) and ``%compile EXPR`` (one expression or statement).

The cell's own code is what torch.compile compiles (see ``explorer/cell/``); the
explorer captures every stage while it runs, shows a live status line, then
the side-by-side view (``widget.py``). Errors stay the user's: the exception a
plain run would raise is re-raised unchanged, its traceback shown from the
cell's lines with the explorer's and Dynamo's frames left out, after the
stages captured before the failure.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .cell import build_cell_function, register_source
from .options import Options, flags, from_flags
from .progress import Progress
from .tracebacks import show_from_cell as _show_from_cell
from .why import why_recompile_line

# options followed by a value
_VALUE_OPTIONS = tuple(name for names, kw in flags("magic") if "action" not in kw for name in names)



def _with_option_flags(fn: Any) -> Any:
    """``%%compile``'s flags for the run's options, as ``Options`` spells them (``options.flags``)."""
    for names, kwargs in reversed(list(flags("magic"))):
        fn = argument(*names, **kwargs)(fn)
    return fn


@magics_class
class CompileMagics(Magics):
    @magic_arguments()
    @_with_option_flags
    @argument("-o", dest="return_report", action="store_true",
              help="return the report as the cell's value (like %%timeit -o); it displays as the view")
    @argument("-q", dest="quiet", action="store_true", help="show no view (and no status line)")
    @argument("--why", action="store_true",
              help="line magic only: %%compile --why f(new_args) says, without compiling or running f, "
                   "which cached compilation of f these arguments would reuse, or which guard fails")
    @no_var_expand
    @line_cell_magic
    def compile(self, line: str, cell: Optional[str] = None) -> Any:
        """Compile a cell (``%%compile``) or one expression (``%compile EXPR``) and explore every stage.

        The cell runs once, through torch.compile; its variables, imports,
        functions and classes land in the namespace as in a plain run, and its
        last expression is the cell's value.
        """
        __tracebackhide__ = True
        if _wants_help(line if cell is not None else split_line(line)[0]):
            print(self.compile.__doc__)  # the usage and options; the cell does not run
            return None
        if cell is not None and not _has_code(self.shell.transform_cell(cell)):
            from IPython.core.error import UsageError

            raise UsageError(EMPTY_CELL)
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
        if not lines or not _is_compile_cell(lines[0]):
            return lines
        if not "".join(lines[1:]).strip():
            # IPython refuses a cell magic with no body before calling it ("Did you mean the line magic?"): a
            # blank line lets the magic say what it is for (--help prints the options, else one line)
            return [lines[0].rstrip("\n") + "\n", "\n"]
        if _wants_help(lines[0][len("%%compile"):]):
            return lines
        try:
            code = shell.transform_cell("".join(lines[1:]))
            compile(code, "<cell>", "exec", dont_inherit=True)
        except SyntaxError:
            if _has_top_level_await(code):
                # torch.compile cannot compile a coroutine: the cell runs as a plain cell (IPython
                # awaits it), after line 1, the %%compile line, says so
                return [_NOT_COMPILED_AWAIT] + code.splitlines(True)
            return ["\n"] + code.splitlines(True)
        except Exception:  # noqa: BLE001 - not a syntax question: the cell goes to the magic unchanged,
            return lines  # which raises the same error where the user sees it
        return lines

    check._explorer_syntax_check = True  # type: ignore[attr-defined]
    return check


_NOT_COMPILED_AWAIT = '__import__("explorer.magic").magic.not_compiled("await")\n'
NOT_COMPILED = {
    "await": "this cell uses top-level `await`, and torch.compile cannot compile a coroutine; it ran as a "
             "plain cell. To explore its tensor code, put that code in a function and use %compile f(...), "
             "or move the awaits to another cell.",
}


def not_compiled(reason: str) -> None:
    """Says, before a ``%%compile`` cell runs as a plain cell, why it is not compiled."""
    print(f"compile-explorer: not compiled: {NOT_COMPILED[reason]}", file=sys.stderr)


def _has_top_level_await(code: str) -> bool:
    import ast

    try:
        compile(code, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError:
        return False
    return True


EMPTY_CELL = ("%%compile needs code below its line to compile and run (the cell has none); %compile EXPR "
              "compiles one expression, %compile --help lists the options")


def _is_compile_cell(first: str) -> bool:
    """``%%compile``, ``%%compile -q ...``: not another magic whose name starts the same."""
    return first.startswith("%%compile") and first[len("%%compile"):len("%%compile") + 1] in ("", " ", "\t", "\n")


def _has_code(source: str) -> bool:
    """Whether the cell holds a statement to run (not only blank lines and comments); one that does not parse
    does (running it raises its SyntaxError)."""
    import ast

    try:
        return bool(ast.parse(source).body)
    except SyntaxError:
        return True


def _wants_help(options: str) -> bool:
    return any(token in ("-h", "--help") for token in options.split())


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
    __tracebackhide__ = True
    from . import hosts, pipeline
    from .widget import ExplorerView

    options = options_from_args(args)
    backend_fn = shell.user_ns.get(options.backend) if callable(shell.user_ns.get(options.backend)) else None
    named = shell.user_ns.get(options.guard_filter) if options.guard_filter else None
    guard_filter_fn = named if callable(named) else None  # else one of torch.compiler's, by name (pipeline)
    filename = register_source(display_text, shell)
    cell_fn = build_cell_function(source, filename, shell.user_global_ns, first_line=first_line)
    target = pipeline.CellTarget(cell_fn, fullgraph=options.fullgraph, place=hosts.cell_id(shell))
    with Progress(enabled=not args.quiet) as progress:
        try:
            outcome = pipeline.run(target, options, backend_fn=backend_fn, progress=progress,
                                   guard_filter_fn=guard_filter_fn)
        except Exception as e:  # the setup failed (an unknown backend, a mode it does not take): nothing ran
            progress.finish(None)
            _show_from_cell(e, shell)
            raise
        report = outcome.report
        if report.why_slow is not None:
            progress.finish(None)
            print(why_slow_text(report))  # --why-slow: the answer first, as text, above the view
        if not args.quiet and not args.return_report:
            view = ExplorerView(report)
            if options.why_slow:
                open_on_compile_time(view, report)
            if not progress.finish(view):
                _display(view)
        else:
            progress.finish(None)
    if outcome.error is not None:
        from .api import attach_report

        _show_from_cell(outcome.error, shell, target.interrupted_at)
        attach_report(outcome.error, report)
        raise outcome.error
    if args.return_report:  # a report displays as the view in a kernel, as an explore() or capture() report does
        return report
    return outcome.value if cell_fn.returns_value else None  # a trailing `;` sets returns_value False


def why_slow_text(report: Any) -> str:
    """``--why-slow``'s answer as the lines the text summary prints."""
    from .present.text import lines
    from .present.why_slow_view import blocks

    return "\n".join(lines(blocks(report)))


def open_on_compile_time(view: Any, report: Any) -> None:
    """``--why-slow``: the view opens on the Compile time pane of the compilation that spent the most in torch's
    spans."""
    from .present.run_time_view import slowest

    index = slowest(report.capture) if report.capture is not None else None
    if index is not None:
        view.select(comp_index=index, left="compile_time")


def options_from_args(args: Any) -> Options:
    """The magic's flags as the pipeline's options (the same names as explore() and the CLI); it times by default."""
    return from_flags(args, "magic", time=True)


def _display(obj: Any) -> None:
    from IPython.display import display

    display(obj)
