"""torch.export and AOTInductor: exporting a program, compiling it into a package, loading the package.

Subsystem: ``torch.export`` and ``torch._inductor``'s ``aoti_compile_and_package`` / ``aoti_load_package``.
Version differences: none among 2.11-2.14 (``strict`` defaults to False from 2.7 on; the explorer passes it).
"""

from __future__ import annotations

from typing import Any, Optional


def export_program(model: Any, args: tuple, kwargs: Optional[dict] = None, dynamic_shapes: Any = None,
                   strict: bool = False) -> Any:
    """``torch.export.export`` (public since 2.1; ``strict`` defaults to False from 2.7 on)."""
    import torch

    return torch.export.export(model, tuple(args), kwargs=kwargs, dynamic_shapes=dynamic_shapes, strict=strict)


def aoti_package(program: Any, package_path: str) -> str:
    """AOTInductor's compile of an exported program into a ``.pt2`` package; returns its path."""
    from torch._inductor import aoti_compile_and_package

    return aoti_compile_and_package(program, package_path=package_path)


def aoti_load(package_path: str) -> Any:
    """The callable runner of an AOTInductor package."""
    from torch._inductor import aoti_load_package

    return aoti_load_package(package_path)


def exported_module(program: Any) -> Any:
    """An exported program as a callable module (run eagerly, when no AOTInductor compile was asked for)."""
    return program.module()
