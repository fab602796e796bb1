#!/usr/bin/env bash
# On the GPU machine (device tool): the GPU story's tests and the capture-overhead benchmark.
# Everything lands in one archive, $OUT/gpu_story.tgz (the tool brings back few files).
set -u
FINAL=${OUT:-/tmp/out}
W=/tmp/gpu_story; mkdir -p "$W"
# wheels the machine lacks (IPython, ipywidgets, ...: ../shared/gpu/wheels.sh), carried in .whl
SITE=
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && SITE=/tmp/site || echo "wheel install failed"
fi
export PYTHONPATH=$PWD${SITE:+:$SITE} PYTHONUNBUFFERED=1 OUT=$W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu --format=csv 2>&1 | tee "$W/nvidia-smi.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
T0=$(date +%s)
[ -n "${FIRST:-}" ] && timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu -s $FIRST 2>&1 | grep -v "Warning\|warnings.warn\|USDT" | tee "$W/pytest_first.log" | grep -E "passed|failed|error|^E  " | head -30
timeout ${TESTS_S:-330} python3 -m pytest -q -p no:cacheprovider -m gpu -s ${TESTS:-tests/test_gpu_story_gpu.py tests/test_timing_gpu.py} 2>&1 \
  | grep -v "Warning\|warnings.warn\|USDT" | tee "$W/pytest_gpu.log" | grep -E "^(PASS|FAIL|ERROR)|passed|failed|error|^E  |preview vs real|end to end" | head -60
echo "tests: $(( $(date +%s) - T0 )) s"
T0=$(date +%s)
[ -n "${BENCH_PAIRS:-}" ] && timeout ${BENCH_S:-240} python3 tests/benchmarks/bench_capture_overhead.py --pairs "$BENCH_PAIRS" \
  --variants "${BENCH_VARIANTS:-}" ${BENCH_FLAGS:-} --out "$W" 2>&1 | tee "$W/bench.log" | tail -25
echo "bench: $(( $(date +%s) - T0 )) s"
tar czf "$FINAL/gpu_story.tgz" -C "$W" . || true
