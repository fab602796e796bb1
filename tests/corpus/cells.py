"""Notebook cells as users write them: each must end under ``%%compile`` as a plain run ends.

``tests/test_cell_parity.py`` runs every cell once plainly and once under
``%%compile`` in real Jupyter kernels and compares the outcomes. ``setup`` runs
first (plainly, in both kernels); ``compiled`` says whether Dynamo must have
captured at least one graph for the cell (None: either is fine, e.g. a cell with
no tensor code), so a regression that silently runs every cell uncompiled is
caught too; ``findings`` are words the run's findings must contain.
``teardown`` runs after the cell in both kernels (a config the setup changed);
``timed`` runs the cell with the magic's default timing (``--no-time`` left out);
``capture_only`` runs it under ``%%compile --capture-only`` (the cell compiles
things itself, and that is what is explored).

The second part, ``TUTORIAL``, is cells from PyTorch's own torch.compile
tutorials and recipes, adapted to a CPU and to tiny sizes.
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
    same_stdout: bool = True  # False where the output holds timings (%time), file paths, or values that differ
    teardown: str = ""
    timed: bool = False
    capture_only: bool = False


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


_STANCE_FOO = ("@torch.compile(backend='eager')\ndef foo(x):\n    if torch.compiler.is_compiling():\n"
               "        return x + 1\n    else:\n        return x - 1\ninp = torch.zeros(3)")
_REGIONAL = ("from time import perf_counter\nclass Layer(torch.nn.Module):\n    def __init__(self):\n"
             "        super().__init__()\n        self.linear1 = torch.nn.Linear(10, 10)\n"
             "        self.relu1 = torch.nn.ReLU()\n        self.linear2 = torch.nn.Linear(10, 10)\n"
             "        self.relu2 = torch.nn.ReLU()\n    def forward(self, x):\n        a = self.linear1(x)\n"
             "        a = self.relu1(a)\n        a = torch.sigmoid(a)\n        b = self.linear2(a)\n"
             "        b = self.relu2(b)\n        return b\n"
             "class Model(torch.nn.Module):\n    def __init__(self, apply_regional_compilation):\n"
             "        super().__init__()\n        self.linear = torch.nn.Linear(10, 10)\n"
             "        if apply_regional_compilation:\n            self.layers = torch.nn.ModuleList("
             "[torch.compile(Layer(), backend='eager') for _ in range(3)])\n        else:\n"
             "            self.layers = torch.nn.ModuleList([Layer() for _ in range(3)])\n"
             "    def forward(self, x):\n        x = self.linear(x)\n        for layer in self.layers:\n"
             "            x = layer(x)\n        return x\n"
             "def measure_latency(fn, input):\n    torch.compiler.reset()\n"
             "    with torch._inductor.utils.fresh_inductor_cache():\n        start = perf_counter()\n"
             "        fn(input)\n        end = perf_counter()\n        return end - start\n"
             "torch.manual_seed(0)\ninput = torch.randn(10, 10)")
_OPTIMIZER = ("torch.manual_seed(0)\nmodel = torch.nn.Sequential(*[torch.nn.Linear(16, 16, False) for _ in range(2)])\n"
              "input = torch.rand(16)\noutput = model(input)\noutput.sum().backward()\n"
              "opt = torch.optim.Adam(model.parameters(), lr=0.01)")
_LOOP_H = "def h(x):\n    print('in h')\n    return x.sin().sum()"
_FAILING = ("def failing(gm, example_inputs):\n    raise RuntimeError('boom')\n"
            "torch._dynamo.config.suppress_errors = True")

# ---- PyTorch's tutorials, recipes and programming-model docs, as a new user pastes them ----
TUTORIAL = (
    # "Introduction to torch.compile"
    Cell("tutorial: compile a function", "def foo(x, y):\n    a = torch.sin(x)\n    b = torch.cos(x)\n"
         "    return a + b\nopt_foo1 = torch.compile(foo, backend='eager')\n"
         "print(opt_foo1(torch.ones(3, 3), torch.ones(3, 3)))", findings=("calls torch.compile itself",)),
    Cell("tutorial: compile as a decorator", "@torch.compile(backend='eager')\ndef opt_foo2(x, y):\n"
         "    a = torch.sin(x)\n    b = torch.cos(x)\n    return a + b\nprint(opt_foo2(torch.ones(3, 3), torch.ones(3, 3)))"),
    Cell("tutorial: compile a module", "class MyModule(torch.nn.Module):\n    def __init__(self):\n"
         "        super().__init__()\n        self.lin = torch.nn.Linear(4, 2)\n    def forward(self, x):\n"
         "        return torch.nn.functional.relu(self.lin(x))\ntorch.manual_seed(0)\nmod = MyModule()\n"
         "opt_mod = torch.compile(mod, backend='eager')\nprint(opt_mod(torch.ones(3, 4)))"),
    Cell("tutorial: reset before a new mode", "import torch._dynamo\ntorch._dynamo.reset()\n"
         "evaluate_opt = torch.compile(evaluate, mode='reduce-overhead', backend='eager')\nout = evaluate_opt(model, inp)",
         setup="def evaluate(mod, inp):\n    return mod(inp)\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(4, 2)\n"
               "inp = torch.ones(2, 4)", findings=("reset",)),
    Cell("tutorial: data-dependent control flow", "torch._dynamo.reset()\ncompile_f1 = torch.compile(f1, backend='eager')\n"
         "print('compile 1, 1:', test_fns(f1, compile_f1, (inp1, inp2)))\n"
         "print('compile 1, 2:', test_fns(f1, compile_f1, (-inp1, inp2)))\nprint('~' * 10)",
         setup="def f1(x, y):\n    if x.sum() < 0:\n        return -y\n    return y\n"
               "def test_fns(fn1, fn2, args):\n    out1 = fn1(*args)\n    out2 = fn2(*args)\n"
               "    return torch.allclose(out1, out2)\ntorch.manual_seed(0)\ninp1 = torch.randn(5, 5)\n"
               "inp2 = torch.randn(5, 5)"),
    Cell("tutorial: custom backend, captured as it is", "torch._dynamo.reset()\n"
         "opt_bar = torch.compile(bar, backend=custom_backend)\ninp1 = torch.ones(10)\ninp2 = torch.ones(10)\n"
         "r1 = opt_bar(inp1, inp2)\nr2 = opt_bar(inp1, -inp2)", capture_only=True, compiled=None,
         setup="def custom_backend(gm, example_inputs):\n    print('custom backend called with FX graph:', "
               "len(gm.graph.nodes), 'nodes')\n    return gm.forward\n"
               "def bar(a, b):\n    x = a / (torch.abs(a) + 1)\n    if b.sum() < 0:\n        b = b * -1\n"
               "    return x * b"),
    # "Compiling the optimizer": the weights and Adam's state end exactly as in a plain run
    Cell("recipe: compiling the optimizer", "@torch.compile(backend='eager')\ndef fn():\n    opt.step()\n"
         "for _ in range(3):\n    fn()\nw = model[0].weight.detach().clone()\n"
         "exp_avg = opt.state_dict()['state'][0]['exp_avg'].clone()\nsteps = opt.state_dict()['state'][0]['step']",
         setup=_OPTIMIZER, compiled=None),
    # "Reducing torch.compile cold start compilation time with regional compilation"
    Cell("recipe: regional compilation measured", "model = Model(apply_regional_compilation=False)\n"
         "full_compiled_model = torch.compile(model, backend='eager')\n"
         "regional_compiled_model = Model(apply_regional_compilation=True)\n"
         "full_model_compilation_latency = measure_latency(full_compiled_model, input)\n"
         "regional_compilation_latency = measure_latency(regional_compiled_model, input)\n"
         "both = full_model_compilation_latency > 0 and regional_compilation_latency > 0\n"
         "del full_model_compilation_latency, regional_compilation_latency",
         setup=_REGIONAL, compiled=None, findings=("reset",)),
    Cell("recipe: regional compilation, captured as it is", "model = Model(apply_regional_compilation=False)\n"
         "full_compiled_model = torch.compile(model, backend='eager')\n"
         "regional_compiled_model = Model(apply_regional_compilation=True)\n"
         "both = measure_latency(full_compiled_model, input) > 0 and measure_latency(regional_compiled_model, input) > 0",
         setup=_REGIONAL, compiled=None, capture_only=True, findings=("reset",)),
    # "torch.compiler.set_stance": a decorator, a context manager, a raw call; the stance error caught
    Cell("recipe: set_stance as a decorator", "@torch.compiler.set_stance('force_eager')\ndef bar(x):\n"
         "    return foo(x)\nprint(bar(inp))", setup=_STANCE_FOO, compiled=None, findings=("set_stance",)),
    Cell("recipe: set_stance as a context manager", "with torch.compiler.set_stance('force_eager'):\n"
         "    print(foo(inp))", setup=_STANCE_FOO, compiled=None, findings=("set_stance",)),
    Cell("recipe: set_stance as a raw call", "torch.compiler.set_stance('force_eager')\nprint(foo(inp))\n"
         "torch.compiler.set_stance('default')\nprint(foo(inp))", setup=_STANCE_FOO, compiled=None),
    Cell("recipe: set_stance after a graph break", "print(foo(inp))\ntorch.compiler.set_stance('force_eager')\n"
         "print(foo(inp))\ntorch.compiler.set_stance('default')\nprint(foo(inp))", setup=_STANCE_FOO, compiled=None),
    Cell("recipe: set_stance inside a compiled function", "@torch.compile(backend='eager')\ndef baz(x):\n"
         "    with torch.compiler.set_stance('force_eager'):\n        return x + 1\ntry:\n    baz(inp)\n"
         "except Exception as e:\n    print(type(e).__name__, str(e).split(' at 0x')[0])",
         setup=_STANCE_FOO, compiled=None),
    Cell("recipe: fail_on_recompile", "@torch.compile(backend='eager')\ndef my_big_model(x):\n    return torch.relu(x)\n"
         "my_big_model(torch.randn(3))\nwith torch.compiler.set_stance('fail_on_recompile'):\n"
         "    my_big_model(torch.randn(3))\n    try:\n        my_big_model(torch.randn(4))\n"
         "    except Exception as e:\n        print(type(e).__name__)", compiled=None),
    Cell("recipe: is_compiling in the cell", "r = 1 if torch.compiler.is_compiling() else -1\ny = torch.ones(2) * r",
         findings=("is_compiling",)),
    # the tutorial's foo without its own torch.compile (the magic compiles the cell): Dynamo traces foo into the
    # compiled cell and folds is_compiling() to True, so the printed values differ (that is the finding)
    Cell("recipe: a function of another cell asks is_compiling", "print(foo(inp))",
         setup=_STANCE_FOO.replace("@torch.compile(backend='eager')\n", ""), same_stdout=False,
         findings=("line 2 (in foo): `if torch.compiler.is_compiling():` asks torch.compiler.is_compiling()",)),
    # the programming model: a reset between two compiles keeps both compilations (see test_cell.py)
    Cell("reset between two compiles", "opt_f = torch.compile(f, backend='eager')\na = opt_f(torch.ones(3))\n"
         "torch._dynamo.reset()\nopt_g = torch.compile(g, backend='eager')\nb = opt_g(torch.ones(3))",
         setup="def f(x):\n    return x.sin() + 1\ndef g(x):\n    return x.cos() * 2", capture_only=True,
         compiled=None, findings=("reset",)),
    # a loop with a graph break inside: the loop variable ends as in a plain run (timed: the end-to-end
    # timing once re-ran the cell's loop)
    Cell("loop variable after a graph break", "for n in range(1, 8):\n    r = h(torch.ones(n))\n    print(n, end=' ')",
         setup=_LOOP_H, timed=True, compiled=None),
    Cell("loop over ints after a graph break", "total = 0\nfor i in [1, 2, 3]:\n    total += i\n"
         "    r = h(torch.ones(i))", setup=_LOOP_H, timed=True, compiled=None),
    Cell("loop with a user cache_size_limit", "for n in range(1, 6):\n    r = h2(torch.ones(n))",
         setup="__cx_limit = torch._dynamo.config.cache_size_limit\ntorch._dynamo.config.cache_size_limit = 2\n"
               "def h2(x):\n    return x.sin().sum()",
         teardown="torch._dynamo.config.cache_size_limit = __cx_limit", timed=True, compiled=None),
    # the user's own suppress_errors with a failing backend: torch.compile falls back to eager
    Cell("suppress_errors with a failing backend", "a = torch.ones(3)\nb = a.sin() + 1", setup=_FAILING,
         teardown="torch._dynamo.config.suppress_errors = False", backend="failing", compiled=None,
         findings=("suppress_errors is True",)),
)

CELLS = CELLS + TUTORIAL


def by_name(name: str) -> Cell:
    return next(c for c in CELLS if c.name == name)
