"""What ``run_cell`` listens to while the cell runs: Dynamo's records, turned into findings and live duties."""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass
from typing import Any, Optional

from ..capturing.compile_id import CompileId
from ..capturing.decoders import DecodeContext, decode
from ..capturing.elements import record_of
from ..capturing.model import Finding, GraphBreak
from ..capturing.raw import RawEvent
from ..capturing.recorder import BYTECODE, CALLBACKS, COMPILE_END, COMPILE_START, RESET, TRACE, listening
from ..capturing.records import FrameStart, GraphBreakReason, Metrics, OutputCodeText
from .function import CELL_FUNCTION_NAME, CellFunction
from .name_windows import NameWindows


def reset_finding() -> Finding:
    return Finding("the cell called torch._dynamo.reset() (or torch.compiler.reset()): Dynamo forgot "
                   "every compilation made before it, and torch numbers compilations from 0/0 again. The view "
                   "keeps both: a compilation after the reset is named with its generation, [g1 0/0] after "
                   "the first reset, [g2 0/0] after the second")


# the trace events the watch acts on while the cell runs, read by the capture's own decoders
_HEARD = frozenset({"dynamo_start", "compilation_metrics", "artifact:dynamo_graph_break_reason",
                    "inductor_output_code"})
_CONTEXT = DecodeContext()  # no interned file names: the watch names frames by the cell's file


@dataclass(frozen=True)
class _Failure:
    """A compile that failed: its ``compilation_metrics`` record and its compile id as the report names it."""

    metrics: Metrics
    compile_id: Optional[str]

    @property
    def fail_type(self) -> str:
        return str(self.metrics.values.get("fail_type"))

    def line_in(self, filename: str) -> Optional[int]:
        """The user's line the compile failed at, when it is a line of ``filename``."""
        at = self.metrics.failed_at
        return at.lineno if at is not None and at.filename == filename else None


class Watch:
    """Everything ``run_cell`` listens to while the cell runs, as one subscriber of the listener
    (``capturing.recorder.listening``: the open capture's, or one of its own for a re-run).

    * a claim on Dynamo's ``convert_frame`` logger: a frame Dynamo could not
      compile and ran unchanged (the suppressed error) becomes a finding instead
      of a traceback on stderr; fake tensors' report of the same failure too;
    * the structured trace: compile ids and user lines of failed compiles, graph
      breaks the explorer's settings cause, Inductor's RNG;
    * Dynamo's bytecode hook: which code objects were compiled for the cell;
    * compile start/end and resets: ``NameWindows`` (placeholders while Dynamo
      compiles, Dynamo's helper globals), ``suppress_errors`` turned on again.
    """

    def __init__(self, cell: CellFunction, findings: list[Finding]) -> None:
        self.cell = cell
        self.findings = findings
        self.names = NameWindows(cell)
        self.codes: list[Any] = []
        self._last_failed: Optional[_Failure] = None
        self._last_start: Optional[FrameStart] = None  # the frame Dynamo started on last (None: none named)
        self._meta_failures: list[str] = []
        self._rng_ids: list[Optional[CompileId]] = []  # the graphs drawing Inductor's random numbers
        self._stack = contextlib.ExitStack()
        self.suppressing = False  # suppress_errors is on for the cell (set by run_cell)
        self.user_suppresses = False  # the user's own suppress_errors (set by run_cell)
        self._backend_failed = False
        self.rewritten: list[Any] = []  # Dynamo's rewritten code for ``codes``: their helper globals go with them
        self.rewrote_any = False  # Dynamo compiled code of the cell (which ``forget_compilations`` then drops)
        self.resets = 0  # torch._dynamo.reset() calls seen while the cell ran
        self._listening: Any = None  # capturing.recorder.Listening
        self._refused: Optional[_Failure] = None  # the cell's own frame, refused and raised
        self._compiling = False  # Dynamo is compiling, for the cell (a plain run of it compiles nothing)
        self.dynamo_warnings: list[str] = []

    # ---- install / remove ----
    def __enter__(self) -> Watch:
        from ..capturing import torch_door

        try:
            self._listening = listen = self._stack.enter_context(
                listening(self.on_event, seams=(TRACE, BYTECODE, CALLBACKS), keep=(COMPILE_START, COMPILE_END, RESET)))
            listen.claim(torch_door.dynamo.SUPPRESSED_FRAME_LOGGER, self._on_convert_frame)
            listen.claim(torch_door.fx.FAKE_TENSOR_LOGGER, self._on_fake_tensor)
            listen.divert_warnings(lambda: self._compiling, self.dynamo_warnings)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> bool:
        try:
            self._listening.poll_reset()  # a reset after the last compilation
        finally:
            self._stack.close()
        return False

    # ---- callbacks ----
    def on_event(self, event: RawEvent) -> None:
        """One event from the listener; a bug here must not break the compile, nor go unseen: a finding."""
        try:
            if event.name == "bytecode_hook":
                self._on_bytecode(*event.payload)
            elif event.name == COMPILE_START:
                self._on_compile_start()
            elif event.name == COMPILE_END:
                self.names.close()
            elif event.name == RESET:
                self.resets += 1
            else:
                self.on_trace(event)
        except Exception as e:  # noqa: BLE001 - shown as a finding; the compile goes on
            self.findings.append(Finding(f"the explorer's watcher failed on a {event.name} record "
                                         f"({type(e).__name__}: {e}); please report this"))

    def _on_compile_start(self) -> None:
        if self._backend_failed:  # a frame compiled after a backend failure is suppressed again
            from ..capturing import torch_door

            torch_door.config.set_dynamo_config("suppress_errors", True)
            self._backend_failed = False
        self.names.open()

    def _on_bytecode(self, code: Any, new_code: Any) -> None:
        from ..capturing import torch_door

        if not any(c is code for c in self.codes):
            if not (code is self.cell.fn.__code__ or not torch_door.dynamo_cache.cache_entries(code)):
                return  # compiled before this cell: not the cell's to forget
            self.codes.append(code)  # first compiled for this cell: forgotten afterwards
        self.rewritten.append(new_code)
        self.rewrote_any = True

    def _on_convert_frame(self, record: logging.LogRecord) -> bool:
        """False (drop) for Dynamo's "WON'T CONVERT" report of an error it suppressed."""
        from ..capturing import torch_door

        message = record.getMessage()
        if record.levelno < logging.WARNING or not message.startswith(torch_door.dynamo.SUPPRESSED_FRAME_PREFIX):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        frame = torch_door.dynamo.suppressed_frame(message)
        # the cell's own code refused after a graph break: the rest of it runs with Dynamo off, as plain Python
        plainly = bool(frame and frame[1] == self.cell.filename and torch_door.dynamo.run_frame_plainly(exc))
        self.findings.append(self._frame_ran_plainly(frame, exc, plainly))
        return False

    def _on_fake_tensor(self, record: logging.LogRecord) -> bool:
        from ..capturing import torch_door

        message = record.getMessage()
        if not message.startswith(torch_door.fx.FAKE_TENSOR_META_FAILURE):
            return True
        self._meta_failures.append(message)
        return False

    def on_trace(self, event: RawEvent) -> None:
        """A trace record, read by its decoder (``capturing.decoders``), as the capture reads it afterwards."""
        if event.name not in _HEARD:
            return
        if event.name == "dynamo_start":
            self._refused = None
            self._compiling = True
        elif event.name == "compilation_metrics":
            self._compiling = False
        # a record its decoder cannot read is a Problem the capture names (assemble decodes it again)
        record = record_of(decode(event, _CONTEXT))
        cid = event.compile_id.key if event.compile_id is not None else None
        if event.name == "dynamo_start":
            self._last_start = record if isinstance(record, FrameStart) else None
        elif isinstance(record, Metrics) and record.values.get("fail_type"):
            self._last_failed = _Failure(record, cid)
            self._on_failed_compile(self._last_failed)
        elif isinstance(record, GraphBreakReason):
            self._on_graph_break(record.graph_break, cid)
        elif isinstance(record, OutputCodeText):
            from ..capturing.inductor_code.wrapper import uses_inductor_rng

            if uses_inductor_rng(record.code):
                self._rng_ids.append(event.compile_id.compilation if event.compile_id is not None else None)

    def _on_failed_compile(self, failure: _Failure) -> None:
        """A failed compile that must raise instead of running its frame unconverted.

        Compilation metrics are written before Dynamo decides whether to suppress the
        error, so turning suppression off here makes exactly this failure raise; the
        next compile turns it on again.

        * A backend that raised is the user's chosen compiler failing: that raises, as
          with torch.compile (``BackendCompilerFailed``, Inductor's ``InductorError``),
          unless the user set ``suppress_errors`` themselves (torch.compile then falls
          back to eager, and so does the cell).
        * The cell's own frame, refused before any of it ran: it raises out of the
          compiled call, and ``run_cell`` runs the cell as plain Python, so nothing of it
          runs inside a compile region (Dynamo would run the refused frame with its
          callback still installed: ``set_stance`` raises there, ``is_compiling`` lies).
          A refusal Dynamo always skips quietly (a graph break it cannot resume from)
          runs as torch.compile runs it.
        """
        from ..capturing import torch_door

        if not self.suppressing:
            return
        backend = failure.fail_type in torch_door.dynamo.BACKEND_FAILURES
        frame = failure.metrics.frame
        own = frame is not None and frame.name == CELL_FUNCTION_NAME and frame.filename == self.cell.filename
        if backend and not self.user_suppresses:
            torch_door.config.set_dynamo_config("suppress_errors", False)
            self._backend_failed = True
        elif own and not torch_door.dynamo.is_soft_failure(failure.fail_type):
            torch_door.config.set_dynamo_config("suppress_errors", False)
            self._backend_failed = True
            self._refused = failure

    def refused(self, error: BaseException) -> bool:
        """``error`` is Dynamo refusing the cell's own frame (``_on_failed_compile``): nothing of the cell ran.

        The refusal raises straight out of the compiled call (the cell's frame has not
        started, so no ``try`` of the cell sees it); a backend's failure carries the
        backend's traceback, so the compile is not always among its frames.
        """
        return self._refused is not None and isinstance(error, Exception)

    def refusal_finding(self, error: BaseException) -> Finding:
        from ..capturing import torch_door

        refused = self._refused
        cid = refused.compile_id if refused else None
        lineno = refused.line_in(self.cell.filename) if refused else None
        where = f" (it failed at line {lineno})" if lineno else ""
        if refused and refused.fail_type in torch_door.dynamo.BACKEND_FAILURES:
            why = (f"the backend raised ({exception_words(error)}); torch._dynamo.config.suppress_errors is "
                   "True (your setting), so torch.compile falls back to eager")
        else:
            why = exception_words(error)
        return Finding(f"Dynamo could not compile the cell{where}: {why}; the cell ran as plain Python "
                       "(nothing of it compiled; the torch.compile calls it makes itself still compile)", None,
                       cid, lineno)

    def _on_graph_break(self, gb: GraphBreak, compile_id: Optional[str]) -> None:
        """A graph break the explorer's own running of the cell causes, said as such."""
        if gb.filename != self.cell.filename or not gb.lineno:
            return
        lineno, line, said = gb.lineno, gb.source_line or "", gb.detail  # torch's words, not its own traceback
        if line.startswith("assert ") or line.startswith("assert("):
            self.findings.append(Finding(
                f"line {lineno} `{line}`: a graph break here, because the explorer keeps an assert "
                "on tensor data a Python assert (a failing one is an AssertionError, as in a plain run); "
                "plain torch.compile puts it in the graph as torch._assert_async, and a failing one raises "
                "RuntimeError from the kernel", "graph_break", compile_id, lineno))
        elif re.match(r"del\b", line) and "disable" in said:
            self.findings.append(Finding(
                f"line {lineno} `{line}`: a graph break here, because Dynamo cannot delete a global "
                "(it has no DELETE_GLOBAL): the explorer runs the del as plain Python, where Dynamo alone would "
                "give up on the whole frame", "graph_break", compile_id, lineno))
        elif "RemovableHandle" in said:
            self.findings.append(Finding(
                f"line {lineno} `{line}` reads a name the cell binds only later: a graph break "
                "here, and that line runs as plain Python (a plain run raises the same NameError)", "graph_break",
                compile_id, lineno))

    # ---- after the run ----
    def _frame_ran_plainly(self, frame: Optional[tuple[str, str, int]], exc: Optional[BaseException],
                           plainly: bool = False) -> Finding:
        """``frame``: (name, file, first line) of the frame Dynamo's "WON'T CONVERT" names."""
        from ..capturing import torch_door

        failed = self._last_failed
        compile_id = failed.compile_id if failed else None
        where = self._frame_words(*frame) if frame else "a frame"
        lineno = failed.line_in(self.cell.filename) if failed else None
        if lineno:
            where += f" (it failed at line {lineno})"
        why = exception_words(exc) if exc is not None else failed.fail_type if failed else "an error"
        if failed and failed.fail_type in torch_door.dynamo.BACKEND_FAILURES and self.user_suppresses:
            why += ("; torch._dynamo.config.suppress_errors is True (your setting), so torch.compile falls back "
                    "to eager for it")
        self._meta_failures.clear()  # fake tensors' report of this same failure
        ran = "that frame ran as plain Python" + (" (Dynamo off for it and all it called)" if plainly else "")
        return Finding(f"Dynamo could not compile {where}: {why}; {ran}", None, compile_id, lineno)

    def _frame_words(self, name: str, filename: str, lineno: int) -> str:
        from ..capturing import torch_door

        resume = torch_door.dynamo.resumed(name)
        if filename == self.cell.filename:
            if name == CELL_FUNCTION_NAME:
                return "the cell"
            if resume and resume[0] == CELL_FUNCTION_NAME:
                return f"the cell from line {resume[1]} on (after a graph break)"
        if resume:
            return f"{resume[0]} from line {resume[1]} on ({filename.rsplit('/', 1)[-1]})"
        return f"{name} ({filename.rsplit('/', 1)[-1]}:{lineno})"

    def conclude(self, error: Optional[BaseException], fullgraph: bool) -> list[Finding]:
        from ..capturing import torch_door

        out: list[Finding] = []
        if self.resets:
            out.append(reset_finding())
        out += self._nested_compile_findings()
        if self.cell.is_compiling_lines:
            lines = ", ".join(str(n) for n in self.cell.is_compiling_lines)
            out.append(Finding(f"line {lines}: torch.compiler.is_compiling() is asked by the cell "
                               "itself. Dynamo would fold it to True inside the compiled cell, where a plain run "
                               "gets False, so the explorer runs that call as plain Python (a graph break there) "
                               "and the cell takes the branch a plain run takes", "graph_break"))
        if self.cell.is_compiling_inside and self.rewrote_any:
            lines = ", ".join(str(n) for n in self.cell.is_compiling_inside)
            out.append(Finding(f"line {lines}: a function of the cell asks torch.compiler.is_compiling(). "
                               "Where the compiled cell calls it, Dynamo traces it as part of the cell and folds "
                               "the answer to True; a plain run of the cell gets False there (unless the function "
                               "is compiled by a torch.compile of your own)"))
        if self.dynamo_warnings:
            out.append(Finding("while compiling the cell Dynamo warned (a plain run compiles nothing and "
                               "warns nothing; kept here, off stderr): " + "; ".join(dict.fromkeys(
                                   self.dynamo_warnings))))
        for message in self._meta_failures:  # a fake-tensor failure no suppressed frame explained
            out.append(Finding(f"fake tensors: {message}"))
        if self._rng_ids and torch_door.config.inductor_fallback_random() is False:
            ids = ", ".join([c.key for c in sorted({c for c in self._rng_ids if c is not None})]
                            + ["?"] * (None in self._rng_ids))
            out.append(Finding(
                f"graph {ids} draws random numbers with Inductor's own generator: after "
                "torch.manual_seed it gives other values than eager PyTorch. For the same values set "
                "torch._inductor.config.fallback_random = True (slower)", "output_code",
                next((c.key for c in self._rng_ids if c is not None), None)))
        if error is not None and raised_while_compiling(error):
            at = self.interrupted_at(error)
            where = self._frame_words(at[2], at[0], at[1]) if at else "the cell"
            if isinstance(error, KeyboardInterrupt):
                out.append(Finding(f"interrupted while Dynamo was compiling {where}: none of that code "
                                   "had run yet (what ran before it did, and its names are bound)"))
            elif fullgraph:
                out.append(Finding(f"with --fullgraph torch.compile raised while compiling {where}: "
                                   "none of that code ran"))
        self.names.conclude(out)
        return out

    def _nested_compile_findings(self) -> list[Finding]:
        if not self.cell.nested_compiles:
            return []
        lines = ", ".join(str(n) for n in self.cell.nested_compiles)
        return [Finding(f"line {lines}: the cell calls torch.compile itself. Inside the compiled cell "
                        "Dynamo would make that call a no-op (it returns what it is given, uncompiled), so the "
                        "explorer runs it as plain Python, a graph break at that line: what it returns is compiled "
                        "as in a plain run. Its own compilations show when it runs outside the cell's compiled "
                        "code; %%compile --capture-only runs the cell as it is and shows exactly what the cell's "
                        "own torch.compile calls compile", "graph_break")]

    def interrupted_at(self, error: Optional[BaseException]) -> Optional[tuple[str, int, str]]:
        """Where Dynamo was compiling when ``error`` came out of the compile itself."""
        if error is None or not raised_while_compiling(error):
            return None
        frame = self._last_start.frame if self._last_start is not None else None  # its first line and name
        if frame is not None and frame.lineno and frame.name != CELL_FUNCTION_NAME:
            return (self.cell.filename, frame.lineno, frame.name)
        return (self.cell.filename, _first_statement_line(self.cell), CELL_FUNCTION_NAME)

    def forget_compilations(self) -> None:
        from ..capturing import torch_door
        from ..capturing.frame_cache import READ_BEFORE_DROP
        from ..capturing.recorder import read_frame_caches

        if self.codes:  # the capture reads their cache entries while they still hold them
            read_frame_caches(READ_BEFORE_DROP)
        reset = []
        while self.codes:
            reset += torch_door.dynamo_cache.forget_code(self.codes.pop())
        torch_door.dynamo_cache.release_helper_globals(reset, self.rewritten)
        self.rewritten.clear()
        self.names.remove_leftovers()


def _first_statement_line(cell: CellFunction) -> int:
    lines = [line for _, _, line in cell.fn.__code__.co_lines() if line and line > 1]
    return min(lines) if lines else 1


def raised_while_compiling(error: BaseException) -> bool:
    """The exception came out of Dynamo's compile (the frame it compiled had not started)."""
    from ..capturing import torch_door

    tb = error.__traceback__
    while tb is not None:
        if torch_door.dynamo.is_convert_frame_file(tb.tb_frame.f_code.co_filename):
            return True
        tb = tb.tb_next
    return False


def exception_words(exc: BaseException) -> str:
    """``TorchRuntimeError (from IndexError: index 5 is out of bounds ...)``: the first line of the error and of
    its root cause. Torch wraps the user's error once or twice (torch 2.11: TorchRuntimeError from Unsupported from
    the IndexError); the root is what the user's line did."""
    def first(e: BaseException) -> str:
        text = str(e).strip().splitlines()
        return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__

    cause, seen = exc, {id(exc)}
    while (nxt := cause.__cause__ or cause.__context__) is not None and id(nxt) not in seen and len(seen) < 20:
        cause = nxt
        seen.add(id(nxt))
    words = first(exc)
    if cause is not exc and type(cause).__name__ not in words:
        words += f" (from {first(cause)})"
    return words if len(words) <= 300 else words[:297] + "..."
