"""Parts of the static page built alone, for tests: a compilation's pane keys, one kernel, the fix list, the timing
section. The package builds them only inside a page (``explorer.present.html``); these wrap one part in what the
page would give it (a ``Ctx``, a compilation holding only the kernel) so a test can look at it alone."""

from __future__ import annotations

from typing import Any

from explorer.capturing.compile_id import CompileKey
from explorer.capturing.model import Compilation, Frame, Kernel
from explorer.present import viewmodel as vm
from explorer.present.context import kernel_refs
from explorer.present.html import Ctx, block, blocks
from explorer.present.panes import kernel_div
from explorer.present.words import front
from explorer.stages import STAGES


def stage_keys(comp: Compilation) -> list[tuple[dict, str]]:
    """Every pane ``stage_html`` shows for this compilation (``stage_html(comp, **pane)``), with labels (for
    pickers): each stage ``{"stage"}``, then each kernel ``{"stage": "kernels", "kernel": REF}``."""
    return [({"stage": s.id}, s.title) for s in STAGES] + [({"stage": "kernels", "kernel": r},
                                                            front("kernel_option", ref=r)) for r in kernel_refs(comp)]


def kernel_html(kernel: Kernel, *, max_chars: int = 200_000) -> str:
    """One kernel: name, language, the FX nodes / ATen ops / user lines it came from, its source."""
    comp = Compilation(CompileKey(""), Frame("", "", 0), "compiled", kernels=(kernel,))
    return block(kernel_div(kernel, kernel.name, 0), Ctx(comp=comp, max_chars=max_chars))


def fix_list_html(sites: Any) -> str:
    """The "what to fix" list: one row per break site, most costly first."""
    return blocks(vm.fix_list(sites), Ctx())


def timing_html(timing: Any, comparisons: tuple = ()) -> str:
    """Tables and charts of a timing report, no scripts, no external assets."""
    body = vm.timing_blocks(timing, timing.graphs if timing else (), comparisons, timeit=True)
    return f'<div class="cx-timing">{blocks(body, Ctx())}</div>'
