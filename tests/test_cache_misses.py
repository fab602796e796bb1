"""Why the cache missed: each graph cache miss names the component of its key that changed since the last capture of
the same lines (``capturing.cache_keys``), and a hit says what it saved.

One program is captured again and again, each time in a fresh process (as a re-run is), into an Inductor cache folder
of the test's own, with one thing changed between two captures: nothing (a hit), an input's dtype, an Inductor config
value, a line of the graph's code, a line moved above the function (only the explorer's part of the key changes).
The same program run under TORCH_TRACE (a recompile for a new dtype) and opened names the same cause.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, sys, torch, explorer
import importlib.util
from explorer.present import viewmodel as vm
from explorer.present.text import flat
from explorer.clinic.slow import answer
spec = importlib.util.spec_from_file_location("probe_program", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if sys.argv[3] == "autotune":
    import torch._inductor.config as inductor_config
    inductor_config.max_autotune = True
x = torch.linspace(-2, 2, 16, dtype=getattr(torch, sys.argv[2]))
import logging
aot_log = logging.getLogger("torch._functorch._aot_autograd.autograd_cache")
before = (aot_log.level, list(aot_log.filters))
report = explorer.explore(module.cache_probe, x)
assert (aot_log.level, list(aot_log.filters)) == before, "the capture left AOTAutograd's logger changed"
comp = report.capture.compilations[0]
doc = json.loads(report.to_json())
view = vm.build(report)["compilations"][0]
print("RESULT " + json.dumps({
    "caches": [[c.cache, c.outcome, c.graph_kind] for c in comp.caches],
    "json_caches": doc["capture"]["compilations"][0]["caches"],
    "strip": [flat(i["r"]) for b in view["from_where"] if b["t"] == "list" for i in b["items"]],
    "summary": report.summary(), "html": report.to_html(), "notes": list(report.capture.notes),
    "why_slow": [m.reason for m in answer(report.capture).misses if m.cache == "fx_graph"],
    "aot_why": [c["why"] for c in doc["capture"]["compilations"][0]["caches"] if c["cache"] == "aotautograd"],
}))
"""

PROGRAM = "import torch\n{above}\n\ndef cache_probe(x):\n    y = torch.cos(x) + 0.5\n    return y * {factor}\n"


def _write(path, above: str = "", factor: str = "2") -> str:
    path.write_text(PROGRAM.format(above=above, factor=factor))
    return str(path)


def _capture(cache_dir: str, program: str, dtype: str = "float32", config: str = "plain") -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, program, dtype, config], capture_output=True, text=True,
                          env=env, timeout=600)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    assert "cache hash details" not in proc.stderr  # AOTAutograd's components are read, never printed
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The program captured six times in a row, each change kept by the next capture (so each miss has one cause)."""
    folder = tmp_path_factory.mktemp("cache_misses")
    cache, path = str(folder / "inductor"), folder / "probe.py"
    program = _write(path)
    out = {"first": _capture(cache, program), "again": _capture(cache, program),
           "dtype": _capture(cache, program, "float64"),
           "config": _capture(cache, program, "float64", "autotune")}
    _write(path, factor="3")
    out["code"] = _capture(cache, program, "float64", "autotune")
    _write(path, above="# a comment that moves the function down a line\n", factor="3")
    out["moved"] = _capture(cache, program, "float64", "autotune")
    keys = os.path.join(cache, "compile-explorer", "keys")
    out["store"] = os.listdir(keys) if os.path.isdir(keys) else []
    out["program"] = program
    return out


def _fx(run: dict) -> dict:
    (lookup,) = [c for c in run["json_caches"] if c["cache"] == "fx_graph"]
    return lookup


def _said(run: dict) -> str:
    (line,) = [s for s in run["strip"] if s.startswith("FX graph cache")]
    return line


def _everywhere(run: dict, words: str) -> None:
    """The view's words are in the widget's strip, the text summary and the static page."""
    assert words in _said(run), run["strip"]
    assert words in run["summary"], run["summary"]
    assert words.replace("'", "&#x27;").replace(">", "&gt;") in run["html"] or words in run["html"]


def test_the_first_capture_has_nothing_to_compare_with(runs):
    why = _fx(runs["first"])["why"]
    assert _fx(runs["first"])["outcome"] == "miss" and why["against"] == "none" and why["changes"] == []
    assert "no earlier capture of these lines to compare with: their first capture, the graph lowered from scratch" \
        in _said(runs["first"])
    assert len(runs["store"]) >= 1  # the key store beside the stage store, one file per identity
    assert "cold" not in runs["first"]["summary"]  # issue 40: "lowered now", never "cold"
    assert runs["first"]["why_slow"] == ["no earlier capture of these lines to compare with: their first capture, "
                                         "the graph lowered from scratch"]  # --why-slow's miss says the same


def test_a_rerun_hits_and_says_what_it_saved(runs):
    fx = _fx(runs["again"])
    assert fx["outcome"] == "hit" and fx["why"] is None and fx["time_saved_s"] > 0
    assert runs["again"]["strip"] == []  # nothing missed: no reasons
    assert re.search(r"FX graph cache hit \[inference\] \(key \w+\S*\), saves \d+\.\d\d s", runs["again"]["summary"])
    assert re.search(r"\d+\.\d\d s saved", runs["again"]["html"])
    assert "cold when the entry was filled, as torch measured" in runs["again"]["html"]


def test_a_changed_dtype_names_the_input_and_its_line(runs):
    fx = _fx(runs["dtype"])
    assert fx["outcome"] == "miss" and fx["why"]["against"] == "stored" and fx["why"]["at"]
    (change,) = fx["why"]["changes"]
    assert change["component"] == "example_inputs[0].dtype" and (change["old"], change["new"]) == ("float32", "float64")
    assert change["filename"] == runs["program"] and change["lineno"]
    _everywhere(runs["dtype"], "graph input 0's dtype: float32 -> float64 at ")
    assert "FX graph cache missed [inference] against the last capture of these lines (" in _said(runs["dtype"])
    assert runs["dtype"]["why_slow"] == ["graph input 0's dtype: float32 -> float64 (against the last capture of "
                                         "these lines)"]  # --why-slow names the cause of its miss


def test_an_aotautograd_miss_is_compared_too(runs):
    """AOTAutograd's cache writes its key's components only while its logger is at DEBUG (torch 2.12 on): the
    capture turns that on, silently, so its miss is explained like the FX graph cache's (vllm#20451: an FX graph hit
    behind an AOTAutograd miss)."""
    assert runs["first"]["aot_why"] and runs["first"]["aot_why"][0]["against"] == "none"
    (why,) = runs["dtype"]["aot_why"]
    assert why["against"] == "stored", why
    assert any(c["component"].endswith(".dtype") and (c["old"], c["new"]) == ("float32", "float64")
               for c in why["changes"]), why


def test_a_changed_inductor_config_value_names_it_with_old_and_new(runs):
    (change,) = _fx(runs["config"])["why"]["changes"]
    assert change["component"] == "inductor_config[max_autotune]" and change["filename"] is None
    _everywhere(runs["config"], "Inductor config max_autotune: False -> True")


def test_a_changed_line_of_code_names_the_graph_with_a_diff(runs):
    (change,) = _fx(runs["code"])["why"]["changes"]
    assert change["component"] == "gm" and change["words"] == "the graph's code changed"
    assert (change["filename"], change["lineno"]) == (runs["program"], 6)  # `return y * 3`: the line whose node changed
    assert "- " in change["diff"] and "2" in change["diff"] and "3" in change["diff"], change["diff"]
    _everywhere(runs["code"], "the graph's code changed")
    assert any(line.strip().startswith("+") and "3" in line for line in runs["code"]["summary"].splitlines())


def test_a_moved_line_is_the_explorers_own_part_of_the_key_said_honestly(runs):
    (change,) = _fx(runs["moved"])["why"]["changes"]
    assert change["component"] == "cache_key_tag"
    said = _said(runs["moved"])
    assert "the lines of this graph changed, not the graph: only the explorer's part of the cache key tag differs" \
        in said and f"at {runs['program']}:5" in said
    assert said.endswith("The explorer keys graphs by their lines so that the stages name the right ones: torch alone "
                         "could have hit."), said


TRACED = ("import torch\n\ndef cache_probe(x):\n    y = torch.cos(x) + 0.5\n    return y * 2\n\n"
          "f = torch.compile(cache_probe)\nf(torch.linspace(-2, 2, 16))\n"
          "f(torch.linspace(-2, 2, 16, dtype=torch.float64))\n")


def test_a_trace_names_the_recompiles_cause_within_itself(tmp_path):
    from explorer.traces.opening import open_trace

    program = tmp_path / "traced.py"
    program.write_text(TRACED)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"), TORCH_TRACE=str(tmp_path / "trace"))
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = open_trace(str(tmp_path / "trace"))
    first, second = report.capture.compilations
    (a,) = [c for c in first.caches if c.cache == "fx_graph"]
    (b,) = [c for c in second.caches if c.cache == "fx_graph"]
    assert a.why.against == "none" and "nothing earlier in this trace" in a.why.note
    assert b.why.against == "earlier" and b.why.compile_id == "0/0"
    assert [c.words for c in b.why.changes] == ["graph input 0's dtype: float32 -> float64"]
    assert "FX graph cache missed [inference] against compile 0/0: graph input 0's dtype: float32 -> float64" \
        in report.summary()
    doc = report.to_json()
    assert "inductor_config[" not in doc and "TensorMetadata(" not in doc  # the explanation kept, not the components


# ---- the comparison itself, on torch's component lines as 2.11-2.14 write them ----

def _lines(dtype: str = "torch.float32", tag: str = "", autotune: str = "False", graph: str = "mul(x, 2)",
           inputs: int = 1) -> list:
    from hashlib import sha256

    def line(name: str, value: str) -> str:
        return f"[{sha256(value.encode()).hexdigest()[:8]}] {name}: {value}"

    meta = (f"TensorMetadata(dtype={dtype}, shape=torch.Size([8, 4]), stride=(4, 1), device=device(type='cpu'), "
            "layout=torch.strided, requires_grad=False)")
    return [line("gm", f"<lambda>()\n\ndef forward(self, x):\n    y = {graph}\n    return (y,)\n"),
            *(line(f"example_inputs[{i}]", meta) for i in range(inputs)), line("cache_key_tag", tag),
            line("fx_kwargs[is_inference]", "True"), line("inductor_config[max_autotune]", autotune)]


def _compare(before: list, after: list) -> list[str]:
    from explorer.capturing.cache_keys import compare, parse_components

    changes, _ = compare(parse_components(after), parse_components(before), ("/w/a.py", 3))
    return [c["words"] for c in changes]


def test_each_component_is_named_in_words():
    assert _compare(_lines(), _lines(dtype="torch.float16")) == ["graph input 0's dtype: float32 -> float16"]
    assert _compare(_lines(), _lines(autotune="True")) == ["Inductor config max_autotune: False -> True"]
    assert _compare(_lines(), _lines(graph="mul(x, 3)")) == ["the graph's code changed"]
    assert _compare(_lines(tag="mine|compile-explorer:aa"), _lines(tag="yours|compile-explorer:bb")) == [
        "your cache key tag (torch.compiler.config.cache_key_tag): 'mine' -> 'yours'"]
    assert _compare(_lines(tag="compile-explorer:aa"), _lines(tag="compile-explorer:bb"))[0].startswith(
        "the lines of this graph changed, not the graph")
    # a default capture's key against a --warm one's: the explorer's tag is there once, said so (not "the lines")
    assert _compare(_lines(tag=""), _lines(tag="compile-explorer:bb"))[0].startswith(
        "the explorer's part of the cache key tag is in one key and not the other")
    # the explorer's digest changes with the graph: only the graph is named
    assert _compare(_lines(tag="compile-explorer:aa"), _lines(tag="compile-explorer:bb", graph="mul(x, 3)")) == [
        "the graph's code changed"]
    assert _compare(_lines(), _lines()) == []
    # the same change of several inputs (a model's parameters) is said once
    assert _compare(_lines(inputs=2), _lines(dtype="torch.float64", inputs=2)) == [
        "graph inputs 0, 1's dtype: float32 -> float64"]


def test_a_graph_change_names_the_line_whose_node_changed():
    from explorer.capturing.cache_keys import compare, graph_lines, parse_components

    text = "        # File: /w/a.py:4 in f, code: y = x.cos()\n        # File: /w/a.py:5 in f, code: return y * {}"
    then, now = graph_lines(text.format(2)), graph_lines(text.format(3))
    (change,), _ = compare(parse_components(_lines(graph="mul(x, 3)")), parse_components(_lines()), ("/w/a.py", 3),
                           (then, now))
    assert (change["filename"], change["lineno"]) == ("/w/a.py", 5)
    assert change["diff"].splitlines() == ["-    y = mul(x, 2)", "+    y = mul(x, 3)"]


def test_the_same_lines_survive_a_cells_new_file_name_and_a_resume_functions_moved_line():
    from explorer.capturing.cache_keys import identity

    # IPython names a cell's file by a digest of its text; a resume function by the line it resumes at
    assert identity("fx_graph", "/tmp/ipykernel_81/2041.py", "f", 0, "forward") == \
        identity("fx_graph", "/tmp/ipykernel_81/977.py", "f", 0, "forward")
    assert identity("fx_graph", "/w/a.py", "torch_dynamo_resume_in_f_at_7", 0, "forward") == \
        identity("fx_graph", "/w/a.py", "torch_dynamo_resume_in_f_at_9", 0, "forward")
    assert identity("fx_graph", "/w/a.py", "f", 0, "forward") != identity("fx_graph", "/w/a.py", "f", 1, "forward")
    assert identity("fx_graph", "/w/a.py", "f", 0, "forward") != identity("fx_graph", "/w/a.py", "f", 0, "backward")
    # a %%compile cell by the id its notebook gives it: the same cell across edits, never another cell
    a, b = {"/tmp/ipykernel_81/2041.py": "notebook cell a"}, {"/tmp/ipykernel_81/977.py": "notebook cell b"}
    assert identity("fx_graph", "/tmp/ipykernel_81/2041.py", "compiled_cell", 0, "forward", a) == \
        identity("fx_graph", "/tmp/ipykernel_81/31.py", "compiled_cell", 0, "forward", {"/tmp/ipykernel_81/31.py":
                                                                                        "notebook cell a"})
    assert identity("fx_graph", "/tmp/ipykernel_81/2041.py", "compiled_cell", 0, "forward", a) != \
        identity("fx_graph", "/tmp/ipykernel_81/977.py", "compiled_cell", 0, "forward", b)


def test_a_bug_in_the_comparison_leaves_the_records_and_says_so(monkeypatch):
    from explorer.capturing import cache_keys
    from explorer.capturing.compile_id import CompileId
    from explorer.capturing.raw import RawCapture, RawEvent

    miss = RawEvent(0, "artifact:fx_graph_cache_miss", CompileId(0, 0), {}, json.dumps({"key": "k",
                                                                                         "components": _lines()}))
    raw = RawCapture(events=[miss])
    notes: list = []
    explained = cache_keys.explain_keys(raw, None, notes)
    assert "components" not in explained.events[0].payload and cache_keys.WHY in explained.events[0].payload

    def broken(lines):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cache_keys, "parse_components", broken)
    assert cache_keys.explain_keys(raw, None, notes).events == [miss]
    (note,) = notes
    assert note.startswith("the explorer could not say why the graph caches missed (RuntimeError: a bug")


CELLS = r"""
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from explorer.present import viewmodel as vm
from explorer.present.text import flat


class Kernel:  # what ipykernel gives the magic: the request being run, whose metadata carries the cell's id
    cell = None

    def get_parent(self):
        return {"header": {}, "metadata": {"cellId": self.cell}, "content": {}}


ip = InteractiveShell.instance()
ip.kernel = Kernel()
ip.run_line_magic("load_ext", "explorer")
ip.run_cell("import torch\nx = torch.linspace(-2, 2, 16)")
said = []
for cell, source in (("cell-a", "y = torch.cos(x) * 2"), ("cell-b", "y = torch.sin(x) * 3"),
                     ("cell-a", "y = torch.cos(x) * 5")):
    ip.kernel.cell = cell
    report = ip.run_cell_magic("compile", "-q -o --no-time", source)
    view = vm.build(report)["compilations"][0]
    said.append([flat(i["r"]) for b in view["from_where"] if b["t"] == "list" for i in b["items"]
                 if flat(i["r"]).startswith("FX graph cache")])
print("RESULT " + json.dumps(said))
"""


def test_a_notebook_cell_is_compared_with_its_own_last_capture_not_another_cells(tmp_path):
    """Two %%compile cells both run their code as the cell's function: by the id the notebook gives each cell, the
    second cell's first capture has nothing to compare with, and the first cell, edited (its file renamed by
    IPython), is compared with its own last capture."""
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"),
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CELLS], capture_output=True, text=True, env=env, timeout=900,
                          cwd=tmp_path)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    first, other, edited = json.loads(line[len("RESULT "):])
    assert len(first) == len(other) == len(edited) == 1, (first, other, edited)
    assert "no earlier capture of these lines to compare with" in first[0]
    assert "no earlier capture of these lines to compare with" in other[0], other  # not cell-a's
    assert "against the last capture of these lines" in edited[0] and "the graph's code" in edited[0], edited
