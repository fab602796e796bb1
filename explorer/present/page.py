"""The standalone page (``report.save_html`` / ``to_html``): the notebook's view, in one file.

It embeds the same ES module (``module_text``: ``frontend/src``'s files bundled
into one by esbuild, ``frontend/dist/explorer.js``) and stylesheet as the notebook widget and the same JSON payload
(``present.payload``, pictures drawn in), so it looks and behaves the same: no kernel, no network, nothing to build.
Kernel-only actions are simply not offered. The payload sits in a
``<script type="application/json">`` with every ``<`` written as ``\\u003c``, so
no string of the report can close the script or open markup.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from ..plural import counted
from .escape import esc
from .payload import build, script_safe, to_json
from .viewmodel import as_report

FRONTEND = Path(__file__).with_name("frontend")
STYLES = FRONTEND / "explorer.css"
# The front end's ES modules (frontend/src) bundled into one by esbuild: `npm run build` (build-frontend.js at the
# repository's root) writes it, git holds it and the wheel ships it, so users need no node. Its banner carries the
# digest of the sources it was built from (``sources_digest``).
BUNDLE = FRONTEND / "dist" / "explorer.js"
_DIGEST = re.compile(r"^// sources sha256: ([0-9a-f]{64})$", re.M)
_MOUNT_PAGE = re.compile(r"^async function mountPage\(", re.M)  # the page's boot script calls it by name

RANK_LEVEL = 1  # each other rank's payload: a 64-rank page packs 63 of them (level 1: ~4x faster, ~1.3x bigger)
COMPRESS_OVER = 512 * 1024  # bigger payloads go in as gzip + base64 (a 4.6 MB report becomes ~0.7 MB)
_PAGE_CSS = ("html,body{margin:0;padding:0}body{padding:12px;background:#ffffff;color:#1f2328}"
             "@media (prefers-color-scheme: dark){body{background:#0d1117;color:#e6edf3}}")


@lru_cache(maxsize=1)
def module_text() -> str:
    """The front end: one ES module, the built ``frontend/dist/explorer.js`` (its imports resolved by esbuild,
    only the entry's exports left). In a checkout whose sources differ from those it was built from, it warns:
    the view would run the old code."""
    try:
        text = BUNDLE.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"the front end's bundle {BUNDLE} is missing: git holds it (git checkout it), "
                                "or `npm ci && npm run build` makes it from frontend/src") from None
    if "</script" in text.lower():  # it is inlined into a <script> element
        raise ValueError("the front end must not contain '</script'")
    if not _MOUNT_PAGE.search(text):
        raise ValueError(f"{BUNDLE} has no top-level mountPage, which the standalone page calls")
    stale = _stale(text)
    if stale:
        warnings.warn(stale, stacklevel=2)
    return text


def sources_digest(src: Path = FRONTEND / "src") -> Optional[str]:
    """sha256 over each ``.js`` file of ``src`` in name order, as name NUL content NUL: what build-frontend.js
    writes in the bundle's banner. None where the sources are not here (an installed wheel ships the bundle only)."""
    if not src.is_dir():
        return None
    digest = hashlib.sha256()
    for path in sorted(src.glob("*.js"), key=lambda p: p.name):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stale(text: str) -> Optional[str]:
    """Why the bundle does not match this checkout's sources (a change to frontend/src not yet built), else None."""
    now = sources_digest()
    if now is None:
        return None
    built = _DIGEST.search(text)
    if built is not None and built.group(1) == now:
        return None
    return (f"{BUNDLE} was built from other sources than {FRONTEND / 'src'} holds now, and the view runs the "
            "bundle: `npm run build` in the repository rebuilds it")


@lru_cache(maxsize=1)
def styles_text() -> str:
    return STYLES.read_text(encoding="utf-8")


def payload_script(payload: dict, *, compress: Optional[bool] = None) -> str:
    """The ``<script id="cx-payload">`` element: JSON, or gzip + base64 past ``COMPRESS_OVER``.

    The browser unpacks the second with its own ``DecompressionStream``: still one
    file, no network, no library. Small reports stay readable JSON."""
    text = to_json(payload)  # encoded once (a big report's is megabytes): the script form is this with "<" escaped
    if compress is None:
        compress = len(text) + 5 * text.count("<") > COMPRESS_OVER  # the length of script_safe(text)
    if not compress:
        return f'<script type="application/json" id="cx-payload">{script_safe(text)}</script>'
    return packed_script("cx-payload", text)


def packed_script(element_id: str, text: str, level: int = 6) -> str:
    """``text`` as gzip + base64 in ``<script id=element_id>``: the front end's ``readPayload`` unpacks it."""
    packed = base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=level, mtime=0)).decode("ascii")
    return f'<script type="application/octet-stream" id="{element_id}" data-encoding="gzip+base64">{packed}</script>'


class RankScripts:
    """Each other rank's payload of a job (``payload.build(on_rank=...)``) in its own ``<script
    id="cx-rank-N">``. They follow the view's own script, which runs while the browser still reads them: the
    first paint unpacks and reads only the shown rank's, and a rank's is read when it is first picked (a
    64-rank job's page opens as fast as one rank's).

    The ranks of a job mostly compiled the same: a rank whose payload differs from the last one written in full
    by little (its rank, its times) is written as that difference (``data-base``: the rank it patches; JSON
    ``[[path, value], [path]]``: set, delete), so the page grows by a few kilobytes a rank, not megabytes."""

    def __init__(self) -> None:
        self.scripts: list[str] = []
        self._base: Optional[tuple[str, dict]] = None  # (rank, payload) of the last rank written in full

    def add(self, rank: str, payload: dict) -> None:
        if self._base is not None:
            ops: list[list] = []
            if _diff(self._base[1], payload, [], ops) and len(ops) <= PATCH_OPS:
                text = script_safe(to_json(ops))
                if len(text) <= PATCH_CHARS:
                    self.scripts.append(f'<script type="application/json" id="cx-rank-{int(rank)}" '
                                        f'data-base="{int(self._base[0])}">{text}</script>')
                    return
        self.scripts.append(packed_script(f"cx-rank-{int(rank)}", to_json(payload), RANK_LEVEL))
        self._base = (rank, payload)

    def html(self) -> str:
        return "".join(self.scripts)


PATCH_OPS, PATCH_CHARS = 20_000, 1 << 20  # a bigger difference: the rank is written in full


def _diff(a: Any, b: Any, path: list, ops: list[list]) -> bool:
    """The ``[path, value]`` sets (``[path]``: delete) that make JSON-like ``a`` into ``b``; False when there are
    too many to be worth it. Equal subtrees are compared whole (in C): only what differs is walked."""
    if type(a) is type(b) and a == b:
        return True
    if len(ops) > PATCH_OPS:
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in b.items():
            if k not in a:
                ops.append([path + [k], v])
            elif not _diff(a[k], v, path + [k], ops):
                return False
        ops.extend([path + [k]] for k in a if k not in b)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not _diff(x, y, path + [i], ops):
                return False
    else:
        ops.append([path, b])
    return len(ops) <= PATCH_OPS


def render_page(report: Any, *, compress: Optional[bool] = None) -> str:
    """A complete HTML document: utf-8, no external resource, the interactive view."""
    report = as_report(report)
    data = report.capture
    others = RankScripts()  # each other rank's payload in its own element, unpacked when its rank is picked
    payload, _ = build(report, pictures="inline", other_ranks=True, on_rank=others.add)
    pictures = pictures_script(payload)
    dist = report.distributed
    ranks = f"{counted(dist.world_size, 'rank')}, rank {dist.rank}: " if dist is not None and dist.merged else ""
    title = (f"compile-explorer: {ranks}{counted(len(data.compilations), 'compilation')}, "
             f"{counted(data.break_count, 'graph break')} — torch {data.torch_version}")
    boot = '\n;mountPage(document.getElementById("cx-root"), document.getElementById("cx-payload"));\n'
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{_PAGE_CSS}</style><style>{styles_text()}</style></head><body>"
            '<div id="cx-root" class="cxv"><noscript>This report is drawn by JavaScript, which is off here. '
            "The whole report is in this file as JSON (the cx-payload script element); "
            "<code>python -m explorer show</code> reads a report's JSON as text.</noscript></div>"
            f"{payload_script(payload, compress=compress)}"
            # async: an inline module runs as soon as it is read, not once the whole page (every rank, the pictures) is
            f'<script type="module"{" async" if others.scripts or pictures else ""}>{module_text()}{boot}</script>'
            f"{pictures}{others.html()}</body></html>\n")


PICTURES_APART = 256 * 1024  # drawn pictures past this many characters go in their own element


def pictures_script(payload: dict) -> str:
    """A big report's drawn pictures, taken out of ``payload`` into ``<script id="cx-pictures">`` (gzip + base64):
    the first paint reads and unpacks only the payload, a picture's SVG is unpacked when a picture is first shown.
    A folded 2,300-node graph draws 13 pictures of 8 MB of SVG: reading them delayed every page's first paint,
    whether a picture was looked at or not. "" when the pictures are small (they stay in the payload)."""
    pics = payload.get("pictures") or {}
    if sum(len(svg) for svg in pics.values()) <= PICTURES_APART:
        return ""
    payload["pictures"] = {}
    return packed_script("cx-pictures", to_json(pics))
