#!/usr/bin/env bash
# Call 3 (seventeenth session, binary 6559eaf). Branches on the card it is given:
# - H200: as call1's H200 branch (slidedp against FSDP2 + Liger, no AC and AC, at 8, 12, 16).
# - H100: cuDNN against FlashAttention-3 at seq 4096 as an A/B: bench_layer's two variants in 4
#   rounds of alternating order (8 x 4096), then jobs at batch 8 alternating --attention cudnn and
#   the default (FlashAttention-3), twice each.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
if [[ "$GPU" == *H200* ]]; then
  B=$((550 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  SLIDEDP_LAYER_ROWS=8 SLIDEDP_LAYER_CONFIGS=tools/configs/qwen3-4b.json SLIDEDP_LAYER_ROUNDS=4 \
    SLIDEDP_LAYER_VARIANTS=fused_cudnn,fused_fa3 SLIDEDP_LAYER_TIMEOUT=200 \
    bash tools/gpu-check.sh layer 2>&1 | grep -E "RESULT|ROUND|smi|rror" | grep -vE "recompute|attention_output"
  echo "($((SECONDS - S)) s)"
  n=0; for A in cudnn default cudnn default; do n=$((n + 1))
    [ $((SECONDS - S)) -lt 470 ] || { echo "skip $A (time)"; continue; }
    X=""; [ $A = cudnn ] && X="--attention cudnn"
    ( export SLIDEDP_BENCH_SWEEP="replicated/cpu@8" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=90 SLIDEDP_BENCH_TAG=$A$n SLIDEDP_BENCH_EXTRA="$X"
      bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror" | grep -v "info\]" )
  done
fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
