"""The docs build with no broken link or missing page, and the README stays a two-minute read.

``mkdocs build --strict`` (mkdocs.yml) fails on a link to a page or anchor that does not exist, a nav entry
without its page, and a hook that fails; the JSON reference page is generated from the shipped schema then.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs packages are not installed: pip install -e .[docs]")
pytest.importorskip("material", reason="mkdocs-material is not installed: pip install -e .[docs]")
pytest.importorskip("mkdocs_jupyter", reason="mkdocs-jupyter is not installed: pip install -e .[docs]")

REPO = Path(__file__).resolve().parents[1]
PAGES = ["index", "install", "guide/notebook", "guide/python", "guide/cli", "guide/distributed", "guide/view",
         "guide/clinic", "guide/timing", "guide/gpu", "guide/real-programs", "workshop", "reference/json",
         "reference/lineage", "architecture", "figures", "versions", "gpu-checks", "not-yet"]
NOTEBOOKS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `mkdocs build --strict` writes it; run from a folder of its own (mkdocs-jupyter keeps a cache
    in the working folder)."""
    work = tmp_path_factory.mktemp("docs")
    out = work / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                           "-d", str(out)], cwd=work, capture_output=True, text=True,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    return out


def test_every_page_and_notebook_is_built(site):
    missing = [page for page in PAGES + [f"notebooks/{nb}" for nb in NOTEBOOKS]
               if not (site / page / "index.html").is_file() and not (site / f"{page}.html").is_file()
               and not (page == "index" and (site / "index.html").is_file())]
    assert not missing, missing
    tour = (site / "notebooks" / "01_tour" / "index.html").read_text(encoding="utf-8")
    assert "%%compile" in tour  # the notebook's cells are on its page, as source


def test_the_json_reference_has_every_object_and_key_with_its_description(site):
    with open(REPO / "explorer" / "report.schema.json", encoding="utf-8") as fh:
        schema = json.load(fh)
    page = (site / "reference" / "json" / "index.html").read_text(encoding="utf-8")
    assert "json-reference:" not in page  # the hook replaced its marker
    objects = {"Report": schema, **schema["$defs"]}
    for name, obj in objects.items():
        section = re.search(rf'<h2 id="{name.lower()}">.*?(?=<h2 |\Z)', page, re.S)
        assert section, f"no section for {name}"
        for key in obj["properties"]:
            assert f"<code>{key}</code>" in section.group(0), f"{name}.{key} is not in its section"
    # a description the hand-written reference had, kept by the schema
    assert "run-length coded as flat pairs" in page and "the stance that refused it" in page.lower()


def test_the_readme_is_short_and_its_links_and_pictures_exist():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections[:2] == ["Two commands", "Start in 30 seconds"], sections
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert local and all((REPO / link).exists() for link in local), [x for x in local if not (REPO / x).exists()]


def test_every_picture_is_shown_somewhere():
    """assets/ (linked from docs/assets) holds the pictures tests/screenshots.py takes; each is shown somewhere."""
    texts = (REPO / "README.md").read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in (REPO / "docs").rglob("*.md"))
    pictures = sorted(p.name for p in (REPO / "assets").glob("*.png"))
    assert pictures and [p for p in pictures if f"assets/{p}" not in texts] == []
