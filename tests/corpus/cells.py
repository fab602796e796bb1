"""Notebook cells as users write them: each must end under ``%%compile`` as a plain run ends.

``tests/test_cell_parity.py`` runs every cell once plainly and once under
``%%compile`` in real Jupyter kernels and compares the outcomes. ``setup`` runs
first (plainly, in both kernels); ``compiled`` says whether Dynamo must have
captured at least one graph for the cell (None: either is fine, e.g. a cell with
no tensor code), so a regression that silently runs every cell uncompiled is
caught too; ``findings`` are words the run's findings must contain.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    name: str
    source: str
    setup: str = ""
    compiled: bool | None = True
    findings: tuple[str, ...] = ()
    backend: str = "eager"  # "inductor" only where Inductor itself is what differs
    same_stdout: bool = True  # False where the output holds timings (%time)


CELLS = (
    # ---- the cases: errors inside the cell ----
    Cell("index error keeps earlier names", "a = 1\nt = torch.ones(3)\nb = t[5]", compiled=None,
         findings=("Dynamo could not compile the cell", "IndexError", "ran as plain Python")),
    Cell("try/except catches a tensor error", "try:\n    v = torch.ones(3)[5]\nexcept IndexError:\n    caught = True",
         compiled=None),
    Cell("tensor error inside no_grad", "z = torch.ones(3)\nwith torch.no_grad():\n    w = z * 2\n    bad = w[7]",
         compiled=None),
    Cell("shape mismatch is a RuntimeError", "a = torch.ones(2)\nc = a @ torch.ones(3)", compiled=None,
         findings=("TorchRuntimeError",)),
    Cell("tensor plus str is a TypeError", 'a = torch.ones(2)\nc = a + "x"', compiled=None),
    Cell("except TypeError catches tensor plus str",
         't = torch.ones(2)\ntry:\n    t + "x"\nexcept TypeError as e:\n    msg = str(e)\nfinally:\n    done = True',
         compiled=None),
    Cell("failed assert on tensor data", 'x = torch.ones(3)\nassert (x < 0).all(), "all negative"',
         findings=("assert",)),
    Cell("passing assert", "x = torch.ones(3)\nassert (x > 0).all()\ny = x * 2"),
    Cell("deep recursion runs as plainly",
         "def r(n):\n    return torch.ones(1) if n == 0 else r(n - 1) + 1\na = 1\nv = r(300)", compiled=None,
         findings=("RecursionError",)),
    Cell("raise after a graph break", 'a = torch.ones(2)\nprint(a)\nb = a + 1\nraise ValueError("boom")\nc = 3'),
    Cell("error in a called function after its graph break",
         'def g(x):\n    y = x * 2\n    print("in g")\n    return y[10]\nout = g(torch.ones(2))'),
    Cell("exception chained by the cell",
         "t = torch.ones(2)\ntry:\n    t[9]\nexcept IndexError as e:\n    raise KeyError('wrapped') from e",
         compiled=None),
    # ---- undefined names: never a placeholder ----
    Cell("print of an undefined name", "print(w)", compiled=None),
    Cell("del of an undefined name", "del nope", compiled=None),
    Cell("del of a name bound before", "a = torch.ones(2)\nb = a * 2\ndel a\nc = b + 1"),
    Cell("name read before it is bound", "z = q + 1\nq = 2", compiled=None),
    Cell("try NameError default", 'try:\n    q\nexcept NameError:\n    q = "default"\nq', compiled=None),
    Cell("if not in globals", 'if "x" not in globals():\n    x = {}\nx', compiled=None),
    Cell("function reads a global bound later", "def f():\n    return W * 2\nr = f()\nW = 1", compiled=None),
    Cell("function reads a global bound earlier", "def f():\n    return W\nW = torch.ones(2)\nr = f()\nr2 = r + 1"),
    Cell("a name shadowing a builtin", "n0 = len([1, 2])\nlist = [torch.ones(1)]\nlist.append(2)\nn1 = len(list)"),
    Cell("conditional builtin shadow", "c = torch.ones(1).sum().item() > 0\nif c:\n    max = torch.ones(2)\nm = max",
         compiled=None),
    Cell("loop-carried name", "for i in range(3):\n    if i > 0:\n        acc = acc + i\n    else:\n"
                              "        acc = torch.zeros(2)\nacc", compiled=None),
    Cell("del then rebind", "a = torch.ones(2)\ndel a\na = torch.zeros(2)\nb = a + 1"),
    # ---- plain notebook code ----
    Cell("assignments", "a = torch.ones(3)\nb = a.sin() + 1\nc = b * 2"),
    Cell("last line an expression", "a = torch.arange(4.)\n(a * 3).cos()"),
    Cell("trailing semicolon hides the value", "x = torch.ones(2);\nx + 1;"),
    Cell("value with a comment after it", "x = torch.ones(2)\nx * 3  # the value"),
    Cell("print and value", "x = 2\nprint('side effect', x)\nx * torch.ones(2)"),
    Cell("imports", "import math\nimport collections.abc\nfrom os import path as p\nr = math.sqrt(16)",
         compiled=None),
    Cell("star import", "from math import *\ns = sqrt(4.0)", compiled=None),
    Cell("display imported in the cell", "from IPython.display import display\nd = display", compiled=None),
    Cell("functions and classes", "def f(x):\n    return x * 2\n\nclass K:\n    scale = 3\n"
                                  "    def m(self, x):\n        return f(x) * self.scale\n\n"
                                  "y = K().m(torch.ones(2))\n"
                                  "names = (f.__qualname__, K.__qualname__, K.m.__qualname__)"),
    Cell("lambda and comprehension names",
         "f = lambda t: t + 1\ny = f(torch.ones(2))\nq = (f.__qualname__, [g.__qualname__ for g in [f]])"),
    Cell("nested function qualname", "def outer():\n    def inner():\n        return 1\n    return inner\n"
                                     "n = outer().__qualname__", compiled=None),
    Cell("augmented assignment", "n += 1\nt += 1\nlst += [2]\nt2 = t * n",
         setup="n = 1\nt = torch.zeros(2)\nlst = [1]"),
    Cell("comprehensions", "sq = [i * i for i in range(5)]\nd = {k: v for k, v in zip('ab', (1, 2))}\n"
                           "g = sum(x for x in range(4))\ns = {i % 2 for i in range(5)}\n"
                           "t = torch.stack([torch.ones(2) * i for i in range(3)])"),
    Cell("walrus", "w = [last := i for i in range(3)]\nif (y := torch.ones(2).sum()) > 1:\n    z = y * 2"),
    Cell("loops", "total = 0\nacc = torch.zeros(2)\nfor i in range(4):\n    total += i\n    acc = acc + i\n"
                  "while total > 3:\n    total -= 2\nelse:\n    done = True"),
    Cell("global statement",
         "global gg\ngg = 5\ndef setg():\n    global hh\n    hh = gg + 1\nsetg()\nk = hh * torch.ones(1)",
         compiled=None),
    Cell("a function rebinding a global", "counter = 0\ndef inc():\n    global counter\n    counter += 1\n"
                                         "inc(); inc()\nc2 = counter * torch.ones(1)"),
    Cell("with open", "import os\nwith open(os.devnull) as fh:\n    opened = not fh.closed\nclosed = fh.closed",
         compiled=None),
    Cell("try finally", "try:\n    a = torch.ones(2)\nfinally:\n    b = 3\nc = a * b"),
    # Dynamo cannot rebuild a generator it advanced: the cell runs as plain Python (its own finding)
    Cell("generator", compiled=None,
         source="def gen():\n    yield torch.ones(1)\n    yield torch.ones(1) * 2\nvals = list(gen())\n"
                      "total = sum(v.item() for v in vals)"),
    Cell("annotations", "x: int = 3\ny: float\nann = dict(__annotations__)", compiled=None),
    Cell("annotated tensor", "t: torch.Tensor = torch.ones(2)\nu = t + 1\nkeys = list(__annotations__)"),
    Cell("match statement", "p = (1, torch.ones(2))\nmatch p:\n    case (1, t):\n        r = t * 2\n    case _:\n"
                            "        r = None"),
    Cell("class with a tensor attribute", "class Box:\n    def __init__(self):\n        self.t = torch.ones(2)\n"
                                          "b = Box()\nb.t = b.t * 3\nv = b.t.sum()"),
    Cell("no tensors at all", "a = [1, 2, 3]\nb = {'k': sum(a)}\nmsg = f'{b}'\nmsg", compiled=None),
    Cell("empty-ish cell", "pass", compiled=None),
    Cell("in-place ops on a global", "t.add_(1)\nt.mul_(2)\ns = t.sum()", setup="t = torch.ones(3)"),
    Cell("in-place op on a slice", "t[0] = 5.0\nu = t * 1", setup="t = torch.zeros(3)"),
    Cell("seeded randomness (eager backend)",
         "torch.manual_seed(0)\nr = torch.randn(3)\nd = torch.nn.functional.dropout(torch.ones(4))"),
    Cell("nn module forward", "y = model(x)\nloss = y.pow(2).mean()\nloss",
         setup="torch.manual_seed(0)\nmodel = torch.nn.Linear(4, 2)\nx = torch.randn(3, 4)"),
    Cell("train step with backward", "opt.zero_grad()\nloss = model(x).sum()\nloss.backward()\nopt.step()\n"
                                     "w = model.weight.detach().clone()",
         setup="torch.manual_seed(0)\nmodel = torch.nn.Linear(4, 2)\nx = torch.randn(3, 4)\n"
               "opt = torch.optim.SGD(model.parameters(), lr=0.1)", compiled=None),
    Cell("data-dependent branch", "x = torch.ones(3)\nif x.sum() > 2:\n    y = x * 2\nelse:\n    y = x - 1\ny"),
    Cell("item and python math", "x = torch.arange(4.)\nm = x.mean().item()\nk = int(m * 10)"),
    Cell("line magic inside", "%time y = torch.ones(2) * 2\nz = y + 1", compiled=None, same_stdout=False),
    Cell("line magic value", "v = %time 1 + 1", compiled=None, same_stdout=False),
    Cell("locals at top level", "a = 1\nnames = sorted(k for k in locals() if k == 'a')", compiled=None),
    Cell("keyboard interrupt from the cell", "a = torch.ones(2)\nb = a + 1\nraise KeyboardInterrupt", compiled=None),
    Cell("system exit is an error", "a = 1\nraise SystemExit(3)", compiled=None),
    Cell("warnings from the cell", "import warnings\nwarnings.warn('careful')\nx = torch.ones(1) * 2", compiled=None),
    # ---- Inductor, where it differs ----
    # the values differ (that is the finding), so they are not kept
    Cell("seeded randomness under inductor", "torch.manual_seed(0)\npositive = (torch.rand(4) + 1).min() > 0",
         backend="inductor", findings=("fallback_random",)),
    Cell("a small inductor cell", "x = torch.arange(8.)\ny = (x.sin() * 2).relu()\ns = y.sum()", backend="inductor"),
)


def by_name(name: str) -> Cell:
    return next(c for c in CELLS if c.name == name)
