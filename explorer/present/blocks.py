"""The view model's blocks (placeholder: typed below)."""

from __future__ import annotations

from typing import Any, Optional

Block = dict
Row = dict
Run = Any


def note(cls: str, runs: Any) -> dict:
    return {"t": "note", "cls": cls, "r": runs}


def code(key: str, src: str, lang: Optional[str], **kw: Any) -> dict:
    return {"t": "code", "key": key, "src": src, "lang": lang, **{k: v for k, v in kw.items() if v}}
