"""The Report users hold: captured data plus the ways to look at it.

The data itself is frozen (``capturing.model``); this façade adds the call's
result, JSON, the standalone HTML file and the notebook display, so the model
never builds HTML. ``with explorer.capture() as report:`` fills it on exit.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Optional

from .capturing.model import CaptureData, from_json, to_dict
from .render.text import summary

if TYPE_CHECKING:
    from .timing.model import TimingReport


class Report:
    def __init__(self, data: Optional[CaptureData] = None, result: Any = None,
                 timing: "Optional[TimingReport]" = None) -> None:
        self.data = data
        self.result = result  # what the explored call returned (not serialised)
        self.timing = timing  # eager vs compiled, when timing was asked for

    def __getattr__(self, name: str) -> Any:
        # compilations, graph_breaks, kernels, ... come from the data
        data = self.__dict__.get("data")
        if data is None:
            raise AttributeError(f"{name!r}: the capture is still running (the report is filled when the block ends)")
        return getattr(data, name)

    # ---- files ----
    def to_json(self, indent: Optional[int] = 1) -> str:
        doc = to_dict(self._ready())
        doc["timing"] = self.timing.to_dict() if self.timing is not None else None
        return json.dumps(doc, indent=indent, default=str)

    def save_json(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_json())

    def to_html(self) -> str:
        from .render.html import render_page

        return render_page(self._ready(), sections=self.extra_sections())

    def extra_sections(self) -> list[str]:
        if self.timing is None:
            return []
        import html

        from .timing.view import html_fragment

        speedups = ", ".join(f"{g.compile_id or g.label}: {g.speedup:.2f}x" for g in self.timing.graphs
                             if g.speedup is not None)
        title = "Eager vs compiled" + (f" ({speedups})" if speedups else "")
        if self.timing.warnings:
            title += f", {len(self.timing.warnings)} warnings"
        # folded: it is the last step of the story, and the panes should stay in view
        return [f'<details class="cx-stage" data-stage="timing"><summary><b>{html.escape(title)}</b></summary>'
                f'{html_fragment(self.timing)}</details>']

    def save_html(self, path: str | os.PathLike) -> str:
        return _write(path, self.to_html())

    @classmethod
    def from_json(cls, text: str) -> "Report":
        return cls(from_json(text))

    # ---- display ----
    def summary(self) -> str:
        text = summary(self._ready())
        if self.timing is not None:
            from .timing.view import text_summary

            text += "\n" + text_summary(self.timing)
        return text

    def __repr__(self) -> str:
        return self.summary() if self.data is not None else "<Report: capture still running>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        if self.data is None:
            return {"text/plain": repr(self)}
        from .render.html import render_fragment

        return {"text/plain": self.summary(), "text/html": render_fragment(self.data, sections=self.extra_sections())}

    def _ready(self) -> CaptureData:
        if self.data is None:
            raise RuntimeError("the capture is still running: use the report after the `with` block")
        return self.data


def _write(path: str | os.PathLike, text: str) -> str:
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
