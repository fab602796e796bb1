"""What a Report displays itself with (``report.use_views``): one function per way it shows."""

from __future__ import annotations

from typing import Any

from .html import render_fragment as fragment
from .html import stage_block as _stage_block
from .page import render_page as page
from .text import stage_text, summary

__all__ = ["fragment", "mimebundle", "page", "stage_html", "stage_text", "summary"]


def mimebundle(report: Any) -> dict[str, str]:
    """A notebook's display of a report: its text and its static HTML, from one view model."""
    from .viewmodel import build

    model = build(report)
    return {"text/plain": summary(report, model=model), "text/html": fragment(report, model=model)}


def stage_html(report: Any, stage: Any, comp: Any) -> str:
    return _stage_block(report, stage, comp)
