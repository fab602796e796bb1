"""Inductor's generated text, read in one place for every layer: the only reader of it in the explorer.

One module per kind of text:

* ``wrapper``: the output module (``# AOT ID``, ``NAME = async_compile.LANG('''...''')`` and the comments
  above each, ``[Provenance debug handles]``, ``call()``'s ``<kernel>.run(...)`` and extern calls, buffers),
  Python or AOTInductor's C++;
* ``kernels``: what every generated kernel shares (its name, its parameters, its ``tmp`` statements);
* ``triton``: a Triton kernel (its metadata, ``@triton.jit`` signature, loads, stores, index arithmetic);
* ``cpp``: a C++ kernel (pointer parameters, loops, assignments, loads and stores);
* ``loop_ir``: the loop-level IR dumps (scheduler nodes, loop bodies);
* ``frames``: the stack frames torch prints in its traces; ``syntax``: arguments and brackets.

Capture (kernels, Triton details), lineage (what each line computes), structure (kernels and scheduler nodes
by module), timing (bytes, which kernel wrote a buffer) and the views all read Inductor's text through these
functions and the typed results they return, so a change in what Inductor writes is fixed here once;
tests/test_inductor_text_home.py fails on a regular expression over Inductor's text anywhere else.

Everything here is plain text in, plain data (strings, numbers, frozen records) out: no torch import.
"""

from .cpp import (
    CppAssign,
    CppLoop,
    cpp_accesses,
    cpp_aliases,
    cpp_assignments,
    cpp_body,
    cpp_int,
    cpp_loops,
    cpp_pointer_params,
)
from .frames import STACK_FRAME, StackFrame, stack_frames
from .kernels import Access, kernel_params, param_role
from .syntax import keywords, parse_call, positional, split_args
from .triton import jit_params, triton_accesses, triton_assignments, triton_body, triton_signature
from .wrapper import (
    WrapperCall,
    arg_numel,
    buffer_roots,
    buffer_sizes,
    call_buffers,
    direct_call_args,
    match_estimates,
    numel,
    run_args,
    wrapper_calls,
)

__all__ = [
    "STACK_FRAME", "Access", "CppAssign", "CppLoop", "StackFrame", "WrapperCall", "arg_numel", "buffer_roots",
    "buffer_sizes", "call_buffers", "cpp_accesses", "cpp_aliases", "cpp_assignments", "cpp_body", "cpp_int",
    "cpp_loops", "cpp_pointer_params", "direct_call_args", "jit_params", "keywords", "kernel_params",
    "match_estimates", "numel", "param_role", "parse_call", "positional", "run_args", "split_args",
    "stack_frames", "triton_accesses", "triton_assignments", "triton_body", "triton_signature", "wrapper_calls",
]
