#!/usr/bin/env bash
# One call: the GPU tests (with the new LtCandidateCalls test of ltCandidateCalls), then
# slidedp against FSDP2 + Liger with and without activation checkpointing at global batches 8,
# 12, 16 with no cap on the peers' micro-batch: each starts at the whole global batch
# (--micro-batch 0) and --fit-micro halves it only after it runs out of memory, so every peer
# runs at the largest micro-batch on that halving path (12: 12, 6, 3) that fits. Stops starting
# parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
nvidia-smi > "$OUT/machine.txt" 2>&1; nproc >> "$OUT/machine.txt"
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
# the GEMM tests' own cases (CTest's log lists no GTEST_SKIP): not skipped, passed
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
BLD=$(sed -n 's/^build=//p' .prebuilt/ctest/ORIGIN)
LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} timeout 120 \
  "$BLD/bin/test_layer_ops_gpu" --gtest_filter='LtCandidateCalls.*:LayerGemm.*' > "$OUT/gemm-tests.log" 2>&1
echo "gemm tests rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|error" "$OUT/gemm-tests.log" | head -12
B=$((575 - (SECONDS - S) - 25))
SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger_ac,fsdp2_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -26
# cuDNN's attention against FlashAttention-3's at 8 x 4096 in the job (cuDNN's backward ran at
# 41% on an H100 against 51% on the H200, where the two were even), A B, if time is left
left() { [ $((SECONDS - S)) -lt "$1" ]; }
for v in cudnn fa3 cudnn fa3; do
  left 470 || { echo "skip $v (time)"; continue; }
  SLIDEDP_BENCH_SWEEP="replicated/cpu@8" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=80 SLIDEDP_BENCH_TAG=$v SLIDEDP_BENCH_EXTRA="--attention $v" \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror" | grep -v "info\]" | sed "s/^/$v /"
done
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
