"""A TORCH_TRACE log file, read back as the records the recorder takes in-process.

torch's trace handler (``torch/_logging/_internal.py``, ``TorchLogsFormatter``
with ``trace=True``) writes each ``trace_structured`` call as one glog line,
``V1205 11:20:38.177000 10916 torch/_dynamo/convert_frame.py:303] {json}``,
followed, when the envelope has ``has_payload`` (the payload's MD5), by the
payload's lines, each prefixed with a tab. ``records`` turns that text back
into ``(metadata, payload)`` pairs, the very pairs the trace logger hands the
recorder's handler, and ``replay`` feeds them to a ``Recorder`` so that the
interned file names, the noise, the compile ids and the decoding are the
in-process capture's own (``assemble``): there is no second decoder.

Reading streams the file a block at a time, so memory holds the records the
recorder keeps, not the file. Nothing in a file stops the reading: a line that
is no record, an envelope that is not JSON, a payload whose MD5 differs from its
``has_payload`` (the file was cut or edited), or a file that ends mid-record
(a job killed while writing) is one ``Problem`` naming the file and line, and
the records around it are read as usual.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import IO, Callable, Iterator, Optional

from ..plural import counted, noun
from .model import Problem
from .raw import WHERE, describe_error, event_name
from .recorder import NOISE, Recorder

BLOCK = 1 << 22  # characters read at a time
GZ_BLOCK = 1 << 16  # from a .gz: a file cut short loses only the block it ends in
SHARED_TEXT = 1024  # payloads at least this long that the recorder keeps are shared between equal records
READ = "read the trace"  # a Problem's ``where``: what the explorer could not do
MAX_PROBLEMS = 20  # per kind and file; the rest are counted in one more problem
# torch's glog prefix: level, date, time, process id, the logging call's file:line, then the envelope
GLOG = re.compile(r"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +(\d+) [^:\]]+:\d+\] ")
_BOUNDARY = re.compile(r"\n(?![\t\n])")  # a line that is neither a payload line nor blank starts a record
VERSION_ARTIFACT = "torch_version"


@dataclass(frozen=True)
class Record:
    """One record of a log file: its envelope (with ``WHERE``: file and line), its payload, its line."""

    metadata: dict
    payload: Optional[str]
    line: int
    pid: Optional[int] = None


@dataclass
class FileFacts:
    """What reading one file learnt besides its records: which rank and torch wrote it, what went wrong."""

    name: str
    records: int = 0
    ranks: set[int] = field(default_factory=set)  # the envelopes' ``rank`` (set once the process group was up)
    torch_version: Optional[str] = None  # from torch's ``torch_version`` artifact
    pids: set[int] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)
    _kinds: dict[str, int] = field(default_factory=dict)

    def problem(self, kind: str, line: Optional[int], message: str, event: Optional[str] = None) -> None:
        """One problem per bad record, up to ``MAX_PROBLEMS`` of a kind; past that they are counted."""
        n = self._kinds[kind] = self._kinds.get(kind, 0) + 1
        if n <= MAX_PROBLEMS:
            at = f"{self.name} line {line}: " if line is not None else f"{self.name}: "
            self.problems.append(Problem(READ, at + message, event))

    def close(self) -> None:
        for kind, n in self._kinds.items():
            if n > MAX_PROBLEMS:
                more = n - MAX_PROBLEMS
                self.problems.append(Problem(READ, f"{self.name}: {counted(more, 'more record')} with the same "
                                             f"problem ({kind}) {noun(more, 'is', 'are')} not listed one by one"))


def records(stream: IO[str], facts: FileFacts, block: int = BLOCK) -> Iterator[Record]:
    """The records of a log file's text, in order; what cannot be read goes to ``facts.problems``."""
    ended, last_ok = True, True
    for line, text in _record_texts(stream, block):
        ended = text.endswith("\n")
        if text.startswith("\n"):  # blank lines before the record (log shippers add them): not records
            stripped = text.lstrip("\n")
            line += len(text) - len(stripped)
            text = stripped
        text = text.rstrip("\n")
        if not text:
            continue
        before = len(facts.problems)
        record = _record(text, line, facts)
        last_ok = record is not None and len(facts.problems) == before
        if record is not None:
            facts.records += 1
            yield record
    if not ended and not last_ok:
        facts.problem("cut", None, "the file ends in the middle of a line, and its last record is incomplete: the "
                      "file was cut while being written (a job killed mid-write, a copy that stopped)")


def _record_texts(stream: IO[str], size: int) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each record: its envelope line and its payload lines (and the blank lines
    among them, which are no lines of the payload: torch writes a payload's empty line as a lone tab)."""
    line, rest, scanned = 1, "", 0
    while True:
        block = stream.read(size)
        if not block:
            break
        text = rest + block if rest else block
        start = 0
        for m in _BOUNDARY.finditer(text, max(scanned - 1, 0)):
            if m.end() == len(text):
                break  # the next character decides: wait for the next block
            yield line, text[start:m.start() + 1]
            line += text.count("\n", start, m.end())
            start = m.end()
        rest = text[start:]
        scanned = len(rest)
    if rest:
        yield line, rest


def _record(text: str, line: int, facts: FileFacts) -> Optional[Record]:
    head, _, body = text.partition("\n")
    head = head.rstrip("\r")
    m = GLOG.match(head)
    if m is None:
        facts.problem("not a record", line, f"not a trace record (no glog prefix such as 'V1205 11:20:38.177000 "
                      f"10916 file.py:303] '): {_excerpt(head)}")
        return None
    try:
        metadata = json.loads(head[m.end():])
    except ValueError as e:
        facts.problem("bad JSON", line, f"the record's JSON envelope cannot be read ({e}): {_excerpt(head[m.end():])}"
                      + ("; its payload lines are skipped with it" if body else ""))
        return None
    if not isinstance(metadata, dict):
        facts.problem("bad JSON", line, f"the record's envelope is a {type(metadata).__name__}, not a JSON object")
        return None
    payload = _payload(metadata, body, line, facts)
    pid = int(m.group(1))
    facts.pids.add(pid)
    rank = metadata.get("rank")
    if isinstance(rank, int):
        facts.ranks.add(rank)
    metadata[WHERE] = f"{facts.name}:{line}"
    return Record(metadata, payload, line, pid)


def _payload(metadata: dict, body: str, line: int, facts: FileFacts) -> Optional[str]:
    expected = metadata.get("has_payload")
    if not body:
        if expected is None:
            return None
        payload = ""
    else:
        if "\n\n" in body or body.startswith("\n"):  # blank lines inside: not part of the payload
            body = "\n".join(part for part in body.split("\n") if part)
        payload = body[1:].replace("\n\t", "\n")
        if expected is None:
            facts.problem("stray payload", line, "payload lines follow a record that declares none (no "
                          "has_payload): they are kept as its payload")
            return payload
    digest = hashlib.md5(payload.encode("utf-8", "surrogateescape"), usedforsecurity=False).hexdigest()
    if digest != expected:
        facts.problem("MD5", line, f"the payload's MD5 is {digest}, its has_payload says {expected}: the payload "
                      "was cut or changed after torch wrote it; it is read as it is", _name(metadata))
    return payload


def _name(metadata: dict) -> Optional[str]:
    return event_name(metadata)


def _excerpt(text: str, n: int = 80) -> str:
    return repr(text[:n]) + ("..." if len(text) > n else "")


def replay(stream: IO[str], facts: FileFacts, recorder: Recorder,
           before: Optional[Callable[[Record], None]] = None, block: int = BLOCK,
           texts: Optional[dict[str, str]] = None) -> None:
    """Every record of ``stream`` handed to ``recorder`` as its trace handler would have; torch's own version
    record is kept in ``facts``. A record the recorder cannot take is a problem, and the next one is read.
    ``before(record)`` runs first for each record (to put in what another source adds at that point).
    ``texts``: payloads already read (other ranks' logs, earlier repeats): an equal payload the recorder keeps
    is that one string, so a job's ranks hold one copy of what they logged alike."""
    for record in records(stream, facts, block):
        if before is not None:
            before(record)
        artifact = record.metadata.get("artifact")
        if isinstance(artifact, dict) and artifact.get("name") == VERSION_ARTIFACT:
            facts.torch_version = torch_version_of(record.payload) or facts.torch_version
            continue
        payload = record.payload
        if texts is not None and payload is not None and len(payload) >= SHARED_TEXT and _name(record.metadata) \
                not in NOISE:
            payload = texts.setdefault(payload, payload)
        try:
            recorder.take_trace(record.metadata, payload)
        except Exception as e:  # noqa: BLE001 - one odd record costs only itself: it is listed with its line
            facts.problem("unreadable", record.line, f"the record could not be taken in ({describe_error(e)})",
                          _name(record.metadata))
    facts.close()


def torch_version_of(payload: Optional[str]) -> Optional[str]:
    """``2.13.0+cpu`` from torch's ``torch_version`` artifact (JSON: ``pytorch_version``, ``commit``)."""
    try:
        value = json.loads(payload or "")
    except ValueError:
        return None
    version = value.get("pytorch_version") if isinstance(value, dict) else None
    return str(version) if version else None


def open_text(path: str) -> IO[str]:
    """A log file as text, ``.gz`` unpacked as it is read; bytes that are not UTF-8 are kept escaped.

    Lines end as torch wrote them (a payload's lone ``\r`` stays), unless the file's first line ends in
    ``\r\n`` (it went through Windows): then every ``\r\n`` is read as ``\n``, as tlparse reads it."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        head = fh.read(1 << 16)
    crlf = head.split(b"\n", 1)[0].endswith(b"\r")
    if opener is gzip.open:
        return gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape", newline=None if crlf else "")
    return open(path, encoding="utf-8", errors="surrogateescape", newline=None if crlf else "")
