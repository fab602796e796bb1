"""The words the renderers put around the view model's blocks: their controls, what a pane says while it waits,
the static copy's furniture. Part of the view model (``present.viewmodel`` and friends write every word a user
reads); the renderers only fill in the blanks.

Each entry is a template: ``{name}`` is filled by the renderer with a number, a compile id, a stage's title
(``fill``); a pair is the singular and the plural, picked by ``n``. ``FRONT`` travels in the payload
(``labels.ui``): the page and the widget draw their toolbar, pickers and pane states from it
(``frontend/src/model.js``, ``Model.w``). ``STATIC`` is the static copy's (``present.html``), ``TEXT`` the text
summary's own furniture. The front end's only words of its own are the few it shows before it has a payload to
read them from (tests/test_one_writer_of_words.py lists them).
"""

from __future__ import annotations

from typing import Any, Union

Template = Union[str, tuple[str, str]]

# what both interactive views (widget, page) say; ``{side}`` is a pane's id: left or right
FRONT: dict[str, Template] = {
    "brand": "compile-explorer",
    "no_compilations": "No compilations were captured. ",
    "no_compilations_why": "Nothing ran through torch.compile here (or every frame was skipped).",
    "toolbar": "explorer controls",
    "compilation": "Compilation ",
    "compilation_aria": "compilation (both panes)",
    "compiled_nothing": "this rank compiled nothing",
    "previous": "◀ Previous",
    "previous_title": "Previous stage (←)",
    "next": "Next ▶",
    "next_title": "Next stage (→)",
    "stepper": "step through the stages",
    "step": "{side} pane · step {i} of {n}: {title}",
    "explanations": "Explanations",
    "explanations_title": "Show or hide each stage's explanation",
    "side_by_side": "Side by side: ",
    "keys": "Keys: ← → step through the stages · ↑ ↓ move along a pane's lines · Enter follows a line · Esc clears",
    "with_kernel": "With the kernel: ",
    # the widget asks its kernel when it is drawn (frontend/src/kernel.js): "asking" until it answers, "none" where
    # none did (a saved notebook, an exported or converted page, a restarted kernel)
    "kernel_asking": "Asking the kernel…",
    "kernel_none": "Checking guards and saving as HTML need the kernel that made this view, and none answered: "
                   "this is a saved notebook or page, or its kernel has restarted since: run the cell again to use "
                   "them.",
    "why_label": "why would this call recompile? ",
    "why_aria": "a call to check against the guards",
    "check_guards": "Check guards",
    "save_html": "Save as HTML",
    # a pane
    "pane": "{side} pane",
    "stage_aria": "{side} pane: stage",
    "stage_title": "Stage (pipeline order), then each kernel",
    "not_captured_option": "{title} (not captured)",
    "kernel_option": "Kernel {ref}",
    "kernel_title": "kernel {ref}",
    "cid_aria": "{side} pane: compilation",
    "cid_title": "Compilation (compile id)",
    "diff_aria": "{side} pane: compare with",
    "diff_title": "Show the difference against another compilation or stage",
    "diff_off": "Diff: off",
    "vs_other_pane": "vs the other pane ({cid} {title})",
    "vs_compilation": "vs {cid} (same stage)",
    "vs_replaced": "vs {cid} (same stage) — before the recompile",
    "vs_stage": "vs {title} (this compilation)",
    "vs_rank": "vs rank {rank}'s {cid} (same compilation)",
    "diff_needs_kernel": "Other diffs are computed by the kernel: open the report in a notebook "
                         "(explorer.show(path)) for them",
    "graph_view": "graph view",
    "code": "Code",
    "picture": "Picture",
    "zoom_fit": "fit",
    "draw_failed": "The view could not draw this stage: {error}",
    "not_captured": "Not captured here",
    "not_recorded": "it was not recorded",
    "loading_stage": "Loading this stage: the kernel is sending the rest of this big report…",
    "stage_not_sent": "This stage is sent by the kernel after the view's first part (the report is big), and none "
                      "answered: this is a saved notebook or page, or its kernel has restarted since: run the cell "
                      "again, or save the report as HTML (report.save_html), which has all of it.",
    "loading_rest": "Loading: the kernel is sending the rest of this big report…",
    "computing_diff": "Computing the diff in the kernel…",
    "diff_failed": "The diff could not be computed: {error}",
    "diff_not_here": "This diff is not in the page: it carries the diffs it offers first (a recompile against "
                      "what it replaced, ranks that compiled differently); the kernel computes any other "
                      "(explorer.show(path) in a notebook).",
    "show_folded": "click to show",
    # ranks
    "rank": "Rank ",
    "rank_aria": "rank (both panes)",
    "loading_rank": "Loading rank {rank}…",
    "loading_rank_report": "Loading rank {rank}'s report…",
    "rank_not_here": "Rank {rank}'s report is not in this view.",
    "rank_failed": "Rank {rank} could not be loaded: {error}",
    # the chain
    "chain_hint": "The chain: click a line of the source (or of any pane) to light up everything that came from "
                  "the same user line.",
    "no_chain": "The line-level chain is not in this report (no lineage was recorded), so lines are not linked "
                "across stages.",
    "chain": "Chain: ",
    "glue_title": "came from no user line (glue: guards, wrapper bookkeeping, Dynamo's own code)",
    "glue_clicked": "This line came from no user line: it is glue (guards, wrapper bookkeeping, Dynamo's own code).",
    "show_line": "show this line in the source",
    "cell_line": "{cell}, line {line}",  # a user line in a notebook cell: cell [5], line 3
    "in_compilation": "→ in {cid}:",
    "nothing_else": "nothing else (no later stage came from it)",
    "show_stage": "show {title} in the other pane",
    "clear": "clear (Esc)",
    "n_lines": ("{n} line", "{n} lines"),
    "in_kernels": ("{lines} in {n} kernel", "{lines} in {n} kernels"),
    # pictures
    "no_picture": "No picture for this graph.",
    "drawing_picture": "Drawing the picture (Graphviz runs in the kernel)…",
    "picture_asking": "Asking the kernel to draw the picture…",
    "picture_unpacking": "Unpacking the pictures…",
    "picture_none": "The picture is drawn by the kernel that made this view, and none answered: this is a saved "
                    "notebook or page, or its kernel has restarted since: run the cell again, or save the report "
                    "as HTML (report.save_html), which draws every picture.",
    "picture_not_drawn": "The picture was not drawn (no kernel is connected).",
    "picture_unreadable": "The picture could not be read.",
    "close_box": "close",
}

# the static copy's own (present.html)
STATIC: dict[str, Template] = {
    "brand": "compile-explorer",
    "compilations": "Compilations",
    "not_captured": "Not captured here ({n}): {titles}",
    "diff_against": "Diff against {cid}",
    "no_such_kernel": "No such kernel:",
    "in_compilation": "{ref} in compilation {cid}",
    "unknown_stage": "Unknown stage:",
    "cut": ("… {n} more line ({chars} characters) is in the interactive view and the standalone page, left out of "
            "this static copy.",
            "… {n} more lines ({chars} characters) are in the interactive view and the standalone page, left out of "
            "this static copy."),
    "show_all": ("show all ({n} more line, {chars} characters)", "show all ({n} more lines, {chars} characters)"),
    "code": "code",
    "picture": "picture",
    "picture_in_view": "The picture is drawn in the interactive view (a notebook with its kernel running, or the "
                       "report saved as HTML: report.save_html).",
    "node_table_below": " The node table is below.",
    "node_table": "node table",
    "no_dot": "no node of this graph was read from its text: there is nothing to draw",
    "more_nodes": ("… {n} more node (see the code above)", "… {n} more nodes (see the code above)"),
}
NODE_HEAD = ("name", "op", "target", "type", "user line")  # the static copy's table of a graph's nodes


# what the explorer could not do, by a Problem's ``where`` (the step that failed, as the JSON names it): the
# views write "The explorer could not <this>: " before the problem's record and message
COULD_NOT: dict[str, str] = {
    # reading what torch emitted (capturing/)
    "decoder": "read a record torch wrote",
    "fold": "fit a record into its compilation",
    "recorder": "take in a record torch emitted",
    "recorder.close": "remove one of its hooks from torch",
    "recorder.read_frame_caches": "read the compiled frames' cache entries",
    "assemble": "read every record torch emitted",
    "device": "name the device the graphs ran on",
    "export": "read an exported program",
    "guard filter": "record what the guard filter decided",
    "read the trace": "read the trace",
    # the pipeline's steps (pipeline.STEPS)
    "export package": "read the exported package",
    "reading the exception": "read the code's exception",
    "kernel details": "read the kernels' details",
    "why stages are empty": "say why some stages are empty",
    "findings": "place what torch.compile did differently from a plain run",
    "clinic": "work out what to fix",
    "lineage": "link each line through the stages",
    "modules and repeats": "find the model's modules and its repeated blocks",
    "timing": "time eager against compiled",
    "compare": "compare the modes",
    "autotuning and CUDA graphs": "read autotuning and CUDA graphs",
    "preview": "preview the compile for the target",
    "why slow": "say where the run's time went",
}
# ``fold: <step>``: one step of putting a compilation together from its records (capturing/fold.py)
FOLD_STEPS: dict[str, str] = {
    "build": "the compilation", "frame": "frame", "metrics": "metrics", "bytecode": "bytecode",
    "guards": "guards", "lowerings": "Inductor lowerings", "regions": "compiled regions",
    "ddp_optimizer": "DDPOptimizer buckets", "call_sites": "collectives' call sites",
    "inlined": "inlined functions", "restarts": "restarts", "kernels": "kernel table",
    "dynamic_shapes": "dynamic shapes",
}
READ_IN_PART = "Read in part: "  # a record some of whose elements were kept as ``?`` or left out


def could_not(where: str) -> str:
    """``The explorer could not read a record torch wrote: ``: a Problem's step as the start of a sentence."""
    step, _, rest = where.partition(": ")
    if where in COULD_NOT:
        what = COULD_NOT[where]
    elif step == "fold" and rest:
        part = FOLD_STEPS.get(rest, rest)
        what = "put the compilation together" if part == "the compilation" else \
            f"put together a compilation's {part}"
    elif where.startswith("subscriber "):
        what = f"pass torch's records to its listener {where.removeprefix('subscriber ')}"
    elif where.endswith(" output"):
        what = f"write the {where.removesuffix(' output').upper()} output"
    else:  # a step with no words yet (tests/test_one_writer_of_words.py lists every step the code names)
        what = f"finish its step “{where}”"
    return f"The explorer could not {what}: "


def fill(template: Template, **values: Any) -> str:
    """``template`` with its blanks filled; a (singular, plural) pair picks by ``n`` (a number, or one written
    out: ``"1"``)."""
    if isinstance(template, tuple):
        template = template[0] if str(values.get("n")) == "1" else template[1]
    return template.format(**values) if values else template


def front(key: str, **values: Any) -> str:
    return fill(FRONT[key], **values)


def static(key: str, **values: Any) -> str:
    return fill(STATIC[key], **values)


def static_note(kind: str, what: Any = None) -> dict:
    """The static copy's notes as blocks: what the budget left out (``what``: the stages' titles), a
    compilation's failure (``what``: the message), no compilations at all."""
    if kind == "left_out":
        return {"t": "note", "cls": "cx-missing cx-left-out", "r": [
            {"b": "Left out of this static copy"}, f" (to keep the notebook small): {', '.join(what)}. The "
            "interactive view shows them, and so does the standalone page (", {"code": "report.save_html(path)"}, ")."]}
    if kind == "failed":
        return {"t": "note", "cls": "cx-bad", "r": [{"b": "Failed:"}, " ", what]}
    return {"t": "note", "cls": "cx-missing", "r": [{"b": "No compilations were captured."}, " Nothing ran through "
                                                    "torch.compile inside the capture (or every frame was skipped)."]}
