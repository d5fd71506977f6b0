#!/usr/bin/env bash
# Call 2 (twentieth session; binary .prebuilt/COMMIT), chained on call 1's machine. Run from the
# repository root with .prebuilt, .gpu and .whl carried.
# - H200: slidedp (default flags) against FSDP2 + Liger without activation checkpointing (its best
#   on the H200: 18 826 tok/s at batch 12, micro 4 x 3, 2026-12-05) at batch 12 and 16, 5 timed
#   steps after 2 warm-up steps for both. The peer's micro-batch is 4 (--micro-batch 4): the largest
#   that fits 139 GiB without AC at these batches (micro 4 x 4 took 125 GiB at 16, 2026-12-01;
#   --fit-micro would reach 4 after out-of-memory tries at 12 / 6 and 16 / 8), within CALL_BUDGET s.
# - Anything else (an H100): the GPU test suite of this binary (tools/gpu-check.sh test).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
if [[ "$GPU" == *H200* ]]; then
  B=$((${CALL_BUDGET:-570} - (SECONDS - S) - 15))
  SLIDEDP_PEERS_ARGS="--batches 12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger --micro-batch 4 --steps 5 --warmup 2 --time-budget $B" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -40
else
  bash tools/gpu-check.sh test 2>&1 | tail -45
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
