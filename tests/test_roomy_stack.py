"""The roomy frame stack the explorer runs targets on changes nothing but speed (the speed itself is
measured by tests/benchmarks/bench_roomy_stack.py and bench_big_cell.py, not here)."""

import sys
import traceback

import pytest

from explorer.roomy_stack import call_on_roomy_stack


def test_the_call_returns_what_the_function_returns_with_its_arguments():
    assert call_on_roomy_stack(lambda a, b=0: (a, b), 1, b=2) == (1, 2)


def test_an_exception_passes_through_unchanged_with_the_functions_own_frames():
    def fails():
        raise KeyError("boom")

    with pytest.raises(KeyError) as info:
        call_on_roomy_stack(fails)
    names = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert names[-1] == "fails" and str(info.value) == "'boom'"


def test_the_target_runs_at_most_two_frames_deeper():
    def depth():
        n, f = 0, sys._getframe()
        while f is not None:
            n, f = n + 1, f.f_back
        return n

    assert call_on_roomy_stack(depth) - depth() in (1, 2)  # call_on_roomy_stack and its roomy frame
