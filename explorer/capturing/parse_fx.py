"""FX graph text (``GraphModule.print_readable``) -> node table (its picture is drawn by ``present.graph_dot``).

torch prints every graph it makes (Dynamo's, AOT forward/backward, post-grad)
in this one format, with ``# File: path:line in fn, code: ...`` comments that
carry each node's user source line. Parsing the text, rather than holding the
GraphModule, keeps the report plain data and works for every graph kind.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from .model import FxGraph, FxNode, SourceLoc

# `# File: ...`; torch 2.14 writes `# Backward of forward node: File: ...` above backward nodes, and any version may put
# tags first (`# recompute: MUST_SAVE File: ...`)
_FILE_RE = re.compile(r"^\s*#.*?\bFile: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)$")
_ASSIGN_RE = re.compile(r'^(?P<ind>\s+)(?P<name>[A-Za-z_]\w*)(?:\s*:\s*"(?P<type>[^"]*)")?\s*=\s*(?P<expr>.+)$')
_ANNOT_RE = re.compile(r'^\s+(?P<name>[A-Za-z_]\w*)\s*:\s*"(?P<type>[^"]*)"\s*(?:#.*)?$')
_PARAM_RE = re.compile(r'(?P<name>[A-Za-z_]\w*)\s*(?::\s*"(?P<type>[^"]*)")?\s*(?:,|\)|$|#)')
_DELETES_RE = re.compile(r";\s+[\w\s=]+= None\s*$")
_NAME_RE = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # not an attribute: `x.view(...)` reads x, not a node `view`
_PLAIN_CALL_RE = re.compile(r"(?P<callee>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\((?:[^()'\"]|\([^()'\"]*\))*\)")
_CALLEE_RE = re.compile(r"(?P<callee>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")
_BRACKET_RE = re.compile(r"[()\[\]{}]|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")  # brackets; strings skipped whole
_MODULE_ROOTS = frozenset({"torch", "operator", "math", "builtins", "self", "_operator", "inductor_ops"})
_BINOP_RE = re.compile(r"[\w.]+ (?P<op>\*\*|//|<<|>>|[-+*/%@&|^]) [\w.]+$")  # `l_x_ * 2.0`: no AST needed
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and_", ast.BitOr: "or_",
           ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift"}


_BINOP_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
                "@": "matmul", "&": "and_", "|": "or_", "^": "xor", "<<": "lshift", ">>": "rshift"}


def parse_graph(code: str) -> FxGraph:
    nodes = _parse_nodes(code)
    return FxGraph(code=code, num_nodes=len(nodes), nodes=tuple(nodes))


def _forward_lines(code: str) -> tuple[list[str], list[str]]:
    """Splits the first ``def forward`` into its signature lines and body lines."""
    lines = code.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("def forward(")), None)
    if start is None:
        return [], []
    indent = len(lines[start]) - len(lines[start].lstrip())
    sig, i = [], start
    while i < len(lines):
        sig.append(lines[i])
        if lines[i].rstrip().endswith(":") and not lines[i].lstrip().startswith("#"):
            break
        i += 1
    body = []
    for line in lines[i + 1:]:
        stripped = line.strip()
        if stripped and (len(line) - len(line.lstrip())) <= indent:
            break  # next method or a nested subgraph class
        body.append(line)
    return sig, body


def _parse_nodes(code: str) -> list[FxNode]:
    sig, body = _forward_lines(code)
    params = _params(sig)
    nodes: list[FxNode] = []
    known: set[str] = set()
    placeholders = set(params)
    loc: Optional[SourceLoc] = None
    for name, typ in params.items():
        nodes.append(FxNode(name=name, op="placeholder", target=name, type=typ))
        known.add(name)
    for line in _join_returns(body):
        stripped = line.strip()
        if not stripped:
            loc = None
            continue
        m = _FILE_RE.match(line)
        if m:
            loc = SourceLoc(m["file"], int(m["line"]), m["fn"].strip(), m["code"].strip())
            continue
        if stripped.startswith("#"):
            continue
        if stripped.startswith("return"):
            nodes.append(FxNode("output", "output", "output", tuple(_names(stripped[6:], known))))
            continue
        m = _ANNOT_RE.match(line)
        if m and m["name"] not in known:  # joint graph: `primals_1: "f32[8]"  # desc`
            nodes.append(FxNode(m["name"], "placeholder", m["name"], type=m["type"]))
            known.add(m["name"])
            continue
        m = _ASSIGN_RE.match(line)
        if not m:
            continue
        expr = _strip_trailing_deletes(m["expr"])
        if expr in placeholders and m["name"] not in known:  # `l_x_ = L_x_`
            nodes = [n for n in nodes if n.name != expr]
            known.discard(expr)
            nodes.insert(sum(1 for n in nodes if n.op == "placeholder"),
                         FxNode(m["name"], "placeholder", expr, type=params.get(expr)))
            known.add(m["name"])
            continue
        if m["name"] in known and "tree_flatten_spec" in expr:
            continue
        op, target = _classify(expr)
        nodes.append(FxNode(m["name"], op, target, tuple(_names(expr, known)), m["type"], loc))
        known.add(m["name"])
    return nodes


def _join_returns(body: list[str]) -> list[str]:
    """A multi-line ``return (\n a,  # desc\n )`` becomes one line (brackets counted per line: linear)."""
    out: list[str] = []
    pending: Optional[list[str]] = None
    depth = 0
    for line in body:
        if pending is not None:
            part = _strip_comment(line).strip()
            pending.append(part)
        elif line.strip().startswith("return"):
            part = _strip_comment(line).rstrip()
            pending = [part]
        else:
            out.append(line)
            continue
        depth += part.count("(") + part.count("[") - part.count(")") - part.count("]")
        if depth <= 0:
            out.append(" ".join(pending))
            pending, depth = None, 0
    if pending is not None:
        out.append(" ".join(pending))
    return out


def _params(sig: list[str]) -> dict[str, Optional[str]]:
    text = " ".join(s.split("#", 1)[0] if '"' not in s.split("#", 1)[0] else _strip_comment(s) for s in sig)
    text = text[text.find("(") + 1:]
    out: dict[str, Optional[str]] = {}
    for m in _PARAM_RE.finditer(text):
        name = m["name"]
        if name in ("self", "def", "forward") or name in out:
            continue
        out[name] = m["type"]
    return out


def _strip_comment(line: str) -> str:
    """Drops a trailing ``# ...`` that is outside double quotes."""
    if "#" not in line:
        return line
    in_q = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_q = not in_q
        elif ch == "#" and not in_q:
            return line[:i]
    return line


def _strip_trailing_deletes(expr: str) -> str:
    # `torch.add(a, b);  a = b = None` -> `torch.add(a, b)`
    expr = _strip_comment(expr)
    return (_DELETES_RE.sub("", expr) if "= None" in expr else expr).strip()


def _names(expr: str, known: set[str]) -> list[str]:
    """The known names ``expr`` mentions, in first-seen order (``torch.ops.aten.view.default(mm)`` reads ``mm``,
    not a node named ``view``)."""
    return list(dict.fromkeys(tok for tok in _NAME_RE.findall(expr) if tok in known))


def _classify(expr: str) -> tuple[str, str]:
    """(op, target) as FX names them; a plain ``a.b.c(...)`` call is read without building an AST."""
    call = _single_call(expr)
    if call is not None:
        return _classify_call(call)
    binop = _BINOP_RE.match(expr)
    if binop is not None:
        return "call_function", "operator." + _BINOP_NAMES[binop["op"]]
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return "call_function", expr[:60]
    if isinstance(tree, ast.Call):
        func = tree.func
        if isinstance(func, ast.Attribute) and not _is_module_path(func.value):
            return "call_method", func.attr
        return _module_or_function(_dotted(func))
    if isinstance(tree, ast.BinOp):
        return "call_function", "operator." + _BINOPS.get(type(tree.op), type(tree.op).__name__.lower())
    if isinstance(tree, ast.Subscript):
        return "call_function", "operator.getitem"
    if isinstance(tree, ast.UnaryOp):
        return "call_function", "operator." + type(tree.op).__name__.lower()
    if isinstance(tree, ast.Compare):
        return "call_function", "operator." + type(tree.ops[0]).__name__.lower()
    if isinstance(tree, ast.Attribute):
        dotted = _dotted(tree)
        return ("get_attr", dotted[5:]) if dotted.startswith("self.") else ("call_function", "getattr")
    return "call_function", type(tree).__name__


def _single_call(expr: str) -> Optional[str]:
    """The dotted callee when ``expr`` is exactly one call ``a.b.c(...)`` (what most graph lines are), else None."""
    m = _PLAIN_CALL_RE.fullmatch(expr)  # no strings, brackets nested at most once: no scan needed
    if m is not None:
        return m["callee"]
    m = _CALLEE_RE.match(expr)
    if m is None or _closing_paren(expr, m.end() - 1) != len(expr) - 1:
        return None
    return m["callee"]


def _closing_paren(text: str, start: int) -> int:
    """Index of the bracket closing ``text[start]``, quoted strings skipped whole; -1 if there is none."""
    depth = 0
    for m in _BRACKET_RE.finditer(text, start):
        ch = m.group()
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def _classify_call(dotted: str) -> tuple[str, str]:
    """What ``_classify`` answers for an ``ast.Call`` whose callee is the name chain ``dotted``."""
    owner, _, attr = dotted.rpartition(".")
    if owner and owner.split(".")[0] not in _MODULE_ROOTS:
        return "call_method", attr
    return _module_or_function(dotted)


def _module_or_function(dotted: str) -> tuple[str, str]:
    """``self.x`` is a submodule call; anything else a function, named without ``torch.ops.``."""
    if dotted.startswith("self."):
        return "call_module", dotted[5:]
    for prefix in ("torch.ops.", "torch._ops.ops."):
        if dotted.startswith(prefix):
            dotted = dotted[len(prefix):]
    return "call_function", dotted


def _is_module_path(node: ast.AST) -> bool:
    return _dotted(node).split(".")[0] in _MODULE_ROOTS


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))

