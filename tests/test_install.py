"""A first install fits the user: ``pip install .`` (``pip install compile-explorer``) brings what running the
explorer needs and none of its test tools, and the package carries its license.

The resolution is checked against PyPI alone, in a fresh virtual environment with no pip configuration, the way a
new user's machine resolves it; torch is there already (the README's demo command installs its CPU build first),
as a stand-in with torch's name and version only, so nothing of torch is downloaded.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from test_frontend_build import build_offline, clone_copy

REPO = Path(__file__).resolve().parents[1]
PYPI = "https://pypi.org/simple"
# what the test extra is for: none of it, nor anything they pull alone, comes with the explorer
TEST_TOOLS = {"pytest", "nbval", "nbclient", "ipykernel", "playwright", "jupyterlab", "jupyter-server", "notebook",
              "marimo", "halide", "mkdocs", "mkdocs-material", "mkdocs-jupyter", "ruff", "jsonschema", "nbconvert"}
# torch's own builds: what the user picks with torch (the CUDA build from PyPI brings these), never the explorer
TORCHS_OWN = re.compile(r"^(torch|triton|nvidia-.*|cuda-.*)$")
MOST_PACKAGES = 30  # 27 on Python 3.11 in 2026-12: the explorer, and IPython's, ipywidgets', anywidget's, depyf's own


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _pyproject() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml needs tomllib (3.11+) or tomli")
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]


def test_the_license_file_is_the_one_pyproject_names():
    project = _pyproject()
    assert project["license"] == "BSD-3-Clause"  # an SPDX expression (PEP 639), not the old {text = ...} table
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License\n")
    assert "Copyright (c) 2026, The compile-explorer authors" in text
    assert "3. Neither the name of the copyright holder nor the names of its" in text


def test_the_core_dependencies_leave_test_tools_and_the_gpu_preview_to_extras():
    project = _pyproject()
    core = {_name(re.match(r"[A-Za-z0-9_.-]+", d).group(0)) for d in project["dependencies"]}
    assert core & TEST_TOOLS == set()
    assert "triton" not in core  # only the CUDA preview without a GPU needs it: the gpu extra
    assert any(d.startswith("triton") for d in project["optional-dependencies"]["gpu"])
    assert any(d.startswith("triton") for d in project["optional-dependencies"]["test"])  # its tests run in CI


def test_the_wheel_and_the_sdist_ship_the_license(tmp_path):
    if not build_offline():
        pytest.skip("this venv's setuptools is older than 77 (pyproject.toml's build requirement): pip builds the "
                    "package with its own, in an isolated environment")
    src = clone_copy(tmp_path / "src")
    out = tmp_path / "dist"
    build = textwrap.dedent(f"""
        from setuptools import build_meta
        print(build_meta.build_wheel({str(out)!r}), build_meta.build_sdist({str(out)!r}))
    """)
    out.mkdir()
    proc = subprocess.run([sys.executable, "-c", build], cwd=src, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    license_text = (REPO / "LICENSE").read_bytes()
    (wheel,) = out.glob("compile_explorer-*.whl")
    with zipfile.ZipFile(wheel) as z:
        info = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
        assert z.read(f"{info}/licenses/LICENSE") == license_text
        metadata = z.read(f"{info}/METADATA").decode()
    assert "License-Expression: BSD-3-Clause" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    (sdist,) = out.glob("compile_explorer-*.tar.gz")
    with tarfile.open(sdist) as t:
        top = t.getnames()[0].split("/")[0]
        assert t.extractfile(f"{top}/LICENSE").read() == license_text


def _pypi_reachable() -> bool:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return True
    except OSError:
        return False


@pytest.mark.slow
def test_pip_install_of_a_clone_brings_what_the_explorer_needs_and_no_test_tool(tmp_path):
    """``pip install .`` in a fresh venv whose torch is installed, resolved against PyPI alone (no pip config, no
    local wheels): the packages pip would add are the explorer's and a few dozen more, none a test tool, none
    torch's (no second torch, no triton, no nvidia packages). About 20-60 s: pip builds the clone's metadata
    (fetching setuptools) and reads each package's wheel from PyPI."""
    if not _pypi_reachable():
        pytest.skip("pypi.org is not reachable: the install is resolved against the package index itself")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # torch as the README's first command leaves it (its CPU build, from PyTorch's index): its name and version
    stand_in = Path(site) / "torch-2.13.0.dist-info"
    stand_in.mkdir()
    (stand_in / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0\n")
    (stand_in / "RECORD").write_text("")
    (stand_in / "INSTALLER").write_text("test_install\n")

    src = clone_copy(tmp_path / "src")
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no local index, wheel folder or constraint: PyPI as a new user has it
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run([str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                           "--index-url", PYPI, "--no-cache-dir", str(src)],
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    installs = json.loads(report.read_text())["install"]
    names = {_name(item["metadata"]["name"]) for item in installs}
    assert "compile-explorer" in names
    assert names & TEST_TOOLS == set(), sorted(names & TEST_TOOLS)
    assert sorted(n for n in names if TORCHS_OWN.match(n)) == []
    assert len(names) <= MOST_PACKAGES, sorted(names)
