"""The notebook view: one anywidget widget per view, drawn by the front end (``present/frontend/src/``).

The same ES module draws the standalone page (``present.page``), from the same
JSON payload (``present.payload``), so a report looks and behaves the same in
JupyterLab, Notebook 7, VS Code, Colab, marimo and a browser. The widget is one
ipywidgets model (no Layout child either): a view made by each ``%%compile``
run costs one widget, however big the report. Its state: ``payload`` (the
report, one JSON string), ``made_at`` (when the view was made: the front end
records its own latency against it), ``selection`` (the panes' stages and
the pinned chain, written by the front end, settable from Python by
``ExplorerView.select``) and ``pictures`` (those the kernel has drawn, kept so
a notebook saved with its widgets' state shows them without a kernel).

What needs the kernel is offered only here (the page has no kernel): the front
end sends ``{"type": "action", "id", "action", "args"}`` and gets
``{"type": "result", "id", "ok", ...}`` back. ``ACTIONS`` is the hook; it holds
``ping`` (asked when the view is drawn: kernel actions are offered only once a
kernel answers, as a saved notebook or an exported page has none), ``rest``
(a big report's view is drawn from what its first panes need, and the rest
follows), ``rank`` (another rank of a merged multi-rank report, sent when the
view first shows it: the widget carries only the lowest rank's),
``diff`` (a pane against any other the view does not carry: ``viewmodel.pane_diff``),
``pictures`` (Graphviz runs in the kernel after the view is up), ``why``
("would this call recompile?", ``%compile --why`` on an expression of the
notebook) and ``save_html``. Both ``rest`` and ``pictures`` keep the view
within a fraction of a second of the capture, however big the report.

``ExplorerView`` is what a cell displays (a Report displayed where widgets reach a
front end shows its own, ``report.widget()``: ``explorer.hosts``): its mime bundle carries the widget,
a static HTML copy of the report (for GitHub and nbviewer, which run no
JavaScript; no pictures and a size budget, so it is quick to make) and the text
summary. Where the notebook is executed to be saved (``hosts.headless``: nbconvert
``--execute``, papermill), the static copy is an output of its own (``OfflineCopy``).
"""

from __future__ import annotations

import contextlib
import io
import os
import time
from typing import Any, Callable, Optional

from .present.escape import esc
from .present.html import render_fragment
from .report import Report

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
FALLBACK_BUDGET = 200_000  # characters of stage HTML in the static copy: past it, stages are named only


def _widget_class() -> type:
    import anywidget
    import traitlets

    from .present.page import module_text, styles_text

    class ExplorerWidget(anywidget.AnyWidget):
        """One view of one report."""

        _esm = module_text()
        # not anywidget's `_css`: that rewrites its <style> for every view made, restyling the whole notebook
        # (every earlier view too) before the new one draws; the module adds this once per document
        styles = traitlets.Unicode(styles_text()).tag(sync=True)
        payload = traitlets.Bytes(b"").tag(sync=True)  # a binary buffer: no JSON escaping on the way
        payload_encoding = traitlets.Unicode("utf-8").tag(sync=True)  # "utf-8" JSON, or "gzip" of it
        made_at = traitlets.Float(0.0).tag(sync=True)
        selection = traitlets.Dict().tag(sync=True)
        # the graph pictures the kernel has drawn ({id: svg}): a trait, so a notebook saved with its widgets' state
        # (and a page made from it) keeps them, where no kernel is there to draw them again
        pictures = traitlets.Dict().tag(sync=True)
        # no Layout widget: the module styles itself, and a view must stay one widget
        layout = traitlets.Any(None, allow_none=True).tag(sync=True)

    return ExplorerWidget


def widget_class() -> type:
    global _WIDGET_CLASS
    if _WIDGET_CLASS is None:
        _WIDGET_CLASS = _widget_class()
    return _WIDGET_CLASS


# Made when this module is imported, which the magic does before it runs the cell:
# importing anywidget (and ipywidgets) then costs nothing between the capture and the view.
try:
    _WIDGET_CLASS: Optional[type] = _widget_class()
except ImportError:  # no anywidget: views show their static HTML
    _WIDGET_CLASS = None


# a message's long texts are packed (present/packed_text.py) only past this: under it the kernel sends them to the
# browser faster than Python packs them (a 2,300-node report's rest: 2.8 MB of long texts, 240 ms to pack, 318 KB
# gzipped as they are); past it (an 80-layer model's stages) the bytes cost more than the packing
WIDGET_PACK_OVER = 8_000_000
DEFER_OVER = 1_000_000  # a report with more text than this draws its first view first, then gets the rest
GZIP_OVER = 64 * 1024  # bigger payloads travel gzipped (level 1: ~20 ms for 4 MB, 10x smaller)


def encode_payload(text: str) -> tuple[bytes, str]:
    import gzip

    data = text.encode("utf-8")
    if len(data) <= GZIP_OVER:
        return data, "utf-8"
    return gzip.compress(data, compresslevel=1, mtime=0), "gzip"


def decode_payload(data: bytes, encoding: str) -> dict:
    import gzip
    import json

    return json.loads(gzip.decompress(data) if encoding == "gzip" else data)


class ExplorerView:
    """A report's notebook view; the widget is made on first display."""

    def __init__(self, report: Report | Any) -> None:
        report = Report.of(report)
        self.report = report
        self.data = report.capture
        self.made_at = time.time()  # the capture has just finished: the latency target counts from here
        self._widget: Any = None
        self._model: Optional[dict] = None
        self._defer: Optional[bool] = None
        self._dots: dict[str, str] = {}
        self._origins: Optional[list[Any]] = None  # a merged report's: every rank's chain indexes them
        self._selects = 0

    # ---- mime bundle ----
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        from . import hosts

        bundle: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        try:
            shown = self.widget()._repr_mimebundle_()
            if isinstance(shown, tuple):
                shown, metadata = shown
            bundle.update(shown or {})
        except ImportError:  # no anywidget / ipywidgets: the static HTML still shows
            pass
        if WIDGET_MIME in bundle and hosts.headless():
            hosts.display(OfflineCopy(self.static_html()))  # an output of its own, which nbconvert's page shows
        else:
            bundle["text/html"] = self.static_html()
        bundle["text/plain"] = self.summary()
        return (bundle, metadata) if metadata else bundle

    @property
    def model(self) -> dict:
        """The report's view model, built once: the widget, the static copy and the text all draw it."""
        if self._model is None:
            from .present.payload import FIRST_PANES
            from .present.viewmodel import build

            self._model = build(self.report, panes=FIRST_PANES if self.defer else True)
        return self._model

    @property
    def defer(self) -> bool:
        """A big report's widget sends what its first view draws, then the rest (the ``rest`` action); its view
        model is made with the first panes only, the static copy and the rest building the others."""
        if self._defer is None:
            from .present.payload import heavy_chars

            self._defer = heavy_chars(self.report) > DEFER_OVER
        return self._defer

    def static_html(self) -> str:
        return render_fragment(self.report, pictures=False, budget=FALLBACK_BUDGET, model=self.model)

    def summary(self) -> str:
        from .present.text import summary

        return summary(self.report, model=self.model)

    # ---- the widget ----
    def widget(self) -> Any:
        if self._widget is None:
            from .present.payload import build, to_json

            payload, self._dots = build(self.report, pictures="lazy", made_at=self.made_at, defer=self.defer,
                                        model=self.model, pack_over=WIDGET_PACK_OVER)
            data, encoding = encode_payload(to_json(payload))
            self._widget = widget_class()(payload=data, payload_encoding=encoding, made_at=self.made_at)
            self._widget.on_msg(self._on_msg)
        return self._widget

    def payload(self) -> dict:
        """The payload the widget carries, decoded (what the front end reads)."""
        return decode_payload(self.widget().payload, self.widget().payload_encoding)

    def select(self, comp_index: Optional[int] = None, left: Optional[str | dict] = None,
               right: Optional[str | dict] = None, rank: Optional[int] = None) -> None:
        """Shows a compilation and/or stages in the panes (stage ids, or one kernel: ``{"stage": "kernels",
        "kernel": REF}``, REF as the kernels pane names it); ``rank``: that rank
        of a merged multi-rank report (``comp_index`` then counts that rank's compilations)."""
        self._selects += 1
        sel: dict[str, Any] = {"from": "python", "n": self._selects}
        data = self.data
        if rank is not None:
            sel["rank"] = rank
            data = self.report.rank(rank).capture
        if comp_index is not None:
            sel["comp"] = data.compilations[comp_index].compile_id
        if left is not None:
            sel["left"] = left
        if right is not None:
            sel["right"] = right
        self.widget().selection = sel

    # ---- what the kernel answers ----
    def _on_msg(self, _widget: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "action":
            return
        action = ACTIONS.get(str(content.get("action")))
        reply: dict[str, Any] = {"type": "result", "id": content.get("id")}
        try:
            if action is None:
                raise ValueError(f"no such action: {content.get('action')!r}")
            reply.update(action(self, content.get("args") or {}))
            reply["ok"] = True
        except Exception as e:  # noqa: BLE001 - the answer goes back to the view, as text
            reply.update(ok=False, text=f"{type(e).__name__}: {e}")
        buffers = reply.pop("_buffers", None)
        self.widget().send(reply, buffers)


class OfflineCopy:
    """A view's static copy as an output of its own, shown beside the widget's where the notebook is executed by a
    client that draws nothing and saves it (``hosts.headless``: ``jupyter nbconvert --execute``, papermill).

    nbclient keeps the widgets' state in the saved notebook, so nbconvert's HTML renders the widget's output as the
    widget alone (the HTML in the same output is dropped), drawn by a widget manager the page loads from a CDN:
    without a network the page showed nothing. This output the page shows; where the widget does draw (the page
    online, Voila, the notebook opened in JupyterLab with its widgets' state), a rule of its own style hides it."""

    HIDE = ("<style>.jp-OutputArea:has(.cxv) .cx-offline-copy, .output:has(.cxv) .cx-offline-copy"
            " { display: none; }</style>")

    def __init__(self, html: str) -> None:
        self.html = html

    def _repr_html_(self) -> str:
        return f'<div class="cx-offline-copy">{self.HIDE}{self.html}</div>'


# ---- kernel-only actions: name -> fn(view, args) -> reply fields ----

def _rest(view: ExplorerView, args: dict) -> dict:
    """The rest of a big report, after its first view is drawn (a binary buffer, like the payload)."""
    from .present.payload import build_rest, to_json

    data, encoding = encode_payload(to_json(build_rest(view.report, view.model, dots=view._dots,
                                                         pack_over=WIDGET_PACK_OVER)))
    return {"encoding": encoding, "_buffers": [data]}


def _rank(view: ExplorerView, args: dict) -> dict:
    """Another rank of a merged multi-rank report, when the view first shows it (its own payload, whole)."""
    from .present.payload import job_origins, rank_payload, to_json

    if view._origins is None:
        view._origins = job_origins(view.report)
    payload, dots = rank_payload(view.report, int(args.get("rank", -1)), pictures="lazy", origins=view._origins,
                                 pack_over=WIDGET_PACK_OVER)
    view._dots.update(dots)
    data, encoding = encode_payload(to_json(payload))
    return {"encoding": encoding, "_buffers": [data]}


def _ping(view: ExplorerView, args: dict) -> dict:
    """The view asks when it is drawn: an answer means a kernel runs this view's Python side. Without one (a saved
    notebook, ``marimo export html``, an nbconvert page, a kernel restarted since) the view offers no kernel action
    and says what needs one. ``actions``: those this host can do ("why" needs the notebook's variables)."""
    from . import hosts

    offered = [a for a in ("why", "save_html") if a != "why" or hosts.namespace() is not None]
    return {"host": hosts.name(), "actions": offered}


def _diff(view: ExplorerView, args: dict) -> dict:
    """A pane against another that the view does not carry (it carries a recompile's against what it replaced,
    and two ranks' where they compiled differently): sides ``{"cid", "stage", ["kernel"], ["rank"]}``."""
    from .present.viewmodel import pane_diff

    return {"diff": pane_diff(view.report, dict(args["a"]), dict(args["b"]))}


def _pictures(view: ExplorerView, args: dict) -> dict:
    """Draws the pictures asked for into the widget's ``pictures`` trait (the view redraws from it)."""
    from .present.payload import draw_pictures

    ids = [i for i in args.get("ids", ()) if i in view._dots]
    drawn = draw_pictures({i: view._dots[i] for i in ids})
    widget = view.widget()
    widget.pictures = {**widget.pictures, **drawn}
    return {"count": len(drawn)}


def _why(view: ExplorerView, args: dict) -> dict:
    """``%compile --why EXPR``: which cached compilation the call would reuse, or which guard fails."""
    from . import hosts
    from .why import why_recompile_line

    namespace = hosts.namespace()
    expr = str(args.get("expr") or "").strip()
    if namespace is None:
        raise RuntimeError("no notebook's variables here to evaluate the call in")
    if not expr:
        return {"text": "Type a call, e.g. f(torch.randn(16)): its guards are checked, nothing is compiled or run."}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            why_recompile_line(namespace, expr)
    except Exception as e:  # noqa: BLE001 - UsageError and the call's own errors: said, not raised
        out.write(f"{type(e).__name__}: {e}")
    return {"text": out.getvalue().strip()}


def _save_html(view: ExplorerView, args: dict) -> dict:
    first = view.data.compilations[0].compile_id.replace("/", "_") if view.data.compilations else "empty"
    path = os.path.abspath(str(args.get("path") or f"compile-explorer-{first}-{time.strftime('%H%M%S')}.html"))
    view.report.save_html(path)
    return {"text": f"wrote {path}", "path": path}


ACTIONS: dict[str, Callable[[ExplorerView, dict], dict]] = {
    "ping": _ping,
    "rest": _rest,
    "rank": _rank,
    "diff": _diff,
    "pictures": _pictures,
    "why": _why,
    "save_html": _save_html,
}


__all__ = ["ACTIONS", "ExplorerView", "WIDGET_MIME", "esc", "widget_class"]
