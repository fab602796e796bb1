"""Code blocks: pygments tokens, our own small HTML formatter, a size budget.

Why not just ``pygments.highlight``: pygments' regex lexers run at about
300 KB/s here, so one 1,500-node FX graph (165 KB) takes half a second and a
big report several seconds. Each render therefore gets a ``Highlighter`` with a
budget of characters for pygments' own lexers (``PythonLexer``, ``CppLexer``);
text beyond the budget is tokenised by a single compiled regex per language
(10-20x faster) into the same pygments token types, so the colours are the
same CSS classes either way. The budget lives on the instance: nothing is
cached between renders.

The formatter is ours because it must split tokens at line ends (multi-line
strings) to number lines and mark whole lines (the graph-break line), and it
skips spans for plain names and whitespace to keep big pages small.
pygments escapes nothing here: every token value is escaped by ``escape.esc``.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Optional

from pygments.token import STANDARD_TYPES, Comment, Keyword, Name, Number, Operator, String, Text, _TokenType

from .escape import esc as _esc

PYGMENTS_BUDGET = 20_000  # characters per render handed to pygments' lexers

_LANGS = {"python": "python", "py": "python", "triton": "python", "halide": "python",
          "cpp": "cpp", "c++": "cpp", "c": "cpp", "cuda": "cpp"}


def lang_of(language: Optional[str]) -> Optional[str]:
    """Our lexer name for a kernel language or file kind; None means plain text."""
    return _LANGS.get((language or "").lower())


class Highlighter:
    """Turns text into ``<pre class="cx-code">`` blocks; one instance per render."""

    def __init__(self, budget: int = PYGMENTS_BUDGET) -> None:
        self.budget = budget
        self._classes: dict[_TokenType, str] = {}

    def block(self, text: str, lang: Optional[str], *, max_chars: int = 200_000,
              hl_lines: Iterable[int] = (), first_line: int = 1, linenos: bool = False,
              keep_rest: bool = True) -> str:
        """A code block; text past ``max_chars`` goes, unhighlighted, into a "show all" fold
        (``keep_rest=False``: it is left out and counted).

        ``hl_lines`` are line numbers counted from ``first_line`` (the file's numbers)."""
        head, rest = cut(text, max_chars)
        body = self.lines_html(head, lang_of(lang) if lang else None, set(hl_lines), first_line, linenos)
        out = f'<pre class="cx-code">{body}</pre>'
        if rest and not keep_rest:
            n = rest.count("\n") + 1
            out += (f'<p class="cx-muted cx-cut">… {n:,} more lines ({len(rest):,} characters) are in the interactive '
                    f'view and the standalone page, left out of this static copy.</p>')
        elif rest:
            n = rest.count("\n") + 1
            out += (f'<details class="cx-more"><summary>show all ({n:,} more lines, {len(rest):,} characters)</summary>'
                    f'<pre class="cx-code">{_esc(rest)}</pre></details>')
        return out

    def lines_html(self, text: str, lang: Optional[str], hl: set[int], first_line: int, linenos: bool) -> str:
        if text.endswith("\n"):
            text = text[:-1]
        if lang is None and not hl and not linenos:
            return _esc(text)
        if not hl and not linenos:  # no per-line work: spans may cross line ends inside <pre>
            if len(text) > self.budget:
                return fast_html(text, lang)
            return self._format_flat(self._tokens(text, lang))
        lines = self._format_lines(self._tokens(text, lang))
        width = len(str(first_line + len(lines)))
        out = []
        for i, line in enumerate(lines):
            no = first_line + i
            prefix = f'<span class="cx-lno">{no:>{width}}</span>' if linenos else ""
            if no in hl:
                line = f'<span class="cx-hl" data-line="{no}">{prefix}{line or " "}</span>'
            else:
                line = prefix + line
            out.append(line)
        return "\n".join(out)

    # ---- tokens ----
    def _tokens(self, text: str, lang: Optional[str]) -> Iterator[tuple[_TokenType, str]]:
        if lang is None:
            return iter([(Text, text)])
        if len(text) <= self.budget:
            self.budget -= len(text)
            return _pygments_tokens(text, lang)
        return fast_tokens(text, lang)

    def _css(self, ttype: _TokenType) -> str:
        cls = self._classes.get(ttype)
        if cls is None:
            t = ttype
            while t not in STANDARD_TYPES:
                t = t.parent
            cls = STANDARD_TYPES[t]
            if cls in ("n", "w", "p"):  # plain names, spaces, brackets: no colour, no span
                cls = ""
            self._classes[ttype] = cls
        return cls

    def _format_flat(self, tokens: Iterable[tuple[_TokenType, str]]) -> str:
        css, out = self._css, []
        for ttype, value in tokens:
            cls = css(ttype)
            out.append(f'<span class="{cls}">{_esc(value)}</span>' if cls else _esc(value))
        return "".join(out)

    def _format_lines(self, tokens: Iterable[tuple[_TokenType, str]]) -> list[str]:
        lines: list[str] = []
        cur: list[str] = []
        for ttype, value in tokens:
            cls = self._css(ttype)
            parts = value.split("\n")
            for j, part in enumerate(parts):
                if j:
                    lines.append("".join(cur))
                    cur = []
                if part:
                    cur.append(f'<span class="{cls}">{_esc(part)}</span>' if cls else _esc(part))
        lines.append("".join(cur))
        return lines


def cut(text: str, max_chars: int) -> tuple[str, str]:
    """Split at the last line end before ``max_chars``: (shown, folded away)."""
    if len(text) <= max_chars:
        return text, ""
    at = text.rfind("\n", 0, max_chars)
    if at <= 0:
        at = max_chars
    return text[:at], text[at:].lstrip("\n")


def _pygments_tokens(text: str, lang: str) -> Iterator[tuple[_TokenType, str]]:
    from pygments.lexers import CppLexer, PythonLexer

    lexer = PythonLexer(stripnl=False, ensurenl=False) if lang == "python" else CppLexer(stripnl=False, ensurenl=False)
    return lexer.get_tokens(text)


# ---- the fast path: one regex per language, only the tokens that get a colour ----
# Plain names, spaces, brackets and operators are left in the gaps between
# matches and escaped in bulk: per-token Python work is what costs time.

_PY_KW = ("and as assert async await break continue del elif else except finally for from global if import "
          "in is lambda nonlocal not or pass raise return try while with yield").split()
_PY_BUILTINS = ("abs all any bool bytes callable chr dict dir divmod enumerate filter float getattr hasattr hash "
                "id int isinstance issubclass iter len list map max min next object print range repr reversed "
                "round set setattr slice sorted str sum super tuple type zip self").split()
_PY_RE = re.compile(r"""(?=[\#'"rRbBuUfF@0-9a-zA-Z_])(?:
 (?P<c1>\#[^\n]*)
|(?P<s>(?<!\w)[rRbBuUfF]{0,2}(?:'''[\s\S]*?(?:'''|\Z)|\"\"\"[\s\S]*?(?:\"\"\"|\Z)|'(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?))
|(?P<m>\b(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?[jJ]?)\b)
|(?P<nd>@[A-Za-z_][\w.]*)
|\b(?P<defkw>def|class)\b(?P<sp>[ \t]+)(?P<defname>[A-Za-z_]\w*)
|\b(?P<ow>and|or|not|in|is)\b
|\b(?P<k>""" + "|".join(_PY_KW) + r""")\b
|\b(?P<kc>True|False|None)\b
|\b(?P<nb>""" + "|".join(_PY_BUILTINS) + r""")\b
|(?P<id>[A-Za-z_]\w*))""", re.VERBOSE)

_CPP_KW = ("alignas alignof asm auto break case catch class const constexpr const_cast continue decltype default "
           "delete do dynamic_cast else enum explicit export extern for friend goto if inline mutable namespace new "
           "noexcept operator private protected public register reinterpret_cast return sizeof static "
           "static_assert static_cast struct switch template this thread_local throw try typedef typeid typename "
           "union using virtual volatile while __restrict__ __global__ __device__ __shared__").split()
_CPP_TYPES = ("bool char double float int long short signed unsigned void int8_t int16_t int32_t int64_t "
              "uint8_t uint16_t uint32_t uint64_t size_t half bfloat16").split()
_CPP_RE = re.compile(r"""(?=[/\#'"R0-9a-zA-Z_])(?:
 (?P<c1>//[^\n]*|/\*[\s\S]*?(?:\*/|\Z))
|(?P<cp>\#[^\n]*)
|(?P<s>R"(?P<delim>[^(\s]{0,16})\([\s\S]*?\)(?P=delim)"|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)'?)
|(?P<m>\b(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)[uUlLfF]*\b)
|\b(?P<k>""" + "|".join(_CPP_KW) + r""")\b
|\b(?P<kt>""" + "|".join(_CPP_TYPES) + r""")\b
|\b(?P<kc>true|false|nullptr|NULL)\b
|(?P<id>[A-Za-z_]\w*))""", re.VERBOSE)

_GROUP_TYPES = {"c1": Comment.Single, "cp": Comment.Preproc, "s": String, "m": Number, "nd": Name.Decorator,
                "ow": Operator.Word, "k": Keyword, "kc": Keyword.Constant, "nb": Name.Builtin, "kt": Keyword.Type}


def _matches(text: str, lang: str) -> Iterator[tuple[int, int, str, re.Match]]:
    rx = _PY_RE if lang == "python" else _CPP_RE
    for m in rx.finditer(text):
        kind = m.lastgroup
        if kind == "id":  # a plain name, matched whole so the scan skips it fast: stays in the gap
            continue
        if kind == "delim":
            kind = "s"
        elif kind in ("defname", "sp", "defkw"):
            kind = "def"
        yield m.start(), m.end(), kind, m


def fast_tokens(text: str, lang: str) -> Iterator[tuple[_TokenType, str]]:
    """Tokens good enough for colour, at regex speed; text between matches is plain."""
    pos = 0
    for start, end, kind, m in _matches(text, lang):
        if start > pos:
            yield Text, text[pos:start]
        pos = end
        if kind == "def":
            yield Keyword, m.group("defkw")
            yield Text, m.group("sp")
            yield (Name.Function if m.group("defkw") == "def" else Name.Class), m.group("defname")
        else:
            yield _GROUP_TYPES[kind], m.group()
    if pos < len(text):
        yield Text, text[pos:]


def fast_html(text: str, lang: str) -> str:
    """``fast_tokens`` straight to HTML spans (no line handling): the hot path for big texts."""
    out, pos = [], 0
    for start, end, kind, m in _matches(text, lang):
        if start > pos:
            out.append(_esc(text[pos:start]))
        pos = end
        if kind == "def":
            name_cls = "nf" if m.group("defkw") == "def" else "nc"
            out.append(f'<span class="k">{m.group("defkw")}</span>{m.group("sp")}'
                       f'<span class="{name_cls}">{m.group("defname")}</span>')
        else:
            out.append(f'<span class="{kind}">{_esc(m.group())}</span>')
    out.append(_esc(text[pos:]))
    return "".join(out)
