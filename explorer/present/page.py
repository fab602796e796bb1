"""The standalone page (``report.save_html`` / ``to_html``): the notebook's view, in one file.

It embeds the same ES module (``frontend/explorer.js``) and stylesheet as the
notebook widget and the same JSON payload (``present.payload``, pictures drawn
in), so it looks and behaves the same: no kernel, no network, nothing to build.
Kernel-only actions are simply not offered. The payload sits in a
``<script type="application/json">`` with every ``<`` written as ``\\u003c``, so
no string of the report can close the script or open markup.
"""

from __future__ import annotations

import base64
import gzip
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from .escape import esc
from .payload import build, to_json, to_script_json
from .viewmodel import as_report

FRONTEND = Path(__file__).with_name("frontend")
MODULE = FRONTEND / "explorer.js"
STYLES = FRONTEND / "explorer.css"

COMPRESS_OVER = 512 * 1024  # bigger payloads go in as gzip + base64 (a 4.6 MB report becomes ~0.7 MB)
_PAGE_CSS = ("html,body{margin:0;padding:0}body{padding:12px;background:#ffffff;color:#1f2328}"
             "@media (prefers-color-scheme: dark){body{background:#0d1117;color:#e6edf3}}")


@lru_cache(maxsize=1)
def module_text() -> str:
    text = MODULE.read_text(encoding="utf-8")
    if "</script" in text.lower():  # it is inlined into a <script> element
        raise ValueError("explorer.js must not contain '</script'")
    return text


@lru_cache(maxsize=1)
def styles_text() -> str:
    return STYLES.read_text(encoding="utf-8")


def payload_script(payload: dict, *, compress: Optional[bool] = None) -> str:
    """The ``<script id="cx-payload">`` element: JSON, or gzip + base64 past ``COMPRESS_OVER``.

    The browser unpacks the second with its own ``DecompressionStream``: still one
    file, no network, no library. Small reports stay readable JSON."""
    text = to_script_json(payload)
    if compress is None:
        compress = len(text) > COMPRESS_OVER
    if not compress:
        return f'<script type="application/json" id="cx-payload">{text}</script>'
    packed = base64.b64encode(gzip.compress(to_json(payload).encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")
    return f'<script type="application/octet-stream" id="cx-payload" data-encoding="gzip+base64">{packed}</script>'


def render_page(report: Any, *, compress: Optional[bool] = None) -> str:
    """A complete HTML document: utf-8, no external resource, the interactive view."""
    report = as_report(report)
    data = report.capture
    payload, _ = build(report, pictures="inline")
    title = (f"compile-explorer: {len(data.compilations)} compilations, "
             f"{len(data.graph_breaks)} graph breaks — torch {data.torch_version}")
    boot = '\n;mountPage(document.getElementById("cx-root"), document.getElementById("cx-payload"));\n'
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{_PAGE_CSS}</style><style>{styles_text()}</style></head><body>"
            '<div id="cx-root" class="cxv"><noscript>This report is drawn by JavaScript, which is off here. '
            "The whole report is in this file as JSON (the cx-payload script element); "
            "<code>python -m explorer show</code> reads a report's JSON as text.</noscript></div>"
            f"{payload_script(payload, compress=compress)}"
            f'<script type="module">{module_text()}{boot}</script>'
            "</body></html>\n")
