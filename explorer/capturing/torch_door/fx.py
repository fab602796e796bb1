"""FX below Dynamo: fake tensors, symbolic shapes (``ShapeEnv``), size symbols, pytrees and graph metadata.

Subsystem: ``torch._subclasses.fake_tensor``, ``torch.fx.experimental.symbolic_shapes``, ``torch.utils._sympy``,
``torch.utils._pytree``, ``torch._prims_common``, ``torch._guards.detect_fake_mode``.

Version differences: none among 2.11-2.14 (each has ``ShapeEnv.backed_var_to_val``, each size symbol's value in the
call that compiled the graph; ``var_to_val``, the older name, is read where it is missing).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

FAKE_TENSOR_LOGGER = "torch._subclasses.fake_tensor"


FAKE_TENSOR_META_FAILURE = "failed while attempting to run meta"


def graph_input_shapes(gm: Any) -> Optional[dict]:
    """The symbolic sizes of a Dynamo graph's inputs, as plain data; None when every size is a number.

    A repro script writes each input with this call's sizes; a graph Dynamo traced with dynamic shapes
    (``mark_dynamic``, or a recompile under automatic dynamic shapes) has symbols there (``s77``), which the
    preview must give Inductor again to lower what a GPU would get. Read from the placeholders' example values
    (Dynamo's fake tensors, after its replacements: ``Eq(s77, s17)`` leaves ``s17``): per input, its sizes,
    strides and storage offset (a SymInt input: its expression) as ``sympy.srepr``, which reads back exactly;
    per symbol, its value in this call, its range and the source torch named it for (``L['x'].size()[0]``).
    """
    import sympy
    import torch

    inputs: list[dict] = []
    symbols: dict[str, dict] = {}

    def text(v: Any) -> str:
        if isinstance(v, torch.SymInt):
            expr = v.node.expr
            for s in expr.free_symbols:
                symbols.setdefault(str(s), _symbol_facts(v.node.shape_env, s))
            return sympy.srepr(expr)
        return str(int(v))

    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        v = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(v, torch.SymInt):
            inputs.append({"expr": text(v)})
        elif isinstance(v, torch.Tensor) and not v.is_sparse:
            inputs.append({"size": [text(s) for s in v.size()], "stride": [text(s) for s in v.stride()],
                           "offset": text(v.storage_offset())})
        else:
            inputs.append({})
    return {"inputs": inputs, "symbols": symbols} if symbols else None


def graph_static_inputs(gm: Any) -> list[int]:
    """The positions of a Dynamo graph's inputs that Dynamo marked static: the parameters and buffers of the user's
    modules (``_dynamo_static_input_type`` in the placeholder's ``tensor_dict``; ``mark_static_address`` too).

    AOTAutograd reads them off the graph Dynamo hands over (``_try_get_metadata_from_dynamo``, torch 2.11-2.14 alike)
    and the partitioner saves such an input for the backward for free (``treat_parameters_as_free_to_save``): the
    backward takes a Linear's weight and transposes it, where without them it takes the transpose the forward
    saved, and its kernels come in another order (a buffer a GPU reuses in place is a new one). A repro script
    keeps none of it: the preview sends them apart (``mark_as_dynamo_graph``)."""
    return [i for i, node in enumerate(gm.graph.find_nodes(op="placeholder"))
            if (node.meta.get("tensor_dict") or {}).get("_dynamo_static_input_type")]


def mark_as_dynamo_graph(gm: Any, frame_id: int, frame_compile_id: int, static_inputs: Iterable[int]) -> None:
    """Marks a GraphModule traced from a repro script as Dynamo hands its graphs to a backend, so that AOTAutograd
    finds the same static inputs (``graph_static_inputs``): the compile id in ``gm.meta``, a source per parameter
    or buffer the module holds (each static, as Dynamo's attributes are), none per placeholder (allowed, as for
    the DDP optimizer's submodules), and the static placeholders' ``_dynamo_static_input_type``."""
    from torch._dynamo.source import LocalSource
    from torch._guards import CompileId

    static = set(static_inputs)
    gm.meta["dynamo_compile_id"] = CompileId(frame_id=frame_id, frame_compile_id=frame_compile_id)
    names = [n for n, _ in gm.named_parameters(remove_duplicate=False)] + \
        [n for n, _ in gm.named_buffers(remove_duplicate=False)]
    gm._param_name_to_source = {n: LocalSource(n) for n in names}
    for i, node in enumerate(gm.graph.find_nodes(op="placeholder")):
        node._dynamo_source = None
        if i in static:
            node.meta["tensor_dict"] = {**(node.meta.get("tensor_dict") or {}),
                                        "_dynamo_static_input_type": "unguarded"}


def _symbol_facts(shape_env: Any, symbol: Any) -> dict:
    """A size symbol's value in this call, its range (``None``: unbounded) and the source it was made for."""
    values = getattr(shape_env, "backed_var_to_val", None) or getattr(shape_env, "var_to_val", {})
    hint = values.get(symbol)
    rng = shape_env.var_to_range.get(symbol)
    bound = lambda b: int(b) if getattr(b, "is_Integer", False) else None  # noqa: E731 - int_oo: unbounded
    sources = shape_env.var_to_sources.get(symbol) or []
    name = getattr(sources[0], "name", None) if sources else None
    return {"hint": int(hint) if hint is not None else None,
            "min": bound(rng.lower) if rng is not None else None, "max": bound(rng.upper) if rng is not None else None,
            "source": (name() if callable(name) else name) if name is not None else None}


def fake_mode() -> Any:
    """A fresh ``FakeTensorMode`` with its own ``ShapeEnv`` (sizes may be symbolic), real tensors refused."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    return FakeTensorMode(allow_non_fake_inputs=False, shape_env=ShapeEnv())


def detect_fake_mode(values: Any) -> Any:
    """The fake tensor mode ``values`` were made under (or the one active), else None."""
    from torch._guards import detect_fake_mode as detect

    return detect(values)


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of a nest of lists, tuples and dicts (``torch.utils._pytree``)."""
    from torch.utils._pytree import tree_leaves as leaves

    return leaves(tree)


def tree_map(fn: Any, tree: Any) -> Any:
    """``tree`` with ``fn`` applied to each leaf (``torch.utils._pytree``)."""
    from torch.utils._pytree import tree_map as map_leaves

    return map_leaves(fn, tree)


def contiguous_strides(shape: tuple) -> tuple:
    """Row-major strides of ``shape``, symbolic sizes kept symbolic (``torch._prims_common``)."""
    from torch._prims_common import make_contiguous_strides_for

    return tuple(make_contiguous_strides_for(shape))


def sympy_names() -> dict[str, Any]:
    """sympy's names and torch's own sympy functions (``FloorDiv``, ``Mod``, ...): what reads a size expression
    torch wrote with ``sympy.srepr`` back."""
    import sympy
    from torch.utils._sympy import functions

    return {**vars(sympy), **{k: v for k, v in vars(functions).items() if not k.startswith("_")}}


def constrain_size(shape_env: Any, symbol: Any, low: Optional[int], high: Optional[int]) -> None:
    """Gives a size symbol of ``shape_env`` its range (``None``: unbounded above; 0 below)."""
    from torch.utils._sympy.numbers import int_oo

    shape_env.constrain_symbol_range(symbol, compiler_min=low if low is not None else 0,
                                     compiler_max=high if high is not None else int_oo)


def size_symbol(shape_env: Any, name: str, hint: int, source: Optional[str]) -> Any:
    """A size symbol of ``shape_env`` with ``hint``, named ``name`` where that name is free.

    torch names a size symbol by a hash of its source's name (``s77`` for ``L['x'].size()[0]``); made again
    from the same source it gets the same name unless another took it first, and a repro of a lowered graph
    names no source at all: the id is asked for outright (``ShapeEnv._generate_unique_id``, 2.11-2.14), so the
    wrapper reads as the user's program's did.
    """
    import re

    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic

    wanted = re.fullmatch(r"s(\d+)", name)
    free = wanted is not None and int(wanted[1]) not in getattr(shape_env, "unique_ids", {int(wanted[1])})
    if free:
        shape_env._generate_unique_id = lambda _source_name: (shape_env.unique_ids.add(int(wanted[1]))
                                                              or int(wanted[1]))
    try:
        return shape_env.create_symbol(hint, ConstantSource(source or name), dynamic_dim=DimDynamic.DYNAMIC,
                                       do_not_specialize_zero_one=hint in (0, 1))
    finally:
        if free:
            del shape_env._generate_unique_id
