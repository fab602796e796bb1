#!/usr/bin/env bash
# Every GPU check in one call on the device machine (see README "GPU checks"); sections by environment:
#   TESTS=1         the gpu-marked tests (pytest -m gpu), dumps under the archive
#   NOTEBOOKS=1     the teaching notebooks under nbval (their GPU sections run here)
#   HALIDE=1        Inductor's Halide backend on CUDA (needs .hal/halide312.tar.xz carried)
#   BENCH_PAIRS=N   the capture-overhead benchmark on GPT-2 (fresh processes, interleaved), BENCH_FLAGS extra
#   GPU_MODELS=1    explorer timing against triton.testing.do_bench on five models
#   CPU_SUITE_S=S   the CPU suite on this torch, for at most S seconds
#   PROBE=1         data for the roofline work: four models explored, references, profiler traces (probe_models.py)
# Each section's log lands in $OUT as it ends (a call cut short keeps them); every dump in $OUT/gpu_run.tgz.
set -u
FINAL=${OUT:-/tmp/out}
W=/tmp/gpu_run; mkdir -p "$W"
SITE=/tmp/site
WHL=${WHL:-.whl}
if ls $WHL/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" $WHL/*.whl \
    || echo "wheel install failed"
fi
if [ -f .hal/halide312.tar.xz ]; then mkdir -p "$SITE"; tar xJf .hal/halide312.tar.xz -C "$SITE"; fi
export PYTHONPATH=$PWD:$SITE PYTHONUNBUFFERED=1 OUT=$W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu --format=csv 2>&1 | tee "$W/nvidia-smi.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
quiet() { grep -v "Warning\|warnings.warn\|USDT\|warn_once"; }
section() { echo "== $1 ($(date +%T))"; }

if [ -n "${TESTS:-}" ]; then
  section tests; T0=$(date +%s)
  timeout "${TESTS_S:-540}" python3 -m pytest -q -p no:cacheprovider -m gpu -s -rfEs ${TEST_FILES:-tests} 2>&1 | quiet \
    | tee "$W/pytest_gpu.log" "$FINAL/pytest_gpu.log" | grep -E "^(PASS|FAIL|ERROR)|passed|failed|error|^E  |preview vs real|end to end" | awk 'NR<=60'
  echo "tests: $(( $(date +%s) - T0 )) s"
fi
if [ -n "${NOTEBOOKS:-}" ]; then
  section notebooks; T0=$(date +%s)
  timeout "${NB_S:-240}" python3 -m pytest -q -p no:cacheprovider --nbval-lax -rfE ${NB_FILES:-notebooks} 2>&1 | quiet \
    | tee "$W/notebooks.log" "$FINAL/notebooks.log" | grep -E "passed|failed|error|^E  " | awk 'NR<=30'
  echo "notebooks: $(( $(date +%s) - T0 )) s"
fi
if [ -n "${HALIDE:-}" ]; then
  section halide; T0=$(date +%s)
  timeout "${HALIDE_S:-150}" python3 -m pytest -q -p no:cacheprovider -s -rfE tests/test_halide.py 2>&1 | quiet \
    | tee "$W/halide.log" "$FINAL/halide.log" | grep -E "passed|failed|skipped|error|^E  |halide" | awk 'NR<=20'
  echo "halide: $(( $(date +%s) - T0 )) s"
fi
if [ -n "${BENCH_PAIRS:-}" ]; then
  section "capture overhead"; T0=$(date +%s)
  timeout "${BENCH_S:-300}" python3 tests/benchmarks/bench_capture_overhead.py --pairs "$BENCH_PAIRS" \
    ${BENCH_VARIANTS:+--variants "$BENCH_VARIANTS"} ${BENCH_FLAGS:-} --out "$W" 2>&1 | quiet | tee "$W/bench.log" "$FINAL/bench.log" | tail -40
  echo "bench: $(( $(date +%s) - T0 )) s"
fi
if [ -n "${GPU_MODELS:-}" ]; then
  section "timing vs do_bench"
  timeout "${GPU_MODELS_S:-300}" python3 tests/benchmarks/bench_gpu_models.py --out "$W" 2>&1 | quiet \
    | tee "$W/bench_models.log" "$FINAL/bench_models.log" | tail -12
fi
if [ -n "${CPU_SUITE_S:-}" ]; then
  section "CPU suite on this torch"
  timeout "$CPU_SUITE_S" python3 -m pytest -q -p no:cacheprovider -m "not gpu" -rfE tests 2>&1 | quiet \
    | tee "$W/pytest_cpu.log" "$FINAL/pytest_cpu.log" | tail -15
fi
if [ -n "${PROBE:-}" ]; then
  section "probe models"; T0=$(date +%s)
  timeout "${PROBE_S:-420}" python3 tests/gpu/probe_models.py --out "$W/probe" ${PROBE_ONLY:+--only "$PROBE_ONLY"} 2>&1 | quiet \
    | tee "$W/probe.log" "$FINAL/probe.log" | cut -c1-400 | tail -20
  tar czf "$FINAL/probe.tgz" -C "$W" probe || true
  echo "probe: $(( $(date +%s) - T0 )) s"
fi
tar czf "$FINAL/gpu_run.tgz" -C "$W" . || true
