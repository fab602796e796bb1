"""The view model is the only writer of words: no renderer builds a sentence a user reads.

The renderers (``present/text.py``, ``present/html.py``, ``frontend/src/*.js``) lay the view model's blocks out;
every word they show comes from it (``present.viewmodel`` and friends, ``present.words`` for the renderers' own
controls). This scans the renderers' string literals (a Python f-string's and a JS template's text parts
too) and fails on any that reads as words: two words, or one capitalised word ("Code"), outside markup and
outside what is code (an object key, a CSS class, a selector, an event or tag name, an import). A single
lowercase word ("fit", "code") cannot be told from a key, so it is not caught. ``ALLOWED`` lists the front end's
few words of its own: what it says before it has a payload to read words from.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRESENT = ROOT / "explorer" / "present"
PY_RENDERERS = [PRESENT / "text.py", PRESENT / "html.py"]
JS_RENDERERS = sorted((PRESENT / "frontend" / "src").glob("*.js"))
HOLE = "\x00"  # where a template's or an f-string's value goes

# (file, the literal's start): the front end's own words, said before (or without) a view model to read
ALLOWED = {
    ("entry.js", "compile-explorer could not "),  # the payload could not be read or drawn: no words to read
    ("kernel.js", "the kernel could not do it"),  # a failed kernel action without its own text
    ("model.js", "no report arrived"),  # reading the payload
    ("model.js", "this browser cannot unpack it"),
    ("entry.js", "compile-explorer: drawing the report…"),  # the widget, while the payload is read
    ("highlight.js", "False None True and as assert"),  # the highlighter's keywords: code, not words
    ("highlight.js", "except finally for from global"),
    ("highlight.js", "auto bool break case char"),
    ("highlight.js", "extern false float for if"),
    ("highlight.js", "static_cast reinterpret_cast"),
    ("highlight.js", "while int64_t int32_t"),
}

_TAG = re.compile(r"<[^<>]*>")
_WORD = re.compile(r"[(\"'`«]*([A-Za-z][a-z]+|[a-z]{2,})[)\"'`»,.:;!?…]*")


def reads_as_words(text: str) -> bool:
    """Two words, or one capitalised word, outside markup; a single lowercase word reads as a key."""
    if _TAG.search(text):  # markup: what is between the tags is shown
        return any(re.search(r"[A-Za-z]{2,}", part) for part in _TAG.split(text))
    tokens = [t for t in re.split(rf"[\s{HOLE}]+", text) if t]
    found = [t for t in tokens if _WORD.fullmatch(t)]
    return len(found) >= 2 or any(re.match(r"[(\"']*[A-Z][a-z]", t) for t in found)


# ---- Python: every string constant, and each f-string's text joined around its values ----

def python_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)
            out.append((node.lineno, text))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and id(node) not in inside_fstring):
            out.append((node.lineno, node.value))
    return out


# ---- JavaScript: string and template literals, with what comes before them ----

_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
_CODE_BEFORE = re.compile(r"(?:\b(?:import|from|case|typeof)\s*|[=!]==?\s*|\bclass:\s*"
                          r"|\b(?:h|querySelector|querySelectorAll|closest|matches|addEventListener|removeEventListener"
                          r"|getAttribute|setAttribute|removeAttribute|hasAttribute|createElement|getElementById"
                          r"|contains|add|remove|toggle|call|get|set|on|off|has|startsWith|endsWith|includes"
                          r"|indexOf|split|join|w|fill)\(\s*)$")


def js_literals(path: Path) -> list[tuple[int, str, str]]:
    """(line, text, the code before it) of every string and template literal (templates' values as holes)."""
    src = path.read_text(encoding="utf-8")
    out: list[tuple[int, str, str]] = []
    i, n, last = 0, len(src), ""

    def line_of(at: int) -> int:
        return src.count("\n", 0, at) + 1

    def string(at: int) -> int:
        quote, j, text = src[at], at + 1, []
        while src[j] != quote:
            if src[j] == "\\":
                text.append(src[j:j + 2])
                j += 2
                continue
            if quote == "`" and src.startswith("${", j):
                depth, j = 1, j + 2
                while depth:
                    if src[j] in "\"'`":
                        j = string(j)
                        continue
                    depth += {"{": 1, "}": -1}.get(src[j], 0)
                    j += 1
                text.append(HOLE)
                continue
            text.append(src[j])
            j += 1
        after, before = src[j + 1:j + 40].lstrip(), src[max(0, at - 40):at].rstrip()
        if not (after.startswith(":") and before.endswith(("{", ","))) or quote == "`":  # an object's key is code
            out.append((line_of(at), "".join(text), src[max(0, at - 60):at]))
        return j + 1

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.index("\n", i)
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif c in "\"'`":
            i = string(i)
            last = "x"
        elif c == "/" and last in _REGEX_AFTER:  # a regex literal
            j, in_class = i + 1, False
            while src[j] != "/" or in_class:
                in_class = (in_class or src[j] == "[") and src[j] != "]"
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            last = "x"
        else:
            if not c.isspace():
                last = c if not (c.isalnum() or c in "_$") else "x"
                if c.isalpha():  # a keyword before a regex: return /x/
                    m = re.match(r"[A-Za-z_$][\w$]*", src[i:])
                    last = "" if m.group(0) in ("return", "typeof") else "x"
                    i += len(m.group(0))
                    continue
            i += 1
    return out


def js_sentences(path: Path) -> list[tuple[int, str]]:
    return [(line, text) for line, text, before in js_literals(path)
            if not _CODE_BEFORE.search(before) and reads_as_words(text)]


def allowed(path: Path, text: str) -> bool:
    return any(path.name == f and text.startswith(start) for f, start in ALLOWED)


# ---- the checks ----

@pytest.mark.parametrize("path", PY_RENDERERS, ids=lambda p: p.name)
def test_no_python_renderer_writes_a_sentence(path):
    found = [(line, text) for line, text in python_literals(path) if reads_as_words(text)]
    assert not found, f"{path.name} writes words the view model should: {found}"


@pytest.mark.parametrize("path", JS_RENDERERS, ids=lambda p: p.name)
def test_no_front_end_module_writes_a_sentence(path):
    found = [(line, text) for line, text in js_sentences(path) if not allowed(path, text)]
    assert not found, f"{path.name} writes words the view model should: {found}"


def test_the_allowed_words_are_still_there():
    """A stale entry would let a sentence through unseen."""
    texts = {(p.name, text) for p in JS_RENDERERS for _, text, _ in js_literals(p)}
    for name, start in ALLOWED:
        assert any(f == name and t.startswith(start) for f, t in texts), (name, start)


def test_the_scan_finds_a_sentence_built_in_a_renderer(tmp_path):
    """What makes the checks above able to fail: each kind of sentence a renderer could build is found, and the
    code around words (keys, classes, selectors, imports, comparisons) is not."""
    py = tmp_path / "r.py"
    py.write_text('"""A docstring is not shown."""\n'
                  'def f(b, n):\n'
                  '    """Nor is this."""\n'
                  '    x = b["text"] if b.get("summary") is not False else "code"\n'
                  '    y = f"<div class=\\"cx-missing\\">{n} more lines</div>"\n'
                  '    return ["Failed:", f"rank {n} failed", "cx-muted cx-nopic", "; ", x, y]\n')
    assert [t for _, t in python_literals(py) if reads_as_words(t)] == [
        f"<div class=\"cx-missing\">{HOLE} more lines</div>", "Failed:", f"rank {HOLE} failed"]
    js = tmp_path / "r.js"
    js.write_text('import { h } from "./dom.js";\n'
                  '// a comment with words in it\n'
                  'const re = /a "quoted" b/g;\n'
                  'el.closest("button, a, select, input");\n'
                  'if (t === "graph view") el.classList.add("cx-on cx-off");\n'
                  'h("div", { class: "cx-muted cx-keys", "aria-label": "step through the stages" }, "Code");\n'
                  'const s = `${n} unchanged lines`, k = { "some key": 1 }, w2 = m.w("diff_off");\n')
    assert [t for _, t in js_sentences(js)] == ["step through the stages", "Code", f"{HOLE} unchanged lines"]


def test_every_word_the_front_end_asks_for_is_the_view_models():
    """``Model.w(key)`` shows the key itself when the view model has no such word: none may be missing, and none
    of ``words.FRONT`` may be unused."""
    from explorer.present import words

    asked, literals = set(), set()
    for path in JS_RENDERERS:
        src = path.read_text(encoding="utf-8")
        for call in re.finditer(r"\bw\(([^()]*(?:\([^()]*\))?[^()]*)\)", src):
            asked.update(re.findall(r'"(\w+)"', call.group(1).split(",")[0] if "?" not in call.group(1)
                                    else call.group(1)))
        literals.update(text for _, text, _ in js_literals(path))
    assert asked and asked <= set(words.FRONT), asked - set(words.FRONT)
    assert set(words.FRONT) <= literals, set(words.FRONT) - literals


# ---- a failed step is said as a sentence: "The explorer could not <what it was doing>: " ----

PROBLEM_MAKERS = {"Problem", "of", "of_record", "record_failure", "with_problem"}  # their first argument: the step


def _steps_named_in_code() -> tuple[set[str], set[str]]:
    """(every step a Problem is made with, as a literal or a module constant; the f-strings' literal prefixes)."""
    literal, prefixes = set(), set()
    for path in (ROOT / "explorer").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name not in PROBLEM_MAKERS or (name == "of" and getattr(fn.value, "id", None) != "Problem"):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                literal.add(first.value)
            elif isinstance(first, ast.Name) and first.id in constants:
                literal.add(constants[first.id])
            elif isinstance(first, ast.JoinedStr):
                prefixes.add("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in first.values))
    return literal, prefixes


def test_every_step_a_problem_names_reads_as_a_sentence():
    """Each ``Problem.where`` the code makes (and each pipeline step, and each fold step) has words: none falls back
    to "could not finish its step"; "The explorer could not decoder" was the bug."""
    from explorer.capturing import fold
    from explorer.pipeline import STEPS
    from explorer.present.words import FOLD_STEPS, could_not

    literal, prefixes = _steps_named_in_code()
    assert {"decoder", "fold", "recorder", "assemble", "read the trace"} <= literal  # the scan finds them
    assert prefixes >= {"fold: {}", "subscriber {}", "{} output"}
    steps = literal | {s.name for s in STEPS} | {f"fold: {s}" for s in FOLD_STEPS} | {
        "subscriber CellWatch.on_event", "html output", "json output"}
    for where in sorted(steps):
        sentence = could_not(where)
        assert sentence.startswith("The explorer could not ") and sentence.endswith(": ")
        assert "finish its step" not in sentence, f"no words for the step {where!r} (present/words.py COULD_NOT)"
    assert could_not("decoder") == "The explorer could not read a record torch wrote: "
    assert could_not("fold: kernels") == "The explorer could not put together a compilation's kernel table: "
    assert could_not("html output") == "The explorer could not write the HTML output: "
    # fold's own steps (``_step``/``_problem`` names) all have their words
    source = Path(fold.__file__).read_text(encoding="utf-8")
    named = set(re.findall(r"self\._(?:step|problem)\(\"(\w+)\"", source))
    assert named and named <= set(FOLD_STEPS), named - set(FOLD_STEPS)
