"""A cold capture re-run: torch's code cache serves the kernels an earlier run built, and every stage is still shown.

The C++ builds are keyed by their source, so a second capture of the same program, in a fresh
process as a re-run is, loads them from the cache folder instead of building them again (the
graph caches serve it too: what their hit skips comes from the explorer's stage store,
tests/test_stage_store.py). Two small compiles in child processes, into a cache folder of the
test's own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, torch, explorer
def code_cache_probe(x):
    return (torch.tanh(x) * 3.25).exp() - 0.5
report = explorer.explore(code_cache_probe, torch.randn(16))
comp = report.capture.compilations[0]
print("RESULT " + json.dumps({
    "builds": [k.build for k in comp.kernels],
    "ir_pre_fusion": bool(comp.ir_pre_fusion), "ir_post_fusion": bool(comp.ir_post_fusion),
    "output_code": [oc.code for oc in comp.output_code or ()],
    "kernels": [k.source for k in comp.kernels],
    "caches_line": report.summary().splitlines()[1],
}))
"""


def _capture(cache_dir: str) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, proc.stderr[-3000:]
    return json.loads(line[len("RESULT "):])


def _binaries(cache_dir: str) -> dict[str, float]:
    """Every compiled C++ binary in the cache folder, with its modification time."""
    return {os.path.join(d, f): os.path.getmtime(os.path.join(d, f))
            for d, _, files in os.walk(cache_dir) for f in files if f.endswith(".so")}


def test_a_second_capture_loads_its_kernels_from_torchs_code_cache_and_still_shows_every_stage(tmp_path):
    cache = str(tmp_path / "inductor")
    first = _capture(cache)
    built = _binaries(cache)
    second = _capture(cache)

    assert first["builds"] == ["built"], first  # a cold cache: the first capture compiles its C++ kernel
    assert built, "the first capture's kernel was built into the cache folder (not a temporary one it removes)"
    # the re-run: the kernel came from torch's code cache, nothing was compiled again
    assert second["builds"] == ["loaded"], second
    assert _binaries(cache) == built, "no C++ binary was built or rewritten by the second capture"
    assert "1 loaded from torch's code cache" in second["caches_line"] and "0 built" in second["caches_line"]
    # and still every stage below the graph caches, as the first capture showed them
    assert second["ir_pre_fusion"] and second["ir_post_fusion"]
    assert second["output_code"] and second["output_code"] == first["output_code"]
    assert second["kernels"] and second["kernels"] == first["kernels"]
    assert "tanh" in second["kernels"][0] and "exp" in second["kernels"][0]


def test_a_graph_cache_forced_on_by_the_environment_turns_every_cache_off_for_a_fresh_capture_and_says_so(
        monkeypatch):
    """TORCHINDUCTOR_FX_GRAPH_CACHE=1 wins over any value set in torch's config: a hit would hide the stages a fresh
    capture is asked to lower again. A cold capture leaves the graph caches as they are, forced or not."""
    import torch
    from torch_state import config_snapshot

    from explorer.capturing import torch_door

    entry = torch._inductor.config._config["fx_graph_cache"]  # what torch reads the variable into at import
    monkeypatch.setattr(entry, "env_value_force", True)
    before = config_snapshot()
    notes: list[str] = []
    with torch_door.config.capture_config(notes):  # cold: the graph caches are the program's
        assert torch._inductor.config.fx_graph_cache is True
        assert torch.compiler.config.force_disable_caches is False
    assert config_snapshot() == before and notes == []
    with torch_door.config.capture_config(notes, fresh=True):
        assert torch._inductor.config.fx_graph_cache is True  # forced: the capture could not turn it off
        assert torch.compiler.config.force_disable_caches is True
        assert torch._functorch.config.enable_autograd_cache is False
    assert config_snapshot() == before
    assert any("torch._inductor.config.fx_graph_cache stays on (forced by the environment" in n and
               "every cache is off for this capture" in n for n in notes), notes

    notes.clear()  # not forced: a fresh capture turns only the graph caches off, the code caches serve
    monkeypatch.undo()
    with torch_door.config.capture_config(notes, fresh=True):
        assert torch._inductor.config.fx_graph_cache is False
        assert torch.compiler.config.force_disable_caches is False
    assert notes == []
