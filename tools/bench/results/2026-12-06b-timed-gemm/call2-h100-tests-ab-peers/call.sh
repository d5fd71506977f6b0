#!/usr/bin/env bash
# One call: the GPU tests with the new timed GEMMs (ATen's call timed beside cuBLASLt's
# candidates); slidedp batch 12 --gemm-algorithm library vs timed; slidedp (timed) against
# FSDP2 + Liger at batches 12 and 16. Stops starting parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
( export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85
  for v in library1 timed2; do
    left 300 || { echo "skip $v (time)"; continue; }
    SLIDEDP_BENCH_TAG=$v SLIDEDP_BENCH_EXTRA="--gemm-algorithm ${v%[0-9]}" bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | grep -v "info\]" | sed "s/^/$v /"
    echo "($((SECONDS - S)) s)"
  done )
grep -h "timed GEMM" "$OUT/bench-slidedp-timed2.log" 2>/dev/null | sed 's/^.*timed GEMM/timed GEMM/' | head -40
if left 330; then
  B=$((560 - (SECONDS - S) - 30))
  SLIDEDP_PEERS_ARGS="--batches 12,16 --micro-batch 4 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger --steps 3 --warmup 1 --time-budget $B --peer-args=--fit-micro --slidedp-args=--gemm-algorithm=timed" \
    bash tools/gpu-check.sh peers 2>&1 | tail -40
else echo "skip peers (time)"; fi
echo "elapsed $((SECONDS - S)) s"
