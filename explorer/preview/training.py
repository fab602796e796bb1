"""A training graph's forward and backward, lowered for the faked CUDA device without autograd touching it.

CHILD PROCESS ONLY (``explorer.preview.child``). AOTAutograd traces a training graph's backward by running
autograd over the forward (the joint graph). Autograd cannot record on a fake CUDA tensor without a GPU: a
CPU-only torch has no CUDA device guard (``std::terminate``), and a CUDA build without a driver fails in the
autograd engine's stream bookkeeping. So the joint graph is traced on a stand-in device, ``meta``, where
autograd works, and moved to CUDA before Inductor touches it: when Inductor's joint-graph passes are asked for
(``cuda_standin.before_joint_graph_passes``: before partitioning into forward and backward, and before lowering a graph
AOTAutograd found to need no backward), the graph's device arguments and its nodes' fake values become CUDA's,
and each compiler call (``inner_compile``) gets CUDA inputs. From there on, everything (joint-graph passes,
the partitioner, post-grad passes, lowering, Triton) runs as it would for a GPU.

Inductor's own decompositions, applied while the joint graph is traced, ask whether the device is a GPU
(``torch._inductor.decomposition.is_gpu``: a convolution's bias gradient as a sum Inductor fuses into its
kernels, where the CPU asks ``convolution_backward`` for it): the stand-in is one, here. What stays the
stand-in's: a choice torch makes per device while tracing the joint graph takes its device-neutral form there
(which scaled-dot-product-attention kernel: the math form, as the preview of an inference graph shows it too,
``child.ATTENTION``; the few of torch's decompositions that compare the device with ``cuda``: upsampling's
memory format, grid sampling's 32-bit indices, reflection and replication padding, ``log_sigmoid``'s buffer).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

STAND_IN = "meta"
TARGET = "cuda:0"
NOTE = ("training graphs: AOTAutograd traced each forward and backward on meta tensors (autograd cannot record on a "
        "CUDA tensor without a GPU), then Inductor lowered both for CUDA")


class Lowering:
    """What ``lowered_for_cuda`` hands ``compile_fx``: its ``inner_compile``, and the kinds of graph it lowered."""

    def __init__(self, real_inner: Any) -> None:
        self._real_inner = real_inner
        self.kinds: list[str] = []  # forward, backward; inference where AOTAutograd found no backward to trace

    def inner_compile(self, gm: Any, example_inputs: Any, *args: Any, **kwargs: Any) -> Any:
        _move_graph(gm)  # already moved when the joint-graph passes ran: a no-op then
        self.kinds.append("backward" if kwargs.get("is_backward") else
                          "inference" if kwargs.get("is_inference") else "forward")
        return self._real_inner(gm, _moved_inputs(example_inputs), *args, **kwargs)

    @property
    def lowered(self) -> str:
        """``forward and backward``, or what else was lowered, in words (``PreviewGraph.lowered``)."""
        return " and ".join(dict.fromkeys(self.kinds)) or "nothing"


@contextlib.contextmanager
def lowered_for_cuda() -> Iterator[Lowering]:
    """Inside, ``compile_fx`` of a graph on ``STAND_IN`` fake tensors, given ``Lowering.inner_compile``, lowers its
    forward and backward for CUDA."""
    from explorer.capturing.torch_door import cuda_standin

    def on_cuda(gm: Any, kwargs: dict) -> dict:
        _move_graph(gm)
        if kwargs.get("input_device") is not None:
            kwargs["input_device"] = _cuda(kwargs["input_device"])
        return kwargs

    with cuda_standin.before_joint_graph_passes(on_cuda, STAND_IN) as compile_fx_inner:
        yield Lowering(compile_fx_inner)


def _cuda(value: Any) -> Any:
    import torch

    if isinstance(value, torch.device) and value.type == STAND_IN:
        return torch.device(TARGET)
    if isinstance(value, str) and value.split(":")[0] == STAND_IN:
        return TARGET
    return value


def _moved_inputs(values: Any) -> Any:
    """Each stand-in fake tensor as a CUDA one of the same sizes, strides and offset (symbols kept)."""
    import torch

    from explorer.capturing.torch_door import fx

    mode = fx.detect_fake_mode([v for v in fx.tree_leaves(values) if isinstance(v, torch.Tensor)])

    def move(t: Any) -> Any:
        if not (isinstance(t, torch.Tensor) and t.device.type == STAND_IN):
            return t
        with mode:
            base = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=TARGET)
            out = base if t.storage_offset() == 0 else _at_offset(t, base)
        return out.requires_grad_(t.requires_grad) if t.requires_grad and out.is_leaf else out

    return fx.tree_map(move, values)


def _at_offset(t: Any, like: Any) -> Any:
    import torch

    extent = t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1
    return torch.empty(extent, dtype=t.dtype, device=like.device).as_strided(t.shape, t.stride(), t.storage_offset())


def _move_graph(gm: Any) -> None:
    """The graph's device arguments and node values on CUDA (fake values propagated again from its inputs)."""
    import torch
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    from explorer.capturing.torch_door import fx

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    vals = [n.meta.get("val") for n in placeholders]
    on_stand_in = any(isinstance(n.meta.get("val"), torch.Tensor) and n.meta["val"].device.type == STAND_IN
                      for n in gm.graph.nodes)
    if not on_stand_in:
        return
    for node in gm.graph.nodes:
        node.args = torch.fx.node.map_aggregate(node.args, _cuda)
        node.kwargs = {k: torch.fx.node.map_aggregate(v, _cuda) for k, v in node.kwargs.items()}
    for name, value in list(gm.named_buffers()) + list(gm.named_parameters()):
        if value.device.type == STAND_IN:
            _set_attr(gm, name, _moved_inputs(value))
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = _fetch(gm, node.target)
            if isinstance(value, torch.Tensor) and value.device.type == STAND_IN:
                _set_attr(gm, node.target, _moved_inputs(value))
    gm.recompile()
    mode = fx.detect_fake_mode([v for v in vals if isinstance(v, torch.Tensor)])
    with mode:  # the placeholders one by one, as the graph lists them (not through its pytree input spec)
        FakeTensorProp(gm, mode).run(*_moved_inputs(vals), enable_io_processing=False)


def _fetch(gm: Any, dotted: str) -> Any:
    obj = gm
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _set_attr(gm: Any, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    mod = gm
    for p in parents:
        mod = getattr(mod, p)
    if last in getattr(mod, "_buffers", {}):
        mod._buffers[last] = value
    elif last in getattr(mod, "_parameters", {}):
        mod._parameters[last] = value
    else:
        setattr(mod, last, value)
