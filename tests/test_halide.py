"""Inductor's Halide backend (the PyTorch 2 paper's experimental one): ``inductor_backend="halide"``.

With the ``halide`` wheel installed (the test extra installs it on Linux x86-64), Inductor writes one
``@hl.generator`` per kernel: the report shows them as kernels, linked to the user lines they compute.
Without it, a clear message before anything runs. The CUDA case runs on the GPU machine (marked gpu).
"""

import importlib.util

import pytest
import torch

import explorer
from explorer.lineage import Origin

HAS_HALIDE = importlib.util.find_spec("halide") is not None
needs_halide = pytest.mark.skipif(not HAS_HALIDE, reason="the halide package is not installed")


def sin_then_sum(x):
    y = torch.sin(x) * 2
    return y.sum(dim=1) + 1


def _check_halide_report(report, x, device):
    assert torch.allclose(report.result, sin_then_sum(x), atol=1e-4)
    kernels = report.capture.kernels
    assert kernels and {k.language for k in kernels} == {"halide"}, [(k.name, k.language) for k in kernels]
    for k in kernels:
        assert "@hl.generator" in k.source and k.name.startswith("halide_kernel")
    sin_line = Origin(__file__, sin_then_sum.__code__.co_firstlineno + 1)
    assert any(sin_line in {Origin(u.filename, u.lineno) for u in k.user_lines} for k in kernels)
    lit = {(link.stage, link.kernel) for lin in report.lineage for link in lin.reached_from(sin_line)}
    assert any(stage == "kernels" and name.startswith("halide_kernel") for stage, name in lit), lit
    assert report.capture.device.startswith(device)


@needs_halide
def test_halide_kernels_are_shown_as_kernels_linked_to_their_user_lines(tmp_path):
    x = torch.randn(64, 128)
    report = explorer.explore(sin_then_sum, x, inductor_backend="halide", time=True, html=str(tmp_path / "r.html"))
    _check_halide_report(report, x, "cpu")
    graph = report.timing.graphs[0]
    assert graph.compiled.median_s > 0 and not graph.kernels
    assert "Halide" in (graph.kernels_note or ""), graph.kernels_note  # why there is no per-kernel row
    assert "halide_kernel_0" in (tmp_path / "r.html").read_text()


@pytest.mark.gpu
@needs_halide
def test_halide_kernels_on_cuda():
    """Where torch's own Halide CUDA path fails, the explorer fails alike and still shows the kernels."""
    x = torch.randn(64, 128, device="cuda")
    torch._dynamo.reset()
    try:
        torch.compile(sin_then_sum, options={"cuda_backend": "halide"})(x)
        plain_error = None
    except Exception as e:
        plain_error = e
    torch._dynamo.reset()
    if plain_error is None:
        report = explorer.explore(sin_then_sum, x, inductor_backend="halide")
        _check_halide_report(report, x, "cuda")
        print("\nhalide on cuda:", [(k.name, len(k.source)) for k in report.capture.kernels])
        return
    with pytest.raises(type(plain_error)) as info:
        explorer.explore(sin_then_sum, x, inductor_backend="halide")
    assert str(info.value) == str(plain_error)
    partial = info.value.explorer_report
    kernels = partial.capture.kernels
    assert kernels and {k.language for k in kernels} == {"halide"} and "@hl.generator" in kernels[0].source
    print(f"\nhalide on cuda: plain torch.compile fails too ({type(plain_error).__name__}: "
          f"{str(plain_error).splitlines()[0][:160]}); the partial report holds {len(kernels)} Halide kernel(s)")


def test_halide_backend_without_the_wheel_says_how_to_get_it(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "halide" else real(name, *a))
    calls = []
    with pytest.raises(RuntimeError, match=r"pip install halide"):
        explorer.explore(lambda x: calls.append(1) or x + 1, torch.randn(4), inductor_backend="halide")
    assert calls == []  # nothing ran
