"""The same capture on a CUDA program: Triton kernels with their source and origin."""

import pytest
import torch

import explorer

pytestmark = pytest.mark.gpu


def fused(x, w):
    y = torch.relu(x @ w) * 2.0
    return y.softmax(dim=-1) + 1


def train_step(x, w):
    out = fused(x, w)
    out.sum().backward()  # Inductor lowers the backward lazily, at its first call: inside the capture here
    return out


def test_cuda_capture_yields_triton_kernels():
    x = torch.randn(64, 128, device="cuda", requires_grad=True)
    w = torch.randn(128, 128, device="cuda")
    report = explorer.explore(train_step, x, w)
    assert report.result.is_cuda
    c = report.compilations[0]
    triton = [k for k in c.kernels if k.language == "triton"]
    assert triton, [k.language for k in c.kernels]
    assert all("@triton.jit" in k.source for k in triton)
    assert any(k.source_nodes for k in triton), "Triton kernels name their FX source nodes"
    assert {k.graph_kind for k in triton} == {"forward", "backward"}
    assert c.ir_post_fusion and c.output_code
    assert "cuda" in report.device
    doc = report.to_json()
    assert '"language": "triton"' in doc
