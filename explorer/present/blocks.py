"""The view model's blocks (placeholder: typed below)."""

from __future__ import annotations

from typing import Any

Block = dict
Row = dict
Run = Any


def note(cls: str, runs: Any) -> dict:
    return {"t": "note", "cls": cls, "r": runs}
