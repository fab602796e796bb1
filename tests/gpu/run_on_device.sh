#!/usr/bin/env bash
# On the GPU machine (device tool, with .whl carried; see README "GPU checks"):
# GPU tests, the timing benchmark against do_bench, then the whole CPU suite on that torch.
set -u
OUT=${OUT:-/tmp/out}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests 2>&1 | tee "$OUT/pytest_gpu.log" | tail -5
timeout 300 python3 tests/benchmarks/bench_gpu_models.py --out "$OUT" 2>&1 | tee "$OUT/bench.log" | grep -v Warning | tail -12
[ -n "${SUITE_S:-}" ] && timeout "$SUITE_S" python3 -m pytest -q -p no:cacheprovider -x -m "not gpu" tests 2>&1 | tee "$OUT/pytest_cpu.log" | tail -5
