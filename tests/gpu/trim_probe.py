"""Small recorded fixtures for the CPU tests of the roofline work, from a GPU probe's output (probe_models.py).

    python tests/gpu/trim_probe.py PROBE_DIR [tests/data/roofline]

Per model: the chrome trace of three compiled calls on the H200, cut to what kernel -> op attribution reads
(CPU ops with their correlation id and, for ops with a FLOP formula, their input shapes; device kernels with
the id of the op that launched them and their launch shape), with the FlopCounterMode reference; and, from
the Llama decoder's report, the embedding + RMSNorm Triton kernels with the wrapper lines that launch them.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys

FORMULA_OPS = ("aten::addmm", "aten::mm", "aten::bmm", "aten::convolution", "aten::_scaled_dot_product_")
CPU = ("cpu_op", "user_annotation")
DEVICE = ("kernel", "gpu_memset", "gpu_memcpy")


def trim_trace(trace: dict) -> dict:
    out = []
    for ev in trace.get("traceEvents", ()):
        cat = ev.get("cat")
        if cat not in CPU + DEVICE:
            continue
        args = ev.get("args") or {}
        keep = {"External id": args.get("External id")}
        if cat in DEVICE:
            keep.update({k: args[k] for k in ("grid", "block", "correlation") if k in args})
        elif ev.get("name", "").startswith(FORMULA_OPS):
            keep.update({k: args[k] for k in ("Input Dims", "Concrete Inputs") if k in args})
        out.append({"cat": cat, "name": ev.get("name"), "pid": ev.get("pid"), "tid": ev.get("tid"),
                    "ts": round(float(ev.get("ts", 0)), 3), "dur": round(float(ev.get("dur", 0)), 3), "args": keep})
    return {"traceEvents": out}


def main() -> None:
    probe = sys.argv[1]
    dest = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "data", "roofline")
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(probe, "summary.json")) as fh:
        summary = json.load(fh)
    for name, row in summary.items():
        path = os.path.join(probe, f"{name}.trace.json")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            trace = trim_trace(json.load(fh))
        trace["reference"] = row.get("reference")
        trace["explorer_before"] = row.get("kernel_flops_by_graph")
        with gzip.open(os.path.join(dest, f"{name}.trace.json.gz"), "wt") as fh:
            json.dump(trace, fh, separators=(",", ":"))
    with open(os.path.join(probe, "llama.json")) as fh:
        report = json.load(fh)
    comp = report["capture"]["compilations"][0]
    code = "\n".join(o["code"] for o in comp["output_code"])
    kernels = [k for k in comp["kernels"] if "embedding" in k["name"] or k["name"].endswith("rsqrt_14")]
    calls = "\n".join(line for line in code.splitlines()
                      if "assert_size_stride(" in line or re.match(r"\s+buf\d+ = ", line)
                      or any(f"{k['name']}.run(" in line for k in kernels)
                      or "extern_kernels.mm(" in line)
    timing = {k["name"]: k for k in report["timing"]["graphs"][0]["kernels"]}
    with open(os.path.join(dest, "llama_gather.json"), "w") as fh:
        json.dump({"wrapper": calls, "peak": report["timing"]["peak"],
                   "kernels": [{"name": k["name"], "source": k["source"][k["source"].index("@triton_heuristics"):],
                                "time_s": timing.get(k["name"], {}).get("time_s"),
                                "bytes_before": timing.get(k["name"], {}).get("bytes")} for k in kernels]},
                  fh, indent=1)


if __name__ == "__main__":
    main()
