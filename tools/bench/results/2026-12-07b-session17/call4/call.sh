#!/usr/bin/env bash
# Call 4 (seventeenth session, binary 09a310d). Branches on the card it is given:
# - H200: as call1's H200 branch (slidedp against FSDP2 + Liger, no AC and AC, at 8, 12, 16).
# - H100: a small update tail at batch 8. Call 3's jobs ran 60-190 ms a step above their GPU busy
#   time (fwd + head + bwd), tracking the leader's update (1.09-1.25 s against a 1.06 s backward):
#   one job alternating no tail, 3 and 6 tail layers (the hand-set flags otherwise), twice.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
if [[ "$GPU" == *H200* ]]; then
  B=$((550 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  V="replicated/cpu@8,replicated/cpu+tail3@8,replicated/cpu+tail6@8"
  SLIDEDP_BENCH_SWEEP="$V,$V,replicated/cpu@8" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=400 SLIDEDP_BENCH_TAG=tail \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror|tail" | grep -v "info\]" | cut -c1-250
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
