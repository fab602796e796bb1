"""The report's CSS, scoped under one root class so it cannot leak into a notebook.

Why CSS variables: a notebook output cell sits inside somebody else's theme
(JupyterLab light or dark, VS Code, GitHub). Every colour the report uses,
code tokens included, is a variable set on the root element, with one value
set per theme; every block sets its own background *and* foreground, so the
host theme can never leave dark text on a dark background. The dark values are
switched on by JupyterLab's ``data-jp-theme-light="false"``, VS Code's
``vscode-dark`` body classes, or the OS preference when the host says nothing.
Headings are styled divs, not <h2>-<h4>: JupyterLab lists output headings in
its table of contents, and a report would flood it. A few rules carry the root
class twice to outrank JupyterLab's own table/code rules without !important.
Code is not coloured here: the one highlighter is the interactive view's.
"""

from __future__ import annotations

from functools import lru_cache

ROOT = "cx-report"

_BASE_LIGHT = {
    "bg": "#ffffff", "fg": "#1f2328", "muted": "#59636e", "border": "#d1d9e0",
    "code-bg": "#f6f8fa", "code-fg": "#1f2328", "hl-bg": "#fff3b0", "hl-fg": "#1f2328",
    "warn-bg": "#fff8c5", "warn-fg": "#3b2300", "bad-bg": "#ffebe9", "bad-fg": "#5c0a0a",
    "chip-bg": "#eef1f4", "link": "#0550ae", "lno": "#8c959f",
}
_BASE_DARK = {
    "bg": "#0d1117", "fg": "#e6edf3", "muted": "#9198a1", "border": "#3d444d",
    "code-bg": "#161b22", "code-fg": "#e6edf3", "hl-bg": "#5a4a00", "hl-fg": "#fff8d6",
    "warn-bg": "#3a2f00", "warn-fg": "#f8e3a1", "bad-bg": "#4a1016", "bad-fg": "#ffd7d5",
    "chip-bg": "#262c36", "link": "#6cb6ff", "lno": "#6e7681",
}

_DARK_HOSTS = (
    'body[data-jp-theme-light="false"]',
    "body.vscode-dark",
    "body.vscode-high-contrast:not(.vscode-high-contrast-light)",
    "html[data-theme=dark]",  # nbviewer / furo-like pages
)
_LIGHT_HOSTS = (
    'body[data-jp-theme-light="true"]',
    "body.vscode-light",
    "body.vscode-high-contrast-light",
    "html[data-theme=light]",
)

_LAYOUT = """
.R{background:var(--cx-bg);color:var(--cx-fg);\
font:13px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;
 border:1px solid var(--cx-border);border-radius:6px;padding:8px 12px;max-width:100%;\
box-sizing:border-box;text-align:left}
.R *{box-sizing:border-box}
.R a{color:var(--cx-link)}
.R .cx-h2,.R .cx-h3,.R .cx-h4{color:var(--cx-fg);margin:.5em 0 .3em;font-weight:600;line-height:1.25}
.R .cx-h2{font-size:1.25em}.R .cx-h3{font-size:1.1em}.R .cx-h4{font-size:1em}
.R p{margin:.3em 0}
.R details{margin:.25em 0}
.R summary{cursor:pointer;color:var(--cx-fg)}
.R details.cx-comp{border:1px solid var(--cx-border);border-radius:6px;padding:4px 8px;margin:6px 0}
.R details.cx-comp>summary{font-weight:600}
.R details.cx-stage{border-left:3px solid var(--cx-border);padding-left:8px;margin:4px 0}
.R details.cx-stage>summary{font-weight:500}
.R .cx-stat{display:flex;flex-wrap:wrap;gap:6px;margin:4px 0}
.R .cx-chip{background:var(--cx-chip-bg);color:var(--cx-fg);border-radius:10px;padding:1px 8px;white-space:nowrap}
.R .cx-chip b{font-weight:600}
.R .cx-muted{color:var(--cx-muted)}
.R .cx-missing{background:var(--cx-warn-bg);color:var(--cx-warn-fg);border-radius:4px;padding:4px 8px;margin:4px 0}
.R .cx-strip{line-height:1.9}
.R tr.cx-dropped td,.R li.cx-refused{background:var(--cx-warn-bg);color:var(--cx-warn-fg)}
.R .cx-bad{background:var(--cx-bad-bg);color:var(--cx-bad-fg);border-radius:4px;padding:4px 8px;margin:4px 0;\
white-space:pre-wrap}
.R pre.cx-code{background:var(--cx-code-bg);color:var(--cx-code-fg);\
font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
 padding:6px 8px;margin:4px 0;border-radius:4px;overflow:auto;max-height:480px;white-space:pre;tab-size:4}
.R pre.cx-code .cx-hl{display:inline-block;min-width:100%;background:var(--cx-hl-bg);color:var(--cx-hl-fg)}
.R pre.cx-code .cx-lno{color:var(--cx-lno);user-select:none;-webkit-user-select:none;padding-right:1em}
.R table.cx-table{border-collapse:collapse;margin:4px 0;font-size:12px;background:var(--cx-bg);color:var(--cx-fg)}
.R.R table.cx-table tr:nth-child(n){background:transparent}
.R.R table.cx-table th,.R.R table.cx-table td{border:1px solid var(--cx-border);padding:2px 6px;vertical-align:top;\
text-align:left;background:transparent;color:var(--cx-fg)}
.R.R table.cx-table th{background:var(--cx-chip-bg)}
.R.R table.cx-loop code{white-space:pre;word-break:normal}
.R.R :not(pre)>code{padding:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;\
background:transparent;color:inherit;white-space:pre-wrap;word-break:break-word}
.R .cx-svg{overflow:auto;max-height:640px;background:#ffffff;border:1px solid var(--cx-border);border-radius:4px;\
padding:4px;margin:4px 0}
.R .cx-svg svg{max-width:none;height:auto}
.R ul.cx-list{margin:.2em 0;padding-left:1.4em}
.R .cx-diff table{border-collapse:collapse;font-size:12px;width:100%}
.R .cx-diff td{vertical-align:top;border-bottom:1px solid var(--cx-border);padding:0 4px;color:var(--cx-fg)}
.R .cx-diff td pre{margin:0;white-space:pre-wrap;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;\
background:transparent;color:inherit}
.R .cx-diff tr.cx-chg td{background:var(--cx-hl-bg)}
.R .cx-diff tr.cx-del td{background:var(--cx-bad-bg)}
.R .cx-diff tr.cx-ins td{background:var(--cx-warn-bg)}
.R .cx-diff h4{margin:.4em 0 .2em;font-size:13px}
.R .cx-timing table{border-collapse:collapse;font-size:12px;margin:4px 0}
.R .cx-timing th,.R .cx-timing td{border:1px solid var(--cx-border);padding:2px 6px;text-align:left;color:var(--cx-fg)}
.R .cx-timing svg{background:#ffffff;border-radius:4px}
"""


def _vars(base: dict[str, str]) -> str:
    return ";".join(f"--cx-{k}:{v}" for k, v in base.items())


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """The whole stylesheet (a constant: the same text for every report)."""
    root = f".{ROOT}"
    light, dark = _vars(_BASE_LIGHT), _vars(_BASE_DARK)
    dark_hosts = ",".join(f"{h} {root}" for h in _DARK_HOSTS)
    not_light = "".join(f":not({h.split('body', 1)[-1] if h.startswith('body') else ''})"
                        for h in _LIGHT_HOSTS if h.startswith("body"))
    return (
        f"{root}{{{light}}}"
        f"@media (prefers-color-scheme: dark){{body{not_light} {root}{{{dark}}}}}"
        f"{dark_hosts}{{{dark}}}"
        + _LAYOUT.replace(".R", root).replace("\n", "")
    )
