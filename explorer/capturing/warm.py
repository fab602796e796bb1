"""What a capture records about how it ran: its cache mode, the compile stance, kernels built or loaded.

The default capture (``cache_mode`` ``cold``) leaves the graph caches on: a graph an earlier
capture lowered comes from torch's cache, and what the hit skips (the loop-level
IR) from the explorer's stage store (``stage_store``); a fresh one turns the
graph caches off, so every graph is lowered again; a warm one leaves every cache
as it is, as a second run of the program would. torch's code caches serve every
mode as they serve a plain run (a kernel whose source an earlier run compiled is
loaded, not built again).
Either way the stance in force (``torch.compiler.set_stance``) is read when the
capture starts, when each compilation starts (``dynamo_start``, live) and when it
ends, and each C++ kernel is looked up in the module Inductor loaded: a binary
written since the capture began was built by it, an older one came from the cache.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Optional

from . import torch_door
from .model import CaptureData, Compilation, Kernel, PackageFile
from .raw import RawCapture, RawEvent


class SessionUsage:
    def __init__(self) -> None:
        self.stance_start = "default"
        self.stance_end = "default"
        self.stances: dict[str, str] = {}  # compile id -> the stance when Dynamo started it
        self._unsubscribe: Optional[Callable[[], None]] = None

    def begin(self, recorder: Any) -> None:
        self.stance_start = torch_door.dynamo.current_stance()
        self._unsubscribe = recorder.subscribe(self._on_event)

    def _on_event(self, ev: RawEvent) -> None:
        if ev.name == "dynamo_start" and ev.compile_id is not None:
            self.stances.setdefault(ev.compile_id.key, torch_door.dynamo.current_stance())

    def end(self) -> None:
        self.stance_end = torch_door.dynamo.current_stance()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def apply(self, data: CaptureData, *, mode: str, since: float) -> CaptureData:
        comps = tuple(self._compilation(c, since) for c in data.compilations)
        return dataclasses.replace(
            data, compilations=comps, cache_mode=mode, stance=self.stance_start,
            stance_at_end=self.stance_end if self.stance_end != self.stance_start else None)

    def _compilation(self, c: Compilation, since: float) -> Compilation:
        stance = self.stances.get(c.compile_id)
        kernels = kernel_builds(c, since)
        if stance == c.stance and kernels is c.kernels:
            return c
        return dataclasses.replace(c, stance=stance, kernels=kernels)


def kernel_builds(c: Compilation, since: float) -> tuple[Kernel, ...]:
    """Each kernel with ``build`` set where its loaded binary can be found: built since ``since``, or loaded."""
    if not c.kernels or not c.output_code:
        return c.kernels
    modules = [torch_door.inductor.output_module(oc.filename) for oc in c.output_code if oc.language == "python"]
    bundled = {name for lookup in c.caches for name in lookup.bundled_kernels}
    out = []
    for k in c.kernels:
        build = _build_of(k, modules, since)
        if build is None and k.name in bundled:
            build = "loaded"
        out.append(dataclasses.replace(k, build=build) if build else k)
    return tuple(out)


def _build_of(k: Kernel, modules: list[Any], since: float) -> Optional[str]:
    for mod in modules:
        path = torch_door.inductor.kernel_binary(mod, k.name) if mod is not None else None
        if path:
            try:
                return "built" if os.path.getmtime(path) >= since else "loaded"
            except OSError:
                return None
    return None


def aoti_generated_files(raw: RawCapture) -> dict[str, tuple[PackageFile, ...]]:
    """AOTInductor's wrapper file -> the files generated beside it (what its package is made of), with sizes."""
    out: dict[str, tuple[PackageFile, ...]] = {}
    for ev in raw.events:
        fields = ev.metadata.get("graph_dump") if ev.name == "graph_dump" else None
        if not (isinstance(fields, dict) and fields.get("name") == "inductor_aot_wrapper_code"):
            continue
        path = fields.get("filename")
        folder = os.path.dirname(path) if isinstance(path, str) else ""
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        out[path] = tuple(PackageFile(n, os.path.getsize(os.path.join(folder, n))) for n in names
                          if os.path.isfile(os.path.join(folder, n)))
    return out


def with_generated_files(data: CaptureData, files: dict[str, tuple[PackageFile, ...]]) -> CaptureData:
    """Each export whose AOTInductor compile wrote files gets them listed (until a package says more)."""
    if not files or not data.exports:
        return data
    by_id = {c.compile_id: c for c in data.compilations}
    exports = []
    for ep in data.exports:
        comp = by_id.get(ep.compile_id or "")
        wrapper = next((oc.filename for oc in (comp.output_code or ()) if oc.language == "cpp"), None) if comp else None
        listed = files.get(wrapper or "")
        if listed and not ep.package_files:
            ep = dataclasses.replace(ep, package_files=listed, notes=ep.notes + (
                "the files AOTInductor generated for the package (the .pt2 adds the weights and metadata)",))
        exports.append(ep)
    return dataclasses.replace(data, exports=tuple(exports))
