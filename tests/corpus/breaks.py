"""One small function per graph-break cause, each verified to break on torch 2.13.

Every line where a graph breaks carries a ``# BREAK`` marker; the tests find
the markers by reading this file, so lines can move freely. Each function
takes one float tensor of 4 elements. ``CASES`` lists (function, needs grad).
"""
import copy
import inspect
import os
import tempfile
import threading
import time

import torch

_LOCK = threading.Lock()
_SCRATCH = os.path.join(tempfile.gettempdir(), "compile-explorer-corpus.txt")


def data_dependent_if(x):
    y = x + 1
    if y.sum() > 0:  # BREAK
        y = y * 2
    return y - 1


def data_dependent_while(x):
    y = x.abs() + 1
    while y.sum() < 100:  # BREAK
        y = y * 2
    return y


def print_call(x):
    y = x + 1
    print("corpus: print_call")  # BREAK
    return y * 2


def item_in_control_flow(x):
    y = x + 1
    if y.sum().item() > 0:  # BREAK
        y = y * 2
    return y - 1


def int_of_tensor(x):
    y = x + 1
    n = int(y.sum())  # BREAK
    return y * n


def tolist(x):
    y = x + 1
    values = y.tolist()  # BREAK
    return y * len(values)


def nonzero_output_shape(x):
    y = x + 1
    idx = torch.nonzero(y > 0)  # BREAK
    return idx.sum() + y.sum()


def boolean_mask(x):
    y = x + 1
    return y[y > 0]  # BREAK


def time_call(x):
    y = x + 1
    t = time.time()  # BREAK
    return y * 2


def builtin_getpid(x):
    y = x + 1
    pid = os.getpid()  # BREAK
    return y * 2


def file_io(x):
    y = x + 1
    with open(_SCRATCH, "w") as fh:  # BREAK
        fh.write("corpus")
    return y * 2


@torch._dynamo.disable
def _not_compiled(t):
    return t * 3


def disabled_callee(x):
    y = x + 1
    y = _not_compiled(y)  # BREAK
    return y * 2


def explicit_graph_break(x):
    y = x + 1
    torch._dynamo.graph_break()  # BREAK
    return y * 2


def _helper_that_prints(t):
    print("corpus: helper")  # BREAK
    return t * 2


def break_in_callee(x):
    y = x + 1
    y = _helper_that_prints(y)
    return y - 1


def deepcopy_tensor(x):
    y = x + 1
    z = copy.deepcopy(y)  # BREAK
    return z * 2


def inspect_frame(x):
    y = x + 1
    frame = inspect.currentframe()  # BREAK
    return y * 2


def break_inside_try(x):
    y = x + 1
    try:
        print("corpus: inside try")  # BREAK
    except RuntimeError:
        pass
    return y * 2


def tensor_repr(x):
    y = x + 1
    text = repr(y)  # BREAK
    return y * 2


def backward_inside(x):
    y = (x * 2).sum()
    y.backward()  # BREAK
    return x.grad


def autograd_grad(x):
    y = (x * 2).sum()
    (g,) = torch.autograd.grad(y, x)  # BREAK
    return g


def opaque_object(x):
    y = x + 1
    gen = torch.Generator()  # BREAK
    return y * 2


def lock_context(x):
    y = x + 1
    with _LOCK:  # BREAK
        y = y * 2
    return y


def exec_call(x):
    y = x + 1
    exec("pass")  # BREAK
    return y * 2


CASES = [
    (data_dependent_if, False), (data_dependent_while, False), (print_call, False),
    (item_in_control_flow, False), (int_of_tensor, False), (tolist, False),
    (nonzero_output_shape, False), (boolean_mask, False), (time_call, False),
    (builtin_getpid, False), (file_io, False), (disabled_callee, False),
    (explicit_graph_break, False), (break_in_callee, False), (deepcopy_tensor, False),
    (inspect_frame, False), (break_inside_try, False), (tensor_repr, False),
    (backward_inside, True), (autograd_grad, True), (opaque_object, False),
    (lock_context, False), (exec_call, False),
]


def markers() -> dict[int, str]:
    """{line number: source text} of every ``# BREAK`` line in this file."""
    with open(__file__.replace(".pyc", ".py"), encoding="utf-8") as fh:
        return {i: line.strip() for i, line in enumerate(fh, 1) if line.rstrip().endswith("# BREAK")}
