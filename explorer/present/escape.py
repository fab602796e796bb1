"""The one HTML escaper: every string shown as HTML passes through ``esc``.

Variable names, source lines, kernel names, guard text and torch's messages
all come from user code or from torch; any of them may hold ``<script>``.
"""

from __future__ import annotations

import html
import re
from typing import Optional


def esc(value: object) -> str:
    """Text (and attribute values: quotes are escaped too) safe inside HTML; None is empty."""
    return html.escape("" if value is None else str(value), quote=True)


def safe_url(url: Optional[str]) -> Optional[str]:
    """Only http(s) links: a URL from a log must not become a javascript: link."""
    return url if url and re.match(r"https?://", url) else None
