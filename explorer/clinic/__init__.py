"""The graph-break and recompile clinic: where it broke, why it recompiled, what to change.

Pure functions over captured data (``CaptureData``/``Compilation``), except
``why_recompile``, which asks torch's live guard cache about new arguments.
"""

from .diff import CompilationDiff, DiffRow, SectionDiff, diff_compilations
from .fixlist import BreakSite, fix_list
from .fullgraph import explain_exception, with_failure_break
from .recompiles import GuardFailure, RecompileExplanation, explain_recompile, explain_recompiles
from .why import GuardVerdict, why_recompile, would_reuse

__all__ = [
    "BreakSite", "CompilationDiff", "DiffRow", "GuardFailure", "GuardVerdict", "RecompileExplanation",
    "SectionDiff", "diff_compilations", "explain_exception", "explain_recompile", "explain_recompiles",
    "with_failure_break",
    "fix_list", "why_recompile", "would_reuse",
]
