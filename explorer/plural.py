"""A count and its noun, agreeing: ``1 graph break``, ``2 graph breaks``. Every layer that writes a count a user
reads (a summary, a note, a chip, a CLI line) writes it through ``counted``, so none says "1 graph breaks"."""

from __future__ import annotations

from typing import Optional


def noun(n: int, singular: str, plural: Optional[str] = None) -> str:
    """``singular`` for one, else ``plural`` (``singular`` + "s" unless given: ``entry``, ``entries``)."""
    return singular if n == 1 else (plural or singular + "s")


def counted(n: int, singular: str, plural: Optional[str] = None) -> str:
    """``1 graph break``, ``2 graph breaks``, ``1,234 nodes``."""
    return f"{n:,} {noun(n, singular, plural)}"
