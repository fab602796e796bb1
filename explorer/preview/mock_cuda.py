"""A CUDA device that is not there: just enough of one for Inductor to lower and Triton to compile.

CHILD PROCESS ONLY (``explorer.preview.child``): this is the one place the
explorer patches torch, and it never runs in the user's process. Inductor asks
torch.cuda and Triton's driver about the device while it lowers (properties,
capability, streams, RNG state, the driver's target); each answer is faked here
for one device, an H200 (sm_90) by default. Kernels are compiled for that
target (Triton compiles without a GPU and bundles ptxas) but never loaded.
Brittle by nature: the patch points follow torch 2.11-2.14; a release that
moves one makes the preview fail with a message, nothing worse.
"""

from __future__ import annotations

import collections
import contextlib
from typing import Any, Iterator
from unittest import mock

PROPS_FIELDS = ("name major minor total_memory multi_processor_count warp_size L2_cache_size "
                "max_threads_per_multi_processor regs_per_multiprocessor shared_memory_per_block_optin "
                "shared_memory_per_multiprocessor shared_memory_per_block gcnArchName uuid is_integrated "
                "clock_rate memory_clock_rate memory_bus_width max_threads_per_block")
DeviceProps = collections.namedtuple("DeviceProps", PROPS_FIELDS)  # type: ignore[misc]
H200 = DeviceProps("NVIDIA H200", 9, 0, 143771 * 2 ** 20, 132, 32, 60 * 2 ** 20, 2048, 65536, 232448, 233472,
                   49152, "NVIDIA H200", "00000000-0000-0000-0000-000000000000", False, 1980000, 3201000, 6144,
                   1024)


@contextlib.contextmanager
def fake_cuda(props: Any = H200) -> Iterator[None]:
    """Inside, torch (and Triton) believe one CUDA device with ``props`` is present."""
    import torch
    import torch._dynamo
    import torch._inductor.compile_fx
    from torch._dynamo import device_interface as di

    cap = (props.major, props.minor)
    zeros = lambda *a, **k: torch.zeros(16, dtype=torch.uint8)  # noqa: E731
    patches = [
        mock.patch("torch.cuda.is_available", lambda: True),
        mock.patch("torch.cuda.device_count", lambda: 1),
        mock.patch("torch.cuda.current_device", lambda: 0),
        mock.patch("torch.cuda.get_device_properties", lambda d=None: props),
        mock.patch("torch.cuda.get_device_capability", lambda d=None: cap),
        mock.patch("torch.cuda.get_device_name", lambda d=None: props.name),
        mock.patch("torch.cuda.is_bf16_supported", lambda *a, **k: True),
        mock.patch("torch.cuda._is_compiled", lambda: True),
        mock.patch("torch.cuda.get_rng_state", zeros),
        mock.patch("torch.cuda.set_rng_state", lambda *a, **k: None),
        mock.patch("torch.cuda.get_rng_state_all", lambda *a, **k: [zeros()]),
        mock.patch("torch.cuda.set_rng_state_all", lambda *a, **k: None),
        mock.patch("torch.cuda._lazy_init", lambda: None),
        mock.patch("torch.cuda.is_initialized", lambda: True),
        mock.patch("torch.cuda.synchronize", lambda *a, **k: None),
        mock.patch.object(torch.cuda, "_exchange_device", lambda i: 0),
        mock.patch.object(torch.cuda, "_maybe_exchange_device", lambda i: 0),
        mock.patch.object(torch.cuda, "set_device", lambda i: None),
        mock.patch.object(torch._C, "_cuda_getCurrentRawStream", lambda i=None: 0, create=True),
        mock.patch("torch.tensor", _tensor_factory(torch.tensor)),
    ]
    ci = di.CudaInterface
    for name, value in (("exchange_device", lambda i: 0), ("maybe_exchange_device", lambda i: 0),
                        ("set_device", lambda i: None), ("current_device", lambda: 0), ("device_count", lambda: 1),
                        ("get_device_properties", lambda d=None: props), ("synchronize", lambda *a: None),
                        ("get_raw_stream", lambda i=None: 0), ("is_available", lambda: True),
                        ("get_compute_capability", lambda d=None: cap[0] * 10 + cap[1]),
                        ("is_bf16_supported", lambda *a, **k: True)):
        if hasattr(ci, name):
            patches.append(mock.patch.object(ci, name, staticmethod(value)))
    patches.append(mock.patch.object(ci.Worker, "get_device_properties", staticmethod(lambda d=None: props)))
    patches.append(mock.patch.object(ci.Worker, "current_device", staticmethod(lambda: 0)))
    # a few of Inductor's own steps need a real device: pattern tables traced with real random ops
    # (randperm + index_add) are left out, and kernels are compiled but never loaded
    try:
        import torch._inductor.fx_passes.misc_patterns as misc

        patches.append(mock.patch.object(misc, "_misc_patterns_init", lambda *a, **k: None))
    except ImportError:
        pass
    from torch._inductor.runtime import triton_heuristics as th

    patches.append(mock.patch.object(th.CachingAutotuner, "_make_launchers", lambda self: None))
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        _fake_triton_driver(stack, props)
        import torch.utils._triton as ut

        ut.has_triton.cache_clear()
        stack.callback(ut.has_triton.cache_clear)
        yield


def _tensor_factory(real: Any) -> Any:
    """``torch.tensor(2.0, device="cuda")`` (Inductor's pattern tables make a few) under fake tensors."""
    def tensor(data: Any, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        import torch

        if device is not None and torch.device(device).type == "cuda":
            t = real(data, *args, **kwargs)
            if t.numel() == 1:
                return torch.full(t.shape, t.item(), dtype=t.dtype, device=device)
            return torch.empty(t.shape, dtype=t.dtype, device=device)
        return real(data, *args, device=device, **kwargs)

    return tensor


def _fake_triton_driver(stack: contextlib.ExitStack, props: Any) -> None:
    from triton.backends.nvidia.driver import CudaDriver
    from triton.runtime.driver import driver

    class _Utils:
        def get_device_properties(self, device: Any) -> dict:
            return {"max_shared_mem": props.shared_memory_per_block_optin,
                    "multiprocessor_count": props.multi_processor_count, "sm_clock_rate": props.clock_rate,
                    "mem_clock_rate": props.memory_clock_rate, "mem_bus_width": props.memory_bus_width,
                    "max_num_regs": props.regs_per_multiprocessor, "warpSize": props.warp_size}

        def load_binary(self, *a: Any, **k: Any) -> Any:
            raise RuntimeError("a preview has no GPU to load kernels on")

    class _Driver(CudaDriver):
        def __init__(self) -> None:  # no CUDA library to open
            self.utils = _Utils()
            self.launcher_cls = None
            self.get_device_capability = lambda d=None: (props.major, props.minor)
            self.get_current_stream = lambda idx=None: 0
            self.get_current_device = lambda: 0
            self.set_current_device = lambda d: None

    driver.set_active(_Driver())
    stack.callback(lambda: setattr(driver, "_active", None))  # the real default is built only if asked for


class FakeReader:
    """Reads a repro's ``load_args(reader)`` into fake CUDA tensors (no data, no device)."""

    def __init__(self, mode: Any, device: str = "cuda:0") -> None:
        self.mode, self.device, self.args = mode, device, []

    def storage(self, storage_hash: Any, nbytes: int, *, device: Any = None, dtype_hint: Any = None) -> Any:
        import torch

        return (nbytes, dtype_hint or torch.float32, device)

    def tensor(self, storage: Any, shape: Any, stride: Any = None, *, storage_offset: Any = None, dtype: Any = None,
               requires_grad: Any = None, is_leaf: Any = None, **metadata: Any) -> Any:
        import torch

        nbytes, hint, _ = storage
        dtype = dtype or hint
        shape = tuple(shape)
        if stride is None:
            stride, acc = [], 1
            for s in reversed(shape):
                stride.insert(0, acc)
                acc *= max(int(s), 1)
        with self.mode:
            t = torch.empty_strided(shape, tuple(stride), dtype=dtype, device=self.device)
        self.args.append(t)  # inference: requires_grad is dropped on purpose
        return t

    def symint(self, val: Any) -> Any:
        self.args.append(val)
        return val

    def const(self, name: str) -> None:  # newer repro format
        self.args.append(None)
