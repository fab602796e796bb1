"""The report against torch's own structured trace (TORCH_TRACE, caches off) of the same program.

Each program in tests/scripts/ runs twice in fresh processes: plainly with
TORCH_TRACE set (what tlparse reads), and under ``python -m explorer run --json``.
Compile ids, Dynamo graphs, output-code modules and graph-break lines must agree,
and the program must print the same thing both times (capture changes nothing).
The programs call ``.backward()`` wherever a graph needs grad, so that torch's
lazily lowered backward shows up in the plain trace too (see trace_breaks.py).
"""

import glob
import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field

import pytest

pytestmark = pytest.mark.slow  # six fresh processes with Inductor compiles: ~3-5 min on 2 cores

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")
PROGRAMS = ["trace_breaks.py", "trace_train_recompile.py", "trace_dynamic.py", "trace_reset.py"]

# glog prefix torch's trace handler writes before each JSON envelope (tlparse's own regex, simplified)
_ENVELOPE = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+:\d+\] (\{.*\})\s*$")
_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)\s*$", re.M)


@dataclass
class Trace:
    """What one TORCH_TRACE run holds, counted as tlparse would."""

    compile_ids: set = field(default_factory=set)
    events: Counter = field(default_factory=Counter)
    breaks: dict = field(default_factory=dict)  # compile id -> (file, line) of the first break
    # torch._dynamo.reset() numbers compilations from 0/0 again: a start record of an id already started
    # opens a new generation, named "g1 0/0" as the explorer names it
    generation: int = 0
    started: set = field(default_factory=set)


def parse_trace_dir(folder):
    """One JSON envelope per line, then its payload as tab-indented lines."""
    trace = Trace()
    files = glob.glob(os.path.join(folder, "*.log"))
    assert files, f"torch wrote no trace into {folder}"
    for path in files:
        records = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("\t"):
                    records[-1][1].append(line[1:])
                    continue
                m = _ENVELOPE.match(line)
                assert m, f"not a trace line: {line[:120]!r}"
                records.append((json.loads(m.group(1)), []))
        for envelope, payload in records:
            _count(trace, envelope, "".join(payload))
    return trace


def _count(trace, envelope, payload):
    name = next((k for k in envelope if k not in ("frame_id", "frame_compile_id", "attempt", "has_payload")), "?")
    if name == "artifact":
        name = "artifact:" + envelope["artifact"]["name"]
    trace.events[name] += 1
    if envelope.get("frame_id") is None:
        return
    cid = f"{envelope['frame_id']}/{envelope['frame_compile_id']}"
    if name == "dynamo_start" and not envelope.get("attempt"):
        if cid in trace.started:
            trace.generation += 1
            trace.started.clear()
        trace.started.add(cid)
    if trace.generation:
        cid = f"g{trace.generation} {cid}"
    trace.compile_ids.add(cid)
    if name == "artifact:dynamo_graph_break_reason":
        m = _BREAK_AT.search(payload)
        assert m, payload[:300]
        trace.breaks.setdefault(cid, (m.group(1), int(m.group(2))))


@dataclass
class Runs:
    trace: Trace
    report: dict
    plain_stdout: str
    cli_stdout: str
    cli_stderr: str
    folder: str = ""  # torch's trace folder of the plain run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every program, plain and under the CLI; each pair runs concurrently to halve the wall time."""
    out = {}
    for program in PROGRAMS:
        tmp = tmp_path_factory.mktemp(program.replace(".py", ""))
        path = os.path.join(SCRIPTS, program)
        env = {**os.environ, "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
        env.pop("TORCH_LOGS", None)
        plain = subprocess.Popen([sys.executable, path], env={**env, "TORCH_TRACE": str(tmp / "trace")},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp))
        # the CLI turns the caches off itself: it gets no cache variable, only no trace
        cli_env = {k: v for k, v in env.items() if k not in ("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "TORCH_TRACE")}
        cli = subprocess.Popen([sys.executable, "-m", "explorer", "run", path, "--json", str(tmp / "r.json")],
                               env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=str(tmp))
        p_out, p_err = plain.communicate(timeout=600)
        c_out, c_err = cli.communicate(timeout=600)
        assert plain.returncode == 0, p_err[-3000:]
        assert cli.returncode == 0, c_err[-3000:]
        with open(tmp / "r.json", encoding="utf-8") as fh:
            report = json.load(fh)
        out[program] = Runs(parse_trace_dir(str(tmp / "trace")), report, p_out, c_out, c_err, str(tmp / "trace"))
    return out


@pytest.mark.parametrize("program", PROGRAMS)
def test_same_compile_ids_graphs_and_output_code_as_torchs_trace(runs, program):
    r = runs[program]
    comps = r.report["capture"]["compilations"]
    assert {c["compile_id"] for c in comps} == r.trace.compile_ids
    assert len(comps) == len(r.trace.compile_ids)
    assert sum(c["graph"] is not None for c in comps) == r.trace.events["dynamo_output_graph"]
    assert sum(len(c["output_code"] or []) for c in comps) == r.trace.events["inductor_output_code"]
    assert r.trace.events["inductor_output_code"] > 0  # the programs use Inductor: not a 0 == 0 check


@pytest.mark.parametrize("program", PROGRAMS)
def test_graph_breaks_at_the_lines_torch_reports(runs, program):
    r = runs[program]
    ours = {c["compile_id"]: (c["graph_break"]["filename"], c["graph_break"]["lineno"])
            for c in r.report["capture"]["compilations"] if c["graph_break"]}
    assert ours == r.trace.breaks


def test_programs_cover_breaks_recompiles_backward_dynamic_and_no_graph(runs):
    """The comparison above is only as good as what the programs make torch do."""
    breaks = runs["trace_breaks.py"]
    assert sorted(line for _, line in breaks.trace.breaks.values()) == [
        _line("trace_breaks.py", 'print("tick")'), _line("trace_breaks.py", "if y.sum() > 0")]
    train = runs["trace_train_recompile.py"]
    assert train.trace.events["artifact:recompile_reasons"] == 1
    assert train.trace.events["aot_backward_graph"] == 2
    dynamic = runs["trace_dynamic.py"]
    comps = dynamic.report["capture"]["compilations"]
    assert [c["graph"] is None for c in comps] == [False, True]  # softmax graph, then the int-only frame
    assert '"Sym(' in comps[0]["graph"]["code"]  # dynamic=True: sizes are symbols in the graph
    reset = runs["trace_reset.py"]
    assert reset.trace.generation == 1 and reset.trace.events["dynamo_start"] >= 2  # 0/0 started twice
    ids = [c["compile_id"] for c in reset.report["capture"]["compilations"]]
    assert ids[0] == "0/0" and "g1 0/0" in ids, ids
    assert [c["frame"]["name"] for c in reset.report["capture"]["compilations"]][:2] == ["f", "g"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_capture_does_not_change_what_the_program_prints(runs, program):
    r = runs[program]
    assert r.cli_stdout == r.plain_stdout
    assert "compile-explorer:" in r.cli_stderr


@pytest.mark.parametrize("program", PROGRAMS)
def test_explorer_open_of_the_plain_runs_trace_matches_the_capture(runs, program):
    """The plain run's trace, opened as a job that ran elsewhere, makes the capture's compilations, graphs,
    graph breaks (file and line) and recompile reasons."""
    from explorer.traces import open_trace

    r = runs[program]
    opened = {c.compile_id: c for c in open_trace(r.folder).compilations}
    ours = {c["compile_id"]: c for c in r.report["capture"]["compilations"]}
    assert list(opened) == list(ours)
    for cid, c in ours.items():
        o = opened[cid]
        assert (o.graph.code if o.graph else None) == (c["graph"]["code"] if c["graph"] else None), cid
        assert (o.frame.name, o.frame.lineno) == (c["frame"]["name"], c["frame"]["lineno"]), cid
        brk = c["graph_break"]
        assert ((o.graph_break.filename, o.graph_break.lineno) if o.graph_break else None) == \
            ((brk["filename"], brk["lineno"]) if brk else None), cid
        assert o.recompile_reason == c["recompile_reason"], cid
        assert len(o.output_code or ()) == len(c["output_code"] or []), cid


def _line(program, text):
    with open(os.path.join(SCRIPTS, program), encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)
