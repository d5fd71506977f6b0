#!/usr/bin/env bash
# Call 2 (seventeenth session, binary fccf762), run warm right after call 1. Branches on the card:
# - H200: slidedp against DeepSpeed ZeRO-Offload + Liger at global batch 4, 8, 16 (the peer at its
#   largest micro-batch that fits; slidedp with the tail of 21 layers at 4 that --policy auto
#   chooses there): the geometric mean was last measured on an H200 at 1.867 (before FA3).
# - H100: the GPU tests and bench_layer at 8 x 4096 (fccf762's simplification of 765e33a/e142d45).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/machine.txt"
if [[ "$GPU" == *H200* ]]; then
  B=$((550 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  bash tools/gpu-check.sh test 2>&1 | tail -8
  SLIDEDP_LAYER_ROWS=8 SLIDEDP_LAYER_CONFIGS=tools/configs/qwen3-4b.json bash tools/gpu-check.sh layer 2>&1 | grep -vE "^\s+\\$" | tail -30
fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
