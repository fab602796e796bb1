"""explore(), %%compile (in a real Jupyter kernel) and the CLI go through one pipeline.

The same program through all three gives the same JSON, apart from the fields
that name the entry point (``entry``, ``options``), times, and temporary file
names. Each runs in a fresh process so compile ids start at 0 everywhere.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(HERE)
# measured times; and a compilation's phases, torch's timed spans, which are what ran in that process (a span that
# reads a cache runs once or twice as the process's caches stand: tests/test_compile_time.py checks them against
# torch's own trace); and the explorer's own measured time: how many records its listener took and which steps ran
# after the capture (the magic times by default) are what that entry point did
_TIME_KEYS = re.compile(r"(_s$|^metrics$|^wall_time_s$|^times_s$|^phases$|^own_time$|^step_times$)")


def _env(out):
    env = dict(os.environ)
    # each entry point a first run: its own Inductor cache (the graph caches and the explorer's stage store, the
    # compiled kernels), so none is served what another lowered (that one's report would rightly say so)
    env["TORCHINDUCTOR_CACHE_DIR"] = out + ".inductor-cache"
    env["PYTHONPATH"] = os.pathsep.join([ROOT, PROGRAMS, env.get("PYTHONPATH", "")])
    # Inductor decides per process whether the CPU can vectorize by building and loading a probe library in a
    # child process with a 60 s limit; on a loaded CI machine one of the three processes can miss it and write
    # scalar C++ where the others vectorize. Torch's own switch fixes the answer, so all three lower alike.
    env["TORCHINDUCTOR_VEC_ISA_OK"] = "1"
    return env


def _via_explore(out):
    code = ("import explorer, same; "
            f"explorer.explore(same.f, same.make_input(), json={out!r})")
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(out), cwd=PROGRAMS, capture_output=True)


def _via_cli(out):
    subprocess.run([sys.executable, "-m", "explorer", "run", "--quiet", "--json", out,
                    os.path.join(PROGRAMS, "same_script.py")], check=True, env=_env(out), cwd=PROGRAMS,
                   capture_output=True)


def _via_magic(out):
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", env=_env(out), cwd=PROGRAMS)
    try:
        for cell in ("%load_ext explorer",
                     f"%%compile --capture-only -q --json {out}\nimport torch\nfrom same import f, make_input\n"
                     "torch.compile(f)(make_input())"):
            reply = kc.execute_interactive(cell, timeout=300, output_hook=lambda msg: None)
            assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _normalised(path):
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    for key in ("entry", "options"):
        doc.pop(key)
    return _scrub(doc)


_PROCESS_SPECIFIC = (
    (re.compile(r"User code traceback:.*?(?=  File \"[^\"]*same\.py)", re.S), ""),  # the program's caller
    # Inductor's output modules (CACHE_DIR/xy/c<hash>.py), not any file under /tmp: a clone of the
    # repository in /tmp has the program itself there, and its frames must stay comparable
    (re.compile(r"\S*/[a-z0-9]{2}/c[a-z0-9]{40,}\.py"), "<tmp>.py"),
    (re.compile(r"(___check_obj_id\(.+?, )\d+\)"), r"\1ID)"),  # object ids in guards
    (re.compile(r"(__compiled_fn_\d+)_[0-9a-f_]{36}"), r"\1_UUID"),  # Dynamo's graph function names
    (re.compile(r"Guard latency = [\d.]+ us"), "Guard latency = T"),  # a measured time
    (re.compile(r" at 0x[0-9a-f]+>"), " at ADDR>"),  # object addresses in guards' reprs (torch 2.11)
)


def _scrub(node, key=""):
    if isinstance(node, dict):
        # profiling spans: their size depends on their timestamps, and how many there are on what ran before
        timed = node.get("name") == "chromium_event"
        dropped = timed or str(node.get("why", "")).startswith("dropped")
        return {
            k: _scrub(v, k)
            for k, v in node.items()
            if not _TIME_KEYS.search(k) and not (dropped and k in ("size", "count"))
        }
    if isinstance(node, list):
        if key == "user_traceback":  # frames above the program are its caller: the entry point
            node = [f for f in node if f["filename"].endswith("same.py")]
        return [_scrub(v, key) for v in node]
    if isinstance(node, str):
        for pattern, repl in _PROCESS_SPECIFIC:
            node = pattern.sub(repl, node)
        return node
    return node


@pytest.mark.slow
def test_the_same_program_gives_the_same_report_through_every_entry_point(tmp_path):
    pytest.importorskip("jupyter_client")
    outs = {name: str(tmp_path / f"{name}.json") for name in ("explore", "cli", "magic")}
    _via_explore(outs["explore"])
    _via_cli(outs["cli"])
    _via_magic(outs["magic"])
    docs = {name: _normalised(path) for name, path in outs.items()}
    # a notebook's cells are named as the notebook shows them (cell [N]); no other entry point has cells
    cells = docs["magic"]["clinic"].pop("cells")
    assert cells and all(re.fullmatch(r"cell \[\d+\]", name) for name in cells.values()), cells
    assert not docs["explore"]["clinic"].pop("cells") and not docs["cli"]["clinic"].pop("cells")
    capture = docs["explore"]["capture"]
    assert len(capture["compilations"]) == 2 and capture["compilations"][0]["graph_break"]
    assert docs["explore"]["clinic"]["fix_list"]
    assert [s["compile_id"] for s in docs["explore"]["structure"]] == ["0/0", "1/0"]  # every graph's modules
    for name in ("cli", "magic"):
        for key in docs["explore"]:
            assert docs[name][key] == docs["explore"][key], (name, key, _differences(docs["explore"][key],
                                                                                 docs[name][key], key)[:5])


def _differences(a, b, path):
    """Where two JSON values differ, as (path, explore's value, the other's), so a failure names the field."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, str(a)[:300], str(b)[:300])]
