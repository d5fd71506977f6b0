#!/usr/bin/env bash
# Call 1 (nineteenth session; binary .prebuilt/COMMIT = 233f9af). Run from the repository root with
# .prebuilt, .gpu and .whl carried.
# - H200: slidedp against DeepSpeed ZeRO-Offload + Liger at global batch 4, 8, 16 (the issue's
#   geometric-mean target; last measured on an H200 on 2026-12-05, before the update tail and
#   the leader's own memory for master/m/v), the peer at its largest micro-batch that fits,
#   slidedp with the update tail of 21 layers at batch 4 (what --policy auto chooses there) and
#   2 passes at 16, within CALL_BUDGET s.
# - Anything else (an H100): the GPU test suite of this binary (tools/gpu-check.sh test), whose
#   start-up checks moved into apps/site_checks.cpp this session.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
if [[ "$GPU" == *H200* ]]; then
  B=$((${CALL_BUDGET:-560} - (SECONDS - S) - 15))
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -40
else
  bash tools/gpu-check.sh test 2>&1 | tail -45
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
