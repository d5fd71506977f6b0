#!/usr/bin/env bash
# One call on the GPU machine: set-up (no registry there: it uses the machine's own torch
# 2.11), CUDA build, every test (GPU tests included), the main job on the GPUs, and the
# benchmarks that exist; logs to $OUT (or ./gpu-logs).
#
#   bash tools/gpu-check.sh [steps...]      steps: build test main bench (default: all)
#
# Fixtures from ../shared do not travel to that machine: copy what tests need into .gpu/shared
# (git-ignored) and carry it; SLIDEDP_SHARED_DIR points the tests there.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(pwd)/gpu-logs}
mkdir -p "$OUT"
STEPS=${*:-build test main bench}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SLIDEDP_BUILD_DIR=${SLIDEDP_BUILD_DIR:-$(pwd)/build-gpu}
export SLIDEDP_JOBS=${SLIDEDP_JOBS:-$(nproc)}
EXTRA=""
[ -d .gpu/shared ] && EXTRA="-DSLIDEDP_SHARED_DIR=$(pwd)/.gpu/shared"
export SLIDEDP_CMAKE_ARGS="$EXTRA ${SLIDEDP_CMAKE_ARGS:-}"
rc=0
step() { echo "=== $1 ($(date +%T))"; }
{ nvidia-smi; nvidia-smi topo -m; lscpu | head -20; free -g; df -h /dev/shm; } > "$OUT/machine.txt" 2>&1
if [[ " $STEPS " == *" build "* ]]; then
  step build
  bash tools/setup.sh > "$OUT/build.log" 2>&1 || { rc=1; tail -40 "$OUT/build.log"; }
  grep -E "slidedp:|warning:" "$OUT/build.log" | head -20
fi
if [[ " $STEPS " == *" test "* ]]; then
  step test
  ctest --test-dir "$SLIDEDP_BUILD_DIR" --output-on-failure -j 4 > "$OUT/ctest.log" 2>&1 || rc=1
  grep -E "tests passed|Failed|\*\*\*|Test +#" "$OUT/ctest.log" | tail -40
fi
if [[ " $STEPS " == *" main "* ]]; then
  step main
  SLIDEDP_WORKER=$SLIDEDP_BUILD_DIR/bin/slidedp_worker launcher/slidedp-run > "$OUT/main-job.log" 2>&1 || rc=1
  grep -v "^\s*$" "$OUT/main-job.log" | head -40
fi
if [[ " $STEPS " == *" bench "* ]]; then
  step bench
  for b in tools/bench/*.sh; do
    [ -f "$b" ] || continue
    echo "--- $b"
    SLIDEDP_BUILD_DIR=$SLIDEDP_BUILD_DIR bash "$b" > "$OUT/$(basename "$b" .sh).log" 2>&1 || rc=1
    tail -30 "$OUT/$(basename "$b" .sh).log"
  done
fi
echo "=== done rc=$rc"
exit $rc
