"""GPU data for the roofline work: four models explored with timing, plus what to check them against.

Per model (bf16): ``explorer.explore(model, x, time=True)``'s report (kernel rows with FLOPs and bytes), a
reference FLOP count of the same forward (``FlopCounterMode``, with a grouped-query-capable attention formula),
a chrome trace of three compiled calls under the profiler (kernel <-> launching op by correlation id), and the
structured trace of a plain compile (``dynamo_side_effects`` and the rest). Written under ``--out``; the caller
packs it. Not a test: data for offline work (tests/gpu/device.sh PROBE=1).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback

import torch
import torch.nn as nn


def unet() -> nn.Module:
    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                             nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.d1, self.d2, self.d3 = block(3, 32), block(32, 64), block(64, 128)
            self.pool = nn.MaxPool2d(2)
            self.u2, self.c2 = nn.ConvTranspose2d(128, 64, 2, stride=2), block(128, 64)
            self.u1, self.c1 = nn.ConvTranspose2d(64, 32, 2, stride=2), block(64, 32)
            self.out = nn.Conv2d(32, 2, 1)

        def forward(self, x):
            a = self.d1(x)
            b = self.d2(self.pool(a))
            c = self.d3(self.pool(b))
            y = self.c2(torch.cat([self.u2(c), b], 1))
            y = self.c1(torch.cat([self.u1(y), a], 1))
            return self.out(y)

    return UNet()


class BrokenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(1024, 4096), nn.Linear(4096, 4096), nn.Linear(4096, 1024)

    def forward(self, x):
        x = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        x = torch.relu(self.b(x))
        torch._dynamo.graph_break()
        return self.c(x)


def models():
    dev = "cuda"
    out = {}
    import timm

    out["convnext"] = (lambda: timm.create_model("convnext_tiny", pretrained=False),
                       lambda: (torch.randn(32, 3, 224, 224, device=dev, dtype=torch.bfloat16),))
    out["unet"] = (unet, lambda: (torch.randn(8, 3, 256, 256, device=dev, dtype=torch.bfloat16),))

    def llama():
        from transformers import LlamaConfig, LlamaModel

        cfg = LlamaConfig(hidden_size=512, intermediate_size=1408, num_hidden_layers=4, num_attention_heads=8,
                          num_key_value_heads=2, vocab_size=32000, max_position_embeddings=2048,
                          attn_implementation="sdpa")
        return LlamaModel(cfg)

    out["llama"] = (llama, lambda: (torch.randint(0, 32000, (4, 512), device=dev),))
    out["mlp_breaks"] = (BrokenMLP, lambda: (torch.randn(256, 1024, device=dev, dtype=torch.bfloat16),))
    return out


def reference_flops(model, args):
    from torch.utils.flop_counter import FlopCounterMode

    try:
        with torch.no_grad(), FlopCounterMode(display=False) as fc:
            model(*args)
        return {"total": fc.get_total_flops(), "by_op": {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def profile_trace(model, args, path):
    from torch.profiler import ProfilerActivity, profile

    fn = torch.compile(model)
    with torch.no_grad():
        for _ in range(3):
            fn(*args)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _ in range(3):
                fn(*args)
            torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    torch._dynamo.reset()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ns = ap.parse_args()
    os.makedirs(ns.out, exist_ok=True)
    import explorer

    summary = {}
    for name, (make, inputs) in models().items():
        if ns.only and name not in ns.only.split(","):
            continue
        row = summary[name] = {}
        t0 = time.time()
        try:
            torch.manual_seed(0)
            model = make().to("cuda").eval()
            if name != "llama":
                model = model.to(torch.bfloat16)
            else:
                model = model.to(torch.bfloat16)
            args = inputs()
            row["reference"] = reference_flops(model, args)
            with torch.no_grad():
                report = explorer.explore(model, *args, time=True)
            with open(os.path.join(ns.out, f"{name}.json"), "w") as fh:
                fh.write(report.to_json())
            t = report.timing
            row["kernel_flops_by_graph"] = [sum(k.flops or 0 for k in g.kernels) for g in t.graphs]
            row["kernel_rows"] = [[(k.name, k.calls, k.flops, k.bytes, k.peak_pct, k.flops_source) for k in g.kernels]
                                  for g in t.graphs]
            row["end_to_end"] = (t.end_to_end.method, t.end_to_end.not_timed) if t.end_to_end else None
            profile_trace(model, args, os.path.join(ns.out, f"{name}.trace.json"))
        except Exception:
            row["error"] = traceback.format_exc()[-3000:]
        row["seconds"] = time.time() - t0
        print(name, json.dumps({k: v for k, v in row.items() if k != "kernel_rows"})[:1500], flush=True)
    with open(os.path.join(ns.out, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1, default=str)
    # a plain compile of the Llama decoder under TORCH_TRACE: every structured-trace record, side effects included
    if not ns.only or "llama" in ns.only:
        here = os.path.dirname(os.path.abspath(__file__))
        code = (f"import torch, sys; sys.path.insert(0, {here!r}); import probe_models as p;"
                "m, i = p.models()['llama'];"
                "mod = m().cuda().to(torch.bfloat16).eval(); x = i()\n"
                "with torch.no_grad(): torch.compile(mod)(*x)")
        env = dict(os.environ, TORCH_TRACE=os.path.join(ns.out, "trace_llama"))
        subprocess.run([sys.executable, "-c", code], env=env, check=False, timeout=300)


if __name__ == "__main__":
    main()
