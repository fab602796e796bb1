"""compile-explorer: see every stage of torch.compile, per notebook cell.

    import explorer
    report = explorer.explore(fn, x)        # or: with explorer.capture() as report: ...
    report.save_html("report.html")
    report = explorer.open_trace("trace_dir")   # a job's TORCH_TRACE, every rank

In Jupyter: ``%load_ext explorer`` then ``%%compile`` on a cell.
"""

from . import present  # noqa: F401  (hands every Report its views: save_html, summary, display)
from .api import capture, explore, explore_export, show
from .clinic import why_recompile
from .report import Report, use_notebook_view
from .traces import open_trace

__all__ = ["Report", "capture", "explore", "explore_export", "load_ipython_extension", "open_trace", "show",
           "why_recompile"]
__version__ = "0.1.0"


class _NotebookView:
    """What a displayed report asks for (``report.use_notebook_view``): the view is imported when first made, as
    anywidget takes most of a second to import, and a script that only saves a report never needs it."""

    @staticmethod
    def live() -> bool:
        from .hosts import widgets_live

        return widgets_live()

    @staticmethod
    def view(report):
        from .widget import ExplorerView

        return ExplorerView(report)


use_notebook_view(_NotebookView)


def load_ipython_extension(ipython):
    from .magic import register

    register(ipython)
