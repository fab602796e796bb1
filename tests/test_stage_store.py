"""A re-run at a plain re-run's speed still shows every stage: the explorer's stage store (``capturing.stage_store``).

The default capture leaves torch's graph caches on. An FX graph cache hit skips lowering, so torch does not write the
loop-level IR again: the capture that lowered the graph kept it, and the re-run shows it from there, saying so.
Where the store has none, the stage says why and what to do (``--fresh``). Each capture runs in a fresh process,
as a re-run does, into an Inductor cache folder of the test's own; the store's failures are checked on records.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import dataclasses, json, sys, torch, explorer
from explorer.present import viewmodel as vm
from explorer.present.text import flat
import importlib.util
spec = importlib.util.spec_from_file_location("probe_program", sys.argv[2])  # the program: a file of its own
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
stage_store_probe = module.stage_store_probe
x = torch.linspace(-2, 2, 16)
report = explorer.explore(stage_store_probe, x, **({"fresh": True} if sys.argv[1] == "fresh" else {}))
comp = report.capture.compilations[0]
view = vm.build(report)["compilations"][0]
print("RESULT " + json.dumps({
    "right": bool(torch.allclose(report.result, stage_store_probe(x))),
    "mode": report.capture.cache_mode,
    "caches": [[c.cache, c.outcome] for c in comp.caches],
    "stored": [dataclasses.asdict(s) for s in comp.stored],
    "json_stored": json.loads(report.to_json())["capture"]["compilations"][0]["stored"],
    "pre": [d.text for d in comp.ir_pre_fusion or ()], "post": [d.text for d in comp.ir_post_fusion or ()],
    "post_grad": comp.post_grad_graph.code if comp.post_grad_graph else None,
    "why_pre": view["why"].get("ir_pre_fusion"),
    "pane_notes": [flat(b["r"]) for b in view["panes"].get("ir_pre_fusion", []) if b.get("t") == "note"],
    "summary": report.summary(), "notes": list(report.capture.notes),
    "chip": dict(vm.build(report)["header"]["chips"])["caches"],
}))
"""


PROBE = "import torch\n\n{above}\ndef stage_store_probe(x):\n    return (torch.sigmoid(x) * 1.75).sin() + 0.25\n"


def _program(folder, name: str, above: str = "") -> str:
    """The probe function in a file of its own; ``above``: lines before it (another program's same graph)."""
    path = folder / name
    path.write_text(PROBE.format(above=above))
    return str(path)


def _capture(cache_dir: str, program: str, mode: str = "cold") -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, program], capture_output=True, text=True, env=env,
                          timeout=600)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    out = json.loads(line[len("RESULT "):])
    assert out["right"], "the cell's result is a plain run's"
    return out


def _store(cache_dir: str) -> str:
    return os.path.join(cache_dir, "compile-explorer", "stages")


@pytest.fixture(scope="module")
def reruns(tmp_path_factory):
    """One program captured six times, each in a fresh process, the cache folder shared: the first lowers, the
    second re-runs; then with the store's files unreadable, with the store gone, fresh, and cold again; then
    another program (another file, the same graph) twice."""
    folder = tmp_path_factory.mktemp("stage_store")
    cache, program = str(folder / "inductor"), _program(folder, "probe_a.py")
    other = _program(folder, "probe_b.py", above="# the same graph as probe_a's, from other lines of another file\n")
    runs = {"first": _capture(cache, program)}
    stored_files = sorted(os.listdir(_store(cache)))
    runs["second"] = _capture(cache, program)
    for name in stored_files:
        with open(os.path.join(_store(cache), name), "w", encoding="utf-8") as fh:
            fh.write("{not json")
    runs["unreadable"] = _capture(cache, program)
    shutil.rmtree(_store(cache))
    runs["cleared"] = _capture(cache, program)
    runs["fresh"] = _capture(cache, program, "fresh")
    runs["after_fresh"] = _capture(cache, program)
    runs["stored_files"] = stored_files
    runs["other"] = _capture(cache, other)
    runs["other_again"] = _capture(cache, other)
    runs["paths"] = program, other
    return runs


def test_a_rerun_hits_torchs_graph_cache_and_shows_the_loop_ir_from_the_explorers_store(reruns):
    first, second = reruns["first"], reruns["second"]
    assert first["mode"] == second["mode"] == "cold"
    assert ["fx_graph", "miss"] in first["caches"] and first["stored"] == []  # lowered, and kept
    assert len(reruns["stored_files"]) == 1 and reruns["stored_files"][0].endswith(".json")
    assert ["fx_graph", "hit"] in second["caches"]  # the re-run: torch loaded the graph, it lowered nothing
    # the same stages as the first run, the loop-level IR before and after fusion included
    assert first["pre"] and second["pre"] == first["pre"] and "sigmoid" in first["pre"][0]
    assert first["post"] and second["post"] == first["post"]
    (stored,) = second["stored"]
    assert stored["outcome"] == "replayed" and stored["graph_kind"] == "inference" and stored["key"]
    assert {"ir_pre_fusion", "ir_post_fusion"} <= set(stored["records"]) and stored["lowered_at"]
    assert second["json_stored"] == [stored]  # the JSON says so too
    # the view says where the loop-level IR came from
    assert any(n.startswith("From the explorer's stage store: the inference graph's, as a capture lowered it")
               for n in second["pane_notes"]), second["pane_notes"]
    assert "from the explorer's stage store (as a capture lowered them): Loop-level IR before fusion" \
        in second["summary"]
    # issue 40: the re-run, served entirely from the caches, is labelled served, never "cold"; the first, lowered now
    caches_line = [line for line in second["summary"].splitlines() if line.startswith("caches: ")]
    assert caches_line == ["caches: 1 graph served by torch's graph caches (FX graph cache 1 hit, AOTAutograd "
                           "cache 1 hit), the loop-level IR of 1 from the explorer's stage store; kernels: 1 loaded "
                           "from torch's code cache (compiled before from the same source), 0 built (--fresh lowers "
                           "every graph again, --warm shows the program's own caches)"], caches_line
    assert second["chip"] == "1 served from cache" and first["chip"] == "1 lowered now"
    assert "caches: 1 graph lowered now; kernels: 0 loaded from torch's code cache" in first["summary"]
    assert "cold" not in second["summary"] + first["summary"]


def test_a_store_without_the_lowering_says_the_stage_was_skipped_by_the_hit_and_how_to_see_it(reruns):
    cleared = reruns["cleared"]
    assert ["fx_graph", "hit"] in cleared["caches"]
    assert cleared["pre"] == [] and cleared["post"] == []
    (stored,) = cleared["stored"]
    assert stored["outcome"] == "missing" and "ir_pre_fusion" in stored["records"]
    why = cleared["why_pre"]
    assert why.startswith("skipped: an FX graph cache hit (key ") and stored["key"] in why
    assert "holds no records of this lowering" in why
    assert "fresh=True (%%compile --fresh, run --fresh)" in why
    assert "not in the explorer's stage store: Loop-level IR before fusion" in cleared["summary"]
    assert "the loop-level IR of 0 from the explorer's stage store, 1 not in it" in cleared["summary"]


def test_an_unreadable_store_file_is_a_reason_on_the_stage_not_an_error(reruns):
    unreadable = reruns["unreadable"]  # the cell ran and gave its result (checked in _capture)
    (stored,) = unreadable["stored"]
    assert stored["outcome"] == "missing"
    assert "the explorer's stage store could not be read (JSONDecodeError" in unreadable["why_pre"]
    assert "--fresh" in unreadable["why_pre"]


def test_fresh_lowers_every_graph_again_and_fills_the_store_for_the_captures_after_it(reruns):
    fresh, after = reruns["fresh"], reruns["after_fresh"]
    assert fresh["mode"] == "fresh" and "caches: fresh (torch's graph caches off while capturing): 1 graph lowered " \
        "now" in fresh["summary"] and fresh["chip"] == "fresh: 1 lowered now"
    assert fresh["caches"] == [] and fresh["stored"] == []  # graph caches off: none consulted
    assert fresh["pre"] == reruns["first"]["pre"] and fresh["post"] == reruns["first"]["post"]
    (stored,) = after["stored"]
    assert ["fx_graph", "hit"] in after["caches"] and stored["outcome"] == "replayed"
    assert after["pre"] == reruns["first"]["pre"] and after["post"] == reruns["first"]["post"]


def test_the_same_graph_from_another_program_is_lowered_again_and_names_its_own_lines(reruns):
    """torch's graph caches key a graph by its code; a capture tags its graphs with their user lines, so another
    program's identical graph is not served the first program's lowering (its lines, its loop IR)."""
    first, other, again = reruns["first"], reruns["other"], reruns["other_again"]
    assert ["fx_graph", "miss"] in other["caches"] and other["stored"] == []  # lowered for itself
    a, b = reruns["paths"]
    assert f"{b}:6 in stage_store_probe" in other["post_grad"] and a not in other["post_grad"], other["post_grad"]
    assert f"{a}:5 in stage_store_probe" in first["post_grad"]
    assert other["pre"] == first["pre"]  # the same loop IR, lowered again
    # its own re-run hits its own entry, with its own lines
    assert ["fx_graph", "hit"] in again["caches"] and again["stored"][0]["outcome"] == "replayed"
    assert again["post_grad"] == other["post_grad"] and again["pre"] == other["pre"]


def test_the_users_cache_key_tag_is_kept_in_the_key_and_restored_after_the_capture():
    """The tag is set only while a graph is handed to its backend, after the user's own."""
    import torch

    import explorer
    from explorer.capturing import cache_tag

    seen = []

    def backend(gm, example_inputs):
        seen.append(torch.compiler.config.cache_key_tag)
        return gm.forward

    def tagged(x):
        y = x.cos() * 3
        torch._dynamo.graph_break()
        return y.cos() * 3  # the same ops from another line: another graph, another tag

    def another(x):
        return x.tan() - 1

    with torch.compiler.config.patch(cache_key_tag="users-namespace"):
        with explorer.capture():
            torch.compile(tagged, backend=backend)(torch.ones(3))
            assert torch.compiler.config.cache_key_tag == "users-namespace"  # once each backend has returned
        assert torch.compiler.config.cache_key_tag == "users-namespace"
        with explorer.capture():  # the user's code sets a tag of its own: it stays theirs, in the key and after
            torch.compiler.config.cache_key_tag = "set-in-the-cell"
            torch.compile(another, backend=backend)(torch.ones(3))
        assert torch.compiler.config.cache_key_tag == "set-in-the-cell"
    assert len(seen) == 3 and seen[0] != seen[1]
    assert all(t.startswith("users-namespace|" + cache_tag.MARK) and len(t) > 48 for t in seen[:2]), seen
    assert seen[2].startswith("set-in-the-cell|" + cache_tag.MARK), seen
    assert cache_tag.tag_for(None, "abc") == cache_tag.MARK + "abc"


# ---- the store's failures, on records (no compile) ----

def _lowering(cid, kind, code="def call(args): ...\n"):
    """A lowering's records as a capture gets them: post-grad graph, loop-level IR, output code, then the lookup."""
    from explorer.capturing.raw import RawEvent

    hit = kind == "hit"
    events = [RawEvent(1, "inductor_post_grad_graph" if hit else "artifact:inductor_post_grad_graph", cid, {},
                       "graph():\n")]
    if not hit:
        events += [RawEvent(2, "ir_pre_fusion", cid, {}, "op0: SchedulerNode\n"),
                   RawEvent(3, "ir_post_fusion", cid, {}, "op0: SchedulerNode (fused)\n"),
                   RawEvent(4, "artifact:inductor_runtime_and_tensor_meta", cid, {"encoding": "json"}, "{}")]
    events += [RawEvent(5, "inductor_output_code", cid, {"filename": "/x/o.py"}, code),
               RawEvent(6, f"artifact:fx_graph_cache_{kind}", cid, {"encoding": "json"}, json.dumps({"key": "fkey"}))]
    return events


def test_a_store_that_cannot_be_written_is_a_note_and_the_capture_goes_on(tmp_path):
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.raw import RawCapture
    from explorer.capturing.stage_store import StageStore, put_back

    (tmp_path / "stages").write_text("a file where the store's folder would be")
    raw = RawCapture(events=_lowering(CompileId(0, 0), "miss"))
    notes: list[str] = []
    out = put_back(raw, StageStore(str(tmp_path / "stages")), notes)
    assert [e.name for e in out.events] == [e.name for e in raw.events]  # the capture's own records, untouched
    (note,) = notes
    assert note.startswith(f"the explorer's stage store ({tmp_path / 'stages'}) could not be written")
    assert "will not show their loop-level IR" in note


def test_records_kept_by_one_capture_are_put_back_before_a_later_hit_and_read_into_the_compilation(tmp_path):
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.decode_usage import STORE_EVENT
    from explorer.capturing.raw import RawCapture
    from explorer.capturing.stage_store import StageStore, put_back

    store, notes = StageStore(str(tmp_path / "stages")), []
    put_back(RawCapture(events=_lowering(CompileId(0, 0), "miss")), store, notes)
    out = put_back(RawCapture(events=_lowering(CompileId(0, 0), "hit")), store, notes)
    names = [e.name for e in out.events]
    assert names == ["inductor_post_grad_graph", "inductor_output_code", "ir_pre_fusion", "ir_post_fusion",
                     "artifact:inductor_runtime_and_tensor_meta", STORE_EVENT, "artifact:fx_graph_cache_hit"]
    assert out.events[2].payload == "op0: SchedulerNode\n" and notes == []
    # another lowering's output code: not this one's records
    other = put_back(RawCapture(events=_lowering(CompileId(0, 0), "hit", code="def call(args): pass\n")), store, [])
    (record,) = [e for e in other.events if e.name == STORE_EVENT]
    assert record.metadata[STORE_EVENT]["outcome"] == "missing" and "ir_pre_fusion" not in [e.name for e in
                                                                                           other.events]
