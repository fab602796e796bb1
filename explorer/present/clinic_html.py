"""The clinic as HTML, written once: the fix list, the explained recompiles, a side-by-side diff.

Every string that came from user code or torch is escaped. The page's styling
belongs to the view layer; these fragments only carry class names
(``cx-fix``, ``cx-diff``, ``cx-del``/``cx-ins``/``cx-chg``).
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..clinic.diff import CompilationDiff, SectionDiff
from ..clinic.fixlist import BreakSite
from ..clinic.recompiles import RecompileExplanation
from .escape import esc as escape
from .escape import safe_url

_ROW_CLASS = {"equal": "", "replace": "cx-chg", "delete": "cx-del", "insert": "cx-ins"}


def fix_list_html(sites: Sequence[BreakSite]) -> str:
    """The "what to fix" list: one row per break site, most costly first."""
    if not sites:
        return ""
    items = []
    for s in sites:
        code = escape(s.gb_code or "")
        link = safe_url(s.doc_url)
        if link and code:
            code = f'<a href="{escape(link)}" target="_blank" rel="noopener">{code}</a>'
        times = f" ×{s.count}" if s.count > 1 else ""
        src = f" <code>{escape(s.source_line)}</code>" if s.source_line else ""
        hint = f'<div class="cx-muted">hint: {escape(s.hints[0])}</div>' if s.hints else ""
        resumed = f" Resumed in {escape(', '.join(s.resume_functions))}" if s.resume_functions else ""
        items.append(f'<li data-origin="{escape(origin_of(s.filename, s.lineno))}"><code>{escape(s.location)}</code>: '
                     f"{escape(s.reason)}{' [' + code + ']' if code else ''}{times}{src}{hint}"
                     f'<div class="cx-muted">{escape(s.ran_as_python)}{resumed}</div></li>')
    return (f'<div class="cx-h3">Graph breaks: what to fix ({len(sites)} sites)</div>'
            f'<ul class="cx-list cx-breaks">{"".join(items)}</ul>')


def recompiles_html(explained: Sequence[RecompileExplanation]) -> str:
    """One line per recompile: the failing guard, old -> new value, the user line, the remedy."""
    if not explained:
        return ""
    items = "".join(f'<li data-origin="{escape(origin_of(e.primary.filename, e.primary.lineno) if e.primary else "")}">'
                    f"{escape(e.one_line())}</li>" for e in explained)
    return f'<div class="cx-h3">Recompiles</div><ul class="cx-list cx-recompiles">{items}</ul>'


def origin_of(filename: Optional[str], lineno: Optional[int]) -> str:
    """``FILE:LINE``: the user line an element came from (the page's ``data-origin`` contract)."""
    return f"{filename}:{lineno}" if filename and lineno else ""


def diff_html(diff: CompilationDiff) -> str:
    """One side-by-side table per section, changed rows marked by class."""
    parts = [f'<div class="cx-diff"><p>{escape(diff.a_label)} vs {escape(diff.b_label)}</p>']
    for s in diff.sections:
        parts.append(_section_html(s, diff))
    parts.append("</div>")
    return "".join(parts)


def _section_html(s: SectionDiff, diff: CompilationDiff) -> str:
    title = f"<h4>{escape(s.name)}{'' if s.changed else ' (identical)'}</h4>"
    if s.a_text is None and s.b_text is None:
        return title + "<p>neither compilation has one</p>"
    rows = []
    for r in s.rows:
        cls = _ROW_CLASS.get(r.tag, "")
        attr = f' class="{cls}"' if cls else ""
        rows.append(f"<tr{attr}><td>{r.a_lineno or ''}</td><td><pre>{escape(r.a or '')}</pre></td>"
                    f"<td>{r.b_lineno or ''}</td><td><pre>{escape(r.b or '')}</pre></td></tr>")
    head = f"<tr><th></th><th>{escape(diff.a_id)}</th><th></th><th>{escape(diff.b_id)}</th></tr>"
    return f"{title}<table>{head}{''.join(rows)}</table>"
