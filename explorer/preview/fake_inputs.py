"""A graph's inputs as fake tensors on the faked device: the sizes Dynamo gave them, symbols and all.

CHILD PROCESS ONLY (``explorer.preview.child``). A repro script's ``load_args(reader)`` names each input with
the sizes of the call that compiled it; ``FakeReader`` reads it into fake tensors (no data, no device). Where
Dynamo kept sizes symbolic (``mark_dynamic``, a recompile under automatic dynamic shapes), the parent sends
them apart (``torch_door.fx.graph_input_shapes``): ``SymbolicSizes`` makes the same symbols in a fresh
``ShapeEnv`` (same value in this call, same range, named after the same source, so ``s77`` stays ``s77``) and
the reader builds those inputs with them, so Inductor lowers the graph for every size, as a GPU would. A
repro of a graph as Inductor received it (a script's, torch 2.13 on) binds its symbols itself
(``SymbolicSizes.of_repro``).

The reader takes both forms of torch's repro scripts: ``reader.symint(8)`` (2.11, 2.12) and
``reader.symint(8, expr='s77')`` (2.13 on).
"""

from __future__ import annotations

import re
from typing import Any, Optional


class SymbolicSizes:
    """The symbols of one graph's inputs, made again in ``mode``'s ShapeEnv; expressions read back as SymInts.

    ``spec``: as ``torch_door.fx.graph_input_shapes`` writes it (per input its sizes, per symbol its value in the
    call that compiled the graph, its range and source). Each symbol keeps its name (``s77``).
    """

    def __init__(self, mode: Any, spec: dict) -> None:
        from explorer.capturing.torch_door import fx

        self.shape_env = mode.shape_env
        self.inputs: list[dict] = list(spec.get("inputs") or [])
        self._names = fx.sympy_names()
        self._symbols: dict[str, Any] = {}
        self._hints: dict[Any, int] = {}
        for name, facts in (spec.get("symbols") or {}).items():
            hint = facts.get("hint")
            if hint is None:
                raise ValueError(f"size {name} has no value in the call that compiled the graph (an unbacked size)")
            self._symbols[name] = made = fx.size_symbol(self.shape_env, name, int(hint), facts.get("source"))
            self._hints[made] = int(hint)
            lo, hi = facts.get("min"), facts.get("max")
            if lo is not None or hi is not None:
                fx.constrain_size(self.shape_env, made, lo, hi)

    @classmethod
    def of_repro(cls, mode: Any, repro: str, namespace: dict) -> Optional[SymbolicSizes]:
        """The size symbols a repro of a lowered graph binds as its own names (torch 2.13 on writes
        ``s77 = 9`` and ``reader.tensor(buf0, (s77, 16))``): each made a symbol and bound as a SymInt in
        ``namespace``, so that ``load_args`` builds the inputs with symbolic sizes. None where it binds none."""
        names = [n for n in dict.fromkeys(re.findall(r"reader\.symint\([^)]*expr='(s\d+)'", repro))
                 if type(namespace.get(n)) is int]
        if not names:
            return None
        sizes = cls(mode, {"symbols": {n: {"hint": namespace[n]} for n in names}})
        for n in names:
            namespace[n] = sizes.value(n)
        return sizes

    def value(self, text: str) -> Any:
        """A size as written (``"16"``, a symbol's name or an srepr) as an int or a SymInt of this ShapeEnv."""
        if text.lstrip("-").isdigit():
            return int(text)
        if text in self._symbols:
            expr = self._symbols[text]
        else:
            expr = eval(text, {"__builtins__": {}}, self._names)  # sympy.srepr, written by the parent
            expr = expr.xreplace({s: self._symbols[s.name] for s in expr.free_symbols})
        if expr.is_number:
            return int(expr)
        return self.shape_env.create_symintnode(expr, hint=int(expr.xreplace(self._hints)))

    def knows(self, name: str) -> bool:
        return name in self._symbols

    def input(self, index: int) -> Optional[dict]:
        return self.inputs[index] if index < len(self.inputs) and self.inputs[index] else None

    @property
    def names(self) -> list[str]:
        """The symbols as this ShapeEnv named them (the names the wrapper and kernels use)."""
        return [str(s) for s in self._symbols.values()]


class FakeReader:
    """Reads a repro's ``load_args(reader)`` into fake tensors on ``device`` (no data, no device).

    ``keep_grad``: inputs that required grad still do (a training graph: AOTAutograd traces its backward).
    ``sizes``: the graph's symbolic sizes, where Dynamo kept any.
    """

    def __init__(self, mode: Any, device: str = "cuda:0", *, keep_grad: bool = False,
                 sizes: Optional[SymbolicSizes] = None) -> None:
        self.mode, self.device, self.keep_grad, self.sizes = mode, device, keep_grad, sizes
        self.args: list[Any] = []

    def storage(self, storage_hash: Any, nbytes: int, *, device: Any = None, dtype_hint: Any = None) -> Any:
        import torch

        return (nbytes, dtype_hint or torch.float32, device)

    def tensor(self, storage: Any, shape: Any, stride: Any = None, *, storage_offset: Any = None, dtype: Any = None,
               requires_grad: Any = None, is_leaf: Any = None, **metadata: Any) -> Any:
        import torch

        nbytes, hint, _ = storage
        dtype = dtype or hint
        shape, offset = tuple(shape), int(storage_offset or 0)
        stride = tuple(stride) if stride is not None else _contiguous(shape)
        sym = self.sizes.input(len(self.args)) if self.sizes is not None else None
        if sym is not None and "size" in sym:
            shape = tuple(self.sizes.value(s) for s in sym["size"])
            stride = tuple(self.sizes.value(s) for s in sym["stride"])
            offset = self.sizes.value(sym["offset"])
        with self.mode:
            if offset == 0:
                t = torch.empty_strided(shape, stride, dtype=dtype, device=self.device)
            else:  # a view into its storage: Inductor reads the offset (alignment of the kernel's pointers)
                extent = offset + sum((n - 1) * s for n, s in zip(shape, stride)) + 1
                t = torch.empty(extent, dtype=dtype, device=self.device).as_strided(shape, stride, offset)
        if self.keep_grad and requires_grad and (dtype.is_floating_point or dtype.is_complex):
            t.requires_grad_(True)
        self.args.append(t)
        return t

    def symint(self, val: Any, *, expr: Any = None, **_: Any) -> Any:
        sym = self.sizes.input(len(self.args)) if self.sizes is not None else None
        if sym is not None and "expr" in sym:
            val = self.sizes.value(sym["expr"])
        elif self.sizes is not None and isinstance(expr, str) and self.sizes.knows(expr):
            val = self.sizes.value(expr)
        self.args.append(val)
        return val

    def const(self, name: str) -> None:  # newer repro format
        self.args.append(None)

    def unsupported(self, name: str) -> None:
        raise ValueError(f"torch's repro could not write input {name} (not a tensor, a size or a constant)")


def _contiguous(shape: tuple) -> tuple:
    """Row-major strides of ``shape``, symbolic sizes kept symbolic (never turned into numbers: that would guard)."""
    from explorer.capturing.torch_door import fx

    return fx.contiguous_strides(shape)
