"""What a compilation's panes are built from: one ``PaneContext`` per compilation, made once.

Every pane builder (``present.panes``) takes the context and returns its pane whole, in the order it is shown;
what the builders read about the rest of the report (its kernel keys, its module structure, the records its
chain's links were read from, its kernels' compiles, the compilation a recompile replaced, its exported program)
is read here, once, and handed over as data. Nothing here builds a block.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Optional

from ..capturing.model import CaptureData, Compilation, ExportedProgram, KernelCompileInfo
from ..lineage import Lineage
from ..report import Report
from ..structure import Structure
from .fmt import name_cells
from .structure_view import structure_for


def block_key(stage: str, part: int = 0, kernel: Optional[str] = None) -> str:
    """The name of one text a pane shows, as code blocks and the chain's compacted blocks name it (``STAGE:PART``;
    ``kernels:REF`` for one kernel's source): built here only, and only ever compared, never split."""
    return f"kernels:{kernel}" if stage == "kernels" and kernel else f"{stage}:{part}"


def kernel_refs(comp: Compilation) -> list[str]:
    """A stable key per kernel, parallel to ``comp.kernels``: its name, or ``graph_kind/name`` when a
    name repeats (forward and backward can each have a ``cpp_fused_0``)."""
    names = Counter(k.name for k in comp.kernels)
    return [k.name if names[k.name] == 1 else f"{k.graph_kind}/{k.name}" for k in comp.kernels]


def previous_compilation(comp: Compilation, data: CaptureData) -> Optional[Compilation]:
    """The frame's compilation before ``comp`` (what a recompile replaced), or None."""
    mine = comp.cid
    prev = [c for c in data.compilations if c.frame == comp.frame and mine is not None and c.cid is not None
            and c.cid < mine]
    return prev[-1] if prev else None


def capture_of(report: Report) -> CaptureData:
    """The report's capture: every report the views draw has one (``Report.of`` makes it)."""
    if report.capture is None:
        raise ValueError("a report without capture data has no view")
    return report.capture


@dataclass(frozen=True)
class PaneContext:
    """One compilation and what its panes read of the rest of the report."""

    comp: Compilation
    report: Report
    data: CaptureData  # the report's capture (a report without one has no panes)
    refs: tuple[str, ...]  # each kernel's stable key, parallel to comp.kernels (``kernel_refs``)
    structure: Optional[Structure]  # its modules and their repeats (``structure_view.structure_for``)
    lineage: Optional[Lineage]  # its chain: the user line of each line of every stage
    captions: Mapping[str, str]  # block key -> the record the chain's links of that text were read from
    kernel_compiles: Mapping[tuple[str, str], KernelCompileInfo]  # torch's triton_kernel_info, by (kind, name)
    previous: Optional[Compilation]  # what a recompile replaced (its diff's other side), else None
    export: Optional[ExportedProgram]  # the program torch.export made that this compilation is AOTInductor's of
    node_lines: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # graph stage -> node -> code line
    # the structure when it places any of the compilation's items in a module (its outlines and groups), else None
    modules: Optional[Structure] = None
    # the one record every kernel's links were read from, when they agree (a big report has thousands)
    kernels_caption: Optional[str] = None


def pane_context(comp: Compilation, report: Report) -> PaneContext:
    """The context of ``comp``'s panes in ``report``."""
    data = capture_of(report)
    name_cells(report.clinic.cells)  # a pane built alone (a widget's later panes, a diff): named as in ``build``
    refs = tuple(kernel_refs(comp))
    lin = next((x for x in report.lineage if x.compile_id == comp.compile_id), None)
    captions: dict[str, str] = {}
    node_lines: dict[str, dict[str, int]] = {}
    for t in lin.texts if lin is not None else ():
        kernel = refs[t.part] if t.stage == "kernels" and 0 <= t.part < len(refs) else None
        if t.source and (t.stage != "kernels" or kernel is not None):
            captions[block_key(t.stage, t.part, kernel)] = t.source
        if t.part == 0 and t.stage not in node_lines:
            node_lines[t.stage] = {name: int(line) for line, name in t.elements.items()}
    structure = structure_for(report, comp)
    named = {captions.get(block_key("kernels", kernel=ref)) for ref in refs}
    return PaneContext(
        comp=comp, report=report, data=data, refs=refs, structure=structure, lineage=lin,
        captions=captions, kernel_compiles={(c.graph_kind, c.name): c for c in comp.kernel_compile},
        previous=previous_compilation(comp, data) if comp.recompile_reason else None,
        export=next((e for e in data.exports if e.compile_id == comp.compile_id), None),
        node_lines=node_lines,
        modules=structure if structure is not None and any(p for st in structure.stages for p in st.paths) else None,
        kernels_caption=named.pop() if len(named) == 1 and None not in named else None)
