"""The CUDA preview (``--target cuda``) against what the GPU compiles, same torch, same cells, float32 (issue 40):
a graph with dynamic shapes, a training step (forward and backward), the same step with a dynamic batch, with
dropout, with attention, and a convolution with batch norm in a training step. Skipped on machines without a GPU
(conftest skips everything marked ``gpu``).

On the device (the preview's child runs there too, with its mocked H200 over the real GPU's torch):

    TESTS=1 TEST_FILES=tests/gpu/test_preview_vs_real.py bash tests/gpu/device.sh

or ``OUT=/tmp/out python -m pytest -q -s -m gpu tests/gpu/test_preview_vs_real.py``: each case prints a line
``preview vs real (CASE): {...}`` and writes ``preview_vs_real_CASE.json`` (kernel names and which bodies match,
per graph kind) and ``.txt`` (the first differing bodies as diffs, both wrappers) under ``$OUT``.
"""

import difflib
import json
import os
import re

import pytest
import torch

import explorer

pytestmark = pytest.mark.gpu
OUT = os.environ.get("OUT")


class Mlp(torch.nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.up, self.norm, self.down = torch.nn.Linear(64, 128), torch.nn.LayerNorm(128), torch.nn.Linear(128, 64)
        self.drop = torch.nn.Dropout(dropout)

    def forward(self, x):
        return self.down(self.drop(self.norm(torch.nn.functional.gelu(self.up(x)))))


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.out = torch.nn.Linear(64, 192), torch.nn.Linear(64, 64)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, 4, 16).permute(2, 0, 3, 1, 4)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, 64))


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


def _step(model):
    def step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss
    return step


# name: (model, input, training, the batch dimension kept dynamic, the preview must equal the GPU kernel for kernel)
CASES = {
    "dynamic_inference": (lambda: Mlp(), (32, 64), False, True, True),
    "training": (lambda: Mlp(), (32, 64), True, False, True),
    "training_dynamic": (lambda: Mlp(), (32, 64), True, True, True),
    "training_dropout": (lambda: Mlp(0.1), (32, 64), True, False, False),  # dropout traced on meta: said so
    "attention_training": (lambda: Attention(), (4, 32, 64), True, False, False),  # attention kernel: said so
    "cnn_training": (lambda: SmallCnn(), (8, 3, 16, 16), True, False, False),  # batch norm's training form
}


def _body(src):
    """A kernel's code without what differs by machine only (device properties, hashes, paths)."""
    src = re.sub(r"triton_meta=\{.*?\},\s*inductor_meta=", "triton_meta=..., inductor_meta=", src, flags=re.S)
    return re.sub(r"'backend_hash': '[0-9A-F]+'", "'backend_hash': ...", src)


def _kernels(capture):
    return {(k.graph_kind or "inference", k.name): _body(k.source) for k in capture.kernels
            if k.language == "triton"}


def _explore(name, device, **kw):
    make, shape, training, dynamic, _ = CASES[name]
    torch.manual_seed(0)
    model = make().to(device).train(training)
    x = torch.randn(*shape, device=device)
    if dynamic:
        torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.reset()  # as in a fresh process: no automatic dynamic shapes from an earlier compile
    fn = _step(model) if training else model
    if training:
        return explorer.explore(fn, x, **kw)
    with torch.no_grad():
        return explorer.explore(fn, x, **kw)


@pytest.mark.parametrize("name", list(CASES))
def test_preview_matches_what_the_gpu_compiles(name):
    exact = CASES[name][4]
    preview_report = _explore(name, "cpu", target="cuda")
    preview = preview_report.preview
    assert preview.error is None, preview.error
    assert all(o.previewed for o in preview.outcomes), preview.outcomes
    real = _explore(name, "cuda").capture
    ours, theirs = _kernels(preview.capture), _kernels(real)
    anon = lambda d: sorted(v.replace(n, "KERNEL") for (_, n), v in d.items())  # noqa: E731
    same_anon = [b for b in anon(ours) if b in anon(theirs)]
    kinds = sorted({k for k, _ in theirs})
    diffs = {"kinds_real": kinds, "kinds_preview": sorted({k for k, _ in ours}),
             "only_in_preview": sorted(map(list, set(ours) - set(theirs))),
             "only_in_real": sorted(map(list, set(theirs) - set(ours))),
             "different_bodies": sorted(map(list, (k for k in set(ours) & set(theirs) if ours[k] != theirs[k]))),
             "same_bodies": sorted(map(list, (k for k in set(ours) & set(theirs) if ours[k] == theirs[k]))),
             "same_bodies_ignoring_names": len(same_anon), "kernels_preview": len(ours), "kernels_real": len(theirs),
             "symbols_preview": [list(o.symbols) for o in preview.outcomes], "notes_preview": list(preview.notes),
             "extern_preview": [c.name for c in preview.capture.extern_calls],
             "extern_real": [c.name for c in real.extern_calls], "torch": torch.__version__,
             "device": torch.cuda.get_device_name(0)}
    _write(name, diffs, ours, theirs, preview, real)
    counts = {k: v if isinstance(v, int) else len(v) for k, v in diffs.items()
              if k not in ("torch", "device", "notes_preview")}
    print(f"\npreview vs real ({name}): {json.dumps(counts)}")
    assert diffs["kinds_preview"] == kinds, diffs  # a training step: forward and backward kernels, both
    assert diffs["same_bodies_ignoring_names"], diffs
    if CASES[name][3]:  # dynamic: the preview kept the size symbolic, as the GPU's compile did
        assert all(o.symbols for o in preview.outcomes), diffs["symbols_preview"]
        real_wrappers = "\n".join(oc.code for c in real.compilations for oc in c.output_code or ())
        assert all(s in real_wrappers for o in preview.outcomes for s in o.symbols), diffs["symbols_preview"]
    if exact:
        assert not diffs["only_in_real"] and not diffs["only_in_preview"] and not diffs["different_bodies"], diffs


def _write(name, diffs, ours, theirs, preview, real):
    if not OUT:
        return
    with open(os.path.join(OUT, f"preview_vs_real_{name}.json"), "w") as fh:
        json.dump(diffs, fh, indent=1)
    with open(os.path.join(OUT, f"preview_vs_real_{name}.txt"), "w") as fh:
        for key in [tuple(k) for k in diffs["different_bodies"][:4]] + [tuple(k) for k in diffs["only_in_preview"][:2]]:
            other = theirs.get(key) or (theirs[tuple(diffs["only_in_real"][0])] if diffs["only_in_real"] else "")
            fh.write(f"==== {key}\n" + "\n".join(difflib.unified_diff(other.splitlines(), ours[key].splitlines(),
                                                                      "real", "preview", lineterm="", n=1)) + "\n")
        for label, cap in (("real", real), ("preview", preview.capture)):
            for c in cap.compilations:
                for oc in c.output_code or ():
                    fh.write(f"==== wrapper ({label}) {c.compile_id} {oc.graph_kind}\n{oc.code[-5000:]}\n")


def test_the_preview_on_a_gpu_machine_leaves_the_gpu_alone():
    """The preview's child patches torch in its own process: the user's process still sees the real device."""
    before = torch.cuda.get_device_properties(0).name
    _explore("training", "cpu", target="cuda")
    assert torch.cuda.is_available() and torch.cuda.get_device_properties(0).name == before
    assert (torch.ones(4, device="cuda") * 2).sum().item() == 8
