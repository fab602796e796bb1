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


VENV = "python3 -m venv .venv && . .venv/bin/activate && "


def test_the_demo_installs_torchs_cpu_build_then_the_explorer_without_its_test_tools():
    """A new user's first command: torch's CPU build from PyTorch's own index (PyPI's Linux torch is the CUDA build,
    several GB), then the clone without the test extra, then a real example. The test command keeps CI's line."""
    demo, tests = _readme_commands()
    assert demo.startswith(VENV) and tests.startswith(VENV)
    steps = demo[len(VENV):].split(" && ")
    assert steps[:2] == ["pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu",
                         "pip install ."], steps
    assert steps[2].startswith("python -m explorer run examples/") and len(steps) == 3, steps
    example = steps[2].split()[4]
    assert os.path.isfile(os.path.join(ROOT, example)), example
    assert tests[len(VENV):].startswith('pip install torch==2.13.0 -e ".[test]" && ')  # the same torch release


def test_the_install_page_shows_the_readmes_two_commands():
    with open(os.path.join(ROOT, "docs", "install.md")) as fh:
        page = re.findall(r"```bash\n(.+?)\n```", fh.read())
    assert page[:2] == _readme_commands()


README_WIDTH = 830  # the widest GitHub draws a README's picture
SMALLEST_TEXT = 11  # px there: the view's 12 px text (code, chips, tables) must not shrink below it


def css_width(path: str) -> float:
    """The width a screenshot's page was laid out at: its pixels over the scale its pHYs chunk gives (72 dpi per
    CSS px, as tests/screenshots.py marks its pictures); a PNG without one is taken as drawn at 1x."""
    import struct

    with open(path, "rb") as fh:
        data = fh.read()
    width, at, scale = struct.unpack(">I", data[16:20])[0], 8, 1.0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs":
            per_metre, _, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            scale = per_metre * 0.0254 / 72 if unit == 1 else 1.0
        if kind in (b"pHYs", b"IDAT"):
            break
        at += 12 + length
    return width / scale


def test_the_readmes_pictures_are_readable_at_its_width_and_say_what_they_show():
    """Each picture of the README is a page laid out at most ~900 CSS px wide (tests/screenshots.py draws them at
    twice the pixels): shown 830 px wide, its 12 px text stays 11 px or more. Its alt text says what it shows."""
    with open(os.path.join(ROOT, "README.md")) as fh:
        pictures = re.findall(r"!\[([^\]]*)\]\(([^)]+\.png)\)", fh.read())
    assert len(pictures) >= 2
    for alt, path in pictures:
        laid_out = css_width(os.path.join(ROOT, path))
        assert 12 * min(1.0, README_WIDTH / laid_out) >= SMALLEST_TEXT, f"{path}: laid out {laid_out:.0f} px wide"
        assert len(alt.split()) >= 8, f"{path}: the alt text should say what the picture shows"
