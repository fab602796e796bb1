"""A CUDA device that is not there: just enough of one for Inductor to lower and Triton to compile.

Subsystem: ``torch.cuda``, Dynamo's device interface, Inductor's passes and Triton's driver, as the GPU-less preview
needs them. CHILD PROCESS ONLY (``explorer.preview.child``; the package's ``__init__`` does not import it): this is
the one place the explorer patches torch, and it never runs in the user's process. Inductor asks
torch.cuda and Triton's driver about the device while it lowers (properties,
capability, streams, RNG state, the driver's target); each answer is faked here
for one device, an H200 (sm_90) by default. Kernels are compiled for that
target (Triton compiles without a GPU and bundles ptxas) but never loaded.
Brittle by nature: the patch points follow torch 2.11-2.14; a release that
moves one makes the preview fail with a message, nothing worse.

Where torch releases and builds differ, for the preview (each handled where named):
- a fake CUDA tensor first makes a real one when torch.cuda.is_available()
  says yes (2.11; 2.12 on ask the accelerator torch found): skipped here;
- the device guard a fake CUDA tensor needs outside dispatch: a CUDA build
  without a driver gets torch's own fake guard, a CPU-only build the CPU's
  no-op guard (``_cuda_device_guard``);
- a repro names its size symbols (``reader.symint(8, expr='s77')``, symbolic
  tensor sizes) from 2.13 on, as numbers before: ``fake_inputs`` reads both,
  and the parent says where a script's graph kept this call's sizes
  (``explorer.preview.graphs_from_repros``);
- the joint-graph passes ``before_joint_graph_passes`` wraps (``compile_fx._recursive_joint_graph_passes``) are
  named so in 2.11-2.14.
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
        # a fake CUDA tensor first makes a real one to set up the device's context; torch 2.11 decides by
        # torch.cuda.is_available() (yes, here), 2.12 on by the accelerator torch itself found (none)
        mock.patch("torch._subclasses.fake_tensor.init_gpu_context", lambda device: None),
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
    # Inductor's constant folding runs the small constant tensors it folds for real, on their device; here on the
    # CPU instead (it reads their values; the constant it puts back is made on the graph's device)
    from torch._inductor.constant_folding import ConstantFolder

    patches.append(mock.patch.object(ConstantFolder, "run", _on_cpu(ConstantFolder.run)))
    # a choice Inductor makes by timing on the GPU: whether padding a matmul's misaligned sizes pays
    from torch._inductor.fx_passes import pad_mm

    patches.append(mock.patch.object(pad_mm, "get_cached_should_pad", _unpadded(pad_mm.get_cached_should_pad)))
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        _fake_triton_driver(stack, props)
        _cuda_device_guard(stack)
        import torch.utils._triton as ut

        ut.has_triton.cache_clear()
        stack.callback(ut.has_triton.cache_clear)
        yield


def _cuda_device_guard(stack: contextlib.ExitStack) -> None:
    """A device guard for CUDA that does nothing, as torch's fake tensors install one without a device.

    Code that runs on a fake CUDA tensor outside of dispatch (a tensor method's binding such as indexing or
    ``.contiguous()``, autograd recording an op) first sets the tensor's device through its device guard.
    torch's own fake tensors, when no CUDA device can be used, put a no-op guard in place
    (``torch._C._ensureCUDADeviceGuardSet``, from ``FakeTensorMode``); here ``torch.cuda.is_available()``
    says yes, so that is done here: on a CUDA build by that same call (a build without a driver has no device,
    and gets torch's own fake guard). A CPU-only build has no CUDA guard at all, and that call does nothing
    there: the registry's CUDA slot gets the CPU's no-op guard (torch's own ``NoOpDeviceGuardImpl``), and is
    emptied again afterwards.
    """
    import torch

    if torch.version.cuda is not None:
        torch._C._ensureCUDADeviceGuardSet()
        return
    import ctypes
    import os

    lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libc10.so"))
    registry = (ctypes.c_void_p * 2).in_dll(lib, "_ZN3c104impl26device_guard_impl_registryE")  # CPU=0, CUDA=1
    if registry[1]:
        return
    registry[1] = registry[0]
    stack.callback(lambda: registry.__setitem__(1, None))


# what the preview chose where a GPU would have timed the candidates; the child adds each to the preview's notes
UNTIMED: set[str] = set()
PAD_MM = ("a matmul with misaligned sizes: Inductor times it padded and unpadded on the GPU and keeps the faster "
          "(pad_mm); the preview, timing nothing, keeps it unpadded")


def _unpadded(cached: Any) -> Any:
    """pad_mm's cache of earlier timings; where it holds none (the pass would time both now), unpadded."""
    def cached_or_unpadded(key: str) -> Any:
        found = cached(key)
        if found is None:
            UNTIMED.add(PAD_MM)
            return False
        return found

    return cached_or_unpadded


def _on_cpu(run: Any) -> Any:
    """``run`` with every op it calls for real that names a CUDA device made on the CPU instead."""
    def run_on_cpu(self: Any, *args: Any, **kwargs: Any) -> Any:
        with _cuda_on_cpu_mode():
            return run(self, *args, **kwargs)

    return run_on_cpu


def _cuda_on_cpu_mode() -> Any:
    """A dispatch mode in which every CUDA device argument is the CPU."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    def cpu(v: Any) -> Any:
        if isinstance(v, torch.device) and v.type == "cuda":
            return torch.device("cpu")
        return "cpu" if isinstance(v, str) and v.split(":")[0] == "cuda" else v

    class CudaOnCpu(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            args = torch.fx.node.map_aggregate(tuple(args), cpu)
            kwargs = {k: torch.fx.node.map_aggregate(v, cpu) for k, v in (kwargs or {}).items()}
            return func(*args, **kwargs)

    return CudaOnCpu()


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



@contextlib.contextmanager
def before_joint_graph_passes(hook: Any, stand_in: str) -> Iterator[Any]:
    """Inside, ``hook(gm, kwargs)`` runs each time Inductor is asked for its joint-graph passes (before AOTAutograd
    partitions a training graph into forward and backward, and before an inference graph is lowered) and returns
    the keyword arguments the passes then get; Inductor's decompositions count the ``stand_in`` device as a GPU
    (``decomposition.is_gpu``: a convolution's bias gradient is summed in a Triton kernel, as on a GPU). Yields
    Inductor's own ``compile_fx_inner``, for an ``inner_compile`` that calls it (``explorer.preview.training``: the
    graph moved from the stand-in device to CUDA there)."""
    import torch._inductor.compile_fx as cfx
    import torch._inductor.decomposition as decomposition

    real_passes = cfx._recursive_joint_graph_passes
    real_is_gpu = decomposition.is_gpu

    def joint_graph_passes(gm: Any, *args: Any, **kwargs: Any) -> Any:
        return real_passes(gm, *args, **hook(gm, kwargs))

    def is_gpu(device: Any) -> bool:
        return device == stand_in or real_is_gpu(device)

    with mock.patch.object(cfx, "_recursive_joint_graph_passes", joint_graph_passes), \
            mock.patch.object(decomposition, "is_gpu", is_gpu):
        yield cfx.compile_fx_inner
