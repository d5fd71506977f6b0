#!/usr/bin/env bash
# Call 1 (twentieth session; binary .prebuilt/COMMIT). Run from the repository root with .prebuilt,
# .gpu and .whl carried.
# - H200: slidedp against DeepSpeed ZeRO-Offload + Liger at global batch 4, 8, 16 (the issue's
#   geometric-mean target), as in the nineteenth session's call 1 but with 5 timed steps after 2
#   warm-up steps per batch for both systems (that call's 2-step medians rested on one slow step
#   each at batch 4 and 8): the peer at its largest micro-batch that fits (--fit-micro), slidedp
#   with the update tail of 21 layers at batch 4 and 2 passes at 16, within CALL_BUDGET s.
# - Anything else (an H100): the GPU test suite of this binary (tools/gpu-check.sh test).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
if [[ "$GPU" == *H200* ]]; then
  B=$((${CALL_BUDGET:-570} - (SECONDS - S) - 15))
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 5 --warmup 2 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -40
else
  bash tools/gpu-check.sh test 2>&1 | tail -45
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
