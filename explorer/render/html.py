"""Standalone HTML views of a report.  (Placeholder API: being filled in.)

Public API, used by the report, the widget and the CLI:
  STAGES                       -> list of (key, label) a compilation can show
  stage_html(comp, key, ...)   -> HTML fragment for one stage of one compilation
  render_fragment(data)        -> self-contained HTML for a notebook output
  render_page(data)            -> a complete standalone .html document
"""

from __future__ import annotations

import html

from ..capture.model import CaptureData, Compilation

STAGES = [
    ("source", "Source"),
    ("original_bytecode", "Original bytecode"),
    ("rewritten_bytecode", "Rewritten bytecode"),
    ("graph", "FX graph"),
    ("guards", "Guards"),
    ("graph_break", "Graph break / recompile"),
    ("aot_forward", "AOT forward"),
    ("aot_backward", "AOT backward"),
    ("aot_inference", "AOT inference"),
    ("post_grad_graph", "Post-grad graph"),
    ("ir_pre_fusion", "Loop IR before fusion"),
    ("ir_post_fusion", "Loop IR after fusion"),
    ("output_code", "Output code"),
    ("kernels", "Kernels"),
]


def stage_html(comp: Compilation, key: str) -> str:
    value = getattr(comp, key, None)
    if value is None:
        return f"<p>{html.escape(comp.missing.get(key, 'not captured'))}</p>"
    return f"<pre>{html.escape(str(value))}</pre>"


def render_fragment(data: CaptureData) -> str:
    parts = [f"<h3>{html.escape(c.label)}</h3>" + stage_html(c, "graph") for c in data.compilations]
    return "<div class='cx-report'>" + "".join(parts) + "</div>"


def render_page(data: CaptureData) -> str:
    return f"<!doctype html><html><head><meta charset='utf-8'><title>compile-explorer</title></head><body>{render_fragment(data)}</body></html>"
