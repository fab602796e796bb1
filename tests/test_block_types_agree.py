"""The block kinds are typed twice, for two checkers: ``explorer/present/blocks.py`` (TypedDicts, mypy) and the front
end's JSDoc typedefs (``frontend/src/viewmodel.js``, tsc). Both must name the same kinds, and every key the front end
reads from a block must be a key the Python side types: a key the browser reads that the view model does not
declare is a key nothing checks that the view model writes."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from explorer.present import blocks

JS = Path(__file__).resolve().parents[1] / "explorer" / "present" / "frontend" / "src" / "viewmodel.js"
_COMMENT = re.compile(r"/\*\*(.*?)\*/", re.S)
_TYPEDEF = re.compile(r"@typedef \{(.*)\}\s*(Block[A-Z]\w*)\s*$", re.S)
PLAIN = {"text", "summary"}  # the JS `Plain & {...}`: what every block may carry


def _top_level_keys(obj: str) -> set[str]:
    """The keys of a JSDoc object type ``{a: T, b?: {c: U}}`` (its own, not its members' members)."""
    inner = obj.strip()[1:-1]
    keys, depth, start = set(), 0, 0
    for i, ch in enumerate(inner + ","):
        if ch in "{[(<":
            depth += 1
        elif ch in "}])>":
            depth -= 1
        elif ch == "," and depth == 0:
            part = inner[start:i].strip().lstrip("*").strip()
            if part:
                keys.add(part.split(":", 1)[0].rstrip("?").strip().strip('"'))
            start = i + 1
    return keys


def js_kinds() -> dict[str, set[str]]:
    """kind -> the keys its JS typedef declares (``BlockP`` -> ``p``)."""
    out = {}
    for comment in _COMMENT.findall(JS.read_text()):
        text = " ".join(line.strip().lstrip("*").strip() for line in comment.splitlines())
        m = _TYPEDEF.search(text)
        if m is None or "{" not in m.group(1):
            continue
        body = m.group(1)
        plain = body.strip().startswith("Plain &")
        keys = _top_level_keys(body.split("&", 1)[1] if plain else body)
        kind = re.search(r'\bt: "(\w+)"', body)
        if kind:
            out[kind.group(1)] = keys | (PLAIN if plain else set())
    return out


def py_kinds() -> dict[str, set[str]]:
    """kind -> the keys its TypedDict declares, its bases' included."""
    out = {}
    for member in typing.get_args(blocks.Block):
        keys = set(typing.get_type_hints(member))
        (kind,) = typing.get_args(typing.get_type_hints(member)["t"])
        out[kind] = keys
    return out


def test_both_sides_type_the_same_kinds():
    assert sorted(js_kinds()) == sorted(py_kinds())


def test_every_key_the_front_end_reads_is_typed_in_python():
    py = py_kinds()
    untyped = {kind: sorted(keys - py[kind]) for kind, keys in js_kinds().items() if keys - py.get(kind, set())}
    assert not untyped, f"keys the front end reads that explorer/present/blocks.py does not type: {untyped}"


def test_the_reader_reads_keys():
    assert _top_level_keys("{t: \"p\", r: Runs, go?: {stage: string, kernel?: string}, cls?: string}") == \
        {"t", "r", "go", "cls"}
    assert js_kinds()["p"] >= {"t", "r", "cls", "interactive", "text", "summary"}
