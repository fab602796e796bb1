"""torch's internals are reached through one door: ``explorer/capturing/torch_door/``.

An AST scan of ``explorer/`` (docstrings and comments may name ``torch._dynamo`` freely) fails on any use of a torch
internal outside the door, listing file:line:
- ``import torch._x`` / ``from torch._x import ...`` / ``from torch.utils._x import ...`` /
  ``from torch.fx.experimental... import ...`` / ``from torch import _x``;
- a name ``torch._x``, ``torch.<x>._y`` (``torch._C._dynamo``, ``torch.cuda._lazy_init``), ``torch.__file__``,
  ``torch.__version__`` (version checks live in the door too), ``torch.fx.experimental...``;
- a string that is a private torch module path (``"torch._inductor.config"``: ``importlib.import_module``, a
  logger's name, ``mock.patch``), except one compared with text torch wrote (``line.startswith("torch._C.")``:
  reading its output, not reaching into it).
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

EXPLORER = pathlib.Path(__file__).resolve().parent.parent / "explorer"
DOOR = EXPLORER / "capturing" / "torch_door"
_MODULE_PATH = re.compile(r"^torch(\.\w+)+$")
_TEXT_METHODS = {"startswith", "endswith", "find", "index", "count", "split", "partition", "replace"}


def _private(parts: list[str]) -> bool:
    """A dotted torch path (``["torch", "_dynamo", ...]``) that reaches past torch's public API."""
    return any(p.startswith("_") for p in parts[1:]) or parts[1:3] == ["fx", "experimental"]


def _chain(node: ast.AST) -> list[str] | None:
    """``torch.a.b`` as ["torch", "a", "b"]; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def torch_internals(source: str) -> list[tuple[int, str]]:
    """(line, what) for each use of a torch internal in ``source``."""
    tree = ast.parse(source)
    docstrings, text_args = set(), set()
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
            docstrings.add(body[0].value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS:
            for arg in node.args:  # a literal, or a tuple of literals, compared with text torch wrote
                text_args.update(n for n in ast.walk(arg) if isinstance(n, ast.Constant))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names
                      if a.name.split(".")[0] == "torch" and _private(a.name.split("."))]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] == "torch" and (_private(parts) or any(a.name.startswith("_") for a in node.names)):
                found.append((node.lineno, f"from {node.module} import {', '.join(a.name for a in node.names)}"))
        elif isinstance(node, ast.Attribute) and not isinstance(parents.get(node), ast.Attribute):
            chain = _chain(node)  # the whole chain once (torch._dynamo.config, not also torch._dynamo)
            if chain and chain[0] == "torch" and _private(chain):
                found.append((node.lineno, ".".join(chain)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in docstrings
              and node not in text_args and _MODULE_PATH.match(node.value) and _private(node.value.split("."))):
            found.append((node.lineno, repr(node.value)))
    return sorted(found)


def test_torch_internals_are_used_only_through_the_door():
    outside = []
    for path in sorted(EXPLORER.rglob("*.py")):
        if DOOR in path.parents:
            continue
        rel = path.relative_to(EXPLORER.parent).as_posix()
        outside += [f"{rel}:{line}: {what}" for line, what in torch_internals(path.read_text(encoding="utf-8"))]
    assert not outside, ("torch internals outside explorer/capturing/torch_door/ (add a function to the door "
                         "module of that subsystem and call it):\n" + "\n".join(outside))


def test_the_door_holds_torch_internals():
    """The scan sees what the door does: it is not blind to the door's own imports."""
    inside = [what for path in DOOR.glob("*.py") for _, what in torch_internals(path.read_text(encoding="utf-8"))]
    assert any(w.startswith("from torch._dynamo") for w in inside)
    assert any(w.startswith("'torch._inductor") for w in inside)  # logger names and config module paths


@pytest.mark.parametrize("planted, what", [
    ("import torch._dynamo\n", "import torch._dynamo"),
    ("import torch._inductor.config as config\n", "import torch._inductor.config"),
    ("from torch._guards import CompileContext\n", "from torch._guards import CompileContext"),
    ("from torch.utils._pytree import tree_map\n", "from torch.utils._pytree import tree_map"),
    ("from torch.fx.experimental.symbolic_shapes import ShapeEnv\n",
     "from torch.fx.experimental.symbolic_shapes import ShapeEnv"),
    ("from torch import _dynamo\n", "from torch import _dynamo"),
    ("import torch\ndef f():\n    torch._dynamo.config.suppress_errors = True\n",
     "torch._dynamo.config.suppress_errors"),
    ("import torch\nx = torch._C._dispatch_keys\n", "torch._C._dispatch_keys"),
    ("import torch\nx = torch.cuda._lazy_init\n", "torch.cuda._lazy_init"),
    ("import torch\nv = torch.__version__\n", "torch.__version__"),
    ("import logging\nlog = logging.getLogger('torch._dynamo.convert_frame')\n", "'torch._dynamo.convert_frame'"),
])
def test_a_planted_torch_internal_is_found(planted, what):
    src = '"""A docstring may say torch._dynamo.reset() freely."""\n' + planted
    assert [w for _, w in torch_internals(src)] == [what]


@pytest.mark.parametrize("allowed", [
    '"""Calls torch._dynamo.reset() (only words)."""\n',
    "# torch._inductor.config.fallback_random = True\n",
    "import torch\ny = torch.compile(lambda x: x)\nz = torch.compiler.reset\nw = torch.fx.GraphModule\n",
    "import torch.distributed as dist\nfrom torch.utils.hooks import RemovableHandle\n",
    "def f(line):\n    return line.startswith(('torch._C._dynamo', 'torch.ops.'))\n",
    "def f():\n    raise ValueError('set torch._dynamo.config.recompile_limit higher')\n",
])
def test_public_api_and_words_pass(allowed):
    assert torch_internals(allowed) == []


def test_a_planted_file_fails_the_scan(tmp_path, monkeypatch):
    """The scan over a package, not only over strings: a module with an internal outside the door fails it."""
    pkg = tmp_path / "explorer"
    (pkg / "capturing" / "torch_door").mkdir(parents=True)
    (pkg / "capturing" / "torch_door" / "dynamo.py").write_text("import torch._dynamo\n")
    (pkg / "cell").mkdir()
    (pkg / "cell" / "bad.py").write_text('"""torch._dynamo in words."""\n\nimport torch\n\n'
                                         "torch._dynamo.config.suppress_errors = True\n")
    monkeypatch.setitem(globals(), "EXPLORER", pkg)
    monkeypatch.setitem(globals(), "DOOR", pkg / "capturing" / "torch_door")
    with pytest.raises(AssertionError, match=r"explorer/cell/bad\.py:5: torch\._dynamo\.config\.suppress_errors"):
        test_torch_internals_are_used_only_through_the_door()


CHILD_ONLY = {"explorer/preview/child.py", "explorer/preview/training.py"}  # training: imported by the child alone


def test_the_cuda_stand_in_is_imported_only_in_the_preview_child():
    """The one module that patches torch (``torch_door.cuda_standin``) runs only in the preview's child process:
    only the child's modules import it, and only the child imports those."""
    importers: dict[str, set[str]] = {"cuda_standin": set(), "training": set()}
    for path in sorted(EXPLORER.rglob("*.py")):
        rel = path.relative_to(EXPLORER.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                for module in importers:
                    if any(n == module or n.endswith("." + module) for n in names):
                        importers[module].add(rel)
    assert importers["cuda_standin"] <= CHILD_ONLY, importers["cuda_standin"]
    assert importers["training"] <= {"explorer/preview/child.py"}, importers["training"]
    assert importers["cuda_standin"], "the scan finds the child's import (it can fail)"
