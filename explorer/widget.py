"""The explorer view: a header, a compile-id picker and two panes side by side.

Each pane has its own stage picker, so any two stages of one compilation can
be compared (original vs rewritten bytecode, FX graph vs kernels, ...). The
content of every pane comes from ``present.html.stage_html``; this module only
lays it out. A pane is rendered when it is first shown and cached per
(compilation, stage), so a report with hundreds of kernels opens at once.

``ExplorerView`` is what a cell displays: its mime bundle carries the widget
view, the static HTML of the whole report (for GitHub, nbviewer, VS Code
without a kernel) and the text summary.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .present.escape import esc
from .present.html import header_html, render_fragment, stage_html, stage_keys, timing_section
from .present.style import ROOT, stylesheet
from .present.text import summary
from .report import Report

PRESETS = {  # name -> (left stage, right stage)
    "Bytecode: original vs rewritten": ("original_bytecode", "rewritten_bytecode"),
    "FX graph vs kernels": ("graph", "kernels"),
}
PANE_STYLE = "max-height:36em;overflow:auto;"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


class ExplorerView:
    """A report's notebook view; the widget is built on first display."""

    def __init__(self, report: "Report | Any") -> None:
        report = Report.of(report)
        self.report = report
        self.data = report.capture
        self._widget: Any = None
        self._panes: Optional[list[_Pane]] = None
        self._cache: dict[tuple[int, str], str] = {}
        self._comp_index = 0
        self._picker: Any = None

    # ---- mime bundle ----
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {}
        try:
            bundle.update(self.widget()._repr_mimebundle_() or {})
        except ImportError:  # no ipywidgets: the static HTML still shows
            pass
        bundle["text/html"] = render_fragment(self.report)
        bundle["text/plain"] = summary(self.report)
        return bundle

    # ---- widgets ----
    def widget(self) -> Any:
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def pane_html(self, comp_index: int, key: str) -> str:
        """The HTML a pane shows for one stage of one compilation (cached)."""
        cache_key = (comp_index, key)
        if cache_key not in self._cache:
            comp = self.data.compilations[comp_index]
            self._cache[cache_key] = f"<div class='{ROOT}' style='{PANE_STYLE}'>{stage_html(comp, key, report=self.report)}</div>"
        return self._cache[cache_key]

    def stage_options(self, comp_index: int) -> list[tuple[str, str]]:
        """(label, key) for a pane's picker: every stage, then one entry per kernel."""
        return [(label, key) for key, label in stage_keys(self.data.compilations[comp_index])]

    def select(self, comp_index: Optional[int] = None, left: Optional[str] = None,
               right: Optional[str] = None) -> None:
        """Shows a compilation and/or stages (what the pickers and preset buttons do)."""
        self.widget()
        if comp_index is not None and self._picker is not None:
            self._picker.value = comp_index
        if self._panes:
            for pane, key in zip(self._panes, (left, right)):
                if key is not None:
                    pane.show(key)

    def _build(self) -> Any:
        import ipywidgets as w

        # the stylesheet is scoped under .cx-report: one copy in the header serves the panes too
        header = w.HTML(value=f"<div class='{ROOT}'><style>{stylesheet()}</style>{header_html(self.report)}"
                               f"{timing_section(self.report)}</div>")
        if not self.data.compilations:
            self._picker = None
            note = "No compilation happened in this cell (was any of its code run by torch.compile?)."
            return w.VBox([header, w.HTML(value=f"<p>{esc(note)}</p>")])
        self._picker = w.Dropdown(options=[(c.label, i) for i, c in enumerate(self.data.compilations)],
                                  value=0, description="Compilation", layout=w.Layout(width="auto"),
                                  style={"description_width": "initial"})
        self._panes = [_Pane(self, "original_bytecode"), _Pane(self, "rewritten_bytecode")]
        self._picker.observe(self._on_compilation, names="value")
        buttons = []
        for name, (left, right) in PRESETS.items():
            b = w.Button(description=name, layout=w.Layout(width="auto"))
            b.on_click(lambda _b, l=left, r=right: self.select(left=l, right=r))
            buttons.append(b)
        panes = w.HBox([p.box for p in self._panes], layout=w.Layout(width="100%"))
        return w.VBox([header, w.HBox([self._picker] + buttons), panes])

    def _on_compilation(self, change: dict) -> None:
        self._comp_index = change["new"]
        for pane in self._panes or ():
            pane.refresh()


class _Pane:
    """One side: a stage picker above an HTML area filled on demand."""

    def __init__(self, view: ExplorerView, key: str) -> None:
        import ipywidgets as w

        self.view = view
        self.picker = w.Dropdown(options=view.stage_options(view._comp_index), value=key,
                                 layout=w.Layout(width="auto"))
        self.html = w.HTML(value=view.pane_html(view._comp_index, key))
        self.box = w.VBox([self.picker, self.html], layout=w.Layout(width="50%", min_width="0"))
        self._quiet = False  # set while the options are swapped, to render once
        self.picker.observe(self._on_pick, names="value")

    def show(self, key: str) -> None:
        if self.picker.value == key:
            self._render(key)
        else:
            self.picker.value = key  # observer renders

    def refresh(self) -> None:
        """Another compilation was picked: its kernels differ, its content too."""
        key = self.picker.value
        options = self.view.stage_options(self.view._comp_index)
        if key not in [k for _, k in options]:
            key = "kernels"
        self._quiet = True
        try:
            self.picker.options = options
            self.picker.value = key
        finally:
            self._quiet = False
        self._render(key)

    def _on_pick(self, change: dict) -> None:
        if not self._quiet:
            self._render(change["new"])

    def _render(self, key: Optional[str]) -> None:
        if key is not None:
            self.html.value = self.view.pane_html(self.view._comp_index, key)


class NotebookReport(Report):
    """The Report ``%%compile -o`` returns: it displays as the explorer view."""

    @classmethod
    def of(cls, report: Report) -> "NotebookReport":
        fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
        return cls(**fields)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if self.capture is None:
            return super()._repr_mimebundle_(include, exclude)
        return ExplorerView(self)._repr_mimebundle_(include, exclude)
