#!/usr/bin/env bash
# One call on the GPU machine: set-up (no registry there: it uses the machine's own torch
# 2.11), CUDA build, the GPU tests, the main job on the GPUs, and the runtime benchmark; logs
# to $OUT (or ./gpu-logs).
#
#   bash tools/gpu-check.sh [steps...]  steps: build test main realrun bench adamw (default: all)
#
# Fixtures from ../shared do not travel to that machine: copy what tests need into .gpu/shared
# (git-ignored) and carry it: mkdir -p .gpu/shared/{models,reference} && cp -r
# ../shared/models/stories260K .gpu/shared/models/ && cp ../shared/reference/* .gpu/shared/reference/
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(pwd)/gpu-logs}
mkdir -p "$OUT"
STEPS=${*:-build test main realrun bench adamw}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SLIDEDP_BUILD_DIR=${SLIDEDP_BUILD_DIR:-$(pwd)/build-gpu}
export SLIDEDP_JOBS=${SLIDEDP_JOBS:-$(nproc)}
B=$SLIDEDP_BUILD_DIR
EXTRA=""
[ -d .gpu/shared ] && EXTRA="-DSLIDEDP_SHARED_DIR=$(pwd)/.gpu/shared" && export SLIDEDP_SHARED_DIR=$(pwd)/.gpu/shared
export SLIDEDP_CMAKE_ARGS="$EXTRA ${SLIDEDP_CMAKE_ARGS:-}"
rc=0
step() { echo "=== $1 ($(date +%T))"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
{ nvidia-smi; nvidia-smi topo -m; lscpu | head -20; free -g; df -h /dev/shm; } > "$OUT/machine.txt" 2>&1
if has build; then
  step build
  bash tools/setup.sh > "$OUT/build.log" 2>&1 || { rc=1; tail -40 "$OUT/build.log"; }
  grep -E "slidedp:" "$OUT/build.log" | head -5
fi
if has test; then
  step "test (GPU tests; the CPU suite runs in CI)"
  timeout 300 ctest --test-dir "$B" --output-on-failure -L gpu -j 2 > "$OUT/ctest-gpu.log" 2>&1 || rc=1
  grep -E "tests passed|Failed|\*\*\*|Test +#|step [0-9]: |worst|overlapping" "$OUT/ctest-gpu.log" | tail -60
fi
if has main; then
  step main
  SLIDEDP_WORKER=$B/bin/slidedp_worker timeout 120 launcher/slidedp-run > "$OUT/main-job.log" 2>&1 || rc=1
  grep -E "workers:|worker [0-9]|hand-off|done" "$OUT/main-job.log" | head -10
fi
if has realrun; then
  step "real run: stories260K fine-tuned on the KJV text, 2 GPUs (bf16)"
  SLIDEDP_WORKER=$B/bin/slidedp_worker timeout 180 launcher/slidedp-run --worker-threads 2 -- \
    --model "$SLIDEDP_SHARED_DIR/models/stories260K" --data "$SLIDEDP_SHARED_DIR/data/kjv.txt" \
    --steps 40 --batch-size 8 --seq-len 128 --lr 1e-3 --warmup 5 --schedule cosine \
    --metrics "$OUT/realrun.jsonl" --export "$OUT/realrun-model" --export-fp32 > "$OUT/realrun.log" 2>&1 || rc=1
  grep -E "mpirun|step (1|10|20|30|40)/|exported|error" "$OUT/realrun.log" | cut -c1-220
  $B/bin/slidedp_generate --model "$OUT/realrun-model" --prompt "And God said" --max-new-tokens 24 --device cuda 2>&1 | tail -2
  rm -rf "$OUT/realrun-model"
fi
if has bench; then
  step "bench: Qwen3-8B shape, seq 4096, 4 route combinations"
  SLIDEDP_WORKER=$B/bin/slidedp_worker timeout ${SLIDEDP_BENCH_TIMEOUT:-300} launcher/slidedp-run --worker-threads 2 -- \
    --model-config tools/configs/qwen3-8b.json --seq-len 4096 --batch-size ${SLIDEDP_BENCH_BATCH:-16} \
    --steps ${SLIDEDP_BENCH_STEPS:-3} --warmup-steps 1 --lr 1e-5 --chunk-numel 4194304 \
    --route-sweep ${SLIDEDP_BENCH_ROUTES:-replicated/cpu,sharded/cpu,replicated/gpu,sharded/gpu} \
    --metrics "$OUT/bench-qwen3-8b.jsonl" > "$OUT/bench-qwen3-8b.log" 2>&1 || rc=1
  grep -E "mpirun|model |step |summary|^variant|^(replicated|sharded)|error|Error" "$OUT/bench-qwen3-8b.log" | cut -c1-330 | tail -40
fi
if has adamw; then
  step "adamw"
  timeout 120 bash tools/bench/bench_adamw.sh --build "$B" --n 256M --threads $(nproc) > "$OUT/bench-adamw.log" 2>&1 || rc=1
  tail -25 "$OUT/bench-adamw.log"
fi
echo "=== done rc=$rc"
exit $rc
