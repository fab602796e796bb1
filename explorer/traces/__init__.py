"""Opening a job's TORCH_TRACE (``python -m explorer open PATH``, ``explorer.open_trace``): the same report as a run
under the explorer, for jobs that ran elsewhere (a cluster's ranks, a CI job, a bug report's attachment).

``paths`` says what PATH holds (rank logs, unranked and stray files, a TORCH_COMPILE_DEBUG folder's loop-level
IR); ``capturing.trace_file`` reads each log into the records the in-process capture takes, so the decoding is
the capture's own; ``opening`` builds one report per process with the pipeline's steps after the capture, and
merges the ranks (``jobs.merge``); ``gaps`` names what a trace cannot hold; ``source`` finds the user's
code on disk, or the lines the trace quotes.
"""

from .opening import OpenError, open_trace

__all__ = ["OpenError", "open_trace"]
