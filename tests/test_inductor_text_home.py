"""Inductor's text is read in one place: ``explorer/capturing/inductor_code/``.

Its wrapper module, its Triton and C++ kernels, its loop-level IR dumps and the names in them are Inductor's to
change between releases; a reading of them outside that package is a second reading to fix when they change.
An AST walk of every other module of ``explorer/`` finds

* each regular expression (a pattern passed to ``re.compile``, ``re.search``, ...; f-strings, concatenations and
  module constants read through) whose pattern spells something only Inductor's text holds (``MARKERS``:
  ``extern_kernels``, ``tl.``, ``triton_``, ``buf\\d``, ``Source Nodes``, ``def call``, ``ops.load``, ...);
* each plain string parse of the same: ``"...".startswith / endswith / find / split / partition / replace``,
  ``"..." in text``, with a string literal holding such a marker (``STRONG``, the unambiguous ones).

Either fails the test with the module and line; move the reading into the package and return a typed result.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "explorer"
HOME = ROOT / "capturing" / "inductor_code"

# what a pattern over Inductor's text spells (checked against the pattern as written, escapes included)
_START = r"(?:(?<![A-Za-z.])|(?<=\\b))"  # a word's start in a pattern: not inside a word, or after ``\b``
MARKERS = re.compile("|".join((
    r"extern_kernels", r"async_compile", r"Provenance", r"Source Nodes", r"Original ATen", r"Graph fragment",
    r"AOT ID", r"def call", r"def body", r"SchedulerNode", r"get_index", r"kernel_num_gb", r"size_hints",
    r"mutated_arg_names", r"triton_", r"@triton", r"libdevice", r"kernel_cpp", r"cpp_fused", r"aoti_",
    r"reinterpret_tensor", r"empty_strided", r"assert_size_stride", r"static_cast", r"numel", r"_ptr",
    r"[xyz]index", r"\)index", r"\\?\.run\\?\(",
    *(_START + m for m in (r"tl\\?\.", r"ops\\?\.", r"kernel\\?\(", r"buf(?:\\[dw]|\d)", r"_?tmp(?![A-Za-z/])",
                           r"op\\[dw]")),
)))
# the markers unambiguous enough for a plain string parse (a user-facing sentence may say "buffer" or "tmp")
STRONG = re.compile("|".join((
    r"extern_kernels", r"async_compile", r"\[Provenance", r"Topologically Sorted", r"Source Nodes", r"Original ATen",
    r"Graph fragment", r"AOT ID", r"def call\(", r"def body\(", r"SchedulerNode", r"get_index", r"kernel_num_gb",
    r"size_hints", r"mutated_arg_names", r"triton_", r"triton\.jit", r"libdevice", r"kernel_cpp", r"cpp_fused",
    r"aoti_torch", r"reinterpret_tensor", r"empty_strided", r"assert_size_stride", r"static_cast", r"tl\.",
    r"ops\.(?:load|store|index_expr|reduction)", r"= ops\.", r"\.node\.kernel", r"# kernel path", r"\.run\(",
    r"in_ptr", r"out_ptr", r"xindex", r"tmp_acc",
)))
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"}
STR_PARSES = {"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "split", "rsplit",
              "partition", "rpartition", "replace", "removeprefix", "removesuffix"}


def _texts(node: ast.AST, constants: dict[str, str]) -> list[str]:
    """The string literals a pattern argument is made of (an f-string's literal parts, a concatenation's, a
    ``"|".join(...)``'s, a module constant's)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    out = []
    for child in ast.iter_child_nodes(node):
        out += _texts(child, constants)
    return out


def readings(source: str) -> list[tuple[int, str, str]]:
    """(line, what, the literal) of every regular expression or string parse over Inductor's text in a module."""
    tree = ast.parse(source)
    re_names = {"re"} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.Import)
                         for a in n.names if a.name == "re" and a.asname}
    re_functions = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "re"
                    for a in n.names if a.name in RE_FUNCTIONS}
    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            is_re = (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in re_names
                     and f.attr in RE_FUNCTIONS) or (isinstance(f, ast.Name) and f.id in re_functions)
            if is_re:
                pattern = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "pattern"),
                                                              None)
                for text in _texts(pattern, constants) if pattern is not None else ():
                    if MARKERS.search(text):
                        out.append((node.lineno, "regular expression", text))
            elif isinstance(f, ast.Attribute) and f.attr in STR_PARSES:
                for arg in node.args[:1]:
                    for text in _texts(arg, {}):
                        if STRONG.search(text):
                            out.append((node.lineno, f"str.{f.attr}", text))
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            for text in _texts(node.left, constants):
                if STRONG.search(text):
                    out.append((node.lineno, "'...' in", text))
    return out


def test_only_the_package_reads_inductor_text() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if HOME in path.parents:
            continue
        for line, what, text in readings(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT.parent)}:{line}: {what} {text!r}")
    assert not found, ("Inductor's text read outside explorer/capturing/inductor_code/ (move the reading there "
                       "and return a typed result):\n" + "\n".join(found))


def test_the_markers_know_the_package_s_own_readings() -> None:
    """The markers recognise the real readings (they are not dead): every module of the package that reads a
    kind of Inductor's text is found to."""
    reading = {path.stem for path in HOME.rglob("*.py") if readings(path.read_text(encoding="utf-8"))}
    assert {"wrapper", "kernels", "triton", "cpp", "loop_ir"} <= reading, reading


def test_a_planted_reading_is_found() -> None:
    planted = '''
import re
import re as _re
from re import finditer as each
_BUF = r"\\bbuf\\d+\\b"
_NOP = ": NopKernelSchedulerNode("
_HANDLE = re.compile(r"#\\s*\\[Provenance debug handles\\] (\\S+)")
def f(code, name, line):
    a = _re.search(rf"^\\s*{re.escape(name)}\\.run\\((.*)\\)", code)
    b = re.findall(_BUF, code)
    c = each(r"\\btl\\.load\\(", code)
    d = re.match(r"\\s*def call\\(", line)
    e = line.startswith(("#   %", "# Topologically Sorted Source Nodes"))
    g = "extern_kernels." in line
    h = _NOP in line
    return a, b, c, d, e, g, h
'''
    found = readings(planted)
    assert [line for line, _, _ in found] == [7, 9, 10, 11, 12, 13, 14, 15], found
    innocent = '''
import re
_NUMBER = re.compile(r"^\\d+$")
_FILE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\\d+)')
def f(text):
    return re.sub(r"\\s+", " ", text).startswith("buffer"), "tmp" in text, re.split(r"\\s+# ", text)
'''
    assert readings(innocent) == []
