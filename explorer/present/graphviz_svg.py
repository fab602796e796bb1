"""DOT text to an inline SVG picture, safely, or a reason why there is none.

Why a timeout and a size limit: ``dot`` is superlinear on big graphs and a
pathological one can run for minutes; a report view must never hang on it.
Why sanitising: the SVG goes inline into a notebook output, so it must carry
no script, no event handler, no external image and no XML prolog/doctype
(which would be invalid inside HTML).
"""

from __future__ import annotations

import re
import shutil
from typing import Optional

MAX_NODES = 400  # pictures of bigger graphs are skipped: unreadable, and slow to lay out
DOT_TIMEOUT_S = 10.0
INSTALL_HINT = "install Graphviz (`apt install graphviz` / `conda install graphviz`) to see the picture"


def dot_program() -> Optional[str]:
    """Path of Graphviz's ``dot``, or None. Looked up on every call: nothing is cached."""
    return shutil.which("dot")


def render_svg(dot: str, *, timeout_s: float = DOT_TIMEOUT_S) -> tuple[Optional[str], str]:
    """``(svg, "")`` or ``(None, why not)``; never raises for a bad or slow graph."""
    program = dot_program()
    if program is None:
        return None, "Graphviz's `dot` program was not found: " + INSTALL_HINT
    try:
        raw = _pipe(program, dot, timeout_s)
    except _Timeout:
        return None, f"Graphviz took longer than {timeout_s:g} s to lay this graph out; the picture was skipped"
    except Exception as e:  # noqa: BLE001 - a DOT syntax error or a crashed dot: said, the view goes on
        return None, f"Graphviz could not draw this graph ({type(e).__name__}: {str(e).strip()[:300]})"
    return sanitize_svg(raw), ""


class _Timeout(Exception):
    pass


def _pipe(program: str, dot: str, timeout_s: float) -> str:
    """Run ``dot -Tsvg`` directly: ``graphviz.Source.pipe`` takes no timeout."""
    import subprocess

    try:
        proc = subprocess.run([program, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True,
                              timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as e:
        raise _Timeout() from e
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode("utf-8", errors="replace") or f"dot exited with {proc.returncode}")
    return proc.stdout.decode("utf-8", errors="replace")


_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.S | re.I)
_DANGEROUS_ELEMENTS = re.compile(
    r"<(script|foreignObject|image|iframe|object|embed|style)\b.*?(?:/>|</\1\s*>)", re.S | re.I)
_TAG = re.compile(r"<[A-Za-z][^<>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^<>\"']*)*>")
_EVENT_ATTRS = re.compile(r"\s+on[a-z]+\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.I)
_JS_LINKS = re.compile(r"(\s(?:xlink:)?href\s*=\s*)(\"\s*javascript:[^\"]*\"|'\s*javascript:[^']*')", re.I)


def sanitize_svg(svg: str) -> str:
    """Drop the prolog, comments, scripts, handlers and external loads; keep the drawing."""
    svg = _PROLOG.sub("", svg)
    svg = _DANGEROUS_ELEMENTS.sub("", svg)
    svg = _TAG.sub(lambda m: _EVENT_ATTRS.sub("", m.group()), svg)  # in tags only, never in text
    svg = _JS_LINKS.sub(r'\1"#"', svg)
    start = svg.find("<svg")
    return svg[start:].strip() if start >= 0 else ""
