"""Small HTML fragments for the clinic: the fix list and a side-by-side diff.

Every string that came from user code or torch is escaped. The page's styling
belongs to the view layer; these fragments only carry class names
(``cx-fix``, ``cx-diff``, ``cx-del``/``cx-ins``/``cx-chg``).
"""

from __future__ import annotations

from html import escape

from .diff import CompilationDiff, SectionDiff
from .fixlist import BreakSite

_ROW_CLASS = {"equal": "", "replace": "cx-chg", "delete": "cx-del", "insert": "cx-ins"}


def fix_list_html(sites: list[BreakSite]) -> str:
    """The "what to fix" table: location, reason with gb link, hits, resume functions."""
    if not sites:
        return '<p class="cx-fix">No graph breaks.</p>'
    rows = []
    for s in sites:
        code = escape(s.gb_code or "")
        link = f'<a href="{escape(s.doc_url, quote=True)}" target="_blank">{code}</a>' if s.doc_url else code
        hints = "".join(f"<li>{escape(h)}</li>" for h in s.hints)
        rows.append(
            "<tr>"
            f'<td><code>{escape(s.location)}</code><br><code class="cx-src">{escape(s.source_line or "")}</code></td>'
            f"<td><b>{escape(s.reason)}</b> {link}<br>{escape(s.explanation or '')}"
            f"{'<ul>' + hints + '</ul>' if hints else ''}<br><i>{escape(s.ran_as_python)}</i></td>"
            f"<td>{s.count}</td><td>{escape(', '.join(s.resume_functions))}</td>"
            "</tr>"
        )
    head = "<tr><th>where</th><th>why</th><th>compilations</th><th>resumed in</th></tr>"
    return f'<table class="cx-fix">{head}{"".join(rows)}</table>'


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
