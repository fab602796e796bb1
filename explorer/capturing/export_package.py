"""What only ``explore_export`` knows after AOTInductor ran: the package it wrote, and the model it came from.

The package (a ``.pt2`` zip) is listed with each file's size; its
``kernel_information.json`` (torch's per-kernel provenance: stack traces,
post-grad and pre-grad nodes per ``kernel:handle``) is read into the kernels
(``parse_output_code.with_kernel_trace``); the AOTInductor compilation is
given the model's own ``forward`` as its frame.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import zipfile
from typing import Any, Optional

from .model import CaptureData, Compilation, Frame, PackageFile
from .parse_output_code import with_kernel_trace

KERNEL_INFORMATION = "kernel_information.json"


def package_files(path: str) -> tuple[tuple[PackageFile, ...], dict]:
    """The package's files with their sizes, and its kernel_information.json table ({} when absent)."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        files = tuple(PackageFile(i.filename, i.file_size) for i in infos if not i.is_dir())
        table: dict = {}
        for i in infos:
            if i.filename.endswith("/" + KERNEL_INFORMATION) or i.filename == KERNEL_INFORMATION:
                value = json.loads(z.read(i.filename).decode("utf-8"))
                if isinstance(value, dict):
                    table.update(value)
    return files, table


def model_frame(model: Any) -> Optional[Frame]:
    fn = getattr(model, "forward", model)
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return Frame(code.co_name, inspect.getsourcefile(fn) or code.co_filename, code.co_firstlineno)


def with_package(data: CaptureData, path: Optional[str], model: Any, kept: bool) -> CaptureData:
    if not data.exports:
        return data
    frame = model_frame(model)
    files, table = package_files(path) if path else ((), {})
    ids = {ep.compile_id for ep in data.exports if ep.compile_id}
    comps = tuple(_compilation(c, frame, table) if c.compile_id in ids else c for c in data.compilations)
    exports = []
    for ep in data.exports:
        if ep.compile_id and path:
            note = () if kept else ("the package was written to a temporary file and removed after it was read; "
                                    "pass package_path= to keep it",)
            ep = dataclasses.replace(ep, package_path=path if kept else None, package_files=files,
                                     notes=tuple(n for n in ep.notes if "generated for the package" not in n) + note)
        exports.append(ep)
    return dataclasses.replace(data, compilations=comps, exports=tuple(exports))


def _compilation(c: Compilation, frame: Optional[Frame], table: dict) -> Compilation:
    kernels = tuple(with_kernel_trace(k, table) for k in c.kernels) if table else c.kernels
    return dataclasses.replace(c, frame=frame or c.frame, kernels=kernels)
