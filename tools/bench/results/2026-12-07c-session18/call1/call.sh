#!/usr/bin/env bash
# Call 5 (seventeenth session; the binary is .prebuilt/COMMIT's). Branches on the card it is given:
# - H200: as call1's H200 branch (slidedp against FSDP2 + Liger, no AC and AC, at 8, 12, 16).
# - H100, or an H200 with under 450 s: the GPU tests of this binary (model::mlpTileRows(config, ...) now shared by the worker
#   and the decoder; machine-file and plan checks), and slidedp alone at batch 8, hand-set flags.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
if [[ "$GPU" == *H200* && ${CALL_BUDGET:-550} -ge 450 ]]; then
  # CALL_BUDGET: the seconds the session's device time leaves this call (default 550); under 500
  # the batches are 8 and 16 (the FSDP2 peers' best came at 12 and 16, within 0.01%, on 2026-12-05)
  B=$((${CALL_BUDGET:-550} - (SECONDS - S))); BATCHES=8,12,16; [ "$B" -lt 500 ] && BATCHES=8,16
  SLIDEDP_PEERS_ARGS="--batches $BATCHES --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  bash tools/gpu-check.sh test 2>&1 | tail -6
  SW="replicated/cpu@8"; [[ "$GPU" == *H200* ]] && SW="replicated/cpu@8,replicated/cpu@12"
  SLIDEDP_BENCH_SWEEP="$SW" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=150 \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |@12 |rror" | grep -v "info\]" | cut -c1-250
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
