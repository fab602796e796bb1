"""One vocabulary of options: each field of Options says how %%compile, the CLI and explore() spell it."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from explorer import explore
from explorer.cli import run_parser, split_run_args
from explorer.options import Options, flags, from_flags


def api_keywords() -> tuple[str, ...]:
    """The keyword arguments of ``explorer.explore`` the options stand for (``options=`` is inductor_options)."""
    return tuple("options" if f.name == "inductor_options" else f.name
                 for f in dataclasses.fields(Options) if f.metadata.get("api", True))


def test_explore_takes_every_option_the_api_offers_under_the_fields_name():
    params = inspect.signature(explore).parameters
    assert set(api_keywords()) <= set(params), set(api_keywords()) - set(params)


def test_magic_and_cli_flags_come_from_the_options_fields():
    fields = {f.name for f in dataclasses.fields(Options)}
    for entry in ("magic", "cli"):
        for names, kwargs in flags(entry):
            assert kwargs["dest"] in fields and all(n.startswith("--") for n in names)
    parser = run_parser()
    cli_strings = {s for a in parser._actions for s in a.option_strings}
    assert {n for names, _ in flags("cli") for n in names} <= cli_strings


def test_the_magics_help_lists_every_magic_flag():
    from explorer.magic import CompileMagics

    doc = CompileMagics.compile.__doc__
    for names, _ in flags("magic"):
        assert names[0] in doc, names


@pytest.mark.parametrize("line, expected", [
    ("", {"time": True, "backend": "inductor"}),
    ("--no-time --backend eager --dynamic", {"time": False, "backend": "eager", "dynamic": True}),
    ("--no-dynamic --mode max-autotune --compare default,max-autotune", {"dynamic": False, "mode": "max-autotune",
                                                                         "compare": ("default", "max-autotune")}),
    ("--no-time --timeit", {"time": True, "timeit": True}),  # --timeit is timing too
    ("--why-slow", {"why_slow": True, "time": True}),
])
def test_magic_flags_read_back_as_options(line, expected):
    from IPython.core.magic_arguments import parse_argstring

    from explorer.magic import CompileMagics, options_from_args

    opts = options_from_args(parse_argstring(CompileMagics.compile, line))
    for key, value in expected.items():
        assert getattr(opts, key) == value, key


def test_cli_flags_read_back_as_options_and_capture_only():
    run = split_run_args(run_parser(), ["--time", "s.py", "--x", "--target", "cuda"])
    opts = from_flags(run.options, "cli", capture_only=True)
    assert opts.time and opts.capture_only and opts.target == "cuda" and run.script_args == ["--x"]
    assert opts.html is None and opts.backend == "inductor"


def test_why_slow_is_one_option_in_every_entry_point():
    run = split_run_args(run_parser(), ["--why-slow", "s.py"])
    assert from_flags(run.options, "cli", capture_only=True).why_slow
    assert not from_flags(split_run_args(run_parser(), ["s.py"]).options, "cli").why_slow
    assert inspect.signature(explore).parameters["why_slow"].default is False
