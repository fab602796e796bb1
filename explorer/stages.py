"""The one list of stages a compilation goes through, in pipeline order.

Every output (notebook view, standalone page, text summary, CLI, JSON for
other tools) iterates ``STAGES``; adding a stage is one entry here plus, if it
needs a new ``kind`` of drawing, one renderer per output. Each entry says what
the stage is called, where its content lives in the captured data, how to
highlight it, and, for learners stepping through the view, what that compiler
stage does and what to look at (in the PyTorch 2 paper's terms).

Sits directly on the capture model: no torch, no rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from .capturing.model import Compilation


@dataclass(frozen=True)
class Stage:
    id: str
    title: str
    # how an output draws its content: source, code, bytecode, graph, loop, guards, shapes, break, saved, ir, kernels,
    # timing
    kind: str
    field: str  # dotted path of the content in a Compilation (scope "compilation") or in the Report
    language: Optional[str]  # highlighting: python | cpp | triton | dis | None (plain text)
    part: str  # which half of torch.compile: dynamo | aot | inductor | runtime
    explanation: str  # for learners: what this stage does and what to look at
    scope: str = "compilation"  # "report": content is report-wide (timing), filtered by compile id

    def content(self, comp: Compilation) -> Any:
        """The stage's data in ``comp`` (None when it was not captured); report-scoped stages give None."""
        if self.scope != "compilation":
            return None
        value: Any = comp
        for name in self.field.split("."):
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    def present(self, comp: Compilation) -> bool:
        """Whether ``comp`` has anything to show for this stage (an empty tuple counts as absent)."""
        if self.id == "graph_break":
            return bool(comp.graph_break or comp.recompile_reason or comp.restarts or comp.failure)
        if self.id == "guards":
            return bool(comp.guards or comp.guard_tree)
        if self.id == "cache_loop":  # a compilation that made an entry: its guards, or the cache read live
            return comp.origin == "dynamo" and bool(comp.guards or comp.guard_tree or comp.frame_cache)
        if self.id == "saved_tensors":  # read from both halves of the partition
            return comp.aot_forward is not None and comp.aot_backward is not None
        if self.kind == "bytecode":  # a frame's source read from a trace comes without a listing
            value = self.content(comp)
            return value is not None and bool(value.listing)
        value = self.content(comp)
        return bool(value) if isinstance(value, (tuple, str)) else value is not None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "kind": self.kind, "field": self.field,
                "language": self.language, "part": self.part, "scope": self.scope,
                "explanation": self.explanation}


STAGES: tuple[Stage, ...] = (
    Stage("source", "Source", "source", "original_bytecode.source", "python", "dynamo",
          "The Python code of the frame Dynamo was handed. torch.compile does not read your source: it "
          "installs a frame evaluation hook (PEP 523), so CPython hands Dynamo each frame just before running "
          "it: the code object's bytecode with the frame's live arguments and globals, whose values the trace "
          "may specialise on. Below it, the functions Dynamo inlined into the frame (each module's forward, "
          "helpers), where most of a model's operations are written. Look at which lines hold PyTorch "
          "operations; click a line to follow it through every later stage."),
    Stage("original_bytecode", "Original bytecode", "bytecode", "original_bytecode", "dis", "dynamo",
          "The bytecode CPython compiled this frame to, as Dynamo received it. Dynamo interprets these "
          "instructions symbolically, one by one: plain Python is evaluated on the spot, and each PyTorch "
          "operation is run on FakeTensors (shapes, dtypes and devices, no data) and recorded into a graph "
          "instead of computed. Each instruction carries its source line (the line table): click a row to see "
          "which line of your code it is."),
    Stage("rewritten_bytecode", "Rewritten bytecode", "bytecode", "rewritten_bytecode", "dis", "dynamo",
          "The new code object Dynamo built for this frame: it calls the compiled graph once with the frame's "
          "tensors, then rebuilds the Python state (locals, return value, side effects). At a graph break the "
          "unsupported instructions are copied into it and run inline as ordinary Python, followed by a call "
          "of a resume function for the rest. Your function is left as it is: this code is kept with its "
          "guards in the cache on the original code object (co_extra), and runs in its place whenever they "
          "pass (see How the pieces run)."),
    Stage("decompiled", "Rewritten code as Python", "code", "rewritten_bytecode.decompiled", "python", "dynamo",
          "The rewritten bytecode turned back into readable Python (by depyf's decompiler). Look for the "
          "call to __compiled_fn_N (the graph), the code of a graph break run in between as plain Python, and "
          "any __resume_at_N call (a resume function after the break)."),
    Stage("graph", "Dynamo FX graph", "graph", "graph", "python", "dynamo",
          "The FX graph Dynamo captured: the run of PyTorch operations it could trace without leaving the "
          "graph, with Python control flow already evaluated (a graph records one path through your code). "
          "Its nodes are torch-API calls (torch functions, tensor methods), not yet ATen operators: "
          "AOTAutograd traces it again to get those. Inputs are the frame's tensors (L[...] locals, G[...] "
          "globals); each node keeps the user line it came from. Where Dynamo met something it could not "
          "record, the graph ends: a graph break."),
    Stage("cache_loop", "How the pieces run", "loop", "frame_cache", "python", "dynamo",
          "What runs on every call of this frame. Dynamo's frame evaluator (C code installed through PEP 523) "
          "reads the cache entries kept on the frame's code object, tries each entry's guards, most recently "
          "used first, and runs the code of the first entry whose guards pass. When none passes it compiles a "
          "new entry, or, past recompile_limit, runs the frame eagerly. A resume function after a graph break "
          "is a frame of its own and goes through the same loop. Below: the loop in pseudo-Python beside this "
          "frame's own entries."),
    Stage("guards", "Guards", "guards", "guards", None, "dynamo",
          "The checks that decide whether this compilation's code may run for a call: tensor sizes, strides, "
          "dtypes, devices and requires_grad; Python values the trace depended on; object identities; global "
          "state (grad mode, autocast, default dtype and device). An entry is tried only under the backend it "
          "was compiled for. A failing guard alone does not recompile: Dynamo tries the frame's other entries "
          "first, and compiles a new one only when none passes, up to recompile_limit (8) per frame. The first "
          "change of a size recompiles with that size symbolic (automatic dynamic shapes), so later sizes "
          "reuse it."),
    Stage("dynamic_shapes", "Dynamic shapes", "shapes", "dynamic_shapes", None, "dynamo",
          "Which sizes Dynamo traced as symbols, and what fixed them. A symbol (s77, u0) is a SymInt of Dynamo's "
          "ShapeEnv standing for an input's size (its source, L['x'].size()[0]) with the range of values it may "
          "take. A size is static on the first compile; when a call brings another size Dynamo recompiles with "
          "that dimension symbolic (automatic dynamic), or at once for one marked with "
          "torch._dynamo.mark_dynamic or compiled with dynamic=True. Sizes 0 and 1 never become symbols (0/1 "
          "specialization: broadcasting and contiguity differ for them), so a range starts at 2; under "
          "dynamic=True, inputs of equal size share one symbol (duck sizing), while a dimension made dynamic by a "
          "recompile or mark_dynamic gets its own. When the trace branches on a symbol (if x.size(0) == 8), "
          "the ShapeEnv decides the condition with the example value and records it as a guard, checked before "
          "each call reuses the graph; a guard that leaves one value replaces the symbol by that constant (a "
          "specialization). A backed symbol has an example value to guard on; an unbacked one (u0, from .item() "
          "or nonzero()) has none: a branch on it is a data-dependent error unless torch._check states the "
          "fact, which becomes a runtime assertion. Look at each specialization's line: there a dimension you "
          "meant to be dynamic became static."),
    Stage("graph_break", "Graph break / recompile", "break", "graph_break", None, "dynamo",
          "Why this compilation exists or ended early. A graph break is code Dynamo could not put in the "
          "graph (print, data-dependent control flow, an unsupported call). The graph so far is compiled, the "
          "offending code runs as ordinary Python, and a resume function (a new frame, with its own graph and "
          "guards) picks up after it. Inside a loop Dynamo cannot resume: it drops the graph and runs the whole "
          "frame eagerly, on this call and later ones. A break inside a function Dynamo inlined becomes a break "
          "at its call in this frame (nested graph breaks are off by default), and the callee is compiled as a "
          "frame of its own. A break costs: no fusion across it, another frame and its guards, Python between "
          "the graphs; fullgraph=True turns it into an error. A recompile happens when no cached entry's guards "
          "passed."),
    Stage("export_graph", "Exported program", "graph", "export_graph", "python", "export",
          "The graph torch.export traced from the model, without Dynamo's frames: the whole forward as one "
          "graph of ATen operations, with parameters and buffers lifted to inputs (see the export's signature) "
          "and dynamic dimensions as symbols whose ranges export proved. AOTInductor compiles this program "
          "ahead of time into a package: the stages after this one are that compile."),
    Stage("aot_joint", "AOT joint graph", "graph", "aot_joint", "python", "aot",
          "AOTAutograd traces the Dynamo graph again, through PyTorch's dispatcher down to ATen operators, on "
          "FakeTensors; the backward comes from running PyTorch's own autograd formulas on that traced forward. "
          "The joint forward+backward graph is functionalized: every op in it is out of place, and a mutation "
          "of an input (BatchNorm's running statistics) stays only as a copy_ into that input at the end, or "
          "is applied by AOTAutograd's wrapper. It is decomposed with the backend's table (Inductor's: the "
          "smaller op set it lowers). Built only when some input requires grad and grad mode is on."),
    Stage("aot_forward", "AOT forward graph", "graph", "aot_forward", "python", "aot",
          "The forward half after AOTAutograd partitioned the joint graph. Its extra outputs are the "
          "tensors saved for backward: the partitioner (a min-cut over the joint graph) chooses what to save "
          "and what the backward recomputes instead, minimising the bytes that cross from forward to backward."),
    Stage("aot_backward", "AOT backward graph", "graph", "aot_backward", "python", "aot",
          "The backward half of the partition: it takes the saved tensors and the incoming gradients "
          "(tangents) and computes the gradients of the inputs. AOTAutograd traces and partitions it when the "
          "forward compiles; torch.compile then lowers it with Inductor only at the first .backward() (lazy "
          "backward lowering), unless it saves symbolic sizes."),
    Stage("saved_tensors", "Saved for backward", "saved", "aot_backward", None, "aot",
          "What crosses from the forward to the backward. The partitioner cut the joint graph so that the "
          "forward returns, besides your outputs, the values the backward needs (its extra outputs are the "
          "backward's inputs); they stay alive in memory from forward to backward. Anything else the backward "
          "needs it computes again. The min-cut minimises the bytes that cross, so cheap pointwise ops (an "
          "activation function, a transpose) are recomputed rather than saved: often faster as well as smaller, "
          "since the recomputation fuses into the backward's kernels, which would otherwise read the saved "
          "value from memory. Each row links to its node in the joint graph and its line of your code; "
          "torch.utils.checkpoint and the activation memory budget move this line further towards "
          "recomputation."),
    Stage("aot_inference", "AOT inference graph", "graph", "aot_inference", "python", "aot",
          "When no input requires grad, or no output does (the graph ran under torch.no_grad), AOTAutograd "
          "builds one inference graph of ATen operations, functionalized and decomposed into the smaller op "
          "set Inductor lowers."),
    Stage("post_grad_graph", "Post-grad graph", "graph", "post_grad_graph", "python", "inductor",
          "The graph Inductor lowers, after its post-grad passes (pattern rewrites, removal of no-op views, "
          "reinplacing). Lowering is define-by-run and lazy: a pointwise node is not computed on its own but "
          "inlined into the loop body of each node that reads it. Only realized values become buffers of the "
          "loop-level IR (reductions, inputs and outputs of library calls, graph outputs, values too costly to "
          "compute again in each reader), and a view becomes indexing (a ReinterpretView of its buffer). So "
          "many nodes here become no buffer at all: this inlining is Inductor's first and biggest fusion."),
    Stage("post_grad_graph_backward", "Post-grad graph (backward)", "graph", "post_grad_graph_backward",
          "python", "inductor",
          "The backward graph after Inductor's post-grad passes, lowered into its own kernels (by "
          "torch.compile alone at the first .backward(): see AOT backward graph)."),
    Stage("ir_pre_fusion", "Loop-level IR before fusion", "ir", "ir_pre_fusion", None, "inductor",
          "Inductor's define-by-run loop-level IR: each realized buffer is a computation written as a Python "
          "function of its loop indices (its loop body: ops.load, the math, ops.store, or ops.reduction and "
          "ops.store_reduction). The pointwise ops inlined into a buffer are in its body, so one op can be "
          "computed in several bodies. One scheduler node per buffer, before any fusion: a SchedulerNode for a "
          "Pointwise or Reduction Inductor generates code for, an ExternKernelSchedulerNode for a library "
          "call (a matmul) or an ATen fallback, a NopKernelSchedulerNode for what needs no kernel; templates, "
          "scans and sorts are nodes too."),
    Stage("ir_post_fusion", "Loop-level IR after fusion", "ir", "ir_post_fusion", None, "inductor",
          "The same scheduler nodes after fusion (op0_op1_...). Two nodes may fuse when their loops are "
          "compatible (on GPU the same numel and reduction numel, or a pointwise node into a reduction; on CPU "
          "shared outer loops too), the fusion makes no dependency cycle, and they share data; a library call "
          "does not fuse (on GPU a template may take an epilogue). Inductor ranks the legal pairs by the memory "
          "traffic it estimates each saves and fuses the best first: a consumer into its producer, or nodes "
          "reading the same input (read once). An intermediate buffer leaves memory only when nothing outside "
          "the fused kernel reads it. Fewer nodes here means fewer loop nests (on GPU, fewer kernels); compare "
          "with the IR before fusion."),
    Stage("output_code", "Wrapper code", "code", "output_code", "python", "inductor",
          "The Python module Inductor generated (codegen): it allocates the buffers, reusing a dead buffer's "
          "memory for a later one (# reuse), and calls the kernels and library calls (extern kernels such as "
          "matmuls) in order. This is what runs when the compiled graph is called; with "
          "mode=\"reduce-overhead\" on a GPU, a CUDA graph records one run of it and replays it."),
    Stage("kernels", "Kernels", "kernels", "kernels", None, "inductor",
          "The kernels Inductor generated (codegen): C++ with OpenMP loops, vectorized through "
          "at::vec::Vectorized, on CPU; Triton on GPU. On GPU each kernel is one fused group of loop-level IR "
          "nodes; on CPU the C++ backend puts consecutive groups into one function, one loop nest each, until a "
          "library call ends it. A kernel's header names the FX nodes it computes. Click a line of a kernel to "
          "light the line of your code it computes."),
    Stage("compile_time", "Compile time", "compile_time", "phases", None, "runtime",
          "Where this compilation's compile time went, in torch's own phases. Each block torch times with "
          "dynamo_timed (torch/_dynamo/utils.py) writes a begin and an end chromium_event, with its compile id, to "
          "the structured trace that TORCH_TRACE saves; the explorer reads the same records live. They nest: "
          "dynamo (the whole of convert_frame's _compile), entire_frame_compile, bytecode_tracing (Dynamo tracing "
          "the frame), backend_compile (the backend: AOTAutograd, then Inductor), inductor_compile, "
          "GraphLowering.run (lowering to loop-level IR), code_gen (scheduling, fusion, writing the kernels), "
          "compile_file (a C++ compiler run), build_guards. The bars give each phase's own time (its time less "
          "the phases inside it), biggest first; single passes (pass.*) count in their parent's time. A cache "
          "hit skips Inductor's phases, so they are short or absent."),
    Stage("timing", "Timing", "timing", "timing", None, "runtime",
          "What the compiled code costs against eager: the whole compiled call as you make it (guards, "
          "frames, resume functions) and the graph alone, each with its spread, measured after warm-up; "
          "compile time apart, with the number of calls it takes to pay for itself.", scope="report"),
)

BY_ID: dict[str, Stage] = {s.id: s for s in STAGES}


def stage(stage_id: str) -> Stage:
    return BY_ID[stage_id]


def compilation_stages() -> tuple[Stage, ...]:
    """The stages whose content lives in a compilation (everything but report-wide ones)."""
    return tuple(s for s in STAGES if s.scope == "compilation")


# ---- why a stage is empty ----

_NO_NEW_CODE = ("Dynamo wrote no new code object for this frame, so torch's bytecode hook "
                "(torch._dynamo.convert_frame.register_bytecode_hook, called with each code object Dynamo makes) "
                "never fired")
_INDUCTOR_DID_NOT_LOWER = "Inductor did not lower this graph (another backend, or a cache hit skipped lowering)"
_USUALLY = {  # when the compilation's state says nothing more specific
    "source": "the frame's source text could not be read (code typed at a prompt, or built by exec/eval)",
    "original_bytecode": _NO_NEW_CODE,
    "rewritten_bytecode": _NO_NEW_CODE,
    "decompiled": "no decompiler result was recorded",
    "graph": "Dynamo captured no FX graph in this frame: its operations all ran as ordinary Python",
    "cache_loop": "this compilation left no cache entry (no guards were recorded): nothing of it runs on a "
                  "later call",
    "guards": "no guards were recorded for this compilation",
    "dynamic_shapes": "Dynamo made no symbol for this compilation: every size was traced as a constant (static "
                      "shapes; a recompile with another size makes it dynamic)",
    "graph_break": "Dynamo traced this frame to its end, and this is the first compilation that matched "
                   "(not a recompile)",
    "export_graph": "not an AOTInductor compile of an exported program (explore_export, --export)",
    "aot_joint": "no joint graph: nothing here requires grad, or AOTAutograd did not run (e.g. backend='eager')",
    "aot_forward": "the backend did not run AOTAutograd (for example backend='eager')",
    "aot_backward": "AOTAutograd produced no backward graph",
    "aot_inference": "no inference graph: this graph was compiled for training (see AOT forward / backward), "
                     "or AOTAutograd did not run",
    "post_grad_graph": _INDUCTOR_DID_NOT_LOWER,
    "post_grad_graph_backward": "no backward graph was lowered by Inductor (nothing requires grad, or another backend)",
    "ir_pre_fusion": _INDUCTOR_DID_NOT_LOWER,
    "ir_post_fusion": _INDUCTOR_DID_NOT_LOWER,
    "output_code": "the backend is not Inductor (for example backend='aot_eager'), or Inductor's result came "
                   "from a cache",
    "kernels": "no kernels: another backend than Inductor, or everything ran as library calls (e.g. matmuls)",
    "compile_time": "torch wrote no timed spans (chromium events) for this compilation, or the report was saved "
                    "by an explorer that did not keep them",
    "timing": "timing was not asked for (explore(..., time=True), %%compile without --no-time, run --time)",
}


# what each cache's hit leaves out: the stages torch did not run because the entry held their result
_SKIPPED_BY = {
    "fx_graph": ("post_grad_graph", "post_grad_graph_backward", "ir_pre_fusion", "ir_post_fusion", "output_code",
                 "kernels"),
    "aotautograd": ("aot_joint", "aot_forward", "aot_backward", "aot_inference", "post_grad_graph",
                    "post_grad_graph_backward", "ir_pre_fusion", "ir_post_fusion", "output_code", "kernels"),
}
CACHE_NAMES = {"fx_graph": "FX graph cache", "aotautograd": "AOTAutograd cache", "dynamo": "Dynamo's precompile cache"}
# what torch re-emits from a cache entry on a hit (shown as the cached artifact, not re-made)
_FROM_CACHE = {"fx_graph": ("post_grad_graph", "post_grad_graph_backward", "output_code", "kernels"),
               "aotautograd": ("aot_joint", "aot_forward", "aot_backward", "aot_inference")}


def cache_hits(comp: Compilation) -> list:
    """The compilation's cache hits (``CacheLookup``), in the order torch consulted the caches."""
    return [c for c in comp.caches if c.outcome == "hit"]


def skipped_by_cache(stage_id: str, comp: Compilation) -> Optional[str]:
    """"skipped: FX graph cache hit (key ...)" when a cache hit is why the stage was not run, else None."""
    if stage_id in ("aot_joint", "aot_forward", "aot_backward") and comp.aot_inference is not None:
        return None  # inference only: these were never to be made
    if stage_id == "aot_inference" and comp.aot_forward is not None:
        return None
    if stage_id == "post_grad_graph_backward" and comp.aot_backward is None and comp.aot_forward is None:
        return None
    for hit in cache_hits(comp):
        if stage_id in _SKIPPED_BY.get(hit.cache, ()):
            key = f" (key {hit.key})" if hit.key else ""
            return (f"skipped: {CACHE_NAMES.get(hit.cache, hit.cache)} hit{key}: torch loaded the compiled result "
                    f"instead of running this stage, and keeps no copy of it")
    return None


def cached_from(stage_id: str, comp: Compilation) -> Optional[str]:
    """For a stage shown from a cache entry (the output code on an FX graph cache hit): where it came from."""
    for hit in cache_hits(comp):
        if stage_id in _FROM_CACHE.get(hit.cache, ()):
            key = f" (key {hit.key})" if hit.key else ""
            return f"from the {CACHE_NAMES.get(hit.cache, hit.cache)}{key}: the artifact torch kept, not lowered again"
    return None


# the explorer's stage store (``capturing.stage_store``): the records it gives back for a hit, by the stage they make
STORED_STAGES = {"ir_pre_fusion": "ir_pre_fusion", "ir_post_fusion": "ir_post_fusion"}
_STORED_WORDS = {"artifact:inductor_runtime_and_tensor_meta": "Inductor's runtime estimates",
                 "artifact:inductor_collective_schedule": "the collective schedule"}
FRESH_REMEDY = ("capture once with fresh=True (%%compile --fresh, run --fresh): it lowers every graph again and "
                "fills the store for the captures after it")


def stored_title(record: str) -> str:
    """A record the stage store keeps, named as the view names what it makes."""
    stage_id = STORED_STAGES.get(record)
    return BY_ID[stage_id].title if stage_id else _STORED_WORDS.get(record, record)


def _when(epoch: Optional[float]) -> str:
    import time

    return time.strftime(" on %Y-%m-%d at %H:%M", time.localtime(epoch)) if epoch else ""


def _graph(kind: str) -> str:
    return f"the {kind} graph" if kind else "the graph"


def stored_from(stage_id: str, comp: Compilation) -> Optional[str]:
    """For a stage shown (in part) from the explorer's stage store: whose it is and when a capture lowered it, and
    which graph's the store could not give."""
    said = []
    for s in comp.stored:
        if stage_id not in (STORED_STAGES.get(r) for r in s.records):
            continue
        key = f" (key {s.key})" if s.key else ""
        if s.outcome == "replayed":
            said.append(f"{_graph(s.graph_kind)}'s, as a capture lowered it{_when(s.lowered_at)}: an FX graph cache "
                        f"hit{key} served the graph here, and torch's entry keeps no loop-level IR")
        else:
            said.append(f"not {_graph(s.graph_kind)}'s: {s.detail}; {FRESH_REMEDY}")
    return "; ".join(said) or None


def store_missing(stage_id: str, comp: Compilation) -> Optional[str]:
    """Why a stage a hit skipped is empty where the stage store could not give it back (a default capture's hit)."""
    said = []
    for s in comp.stored:
        if s.outcome == "missing" and stage_id in (STORED_STAGES.get(r) for r in s.records):
            key = f" (key {s.key})" if s.key else ""
            said.append(f"an FX graph cache hit{key} served {_graph(s.graph_kind)}, so torch did not lower it here, "
                        f"and {s.detail}")
    return f"skipped: {'; '.join(said)}; {FRESH_REMEDY}" if said else None


def why_missing(stage_id: str, comp: Compilation) -> str:
    """A reason a person can act on for an empty stage, from what the compilation shows."""
    recorded = comp.missing.get(stage_id)
    if recorded:
        return recorded
    if stage_id == "saved_tensors":  # read from the forward and backward graphs: empty for their reason
        lacking = "aot_forward" if comp.aot_forward is None else "aot_backward"
        return f"no partition to read ({BY_ID[lacking].title} not captured): {why_missing(lacking, comp)}"
    skipped = store_missing(stage_id, comp) or skipped_by_cache(stage_id, comp)
    if skipped:
        return skipped
    if comp.origin != "dynamo":
        outside = _outside_dynamo(stage_id, comp)
        if outside:
            return outside
    if comp.status == "failed":
        if stage_id == "cache_loop":
            return f"the compilation failed, so it left no cache entry: {comp.failure}"
        return f"the compilation failed before this stage: {comp.failure}"
    if comp.status == "skipped":
        return "Dynamo looked at this frame and left it as it was (no PyTorch operations to put in a graph)"
    if stage_id == "decompiled" and comp.rewritten_bytecode is not None:  # the listing is there: say where
        why = comp.rewritten_bytecode.decompile_error or _USUALLY["decompiled"]
        return f"{why}. The Rewritten bytecode stage shows the code as a bytecode listing."
    if stage_id in ("source", "original_bytecode", "rewritten_bytecode", "decompiled", "graph_break",
                    "export_graph", "cache_loop"):
        return _USUALLY[stage_id]
    if comp.graph is None:
        return _USUALLY["graph"]
    aot_ran = any(x is not None for x in (comp.aot_forward, comp.aot_inference, comp.aot_joint))
    if stage_id in ("aot_backward", "aot_forward", "aot_joint") and comp.aot_inference is not None:
        return ("inference only: no input requires grad, or no output does (grad mode was off), so AOTAutograd "
                "built one inference graph (see AOT inference)")
    if stage_id == "post_grad_graph_backward" and comp.aot_backward is not None \
            and (comp.post_grad_graph is not None or comp.output_code):
        return ("AOTAutograd traced this backward (see AOT backward graph), but torch.compile lowers it only at "
                "the first .backward(), which did not run while this was captured (a default or --fresh capture "
                "lowers it early, to show it)")
    if stage_id == "kernels" and comp.output_code:
        return "Inductor generated no kernels of its own here (only library calls or views)"
    if not aot_ran and stage_id in ("aot_joint", "aot_forward", "aot_backward", "aot_inference"):
        return "the backend did not run AOTAutograd (for example backend='eager')"
    if not aot_ran and stage_id not in ("guards",):
        return "the backend did not run AOTAutograd or Inductor (for example backend='eager')"
    return _USUALLY.get(stage_id, "it was not recorded")


def _outside_dynamo(stage_id: str, comp: Compilation) -> Optional[str]:
    """Why a Dynamo or training stage is empty in a compile no Dynamo frame made (AOTInductor's)."""
    what = ("an AOTInductor compile of an exported program" if comp.origin == "aoti"
            else "an Inductor compile outside any Dynamo frame")
    if stage_id in ("source", "original_bytecode", "rewritten_bytecode", "decompiled", "graph", "cache_loop",
                    "guards", "graph_break"):
        return (f"{what}: no Dynamo frame, so no bytecode, Dynamo graph or guards (torch.export traced the "
                f"program; its graph, signature and ranges are under the export)")
    if stage_id in ("aot_joint", "aot_forward", "aot_backward", "post_grad_graph_backward") \
            and comp.aot_inference is not None:
        return f"{what}: compiled for inference, so AOTAutograd built one inference graph (see AOT inference)"
    return None


def with_missing(comp: Compilation) -> Compilation:
    """``comp`` with ``missing`` giving, for every empty stage of the registry, why it is empty.

    The pipeline applies this to every compilation, so the JSON carries the
    reasons for other tools; a reason the capture recorded (an unreadable record) wins.
    """
    import dataclasses

    why = {s.id: why_missing(s.id, comp) for s in compilation_stages() if not s.present(comp)}
    # a report-wide stage's reason the capture recorded (a trace holds no runtime) is kept for the views
    why.update({k: v for k, v in comp.missing.items() if k in BY_ID and BY_ID[k].scope != "compilation"})
    return dataclasses.replace(comp, missing=why)
