"""Distributed jobs rank by rank: CPU, gloo, every rank its own process (torch.distributed.run).

The jobs run once per module and at the same time (``jobs``), each a real launch of
tests/programs/distributed/*.py with the aot_eager backend: ``explorer run --nproc-per-node N``
(the launcher) for most, ``torchrun ... -m explorer run`` (each rank writes its part, the last one
merges) for the collectives and DDP. The rest are unit tests of the pieces on plain data.
"""

from __future__ import annotations

import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import jsonschema
import pytest
from distributed_jobs import ROOT, launcher, line_of, program, torchrun

from explorer import cli
from explorer.capturing.parse_ddp import param_name, type_bytes
from explorer.distributed.collectives import graph_collectives
from explorer.distributed.model import RankFailure, RankInfo
from explorer.jobs import env as rank_env
from explorer.jobs.launch import ended_text, exit_code, rank_words
from explorer.jobs.merge import merge
from explorer.jobs.rank import RankTerminated, TermGuard
from explorer.lineage import Origin
from explorer.report import Distributed, RankRun, Report
from explorer.schema import SCHEMA_PATH

EXAMPLES = os.path.join(ROOT, "examples", "distributed")


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, diverge_job):
    """Every job of this module, started together: the two cores are shared, the waits overlap."""
    def folder(name):
        return tmp_path_factory.mktemp(name)

    started = {
        "diverge": diverge_job,
        "collectives": torchrun(folder("collectives"), 2, program("collectives.py"), trace=True),
        "ddp": torchrun(folder("ddp"), 2, program("ddp.py"), trace=True),  # its parts kept: each rank alone
        "raises": launcher(folder("raises"), 3, program("raises.py")),
        "killed": launcher(folder("killed"), 2, program("raises.py"), "--fail-on", "-1", "--kill-on", "1"),
    }
    yield started
    for job in started.values():
        if job.proc.poll() is None:
            job.proc.kill()


def _schema():
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


# ---- 1. the launcher: one merged report of every rank ----

def test_the_launcher_runs_every_rank_and_merges_them(jobs):
    code, out, err = jobs["diverge"].result()
    assert code == 0, err
    assert out.count("rank 1: looking at the batch") == 2  # the script's own stdout, rank 1's prints only
    report = jobs["diverge"].report()
    dist = report.distributed
    assert dist.world_size == 2 and [r.rank for r in dist.ranks] == [0, 1]
    assert [r.status for r in dist.ranks] == ["ok", "ok"]
    infos = [r.info for r in dist.ranks]
    assert [i.local_rank for i in infos] == [0, 1] and len({i.run_id for i in infos}) == 1 and infos[0].run_id
    assert report.capture == dist.ranks[0].capture  # the top level is rank 0's, as every view shows it
    assert "compile-explorer: 2 ranks" in err and "ranks compared:" in err
    assert (jobs["diverge"].folder / "r.html").read_text().lower().startswith("<!doctype html")


def test_merged_json_validates_round_trips_and_gives_each_rank_back(jobs):
    report = jobs["diverge"].report()
    doc = json.loads((jobs["diverge"].folder / "r.json").read_text())
    jsonschema.validate(doc, _schema())
    again = Report.from_json(report.to_json())
    assert again == report and again.to_json() == report.to_json()
    rank1 = report.rank(1)
    assert rank1.distributed.rank == 1 and rank1.capture == report.distributed.ranks[1].capture
    assert len(rank1.capture.graph_breaks) > len(report.capture.graph_breaks) == 0


def test_show_renders_a_merged_report_without_torch(jobs, tmp_path):
    path, html = jobs["diverge"].folder / "r.json", tmp_path / "again.html"
    code = ("import sys; sys.modules['torch'] = None\n"
            "from explorer import cli\n"
            f"raise SystemExit(cli.main(['show', {str(path)!r}, '--html', {str(html)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ranks compared:" in done.stdout and "rank 1 only: graph break" in done.stdout
    page = html.read_text()
    assert page.lower().startswith("<!doctype html") and 'id="cx-rank-1"' in page  # every rank, no torch


# ---- 2. ranks compared: what only one rank did, with its line ----

def test_a_rank_only_print_is_stated_with_its_line_and_rank(jobs):
    report = jobs["diverge"].report()
    breaks = [d for d in report.distributed.differences if d.kind == "graph_break"]
    line = line_of(program("diverge.py"), "print(f\"rank {rank}")
    assert [(d.ranks, d.lineno) for d in breaks] == [((1,), line)]
    assert breaks[0].text.startswith(f"rank 1 only: graph break at diverge.py:{line} `print(")
    assert f"rank 1 only: graph break at diverge.py:{line}" in jobs["diverge"].result()[2]


def test_a_rank_only_short_batch_is_a_recompile_on_that_rank_with_its_line(jobs):
    report = jobs["diverge"].report()
    recompiles = [d for d in report.distributed.differences if d.kind == "recompile"]
    step = [d for d in recompiles if "recompile of step " in d.text]
    assert len(step) == 1 and step[0].ranks == (1,)
    assert "rank 1 only: size of x at dim 0: 8 -> 5" in step[0].text
    assert step[0].lineno == line_of(program("diverge.py"), "y = torch.sin(x) * 2")


def test_ranks_that_compiled_the_same_are_one_group(jobs):
    same = jobs["ddp"].report().distributed
    assert [g.ranks for g in same.groups] == [(0, 1)]
    assert not [d for d in same.differences if d.kind not in ("failure", "missing")]
    diverged = jobs["diverge"].report().distributed
    assert [g.ranks for g in diverged.groups] == [(0,), (1,)]
    by_rank = {c.rank: c for c in diverged.counts}
    assert (by_rank[0].graph_breaks, by_rank[1].graph_breaks) == (0, 2)
    assert by_rank[1].recompiles == 2 and by_rank[0].recompiles == 0


# ---- 3. collectives, and torchrun itself with the last rank merging ----

def test_under_torchrun_each_rank_writes_its_part_and_one_of_them_merges(jobs):
    code, _, err = jobs["collectives"].result()
    folder = jobs["collectives"].folder
    assert code == 0, err
    assert sorted(p.name for p in folder.glob("r*.json")) == ["r.json", "r.rank0.json", "r.rank1.json"]
    assert err.count("wrote merged JSON report (2 ranks)") == 1  # one rank merged, once
    parts = [Report.load(folder / f"r.rank{k}.json") for k in (0, 1)]
    assert [p.distributed.rank for p in parts] == [0, 1] and not parts[0].distributed.merged
    assert jobs["collectives"].report().distributed.ranks[1].capture == parts[1].capture


def test_collectives_are_read_per_graph_in_order_with_group_size_and_line(jobs):
    dist = jobs["collectives"].report().distributed
    same = [gc for gc in dist.collectives if gc.key.startswith("same@") and gc.stage == "graph"]
    assert [gc.rank for gc in same] == [0, 1]
    path = program("collectives.py")
    for gc in same:
        assert [(c.op, c.group, c.reduce_op, c.input_type, c.lineno) for c in gc.collectives] == [
            ("all_reduce", "0", "sum", "f32[4, 4]", line_of(path, "a = fc.all_reduce(x * 2")),
            ("all_gather_into_tensor", "0", None, "f32[4, 4]", line_of(path, "b = fc.all_gather_tensor(x + 1"))]
        assert gc.collectives[1].group_size == 2


def test_the_same_order_on_every_rank_is_not_flagged_and_a_swapped_one_is(jobs):
    dist = jobs["collectives"].report().distributed
    hangs = [d for d in dist.differences if d.hang]
    assert [d.key.split("@")[0] for d in hangs] == ["swapped"]
    assert hangs[0].ranks == (1,) and "possible hang" in hangs[0].text
    path = program("collectives.py")
    first_on_rank1 = line_of(path, "if rank == args.swap_on:") + 1  # rank 1's all_gather, issued first
    assert f"collectives.py:{first_on_rank1}]" in hangs[0].text
    assert "! possible hang: the collectives of swapped" in jobs["collectives"].result()[2]


def test_the_same_collectives_on_values_in_another_order_are_mixed_values_naming_both_lines(jobs):
    dist = jobs["collectives"].report().distributed
    (d,) = [d for d in dist.differences if d.key and d.key.startswith("mixed@") and d.kind == "collectives"]
    path = program("collectives.py")
    theirs, mine = line_of(path, "# the other ranks' first"), line_of(path, "# the swapped rank's first")
    assert not d.hang and d.ranks == (1,) and (d.filename, d.lineno) == (path, mine)
    assert d.text.startswith("mixed values: the collectives of mixed")
    assert (f"combines `a` (`dist.all_reduce(a)` at collectives.py:{theirs}) on rank 0 with `b` "
            f"(`dist.all_reduce(b)` at collectives.py:{mine}) on rank 1") in d.text
    (rank0, rank1) = [gc for gc in dist.collectives if gc.key.startswith("mixed@") and gc.stage == "graph"]
    assert [(c.operand, c.lineno, c.line_from) for c in rank1.collectives] == [("b", mine, "call"),
                                                                              ("a", mine + 1, "call")]
    assert [(c.operand, c.lineno) for c in rank0.collectives] == [("a", theirs), ("b", theirs + 1)]
    assert "! mixed values: the collectives of mixed" in jobs["collectives"].result()[2]


def test_merge_remakes_the_report_from_the_parts_and_names_a_missing_rank(jobs, tmp_path, capsys):
    folder = jobs["collectives"].folder
    jobs["collectives"].result()
    for k in (0, 1):
        (tmp_path / f"m.rank{k}.json").write_text((folder / f"r.rank{k}.json").read_text())
    assert cli.main(["merge", str(tmp_path / "m.json"), "--quiet"]) == 0
    merged = Report.load(tmp_path / "m.json")
    assert merged.distributed.differences == jobs["collectives"].report().distributed.differences
    assert cli.main(["merge", str(tmp_path / "m.json"), "--world-size", "3"]) == 0
    three = Report.load(tmp_path / "m.json").distributed
    assert [r.status for r in three.ranks] == ["ok", "ok", "missing"]
    assert "rank 2 missing: wrote no part" in capsys.readouterr().err
    assert cli.main(["merge", str(tmp_path / "none.json")]) == cli.EXIT_USAGE


# ---- 4. DDPOptimizer's splits ----

def test_ddp_splits_are_labelled_with_their_buckets_not_as_graph_breaks(jobs):
    code, _, err = jobs["ddp"].result()
    assert code == 0, err
    report = jobs["ddp"].report()
    for rank in report.distributed.ranks:
        (comp,) = [c for c in rank.capture.compilations if c.ddp_optimizer is not None]
        ddp = comp.ddp_optimizer
        assert comp.frame.name == "forward" and comp.graph_break is None
        assert ddp.split and [s.name for s in ddp.subgraphs] == ["submod_0", "submod_1", "submod_2", "submod_3"]
        assert ddp.bucket_cap_bytes == 2**20 and ddp.bucket_count == 4
        assert [b.params for b in ddp.buckets] == [(f"layers.{i}.weight", f"layers.{i}.bias") for i in range(4)]
        assert [b.size_bytes for b in ddp.buckets] == [(512 * 512 + 512) * 4] * 4
    assert "DDPOptimizer split [4/0] forward (ddp.py:" in err and "a split, not a graph break" in err
    assert "bucket_cap_mb" in err and "optimize_ddp" in err
    assert "submod_0: bucket of 1.00 MiB: layers.0.weight, layers.0.bias" in err


def rank_traces(folder) -> dict[int, list[tuple[str, dict, str]]]:
    """Each rank's TORCH_TRACE as (event name, envelope, payload) records, in order."""
    from test_against_torch_trace import _ENVELOPE

    out = {}
    for path in glob.glob(str(folder / "trace" / "*.log")):
        records = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("\t"):
                    records[-1][2].append(line[1:])
                    continue
                envelope = json.loads(_ENVELOPE.match(line).group(1))
                name = next(k for k in envelope if k not in ("frame_id", "frame_compile_id", "attempt",
                                                             "has_payload", "rank"))
                records.append((name, envelope, []))
        (rank,) = {env["rank"] for _, env, _ in records if "rank" in env}  # once the process group is up
        out[rank] = [(name, env, "".join(payload)) for name, env, payload in records]
    return out


def test_the_splits_are_those_in_torchs_own_trace_of_each_rank(jobs):
    report = jobs["ddp"].report()
    traces = rank_traces(jobs["ddp"].folder)
    assert sorted(traces) == [0, 1]
    for rank, records in traces.items():
        theirs = [(f"{e['frame_id']}/{e['frame_compile_id']}", e["optimize_ddp_split_child"]["name"])
                  for name, e, _ in records if name == "optimize_ddp_split_child"]
        ours = [(c.compile_id, s.name) for c in report.distributed.ranks[rank].capture.compilations
                if c.ddp_optimizer for s in c.ddp_optimizer.subgraphs]
        assert ours == theirs and len(ours) == 4


def test_the_collectives_are_those_in_torchs_own_trace_of_each_rank(jobs):
    report = jobs["collectives"].report()
    traces = rank_traces(jobs["collectives"].folder)
    assert sorted(traces) == [0, 1]
    for rank, records in traces.items():
        theirs = [(f"{e['frame_id']}/{e['frame_compile_id']}", op) for name, e, payload in records
                  if name == "dynamo_output_graph" for line in payload.splitlines()
                  if not line.strip().startswith("#")  # the `# File: ... code:` comments quote the library
                  for op in re.findall(r"_c10d_functional\.(\w+?)_?[.(]", line) if op != "wait_tensor"]
        ours = [(gc.compile_id, c.op) for gc in report.distributed.collectives if gc.rank == rank
                and gc.stage == "graph" for c in gc.collectives]
        assert ours == theirs and len(ours) == 6  # same, swapped, mixed: two each


# ---- 5. a rank that fails; three ranks ----

def test_a_rank_that_raises_is_named_and_every_rank_is_in_the_report(jobs):
    code, _, err = jobs["raises"].result()
    assert code == 1
    dist = jobs["raises"].report().distributed
    assert dist.world_size == 3 and all(r.capture is not None for r in dist.ranks)
    failure = dist.ranks[1].failure
    assert (failure.kind, failure.message, failure.exit_code) == ("raised", "RuntimeError: rank 1 ran out of data", 1)
    assert failure.lineno == line_of(program("raises.py"), "raise RuntimeError")
    assert "rank 1 failed first: RuntimeError: rank 1 ran out of data (raises.py:" in err
    for other in (dist.ranks[0], dist.ranks[2]):  # stopped by torchrun, or saw the dead peer: either way, said
        assert other.failure is not None and other.failure.kind in ("raised", "terminated")


def test_a_rank_killed_outright_is_named_missing_with_how_torchrun_saw_it_end(jobs):
    code, _, err = jobs["killed"].result()
    assert code != 0
    dist = jobs["killed"].report().distributed
    assert [r.status for r in dist.ranks] == ["failed", "missing"]
    assert "killed by SIGKILL" in dist.ranks[1].failure.message
    assert "rank 1 missing: wrote no part" in err and "killed by SIGKILL" in err


# ---- FSDP2 and nn.Sequential under DDP: slower, one job each ----

@pytest.mark.slow
def test_fsdp2_graphs_show_and_the_report_says_its_collectives_are_not_in_them(tmp_path):
    job = launcher(tmp_path, 2, os.path.join(EXAMPLES, "fsdp2_transformer.py"))
    code, _, err = job.result()
    assert code == 0, err
    dist = job.report().distributed
    assert [g.ranks for g in dist.groups] == [(0, 1)]
    assert all(r.capture.num_graphs >= 1 for r in dist.ranks)
    assert any("FSDP2 (fully_shard)" in n for n in dist.notes + tuple(_capture_notes(job.report())))


@pytest.mark.slow
def test_ddp_of_a_torch_module_says_nothing_of_the_model_was_compiled(tmp_path):
    job = launcher(tmp_path, 2, program("ddp.py"), "--model", "sequential")
    code, _, err = job.result()
    assert code == 0, err
    assert "nothing of the model was compiled" in err and "DDP(torch.compile(model))" in err


def _capture_notes(report):
    from explorer.distributed import ddp

    return ddp.notes(report.capture)


# ---- the pieces, on plain data ----

def test_the_environment_torchrun_gives_makes_a_rank():
    env = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "TORCHELASTIC_RUN_ID": "abc"}
    rank = rank_env.rank_env(env)
    assert (rank.rank, rank.world_size, rank.local_rank, rank.job) == (1, 2, 1, "abc/0")
    assert rank_env.rank_env({"RANK": "2", "WORLD_SIZE": "2"}) is None and rank_env.rank_env({}) is None
    assert rank_env.part_path("out/r.json", 3) == "out/r.rank3.json" == rank_env.part_path("out/r.html", 3)


def test_one_rank_merges_each_set_of_parts_whatever_their_times(jobs, tmp_path):
    """Rank 1's part appeared last but was written first (its text older than rank 0's): a rank that finds the
    set complete still merges it, exactly one of the ranks does, and the next launch's set merges again."""
    from explorer.jobs.rank import merge_if_last

    folder = jobs["collectives"].folder
    jobs["collectives"].result()
    base = str(tmp_path / "m.json")

    def write_parts(stamp_ns: int) -> None:
        for k in (0, 1):
            (tmp_path / f"m.rank{k}.json").write_text((folder / f"r.rank{k}.json").read_text())
        os.utime(tmp_path / "m.rank0.json", ns=(stamp_ns + 10**9, stamp_ns + 10**9))
        os.utime(tmp_path / "m.rank1.json", ns=(stamp_ns, stamp_ns))

    def env(k: int) -> rank_env.RankEnv:
        return rank_env.RankEnv(rank=k, world_size=2, local_rank=k, local_world_size=2, node_rank=0, run_id=None,
                                restart=0, host="h", pid=k, started_at=0.0)

    for launch in range(2):
        write_parts(10**18 + launch * 10**10)
        merged = [merge_if_last(base, env(k)) for k in (1, 0)]
        assert [m is not None for m in merged] == [True, False], launch
        assert merged[0].distributed.merged and [r.status for r in merged[0].distributed.ranks] == ["ok", "ok"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".m.json.merging", "m.rank0.json", "m.rank1.json"]


def test_parts_are_found_beside_the_report(tmp_path):
    for name in ("r.rank0.json", "r.rank12.json", "r.rankx.json", "rr.rank1.json", "r.json"):
        (tmp_path / name).write_text("{}")
    assert rank_env.parts_of(str(tmp_path / "r.json")) == {0: str(tmp_path / "r.rank0.json"),
                                                           12: str(tmp_path / "r.rank12.json")}


def test_the_launcher_keeps_its_own_options_from_the_ranks():
    words = ["--nproc-per-node", "2", "--json", "r.json", "--html=r.html", "--time", "--quiet", "--target", "cuda"]
    assert rank_words(words) == ["--time", "--target", "cuda"]


def test_a_bad_number_of_ranks_is_a_usage_error(capsys, monkeypatch):
    assert cli.main(["run", "--nproc-per-node", "0", program("diverge.py")]) == cli.EXIT_USAGE
    assert "--nproc-per-node" in capsys.readouterr().err
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert cli.main(["run", "--nproc-per-node", "2", program("diverge.py")]) == cli.EXIT_USAGE
    assert "already rank 0 of 2" in capsys.readouterr().err


def test_sigterm_ends_the_script_as_an_exception_and_is_held_off_after_it():
    guard = TermGuard()
    guard.install()
    try:
        with pytest.raises(RankTerminated) as caught:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises at the next bytecode
        assert caught.value.code == 143 and "torchrun stops the other ranks" in str(caught.value)
        guard.script_done()
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.01)
        assert guard.pending
    finally:
        guard.release()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_the_job_exits_with_the_first_rank_that_failed_of_its_own_accord():
    def run(rank, kind, code, ended):
        failure = RankFailure(kind, kind, code) if kind else None
        return _ran(RankInfo(rank, 3, ended_at=ended, exit_code=code, failure=failure))

    assert exit_code((run(0, None, 0, 1.0), run(1, None, 0, 1.0)), {}) == 0
    ranks = (run(0, "terminated", 143, 3.0), run(1, "exit", 7, 2.0), run(2, "raised", 1, 2.5))
    assert exit_code(ranks, {0: 143, 1: 7, 2: 1}) == 7
    killed = (run(0, "terminated", 143, 3.0), RankRun(1, missing=RankFailure("missing", "wrote no part")))
    assert exit_code(killed, {0: 143, 1: -9}) == 137
    assert (ended_text(-9), ended_text(1)) == ("killed by SIGKILL", "exit code 1")


def test_a_rank_without_a_part_is_named_missing_with_what_the_launcher_saw(jobs):
    part = jobs["diverge"].report().rank(0)
    merged = merge({0: part}, world_size=2, launcher={1: "killed by SIGKILL"})
    missing = merged.distributed.ranks[1]
    assert missing.status == "missing" and "killed by SIGKILL" in missing.failure.message
    assert "rank 1 missing: wrote no part" in merged.summary()


def test_collectives_are_read_from_a_graphs_text():
    from explorer.capturing.parse_fx import parse_graph

    code = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 4][4, 1]cpu"):
        l_x_ = L_x_
        # File: /home/u/t.py:9 in step, code: y = fc.reduce_scatter_tensor(x, "avg", 0, group)
        reduce_scatter_tensor: "f32[2, 4][4, 1]cpu" = torch.ops._c10d_functional.reduce_scatter_tensor.default(l_x_, 'avg', 2, '3');  l_x_ = None
        wait_tensor: "f32[2, 4][4, 1]cpu" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        return (wait_tensor,)
'''  # noqa: E501
    (c,) = graph_collectives(parse_graph(code))
    assert (c.op, c.reduce_op, c.group_size, c.group, c.input_type, c.type, c.lineno) == (
        "reduce_scatter_tensor", "avg", 2, "3", "f32[4, 4]", "f32[2, 4]", 9)
    assert c.signature() == "reduce_scatter_tensor(avg, group 3, f32[4, 4])"


def _rank_of(rank, code, lines):
    """One rank that compiled ``code`` (a Dynamo graph) whose collectives Dynamo made at ``lines`` of t.py."""
    from explorer.capturing.model import CallSite, CaptureData, Compilation, Frame, SourceLoc
    from explorer.capturing.parse_fx import parse_graph
    lib = SourceLoc("/x/site-packages/torch/distributed/_functional_collectives.py", 179, "all_reduce")
    sites = tuple(CallSite("all_reduce", f"all_reduce_{i}", (SourceLoc("/home/u/t.py", n, "f", text), lib))
                  for i, (n, text) in enumerate(lines))
    comp = Compilation("0/0", Frame("f", "/home/u/t.py", 3), "compiled", graph=parse_graph(code), call_sites=sites)
    return _ran(RankInfo(rank, 2), CaptureData("t", "cpu", "3", compilations=(comp,)))


def _ran(info, capture=None):
    """A rank that wrote its part: ``info``'s process, which captured ``capture``."""
    return RankRun(info.rank, Report(capture=capture, distributed=Distributed(info.world_size, info.rank, info)))


_TWO_REDUCES = """class GraphModule(torch.nn.Module):
    def forward(self, L_{0}_: "f32[64][1]cpu", L_{1}_: "f32[64][1]cpu"):
        l_{0}_ = L_{0}_
        l_{1}_ = L_{1}_
        # File: /x/site-packages/torch/distributed/_functional_collectives.py:179 in all_reduce, code: tensor = ...
        tensor: "f32[64][1]cpu" = torch.ops._c10d_functional.all_reduce(l_{0}_, 'sum', '0')
        tensor_1: "f32[64][1]cpu" = torch.ops._c10d_functional.all_reduce(l_{1}_, 'sum', '0')
        return (tensor, tensor_1)
"""


def test_two_ranks_reducing_their_inputs_in_another_order_are_mixed_values_not_a_hang():
    from explorer.distributed.compare import compare

    ranks = [_rank_of(0, _TWO_REDUCES.format("a", "b"), [(6, "dist.all_reduce(a)"), (7, "dist.all_reduce(b)")]),
             _rank_of(1, _TWO_REDUCES.format("b", "a"), [(4, "dist.all_reduce(b)"), (5, "dist.all_reduce(a)")])]
    (d,) = [d for d in compare(ranks)[2] if d.kind == "collectives"]
    assert not d.hang and d.ranks == (1,) and d.lineno == 4
    assert "combines `a` (`dist.all_reduce(a)` at t.py:6) on rank 0 with `b` (`dist.all_reduce(b)` at t.py:4)" in d.text
    same = [_rank_of(k, _TWO_REDUCES.format("a", "b"), [(6, "dist.all_reduce(a)"), (7, "dist.all_reduce(b)")])
            for k in (0, 1)]
    assert not [d for d in compare(same)[2] if d.kind == "collectives"]


def test_ranks_whose_graphs_ran_in_another_order_differ_by_frame_not_compile_id():
    from dataclasses import replace

    from explorer.capturing.model import CaptureData, Compilation, Frame
    from explorer.distributed.compare import compare

    def rank(k, order):
        comps = (Compilation("0/0", Frame("f", "/home/u/t.py", 3), "compiled"),
                 Compilation("1/0", Frame("g", "/home/u/t.py", 9), "compiled"))
        return _ran(RankInfo(k, 2), replace(CaptureData("t", "cpu", "3", compilations=comps), graph_execution=order))

    (d,) = [d for d in compare([rank(0, ("0/0", "1/0", "0/0")), rank(1, ("0/0", "0/0", "1/0"))])[2]
            if d.kind == "graph_order"]
    assert d.ranks == (1,) and "call 2 runs g@t.py:9 on rank 0 and f@t.py:3 on rank 1" in d.text
    assert not [d for d in compare([rank(0, ("0/0", "1/0")), rank(1, ("0/0", "1/0"))])[2] if d.kind == "graph_order"]


def test_inductor_scheduling_the_same_collectives_in_another_order_is_a_possible_hang():
    from dataclasses import replace

    from explorer.capturing.model import CollectiveSchedule
    from explorer.distributed.compare import compare

    lines = [(6, "dist.all_reduce(a)"), (7, "dist.all_reduce(b)")]
    ops = ("torch.ops._c10d_functional.all_reduce_.default",
           "torch.ops._c10d_functional.all_gather_into_tensor.default")
    ranks = []
    for k, order in ((0, ops), (1, ops[::-1])):
        r = _rank_of(k, _TWO_REDUCES.format("a", "b"), lines)
        comp = replace(r.capture.compilations[0], collective_schedule=(CollectiveSchedule("forward", order),))
        ranks.append(replace(r, report=replace(r.report, capture=replace(r.capture, compilations=(comp,)))))
    (d,) = [d for d in compare(ranks)[2] if d.kind == "collectives"]
    assert d.hang and d.ranks == (1,) and "Inductor scheduled the collectives of f (t.py:3) in another order" in d.text


def test_ddp_parameter_names_and_sizes_from_dynamos_placeholders():
    assert param_name("l_self_modules_layers_modules_0_parameters_weight_") == "layers.0.weight"
    assert param_name("L_self_modules_attn_modules_out_proj_parameters_bias_") == "attn.out_proj.bias"
    assert param_name("l_x_") is None
    assert (type_bytes("bf16[64, 64]"), type_bytes("f32[512][1]cuda:0"), type_bytes("f32[s0, 4]")) == (8192, 2048, None)


def test_show_displays_the_view_in_a_kernel_and_prints_the_summary_elsewhere(jobs, monkeypatch, capsys):
    import explorer
    from explorer.widget import ExplorerView

    path = jobs["diverge"].folder / "r.json"
    jobs["diverge"].result()
    explorer.show(path)
    assert "ranks compared:" in capsys.readouterr().out
    shown = []
    monkeypatch.setattr("explorer.hosts.widgets_live", lambda: True)
    monkeypatch.setattr("explorer.hosts.name", lambda: "jupyter")
    monkeypatch.setattr("IPython.display.display", shown.append)
    explorer.show(path, rank=1)
    (view,) = shown
    assert isinstance(view, ExplorerView) and view.report.distributed.rank == 1
    assert "rank 1 of 2" in view.summary()


def test_each_ranks_own_device_index_is_not_a_difference(jobs):
    """On GPUs rank k's tensors are on cuda:k: graphs, guards and types differ by that index only."""
    text = jobs["ddp"].report().rank(0).to_json()
    parts = {k: Report.from_json(text.replace("]cpu", f"]cuda:{k}").replace("device=0", f"device={k}"))
             for k in (0, 1)}
    assert "cuda:1" in parts[1].to_json() and "cuda:1" not in parts[0].to_json()
    merged = merge(parts, world_size=2).distributed
    assert [g.ranks for g in merged.groups] == [(0, 1)]
    assert not merged.differences


def test_one_compilation_of_two_ranks_diffed_as_text(jobs):
    from explorer.distributed.diff import diff_ranks

    report = jobs["diverge"].report()
    (step,) = [m for m in report.distributed.compilations if m.key.startswith("step@") and m.nth == 0]
    diff = diff_ranks(report, 0, 1, step.key)
    guards, graph = diff.section("guards"), diff.section("graph")
    assert graph.changed and guards.changed
    text = diff.to_text()
    assert "-EQUALS_MATCH: G['rank'] == 0" in text and "+EQUALS_MATCH: G['rank'] == 1" in text
    assert "--- rank 0 [0/0] graph" in text and "-        cos: " in text
    assert diff_ranks(report, 0, 1, "0/0").to_text() == text  # rank 0's compile id names it too
    with pytest.raises(LookupError):
        diff_ranks(report, 0, 1, "nothing@x.py:1#0")


# ---- 6. the view: a rank picker, "ranks compared" at the top, a pane diffed against another rank's ----

def test_the_view_model_leads_each_difference_to_its_rank_compilation_and_stage(jobs):
    from explorer.present.viewmodel import build

    report = jobs["diverge"].report()
    ranks = build(report, panes=False)["ranks"]
    rank1 = report.rank(1).capture
    assert [r["label"] for r in ranks["ranks"]] == ["rank 0 (1 compilation)", "rank 1 (4 compilations)"]
    assert {m["key"]: m["ids"] for m in ranks["compilations"]}["step@diverge.py:10#0"] == {"0": "0/0", "1": "0/0"}
    (section,) = ranks["blocks"]
    items = [i for b in section["body"] if b["t"] == "section" for x in b["body"] if x["t"] == "list"
             for i in x["items"] if "go" in i]
    by_kind = {i["r"][0]["chip"]: i["go"] for i in items}
    line = line_of(program("diverge.py"), "print(f\"rank {rank}")
    broke = next(c for c in rank1.compilations if c.graph_break is not None and c.graph_break.lineno == line)
    assert by_kind["graph break"] == {"rank": 1, "stage": "graph_break", "cid": broke.compile_id,
                                      "origins": [{"file": program("diverge.py"), "line": broke.graph_break.lineno}]}
    step_recompile = next(i["go"] for i in items if "recompile of step " in i["text"])
    assert step_recompile["cid"] == "0/1" and rank1.compilations[1].recompile_reason  # rank 1's 0/1 replaced 0/0
    assert by_kind["graph"] == {"rank": 0, "stage": "graph", "cid": "0/0",
                                "diff": {"rank": 1, "cid": "0/0", "stage": "graph"}}  # an object, not "@1:0/0|graph"


def test_the_page_embeds_every_rank_and_each_indexes_one_chain(jobs, breaks_report):
    from explorer.present.payload import build, build_rest

    report = jobs["diverge"].report()
    payload, _ = build(report, pictures="none", other_ranks=True)
    (other,) = payload["rank_payloads"].values()
    assert [v["cid"] for v in other["views"]] == [c.compile_id for c in report.rank(1).capture.compilations]
    assert other["header"]["chips"][0] == ["rank", "1 of 2"] and payload["header"]["chips"][0] == ["rank", "0 of 2"]
    assert other["lineage"]["origins"] == payload["lineage"]["origins"]  # a pinned line is the same line on each
    # rank 1's print: rank 0 never ran it
    assert {"file": program("diverge.py"), "line": 15} in payload["lineage"]["origins"]
    assert all(r["report"] is None for r in payload["report"]["distributed"]["ranks"])  # each rank sent once
    assert build_rest(report)["lineage"]["origins"] == payload["lineage"]["origins"]  # a deferred view's rest too
    single, _ = build(breaks_report, pictures="none", other_ranks=True)
    assert single["ranks"] is None and "rank_payloads" not in single


def test_the_widget_sends_another_rank_when_the_view_first_shows_it(jobs):
    from explorer.widget import ACTIONS, ExplorerView, decode_payload

    report = jobs["diverge"].report()
    view = ExplorerView(report)
    first = view.payload()
    assert first["ranks"]["rank"] == 0 and "rank_payloads" not in first  # one rank travels with the widget
    reply = ACTIONS["rank"](view, {"rank": 1})
    sent = decode_payload(reply["_buffers"][0], reply["encoding"])
    assert [v["cid"] for v in sent["views"]] == ["0/0", "0/1", "1/0", "1/1"]
    assert sent["lineage"]["origins"] == first["lineage"]["origins"] and sent["pictures_lazy"]
    pictures = {pid for v in sent["views"] for pid in v["pictures"].values()}
    assert pictures <= set(view._dots)  # the kernel can draw rank 1's pictures when asked
    view.select(rank=1, comp_index=2, right="graph_break")  # from Python: rank 1's third compilation
    assert {k: view.widget().selection[k] for k in ("rank", "comp", "right")} == {
        "rank": 1, "comp": "1/0", "right": "graph_break"}


def test_the_static_copy_shows_ranks_compared_then_the_lowest_rank(jobs):
    from explorer.present.html import render_fragment

    report = jobs["diverge"].report()
    html = render_fragment(report, pictures=False)
    at = [html.index(s) for s in ('class="cx-table cx-rank-counts"', 'class="cx-list cx-rank-diffs"',
                                  "rank 1 only: graph break at diverge.py:", "Rank 0 <span",
                                  'data-compile-id="0/0"')]
    assert at == sorted(at)
    assert "<td>rank 1</td><td>4</td><td>4</td><td>2</td><td>2</td>" in html  # compilations, graphs, breaks, recompiles


def test_a_possible_hang_leads_to_its_graph_with_the_collective_nodes_lit(jobs):
    from explorer.present.viewmodel import build

    report = jobs["collectives"].report()
    (section,) = build(report, panes=False)["ranks"]["blocks"]
    (hang,) = [i for b in section["body"] if b["t"] == "section" for x in b["body"] if x["t"] == "list"
               for i in x["items"] if i.get("cls", "").endswith("cx-hang")]
    go = hang["go"]
    (gc,) = [gc for gc in report.distributed.collectives if gc.key.startswith("swapped@") and gc.rank == go["rank"]
             and gc.stage == "graph"]
    assert (go["rank"], go["cid"], go["stage"]) == (1, gc.compile_id, "graph")
    lin = next(x for x in report.rank(1).lineage if x.compile_id == gc.compile_id)
    lit_lines = {Origin(**o) for o in go["origins"]}  # {"file", "line"}
    lit = {el for line, el in lin.text("graph").elements.items() if set(lin.origins_at("graph", int(line)))
           & lit_lines}
    assert {c.node for c in gc.collectives} <= lit  # each collective node of rank 1's graph lights up
    assert {Origin(program("collectives.py"), c.lineno) for c in gc.collectives} <= lit_lines


# ---- 7. a rank's view is its part's view ----

def test_each_rank_of_a_merged_job_shows_as_its_part_alone(jobs):
    """Rank k's view in the merged report (the widget's and the page's rank payload, the static copy, the text) is
    the view of rank k's part opened alone: the same report, module structure (the layers the views fold) and
    problems included. The top level (rank 0) differs from rank 0's part by the job's own sections only."""
    from explorer.present.html import render_fragment
    from explorer.present.payload import build, job_origins, rank_payload

    code, _, err = jobs["ddp"].result()
    assert code == 0, err
    folder = jobs["ddp"].folder
    merged = jobs["ddp"].report()
    parts = [Report.load(folder / f"r.rank{k}.json") for k in (0, 1)]
    origins = job_origins(merged)  # a job's payloads index one list of user lines
    for k, part in enumerate(parts):
        (s,) = part.structure
        assert [(r.stage, r.parent, r.groups[0].members) for r in s.repeats] == [
            ("graph", "layers", ("0", "1", "2", "3")), ("guards", "layers", ("0", "1", "2", "3"))]
        mine = merged.rank(k)
        assert mine == part and mine.all_problems == part.all_problems
        alone, _ = build(part, pictures="none", made_at=0.0, origins=origins)
        assert rank_payload(merged, k, pictures="none", made_at=0.0)[0] == alone
        assert render_fragment(mine, pictures=False) == render_fragment(part, pictures=False)
        assert mine.summary() == part.summary()
    top, _ = build(merged, pictures="none", made_at=0.0)
    alone, _ = build(parts[0], pictures="none", made_at=0.0, origins=origins)
    job_only = ("ranks", "report")  # "ranks compared"; the report's distributed, options and the merge's problems
    assert {k: v for k, v in top.items() if k not in job_only} == {k: v for k, v in alone.items() if k not in job_only}
    assert {k: v for k, v in top["report"].items() if k not in ("distributed", "options", "problems")} == {
        k: v for k, v in alone["report"].items() if k not in ("distributed", "options", "problems")}
    text = merged.summary()
    assert text.endswith(parts[0].summary().split("\n", 1)[1])  # after "ranks compared", rank 0's own summary


def test_a_ranks_cells_comparisons_preview_and_problems_survive_the_merge_and_its_json(jobs):
    """What only some reports have (a notebook cell's name, a --compare table, a CUDA preview, a record that could
    not be read) is rank k's after the merge and the JSON, and a problem of its capture is listed once."""
    from dataclasses import replace

    from explorer.capturing.model import Preview, Problem
    from explorer.present.viewmodel import build
    from explorer.timing.model import ModeResult

    jobs["ddp"].result()
    part0, part1 = (Report.load(jobs["ddp"].folder / f"r.rank{k}.json") for k in (0, 1))
    comp = part1.capture.compilations[0]
    bad = Problem("decoder", "an op without a name", "artifact", comp.compile_id)
    rich = replace(part1, capture=replace(part1.capture, problems=(bad,)),
                   clinic=replace(part1.clinic, cells={comp.frame.filename: "cell [5]"}),
                   comparisons=(ModeResult("max-autotune", 1.5, 2e-3, 1e-3, 2.0, 3.0),),
                   preview=Preview("cuda sm_90 (NVIDIA H100, mocked)", "not run", graphs=("previewed",)))
    doc = merge({0: part0, 1: rich}, world_size=2).to_json()
    jsonschema.validate(json.loads(doc), _schema())
    merged = Report.from_json(doc)
    assert merged.to_json() == doc
    mine = merged.rank(1)
    assert mine == rich and mine.all_problems == (bad,)
    problems = [b for b in build(mine, panes=False)["header"]["body"] if "cx-problem" in b.get("cls", "")]
    assert len(problems) == 1 and mine.summary().count("an op without a name") == 1
    assert [r.status for r in merged.distributed.ranks] == ["ok", "ok"]


def test_a_recompile_leads_to_the_compilation_it_made_by_data_not_by_its_words():
    """The comparison names the compilation a rank-only recompile made (``Difference.key``); the ranks' view
    follows it there, whatever the difference's words say. A report written before it did leads by the
    recompile's user line (tests/data/merged_v3.json)."""
    from dataclasses import replace
    from pathlib import Path

    from explorer.present import ranks

    stored = Report.from_json((Path(__file__).parent / "data" / "merged_v3.json").read_text(encoding="utf-8"))
    remade = merge({r: stored.rank(r) for r in (0, 1)})
    for report in (stored, remade):
        dist = report.distributed
        (step,) = [d for d in dist.differences if d.kind == "recompile" and "recompile of step " in d.text]
        assert (step.key is not None) == (report is remade)
        for d in (step, replace(step, text="rank 1 only: a recompile")):  # the words are for the reader only
            assert ranks.difference_target(dist, d)["cid"] == "0/1"
    (step,) = [d for d in remade.distributed.differences if d.kind == "recompile" and "of step " in d.text]
    assert ranks.difference_target(remade.distributed, replace(step, filename=None, lineno=None))["cid"] == "0/1"
