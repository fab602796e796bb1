"""The Report users hold: captured data plus the ways to look at it.

The data itself is frozen (``capture.model``); this façade adds the call's
result, JSON, the standalone HTML file and the notebook display, so the model
never builds HTML. ``with explorer.capture() as report:`` fills it on exit.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from .capture.model import CaptureData, from_json, to_json
from .render.text import summary


class Report:
    def __init__(self, data: Optional[CaptureData] = None, result: Any = None) -> None:
        self.data = data
        self.result = result  # what the explored call returned (not serialised)

    def __getattr__(self, name: str) -> Any:
        # compilations, graph_breaks, kernels, ... come from the data
        data = self.__dict__.get("data")
        if data is None:
            raise AttributeError(f"{name!r}: the capture is still running (the report is filled when the block ends)")
        return getattr(data, name)

    # ---- files ----
    def to_json(self, indent: Optional[int] = 1) -> str:
        return to_json(self._ready(), indent=indent)

    def save_json(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_json())

    def to_html(self) -> str:
        from .render.html import render_page

        return render_page(self._ready())

    def save_html(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_html())

    @classmethod
    def from_json(cls, text: str) -> "Report":
        return cls(from_json(text))

    # ---- display ----
    def summary(self) -> str:
        return summary(self._ready())

    def __repr__(self) -> str:
        return self.summary() if self.data is not None else "<Report: capture still running>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        if self.data is None:
            return {"text/plain": repr(self)}
        from .render.html import render_fragment

        return {"text/plain": self.summary(), "text/html": render_fragment(self.data)}

    def _ready(self) -> CaptureData:
        if self.data is None:
            raise RuntimeError("the capture is still running: use the report after the `with` block")
        return self.data


def _write(path: str | os.PathLike, text: str) -> str:
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
