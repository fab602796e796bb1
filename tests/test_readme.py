"""The README's two commands are what a new user runs, and CI runs the README's test command word for word."""

from __future__ import annotations

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _readme_commands() -> list[str]:
    with open(os.path.join(ROOT, "README.md")) as fh:
        text = fh.read()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_ci_runs_the_readmes_test_command_in_a_fresh_venv():
    demo, tests = _readme_commands()
    assert "python -m explorer run" in demo and "pytest" in tests
    with open(os.path.join(ROOT, ".ci", "run")) as fh:
        ci = fh.read().splitlines()
    assert tests in ci, "the test command in .ci/run differs from the README's"
    assert tests.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert "rm -rf .venv" in ci[:ci.index(tests)], "CI must start from an empty venv, as a new user does"


def test_both_commands_install_into_their_own_venv_with_the_same_packages():
    demo, tests = _readme_commands()
    install = 'python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 -e ".[test]" && '
    assert demo.startswith(install) and tests.startswith(install)
