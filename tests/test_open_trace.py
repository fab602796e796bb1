"""``python -m explorer open PATH`` / ``explorer.open_trace``: a job's TORCH_TRACE read as the report a run makes.

The first tests need no torch: logs are written here in torch's format from the recorded traces of
tests/fixtures/traces (the (metadata, payload) pairs torch's trace logger handed the recorder), or by hand
for a bad line. Then traces torch itself wrote: one process (beside an in-process capture of the very same
run, so both saw the same compile) and two ranks on gloo; and, where ``CX_TLPARSE_INPUTS`` names the
``tests/inputs`` folder of a pytorch/tlparse checkout, every log tlparse's own tests read.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tarfile

import pytest
from fixtures import tape

from explorer import cli
from explorer.capturing import torch_door
from explorer.capturing.recorder import Recorder
from explorer.capturing.session import read
from explorer.present import viewmodel
from explorer.traces import OpenError, gaps, open_trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PID = 4242


# ---- writing logs as torch writes them ----

def record(metadata: dict, payload: str | None = None, pid: int = PID) -> str:
    """One record as torch's TorchLogsFormatter(trace=True) writes it: a glog line, then the payload's lines."""
    meta = {k: v for k, v in metadata.items() if k != "has_payload"}
    if payload is not None:
        meta["has_payload"] = hashlib.md5(payload.encode("utf-8")).hexdigest()
    text = f"V1205 11:20:38.177000 {pid} torch/_dynamo/convert_frame.py:303] {json.dumps(meta)}"
    if payload is not None:
        text += "".join(f"\n\t{line}" for line in payload.split("\n"))
    return text + "\n"


def tape_log(name: str, extra: dict | None = None) -> str:
    """A recorded trace as its log file: its structured-trace records only (no IR or bytecode loggers)."""
    out = []
    for line in tape.lines(name):
        if line["source"] != "trace":
            continue
        payload = line.get("payload")
        if payload is None and line.get("payload_size"):
            payload = "x" * line["payload_size"]
        meta = dict(line["metadata"], **(extra or {}))
        out.append(record(meta, payload))
    return "".join(out)


def direct(name: str):
    """The same records handed to the recorder directly, as the in-process capture is."""
    rec = Recorder()
    for line in tape.lines(name):
        if line["source"] == "trace":
            payload = line.get("payload")
            if payload is None and line.get("payload_size"):
                payload = "x" * line["payload_size"]
            rec.take_trace(line["metadata"], payload)
    return read(rec.raw, notes=[], wall_time_s=None, error=None, torch_version="x", device="cpu")


SAME = ("compile_id", "frame", "status", "graph", "guards", "guard_tree", "graph_break", "more_breaks",
        "recompile_reason", "restarts", "aot_joint", "aot_forward", "aot_backward", "aot_inference",
        "post_grad_graph", "post_grad_graph_backward", "output_code", "kernels", "caches", "metrics",
        "compile_time_s", "failure", "side_effects")


def _same(a, b):
    for f in SAME:
        if f == "caches":
            _same_caches(a, b)
            continue
        assert getattr(a, f) == getattr(b, f), f"{a.compile_id}: {f} differs"


def _same_caches(a, b):
    """The same lookups; why a miss missed, the same where both compared it with an earlier lookup of the same run
    (a trace is compared within itself, a capture also with the last capture of the same lines, in its key store:
    a recompile's lines captured before, by another test, are compared with that capture)."""
    assert [dataclasses.replace(c, why=None) for c in a.caches] == \
        [dataclasses.replace(c, why=None) for c in b.caches], f"{a.compile_id}: caches differ"
    for x, y in zip(a.caches, b.caches):  # (a capture may have compared a recompile with its store's last instead)
        if x.why is not None and y.why is not None and x.why.against == y.why.against == "earlier":
            assert x.why == y.why, f"{a.compile_id}: why {x.cache} missed differs"


@pytest.fixture
def write(tmp_path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return str(path)
    return write


# ---- one log ----

@pytest.mark.parametrize("name", ["breaks", "recompile", "train"])
def test_a_log_decodes_to_what_the_capture_makes_of_the_same_records(write, name):
    report = open_trace(write("trace.log", tape_log(name)))
    expected = direct(name)
    assert [c.compile_id for c in report.compilations] == [c.compile_id for c in expected.compilations]
    for got, want in zip(report.compilations, expected.compilations):
        _same(got, want)
    assert report.entry == "open" and not [p for p in report.all_problems if "read the trace" in p.where]


def test_graph_breaks_and_recompiles_are_at_the_users_line(write):
    report = open_trace(write("trace.log", tape_log("breaks") + tape_log("recompile")))
    sites = [(os.path.basename(s.filename), s.lineno) for s in report.clinic.fix_list]
    assert ("trace_programs.py", 7) in sites and ("trace_programs.py", 8) in sites  # print, data-dependent if
    assert report.clinic.recompiles and "size" in report.clinic.recompiles[0].one_line()


def test_a_gzipped_log_and_a_tarred_folder_open_as_the_log(tmp_path, write):
    text = tape_log("breaks")
    plain = open_trace(write("t/dedicated_log_torch_trace_ab12.log", text))
    with gzip.open(tmp_path / "t.log.gz", "wt", encoding="utf-8") as fh:
        fh.write(text)
    with tarfile.open(tmp_path / "t.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "t", arcname="trace")
    for path in ("t.log.gz", "t.tar.gz"):
        other = open_trace(str(tmp_path / path))
        assert [c.graph for c in other.compilations] == [c.graph for c in plain.compilations], path


# ---- bad input loses nothing ----

def _problems(report):
    return [p for p in report.all_problems if p.where == "read the trace"]


def test_a_corrupted_json_line_is_one_problem_with_file_and_line_and_the_rest_stands(write):
    lines = tape_log("breaks").split("\n")
    at = next(i for i, line in enumerate(lines) if '"dynamo_start"' in line and '"frame_id": 1' in line)
    lines[at] = lines[at].replace('"frame_id": 1', '"frame_id" 1')  # the JSON envelope no longer parses
    report = open_trace(write("bad.log", "\n".join(lines)))
    (problem,) = _problems(report)
    assert f"bad.log line {at + 1}:" in problem.message and "JSON envelope" in problem.message
    assert len(report.compilations) == len(direct("breaks").compilations)  # the records after it are read


def test_a_payload_whose_md5_differs_is_a_problem_and_is_still_read(write):
    text = tape_log("breaks").replace("def forward(self", "def forward(self ", 1)  # edited after torch wrote it
    report = open_trace(write("edited.log", text))
    (problem,) = _problems(report)
    assert "MD5" in problem.message and "edited.log line" in problem.message
    assert problem.event == "dynamo_output_graph"
    assert "def forward(self " in report.compilations[0].graph.code


def test_a_truncated_file_says_so_and_keeps_every_record_before_the_cut(write):
    text = tape_log("breaks")
    cut = text.rindex("def forward(") + 20  # inside the last graph's payload: a job killed mid-write
    report = open_trace(write("cut.log", text[:cut]))
    messages = " ".join(p.message for p in _problems(report))
    assert "MD5" in messages and "cut while being written" in messages
    assert [c.compile_id for c in report.compilations][:2] == ["0/0", "1/0"]


def test_an_unknown_record_kind_is_listed_with_where_it_first_is(write):
    text = record({"brand_new_event": {"x": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}, "payload")
    report = open_trace(write("new.log", tape_log("breaks") + text))
    (row,) = [a for a in report.capture.other_artifacts if a.name == "brand_new_event"]
    assert row.compile_id == "0/0" and "new.log:" in row.why and "no decoder" in row.why


def test_blank_lines_are_no_records_even_inside_a_payload(write):
    text = tape_log("breaks").replace("\n\t", "\n\n\t", 3)  # log shippers stutter with blank lines
    report = open_trace(write("blank.log", "\n" + text))
    assert [c.graph for c in report.compilations] == [c.graph for c in direct("breaks").compilations]
    assert not _problems(report)


def test_a_log_that_went_through_windows_reads_the_same(write):
    report = open_trace(write("crlf.log", tape_log("breaks").replace("\n", "\r\n")))
    assert [c.graph for c in report.compilations] == [c.graph for c in direct("breaks").compilations]
    assert not _problems(report)  # every MD5 matches: the payloads are torch's, line ends aside


def test_a_gzip_cut_short_keeps_what_was_read_and_says_where_it_stopped(tmp_path):
    packed = gzip.compress(tape_log("breaks").encode("utf-8"))
    (tmp_path / "cut.log.gz").write_bytes(packed[: len(packed) * 2 // 3])
    report = open_trace(str(tmp_path / "cut.log.gz"))
    assert report.compilations and any("reading stopped after" in p.message for p in _problems(report))


def test_an_empty_or_missing_path_is_a_clear_error_and_exit_code_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("hello\n")
    for path, said in ((tmp_path / "empty", "no TORCH_TRACE log in it (it is empty)"),
                       (tmp_path / "nope", "no such file or directory"),
                       (tmp_path / "notes.txt", "not a TORCH_TRACE log")):
        with pytest.raises(OpenError, match=said.replace("(", r"\(").replace(")", r"\)")):
            open_trace(path)
        assert cli.main(["open", str(path)]) == cli.EXIT_USAGE
        assert said in capsys.readouterr().err


def test_the_cli_prints_the_summary_and_writes_the_page_and_json(tmp_path, write, capsys):
    log = write("trace/dedicated_log_torch_trace_x.log", tape_log("breaks"))
    code = cli.main(["open", os.path.dirname(log), "--html", str(tmp_path / "r.html"), "--json",
                     str(tmp_path / "r.json")])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_OK and "3 compilations" in out and "wrote HTML report" in err
    assert (tmp_path / "r.html").read_text().lower().startswith("<!doctype html")
    from explorer.report import Report

    assert Report.load(tmp_path / "r.json").compilations == open_trace(log).compilations


# ---- what a trace cannot hold ----

def test_what_a_trace_cannot_hold_is_named_per_stage_with_how_to_get_it(write):
    report = open_trace(write("t.log", tape_log("train")))
    comp = report.compilations[0]
    assert comp.output_code and comp.ir_pre_fusion is None
    assert comp.missing["original_bytecode"] == gaps.BYTECODE
    assert comp.missing["ir_pre_fusion"] == gaps.LOOP_IR and "TORCH_COMPILE_DEBUG" in gaps.LOOP_IR
    view = viewmodel.compilation(comp, report)
    assert view["why_report"].get("timing", gaps.NO_RUNTIME) == gaps.NO_RUNTIME
    assert any(gaps.NOT_IN_A_TRACE == n for n in report.capture.notes)


def test_a_trace_of_another_torch_says_which_versions(write):
    version = record({"artifact": {"name": "torch_version", "encoding": "json"}},  # a torch never installed here
                     json.dumps({"pytorch_version": "2.10.0+cu128", "commit": "abc", "oss": True}))
    report = open_trace(write("old.log", version + tape_log("breaks")))
    assert report.capture.torch_version == "2.10.0+cu128"
    said = [n for n in report.capture.notes if "written by torch 2.10.0+cu128" in n]
    assert said and f"torch {gaps.installed_torch()} is installed here" in said[0]
    assert len(report.compilations) == 3
    silent = open_trace(write("none.log", tape_log("breaks")))
    assert any("does not say which torch" in n for n in silent.capture.notes)


def test_compile_time_per_phase_comes_from_the_chromium_events(write):
    def span(ph, name, ts):
        return record({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
                      json.dumps({"name": name, "ts": ts, "ph": ph, "cat": "dynamo_timed", "args": {}}, indent=0))
    spans = [span("B", "entire_frame_compile", 0), span("B", "backend_compile", 1e5),
             span("E", "backend_compile", 4e5), span("B", "backend_compile", 5e5), span("E", "backend_compile", 6e5),
             span("E", "entire_frame_compile", 1e6)]
    report = open_trace(write("phases.log", tape_log("breaks") + "".join(spans)))
    phases = report.compilations[0].phases
    assert [(p.name, p.depth, p.seconds, p.count) for p in phases] == [
        ("entire_frame_compile", 0, 1.0, 1), ("backend_compile", 1, 0.4, 2)]
    pane = viewmodel.compilation(report.compilations[0], report)["panes"]["compile_time"]
    table = next(b for b in pane if b["t"] == "table")
    assert [r["text"] for r in table["rows"]] == ["entire_frame_compile: 1 s", "  backend_compile: 400 ms"]


def test_the_source_is_read_from_disk_or_made_of_the_lines_the_trace_quotes(write):
    here = open_trace(write("t.log", tape_log("breaks")))
    comp = here.compilations[0]
    assert comp.original_bytecode.source_origin == "file"
    assert comp.original_bytecode.source.startswith("def breaks(x):")
    assert "source" in viewmodel.compilation(comp, here)["present"]
    moved = tape_log("breaks").replace(tape.HERE, "/nowhere/on/this/machine")
    away = open_trace(write("away.log", moved)).compilations[0]
    bc = away.original_bytecode
    assert bc.source_origin == "quoted" and bc.filename.startswith("/nowhere/")
    lines = bc.source.split("\n")
    assert lines[0] == "" and lines[1].strip() == "y = x.sin() + 1"  # line 5 (def) is not quoted; line 6 is
    pane = viewmodel.compilation(away, open_trace(write("away.log", moved)))["panes"]["source"]
    assert any(b["t"] == "note" and "is not on this machine" in str(b["r"]) for b in pane)


def test_a_guard_checked_in_another_machines_library_is_put_on_the_users_line():
    """A trace from elsewhere names that machine's packages, and its frames have no bytecode to search."""
    from explorer.capturing.model import Bytecode
    from explorer.clinic.locate import first_read, is_library_file

    assert is_library_file("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py")
    assert is_library_file("/usr/lib/python3.12/copy.py") and not is_library_file("/home/me/train.py")
    code = Bytecode("forward", "/home/me/m.py", 14, "",
                    source="    def forward(self, x):\n        # x is read below\n        return self.fc1(x)\n")
    assert first_read("x", code) == 16 and first_read("self.fc1", code) == 16


# ---- a folder of logs: ranks, unranked logs, other files ----

def test_a_folder_of_rank_logs_is_one_report_comparing_the_ranks(tmp_path, write):
    write("job/dedicated_log_torch_trace_rank_0_ab.log", tape_log("breaks", {"rank": 0}))
    write("job/dedicated_log_torch_trace_rank_1_cd.log", tape_log("breaks", {"rank": 1}) + tape_log("recompile"))
    write("job/dedicated_log_torch_trace_zz.log", tape_log("train"))  # the launcher, before any process group
    write("job/notes.txt", "not a log\n")
    report = open_trace(str(tmp_path / "job"))
    dist = report.distributed
    assert [r.rank for r in dist.ranks] == [0, 1] and [r.status for r in dist.ranks] == ["ok", "ok"]
    assert [r.part for r in dist.ranks] == ["dedicated_log_torch_trace_rank_0_ab.log",
                                            "dedicated_log_torch_trace_rank_1_cd.log"]
    assert dist.differences and len(dist.groups) == 2  # rank 1 compiled more
    notes = " ".join(report.capture.notes)
    assert "dedicated_log_torch_trace_zz.log: a log without a rank" in notes and "notes.txt: not a TORCH_TRACE" in notes
    one = open_trace(str(tmp_path / "job"), rank=1)
    assert one.distributed is None and len(one.compilations) == len(dist.ranks[1].capture.compilations)
    with pytest.raises(OpenError, match="no log of rank 5"):
        open_trace(str(tmp_path / "job"), rank=5)


def test_a_jobs_page_writes_ranks_that_compiled_alike_as_patches_that_read_back_as_their_payloads(tmp_path, write):
    import base64
    import re

    from explorer.present.payload import rank_payload, to_json

    for k in range(4):
        write(f"job/dedicated_log_torch_trace_rank_{k}_x.log", tape_log("breaks", {"rank": k}))
    report = open_trace(str(tmp_path / "job"))
    page = report.to_html()
    element = r'<script type="[^"]+" id="cx-rank-(\d+)"( data-base="\d+"| data-encoding="gzip\+base64")>(.*?)</script>'
    scripts = {int(m[1]): (m[2], m[3]) for m in re.finditer(element, page)}
    assert sorted(scripts) == [1, 2, 3] and "gzip" in scripts[1][0]  # rank 0 is the page's own payload
    base = json.loads(gzip.decompress(base64.b64decode(scripts[1][1])))
    for k in (2, 3):
        assert scripts[k][0] == ' data-base="1"' and len(scripts[k][1]) < len(scripts[1][1]) / 4
        got = _apply(json.loads(gzip.decompress(base64.b64decode(scripts[1][1]))),
                     json.loads(scripts[k][1]))
        want = json.loads(to_json(rank_payload(report, k, pictures="lazy")[0]))
        assert {**got, "made_at": 0, "pictures_lazy": 0} == {**want, "made_at": 0, "pictures_lazy": 0}
        assert got["header"]["chips"][0] == ["rank", f"{k} of 4"] != base["header"]["chips"][0]


def _apply(base, ops):
    """What the page's applyPatch (frontend/src/model.js) does."""
    for op in ops:
        *head, key = op[0]
        obj = base
        for p in head:
            obj = obj[p]
        if len(op) == 1:
            del obj[key]
        else:
            obj[key] = op[1]
    return base


def test_a_log_started_before_the_process_group_takes_its_rank_from_its_records(tmp_path, write):
    write("job/dedicated_log_torch_trace_a.log", tape_log("breaks", {"rank": 1}))
    write("job/dedicated_log_torch_trace_rank_0_b.log", tape_log("breaks", {"rank": 0}))
    report = open_trace(str(tmp_path / "job"))
    assert [r.part for r in report.distributed.ranks] == ["dedicated_log_torch_trace_rank_0_b.log",
                                                          "dedicated_log_torch_trace_a.log"]


def test_a_debug_folders_loop_ir_goes_to_the_graph_of_its_aot_id(tmp_path, write):
    text = tape_log("train")
    ids = [line for line in text.split("\n") if "# AOT ID:" in line]
    assert ids, "the fixture's output code names its AOT ID"
    aot = ids[0].split("['")[1].split("']")[0]
    run = tmp_path / "job" / "torch_compile_debug" / f"run_2026_12_05-pid_{PID}" / "torchinductor"
    (run / f"model__{aot}_0.0").mkdir(parents=True)
    (run / f"model__{aot}_0.0" / "ir_pre_fusion.txt").write_text("op0: SchedulerNode(ComputedBuffer)\n")
    (run / f"model__{aot}_0.0" / "ir_post_fusion.txt").write_text("op0: SchedulerNode(ComputedBuffer)\n")
    write("job/trace/dedicated_log_torch_trace_x.log", text)
    comp = open_trace(str(tmp_path / "job")).compilations[0]
    assert comp.ir_pre_fusion[0].text == "BEFORE FUSION\nop0: SchedulerNode(ComputedBuffer)\n"
    assert comp.ir_post_fusion[0].text.startswith("AFTER FUSION\n")


# ---- traces torch wrote ----

def _run(cwd, argv, env):
    proc = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def traced_run(tmp_path_factory):
    """One process under the explorer with TORCH_TRACE and TORCH_COMPILE_DEBUG on: torch's trace and debug
    folder, and the in-process capture of the very same compiles (breaks, backward, a recompile)."""
    tmp = tmp_path_factory.mktemp("traced")
    job = tmp / "job"
    job.mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", TORCH_TRACE=str(job / "trace"),
               TORCH_COMPILE_DEBUG="1")
    _run(job, ["-m", "explorer", "run", os.path.join(ROOT, "tests", "scripts", "trace_train_recompile.py"),
               "--json", str(tmp / "r.json")], env)
    from explorer.report import Report

    return Report.load(tmp / "r.json"), job


def test_a_trace_torch_wrote_decodes_to_the_capture_of_the_same_run(traced_run):
    captured, job = traced_run
    opened = open_trace(str(job))
    assert [c.compile_id for c in opened.compilations] == [c.compile_id for c in captured.compilations]
    for got, want in zip(opened.compilations, captured.compilations):
        # whether a kernel was built or loaded is read from the live process's cache folder, which a trace
        # does not record: the capture says so when torch's code caches were warm (as on a second run)
        want = dataclasses.replace(want, kernels=tuple(dataclasses.replace(k, build=None) for k in want.kernels))
        _same(got, want)
        # loop-level IR from the TORCH_COMPILE_DEBUG folder, as the IR loggers gave it in-process
        assert got.ir_pre_fusion == want.ir_pre_fusion and got.ir_post_fusion == want.ir_post_fusion
    assert [s.location for s in opened.clinic.fix_list] == [s.location for s in captured.clinic.fix_list]
    assert [e.one_line() for e in opened.clinic.recompiles] == [e.one_line() for e in captured.clinic.recompiles]
    assert not _problems(opened)
    installed = gaps.installed_torch()
    release = torch_door.version.release_of(installed)
    if release is not None and release >= torch_door.version.VERSION_RECORD_SINCE:  # 2.11 writes no version
        # the wheel's metadata may drop the build's local tag (2.14.1 for torch.__version__'s 2.14.1+cu130)
        assert opened.capture.torch_version.split("+")[0] == installed.split("+")[0]
        assert gaps.version_note(opened.capture.torch_version, installed) is None
    else:  # torch 2.11's trace names no version: the view says so, and reads it all the same
        assert any("does not say which torch" in n for n in opened.capture.notes)
    assert all(c.phases for c in opened.compilations if c.graph is not None)


def test_an_opened_traces_caches_say_what_they_did_when_the_job_ran_never_now(traced_run):
    """The capture lowered its graphs now; the same run opened from its trace lowered them when the job ran."""
    from explorer.present import viewmodel as vm

    captured, job = traced_run
    opened = open_trace(str(job))
    chip = dict(vm.build(opened)["header"]["chips"])["caches"]
    assert chip.startswith("as the job ran: ") and " lowered" in chip and "now" not in chip, chip
    assert "now" in dict(vm.build(captured)["header"]["chips"])["caches"]  # the capture's own: lowered now
    assert "lowered now" not in opened.summary() and "as the job ran (the traced job's caches" in opened.summary()


@pytest.fixture(scope="module")
def traced_ranks(diverge_job):
    """diverge.py on 2 ranks (gloo) under the launcher with TORCH_TRACE: every rank's trace and the merged report."""
    code, _, err = diverge_job.result()
    assert code == 0, err[-3000:]
    return diverge_job.report(), str(diverge_job.folder / "trace")


def test_a_two_rank_gloo_trace_opens_as_the_merged_report_of_the_same_run(traced_ranks):
    merged, trace = traced_ranks
    opened = open_trace(trace)
    assert [r.rank for r in opened.distributed.ranks] == [0, 1]
    for got, want in zip(opened.distributed.ranks, merged.distributed.ranks):
        assert [c.compile_id for c in got.capture.compilations] == [c.compile_id for c in want.capture.compilations]
        for a, b in zip(got.capture.compilations, want.capture.compilations):
            _same(a, b)
    assert [d.text for d in opened.distributed.differences] == [d.text for d in merged.distributed.differences]
    assert viewmodel.build(opened)["ranks"] is not None  # the page and the widget compare the ranks


# ---- tlparse's own test inputs (opt-in: CX_TLPARSE_INPUTS=<tlparse>/tests/inputs) ----

TLPARSE = os.environ.get("CX_TLPARSE_INPUTS")


@pytest.mark.skipif(not TLPARSE, reason="CX_TLPARSE_INPUTS names no tlparse tests/inputs folder")
def test_every_log_of_tlparses_test_inputs_opens_and_its_corrupted_json_is_a_problem():
    opened = 0
    for name in sorted(os.listdir(TLPARSE)):
        report = open_trace(os.path.join(TLPARSE, name))  # no exception, whatever the log holds
        assert report.to_html()
        opened += 1
    assert opened >= 20  # 24 entries in tlparse 0.4.3: 18 logs and 6 folders of ranks (39 logs in all)
    bad = open_trace(os.path.join(TLPARSE, "simple_corrupted_json.log"))
    assert any("simple_corrupted_json.log line 13" in p.message for p in _problems(bad))

