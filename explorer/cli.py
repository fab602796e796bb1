"""``python -m explorer run SCRIPT.py [ARGS...]``: a script under capture, in one step.

What tlparse users ask for: no environment variable, no second tool. The
script runs as ``python SCRIPT.py ARGS`` would run it (same ``sys.argv``,
``__name__ == "__main__"``, its directory first on ``sys.path``) inside
``explorer.capture()``; the reports are written whatever the script does, and
the process exits with the script's own exit code, so the CLI can replace
``python`` in a shell pipeline or a CI job.

The summary goes to stderr so the script's stdout stays the script's.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from . import __version__, pipeline
from .options import Options, flags, from_flags
from .plural import counted
from .report import Report

EXIT_OK = 0
EXIT_SCRIPT_RAISED = 1  # as python: an uncaught exception
EXIT_USAGE = 2  # bad options, missing script, unwritable report directory (python uses 2 too)
EXIT_GRAPH_BREAK = 3  # --fail-on-break and the script, otherwise successful, hit a graph break
EXIT_REPORT_FAILED = 4  # the script succeeded but a report could not be written
EXIT_INTERRUPTED = 130  # KeyboardInterrupt, as a shell reports SIGINT

PROG = "python -m explorer"

RUN_DESCRIPTION = """\
Runs SCRIPT as `python SCRIPT [ARGS...]` would, with every torch.compile
compilation captured, then prints a one-screen summary to stderr (compilations,
graphs, graph breaks as file:line: reason, recompiles, kernels, compile time)
and writes the reports asked for. Reports are written also when the script
fails. torch's compile caches stay on, as a plain run has them: a graph an
earlier capture lowered is served by torch's graph caches, its loop-level IR by
the explorer's stage store, so every stage is seen either way; the summary's
caches line says which (graphs lowered now, or served). --fresh lowers every
graph again; --warm shows the script's own caches.

Where the options go: explorer options may come before or after SCRIPT;
other words after SCRIPT are the script's own arguments, in order. After SCRIPT,
-h/--help belong to the script. A `--` ends the explorer's options: everything
after it goes to the script untouched (use it when the script has an option
named like one of ours).

  python -m explorer run train.py --epochs 1 --json out.json --html out.html
  python -m explorer run --html out.html train.py --epochs 1
  python -m explorer run --json out.json train.py -- --json its_own.json"""

RUN_EPILOG = """\
exit codes:
  the script's own   0 when it ends normally; its sys.exit() code
  1                  the script raised (traceback on stderr, as python prints it)
  2                  usage error, script not found, report directory missing
  3                  --fail-on-break and a graph break happened (script succeeded)
  4                  the script succeeded but a report could not be written
  130                interrupted (Ctrl-C)"""


# ---- options ----

def run_parser() -> argparse.ArgumentParser:
    """The `run` options. New options (e.g. a timing helper's --time) are added here;
    only long option names, so they rarely collide with a script's own options."""
    p = argparse.ArgumentParser(
        prog=f"{PROG} run", usage=f"{PROG} run [OPTIONS] SCRIPT [ARGS...] [OPTIONS] [-- ARGS...]",
        description=RUN_DESCRIPTION, epilog=RUN_EPILOG, allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    for names, kwargs in flags("cli"):  # the run's options, as Options spells them
        p.add_argument(*names, **kwargs)
    p.add_argument("--fail-on-break", action="store_true",
                   help=f"exit {EXIT_GRAPH_BREAK} when any graph break happened and the script succeeded")
    p.add_argument("--quiet", action="store_true", help="do not print the summary")
    return p


@dataclass
class RunArgs:
    options: argparse.Namespace
    script: str
    script_args: list[str]
    option_words: list[str] = field(default_factory=list)  # the explorer's own words, as given


class UsageError(Exception):
    pass


_SCRIPT_OWNS_AFTER_PATH = {"-h", "--help"}


def split_run_args(parser: argparse.ArgumentParser, words: Sequence[str]) -> RunArgs:
    """Separates the explorer's options from SCRIPT and its arguments (rule in RUN_DESCRIPTION).

    argparse alone cannot do this: REMAINDER swallows trailing options, and
    parse_known_args reorders what it does not know.
    """
    takes_value = {s: a.nargs != 0 for a in parser._actions for s in a.option_strings}
    ours: list[str] = []
    script: Optional[str] = None
    script_args: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            rest = list(words[i + 1:])
            if script is None and rest:
                script, rest = rest[0], rest[1:]
            script_args += rest
            break
        name = word.split("=", 1)[0] if word.startswith("--") else word
        if name in takes_value and not (script is not None and name in _SCRIPT_OWNS_AFTER_PATH):
            if takes_value[name] and "=" not in word:
                if i + 1 >= len(words):
                    raise UsageError(f"{name} needs a value")
                ours += [word, words[i + 1]]
                i += 2
                continue
            ours.append(word)
        elif script is None:
            if word.startswith("-") and word != "-":
                raise UsageError(f"unknown option {word!r} (the script's own options go after SCRIPT)")
            script = word
        else:
            script_args.append(word)
        i += 1
    options = parser.parse_args(ours)  # prints help / errors and exits as argparse does
    if script is None:
        raise UsageError("no SCRIPT given")
    return RunArgs(options, script, script_args, ours)


# ---- running the script ----

@dataclass
class ScriptOutcome:
    exit_code: int
    report: Report
    error: Optional[BaseException] = None  # the script's exception (SystemExit included), if it raised


def run_script(path: str, args: Sequence[str] = (), options: Optional[Options] = None,
               target: Optional[pipeline.ScriptTarget] = None) -> ScriptOutcome:
    """Runs ``path`` as ``python path args`` would, through the pipeline every entry point uses.

    The script's exceptions are printed as Python prints them and turned into
    its exit code; the report holds whatever was captured up to that point.
    ``target``: the script as a rank of a distributed job runs it (``explorer.jobs.rank``).
    """
    options = options or Options(capture_only=True)
    outcome = pipeline.run(target or pipeline.ScriptTarget(path, tuple(args)), options)
    error = outcome.error
    if error is None:
        return ScriptOutcome(EXIT_OK, outcome.report)
    if isinstance(error, SystemExit):
        return ScriptOutcome(_system_exit_code(error), outcome.report, error)
    _print_script_traceback(error, path)
    code = EXIT_INTERRUPTED if isinstance(error, KeyboardInterrupt) else EXIT_SCRIPT_RAISED
    return ScriptOutcome(code, outcome.report, error)


def _system_exit_code(e: SystemExit) -> int:
    """As the interpreter does: None -> 0, an int as is, anything else printed and 1."""
    if e.code is None:
        return EXIT_OK
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return EXIT_SCRIPT_RAISED


def _print_script_traceback(exc: BaseException, path: str) -> None:
    """The traceback from the script's own frame down, as `python SCRIPT` shows it
    (the CLI's and runpy's frames above it are noise to the user)."""
    sys.stdout.flush()
    tb = exc.__traceback__
    script = os.path.abspath(path)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    if tb is None and not isinstance(exc, SyntaxError):
        tb = exc.__traceback__  # no frame of the script's: better everything than nothing
    # (a script that does not compile has no frame: python shows only file:line and the caret)
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    sys.stderr.flush()


# ---- the command ----

def cmd_run(words: Sequence[str]) -> int:
    parser = run_parser()
    try:
        run = split_run_args(parser, words)
    except UsageError as e:
        parser.print_usage(sys.stderr)
        _say(f"error: {e}")
        return EXIT_USAGE
    problem = _check_paths(run)
    if problem:
        _say(problem)
        return EXIT_USAGE
    try:
        options = from_flags(run.options, "cli", capture_only=True)
    except ValueError as e:
        parser.print_usage(sys.stderr)
        _say(f"error: {e}")
        return EXIT_USAGE
    distributed = _distributed_run(run, options)
    if distributed is not None:
        return distributed()
    outcome = run_script(run.script, run.script_args, options)
    sys.stdout.flush()
    report = outcome.report
    if not run.options.quiet:
        _say_plain(report.summary() if report.capture is not None else "compile-explorer: nothing captured")
    output_problems = [p for p in report.problems if p.where.endswith(" output")]
    for flag in ("json", "html"):
        path = getattr(options, flag)
        if path and report.capture is not None and not any(p.where == f"{flag} output" for p in output_problems):
            _say(f"wrote {flag.upper()} report: {path}")
    if report.capture is None and (options.json or options.html):
        output_problems.append(None)
        _say("nothing was captured, so no report was written")
    for p in output_problems:
        if p is not None:
            _say(p.message)
    return _final_code(outcome, run.options, output_problems)


def _distributed_run(run: RunArgs, options: Options) -> Optional[Callable[[], int]]:
    """``--nproc-per-node N``: launch N ranks; a rank of a job (torchrun's environment): run as that rank."""
    from .jobs import env

    rank = env.rank_env()
    if options.nproc_per_node is not None and rank is not None:
        return lambda: _usage_error(f"--nproc-per-node: this process is already rank {rank.rank} of "
                                    f"{rank.world_size} of a job (RANK, WORLD_SIZE are set); drop the option")
    if options.nproc_per_node is not None:
        from .jobs.launch import launch

        return lambda: launch(run, options, quiet=run.options.quiet, fail_on_break=run.options.fail_on_break,
                              say=_say)
    if rank is None:
        return None
    from .jobs.rank import run_rank

    return lambda: run_rank(run, options, rank, quiet=run.options.quiet, fail_on_break=run.options.fail_on_break,
                            run_script=run_script, say=_say)


def _usage_error(message: str) -> int:
    _say(f"error: {message}")
    return EXIT_USAGE


def _check_paths(run: RunArgs) -> Optional[str]:
    """Fails before a long script runs, not after, when its reports could not be written."""
    if run.script == "-":
        return "reading the script from stdin is not supported; give a file"
    if not os.path.exists(run.script):
        return f"can't open file {run.script!r}: [Errno 2] No such file or directory"
    if os.path.isdir(run.script) and not os.path.isfile(os.path.join(run.script, "__main__.py")):
        return f"can't find '__main__' module in {run.script!r}"  # what python says; a folder with one runs
    for flag in ("json", "html"):
        out = getattr(run.options, flag)
        if out:
            folder = os.path.dirname(os.path.abspath(out))
            if not os.path.isdir(folder):
                return f"cannot write the --{flag} report {out!r}: directory {folder!r} does not exist"
    # the script may chdir: write where the user meant when typing the command
    for flag in ("json", "html"):
        if getattr(run.options, flag):
            setattr(run.options, flag, os.path.abspath(getattr(run.options, flag)))
    return None



def cmd_show(words: Sequence[str]) -> int:
    """``show REPORT.json [--html OUT.html]``: a saved report, read and rendered without torch."""
    parser = argparse.ArgumentParser(prog=f"{PROG} show", description="Print a saved JSON report's summary "
                                     "and optionally render it as the standalone HTML page (no torch needed).")
    parser.add_argument("report", metavar="REPORT.json")
    parser.add_argument("--html", metavar="OUT.html", help="write the standalone HTML report")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary")
    args = parser.parse_args(list(words))
    try:
        report = Report.load(args.report)
    except (OSError, ValueError) as e:
        _say(f"cannot read {args.report!r}: {e}")
        return EXIT_USAGE
    if not args.quiet:
        print(report.summary())
    if args.html:
        try:
            _say(f"wrote HTML report: {report.save_html(args.html)}")
        except OSError as e:
            _say(f"could not write the HTML report {args.html!r}: {e}")
            return EXIT_REPORT_FAILED
    return EXIT_OK


def cmd_merge(words: Sequence[str]) -> int:
    """``merge REPORT.json``: the parts ``REPORT.rank<k>.json`` of a distributed run into one report (no torch)."""
    parser = argparse.ArgumentParser(prog=f"{PROG} merge", description="Merge the per-rank parts of a distributed "
                                     "run (REPORT.rank0.json, REPORT.rank1.json, ... as `torchrun ... -m explorer run "
                                     "SCRIPT --json REPORT.json` writes them) into REPORT.json, every rank compared.")
    parser.add_argument("report", metavar="REPORT.json", help="the merged report to write; its parts lie beside it")
    parser.add_argument("--html", metavar="OUT.html", help="also write the standalone HTML report")
    parser.add_argument("--world-size", type=int, metavar="N",
                        help="how many ranks the job had (default: as the parts say); a rank without a part is "
                             "named as missing")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary")
    args = parser.parse_args(list(words))
    from .jobs.merge import merge_parts_of
    from .jobs.rank import write_merged

    try:
        merged = merge_parts_of(args.report, args.world_size)
    except (OSError, ValueError) as e:
        _say(f"cannot merge: {e}")
        return EXIT_USAGE
    wanted = Options(capture_only=True, json=os.path.abspath(args.report),
                     html=os.path.abspath(args.html) if args.html else None)
    merged = dataclasses.replace(merged, options=dataclasses.replace(merged.options or Options(capture_only=True),
                                                                     json=wanted.json, html=wanted.html))
    return EXIT_REPORT_FAILED if write_merged(merged, wanted, quiet=args.quiet, say=_say) else EXIT_OK


def cmd_open(words: Sequence[str]) -> int:
    """``open PATH``: a job's TORCH_TRACE (every rank) as the report a run under the explorer makes (no torch)."""
    parser = argparse.ArgumentParser(prog=f"{PROG} open", description="Read a TORCH_TRACE (a trace folder of one "
                                     "process or every rank of a job, one log file, a .gz or .tar.gz of either, or "
                                     "a TORCH_COMPILE_DEBUG folder) and print its summary; every rank goes into "
                                     "one report, compared. Exit code 2 when PATH holds no trace.")
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--html", metavar="OUT.html", help="also write the standalone HTML report")
    parser.add_argument("--json", metavar="OUT.json", help="also write the report as JSON")
    parser.add_argument("--rank", type=int, metavar="N", help="only rank N's log (default: every rank, compared)")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary")
    args = parser.parse_args(list(words))
    from .traces import OpenError, open_trace

    try:
        report = open_trace(args.path, rank=args.rank, html=args.html, json=args.json,
                            say=None if args.quiet else _say)
    except OpenError as e:
        _say(f"cannot open: {e}")
        return EXIT_USAGE
    if not args.quiet:
        print(report.summary())
    failed = [p for p in report.problems if p.where.endswith(" output")]
    for flag in ("html", "json"):
        if getattr(args, flag) and not any(p.where == f"{flag} output" for p in failed):
            _say(f"wrote {flag.upper()} report: {getattr(args, flag)}")
    for p in failed:
        _say(p.message)
    return EXIT_REPORT_FAILED if failed else EXIT_OK


def _final_code(outcome: ScriptOutcome, options: argparse.Namespace, write_errors: list) -> int:
    if outcome.exit_code != EXIT_OK:
        return outcome.exit_code
    if write_errors:
        return EXIT_REPORT_FAILED
    breaks = outcome.report.data.graph_breaks if outcome.report.data is not None else []
    if options.fail_on_break and breaks:
        _say(f"exit {EXIT_GRAPH_BREAK}: {counted(len(breaks), 'graph break')} and --fail-on-break")
        return EXIT_GRAPH_BREAK
    return EXIT_OK


def _say(message: str) -> None:
    print(f"compile-explorer: {message}", file=sys.stderr, flush=True)


def _say_plain(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---- entry point ----

TOP_HELP = f"""\
usage: {PROG} COMMAND ...

See every stage of torch.compile for a whole script.

commands:
  run SCRIPT [ARGS...]   run a script with capture on; `{PROG} run --help` for options
  show REPORT.json       print a saved report's summary; --html OUT.html renders it (no torch needed)
  merge REPORT.json      merge a distributed run's parts (REPORT.rank<k>.json) into REPORT.json
  open PATH              read a job's TORCH_TRACE (every rank) as a report; --html OUT.html, --json OUT.json

options:
  -h, --help             show this help
  --version              print the version"""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The console entry point (`compile-explorer`, `python -m explorer`); returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        print(TOP_HELP, file=sys.stderr)
        return EXIT_USAGE
    command, rest = words[0], words[1:]
    if command in ("-h", "--help"):
        print(TOP_HELP)
        return EXIT_OK
    if command == "--version":
        print(f"compile-explorer {__version__}")
        return EXIT_OK
    if command in ("run", "show", "merge", "open"):
        try:
            return {"run": cmd_run, "show": cmd_show, "merge": cmd_merge, "open": cmd_open}[command](rest)
        except SystemExit as e:  # argparse's --help and its errors
            return _system_exit_code(e)
    print(TOP_HELP, file=sys.stderr)
    _say(f"error: unknown command {command!r}")
    return EXIT_USAGE
