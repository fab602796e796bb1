"""Builds each compilation's Lineage from the captured data, stage by stage.

Linear in the size of the report: every text is read once, line by line; the
only searches are bounded (a node without a stack trace looks at most 64
neighbours for one that has one).
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from typing import Iterable, Optional

from ..capturing.model import CaptureData, Compilation, FxGraph
from . import bytecode as bc
from .graphs import GraphLines, Row
from .inductor import Lowering
from .model import SOURCES, Lineage, Origin, TextLines

_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_SOURCE_OF = {"export_graph": "graph", "aot_joint": "graph", "aot_forward": "graph", "aot_backward": "graph",
              "aot_inference": "graph", "post_grad_graph": "graph", "post_grad_graph_backward": "graph",
              "ir_pre_fusion": "ir", "ir_post_fusion": "ir"}
_GRAPHS = ("graph", "export_graph", "aot_joint", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph",
           "post_grad_graph_backward")


# every field of a Compilation the builder reads: a compilation equal to a recent one in these has its chain
_READS = ("compile_id", *_GRAPHS, "original_bytecode", "rewritten_bytecode", "graph_break", "output_code",
          "kernels", "ir_pre_fusion", "ir_post_fusion")
_RECENT: list[tuple[tuple, Lineage]] = []  # (those fields, the chain) of the last compilations built
_KEEP = 16


def lineage_of(data: CaptureData) -> tuple[Lineage, ...]:
    """Every compilation's chain: each line of each stage with the user lines it came from."""
    return tuple(_lineage(c) for c in data.compilations)


def _lineage(c: Compilation) -> Lineage:
    """A compilation's chain, or that of a recent one equal in what the chain reads: a job's ranks (each read
    from its own log, sharing the records they hold alike) compile the same graphs, and the chain is the
    costliest step after decoding. Compared field by field, shared objects compare by identity at once."""
    key = tuple(getattr(c, f) for f in _READS)
    for seen, lineage in _RECENT:
        if seen == key:
            return lineage
    lineage = _Builder(c).build()
    _RECENT.append((key, lineage))
    del _RECENT[:-_KEEP]
    return lineage


class _Builder:
    def __init__(self, comp: Compilation) -> None:
        self.comp = comp
        self.origin_index: dict[Origin, int] = {}
        self.origins: list[Origin] = []
        self.set_index: dict[tuple[Origin, ...], int] = {(): 0}
        self.sets: list[tuple[int, ...]] = [()]
        self.texts: list[TextLines] = []

    # ---- origin sets ----
    def union(self, groups: Iterable[tuple[Origin, ...]]) -> tuple[Origin, ...]:
        """One set of several: its origins in file and line order."""
        seen: dict[Origin, None] = {}
        for g in groups:
            seen.update(dict.fromkeys(g))
        return tuple(sorted(seen)) if len(seen) > 1 else tuple(seen)

    def _set(self, origins: tuple[Origin, ...]) -> int:
        idx = self.set_index.get(origins)
        if idx is None:
            ids = []
            for o in origins:
                i = self.origin_index.get(o)
                if i is None:
                    i = self.origin_index[o] = len(self.origins)
                    self.origins.append(o)
                ids.append(i)
            idx = self.set_index[origins] = len(self.sets)
            self.sets.append(tuple(ids))
        return idx

    def add(self, stage: str, rows: list[Row], part: int = 0, kernel: Optional[str] = None,
            source: str = "") -> None:
        if not rows:
            return
        runs: list[int] = []
        for origins, group in groupby(map(_FIRST, rows)):
            idx = self._set(origins)
            count = len(list(group))
            if runs and runs[-2] == idx:
                runs[-1] += count
            else:
                runs += [idx, count]
        elements = {str(n): e for n, e in enumerate(map(_SECOND, rows), 1) if e}
        self.texts.append(TextLines(stage, part, kernel, tuple(runs), elements,
                                    source or SOURCES.get(_SOURCE_OF.get(stage, stage), "")))

    # ---- stages ----
    def build(self) -> Lineage:
        c = self.comp
        graphs: dict[str, GraphLines] = {}
        for stage in _GRAPHS:
            g: Optional[FxGraph] = getattr(c, stage)
            if g is not None and g.code:
                graphs[stage] = GraphLines(g)
        dynamo = graphs.get("graph")
        graph_origins = self.union(dynamo.origins.values()) if dynamo else ()
        if c.original_bytecode is not None:
            self.add("source", bc.source_rows(c.original_bytecode))
            self.add("original_bytecode", bc.original_rows(c.original_bytecode))
        for k, fn in enumerate(c.inlined):  # the functions inlined into the frame: where the graph's lines are
            self.add("source", bc.source_rows(fn), k + 1, source=SOURCES["inlined"])
        if c.rewritten_bytecode is not None:
            self.add("rewritten_bytecode", bc.rewritten_rows(c.rewritten_bytecode, c, graph_origins))
            self.add("decompiled", bc.decompiled_rows(c.rewritten_bytecode, c, graph_origins))
        for stage, lines in graphs.items():
            self.add(stage, lines.rows)
        self._inductor(graphs)
        return Lineage(c.compile_id, tuple(self.origins), tuple(self.sets), tuple(self.texts))

    def _inductor(self, graphs: dict[str, GraphLines]) -> None:
        c = self.comp
        outputs = c.output_code or ()
        pre, post = c.ir_pre_fusion or (), c.ir_post_fusion or ()
        kinds = list(dict.fromkeys([o.graph_kind for o in outputs] + [d.graph_kind for d in post + pre]))
        kernel_rows: dict[int, list[Row]] = {}
        kernel_sources: dict[int, str] = {}
        for kind in kinds:
            low = Lowering(c, graphs.get("post_grad_graph_backward" if kind == "backward" else "post_grad_graph"),
                           self.union)
            parts = [part for part, oc in enumerate(outputs) if oc.graph_kind == kind]
            for part in parts:
                low.read_wrapper(part, outputs[part])
            kernel_rows.update(low.kernel_rows)
            kernel_sources.update(low.kernel_sources)
            for stage, dumps in (("ir_post_fusion", post), ("ir_pre_fusion", pre)):
                for part, dump in enumerate(dumps):
                    if dump.graph_kind == kind:
                        self.add(stage, low.ir_rows(dump), part)
            for part in parts:
                self.add("output_code", low.wrapper_rows(part), part, source=SOURCES[low.wrapper_source(part)])
        for i, k in enumerate(c.kernels):
            if i not in kernel_rows:  # a kernel no wrapper module defines: rows from its own nodes
                low = Lowering(c, graphs.get("post_grad_graph_backward" if k.graph_kind == "backward"
                                             else "post_grad_graph"), self.union)
                kernel_rows[i] = low.kernel_source_rows(k, tuple(n for n in k.source_nodes if n in low.table))[0]
            self.add("kernels", kernel_rows[i], i, k.name, source=SOURCES[kernel_source(c, i, kernel_sources)])
        order = {s: n for n, s in enumerate(("source", "original_bytecode", "rewritten_bytecode", "decompiled")
                                            + _GRAPHS + ("ir_pre_fusion", "ir_post_fusion", "output_code", "kernels"))}
        self.texts.sort(key=lambda t: (order.get(t.stage, 99), t.part))


def kernel_source(c: Compilation, i: int, found: dict[int, str]) -> str:
    """Which of torch's records linked kernel ``i`` (``SOURCES`` key)."""
    k = c.kernels[i]
    if k.op_trace:
        return "kernel_trace"
    return found.get(i) or ("nodes" if k.source_nodes else "fragment")
