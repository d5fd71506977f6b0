#!/usr/bin/env bash
# Call 2 (eighteenth session; the binary is .prebuilt/COMMIT's). Branches on the card it is given:
# - H200 (CALL_BUDGET >= 450 s left for the call): slidedp with --gemm-algorithm timed (cuBLASLt's
#   candidates and ATen's call timed at the first step; never measured on an H200, where batch
#   12 is bound by the GPU) against FSDP2 + Liger, no AC and AC, at 12 and 16 (the best batches
#   of both on 2026-12-05), then, in what is left, one slidedp job alternating nothing: library
#   and timed at 12, for the A/B on this card.
# - H100: the A/B alone, library / timed / library / timed at batch 8 (every layer it keeps at
#   8 is the same in both), 5 steps each.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
ab() {  # $1: batch, $2: jobs, $3: timeout per job
  local i=0
  for alg in $(for _ in $(seq 1 "$2"); do echo library timed; done); do
    i=$((i + 1))
    SLIDEDP_BENCH_TAG="$i-$alg" SLIDEDP_BENCH_EXTRA="--gemm-algorithm $alg" SLIDEDP_BENCH_SWEEP="replicated/cpu@$1" \
      SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=$3 bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@$1 |rror" | grep -v "info\]" | cut -c1-200 | sed "s/^/$alg /"
  done
}
if [[ "$GPU" == *H200* && ${CALL_BUDGET:-560} -ge 450 ]]; then
  B=$((${CALL_BUDGET:-560} - (SECONDS - S) - 150))
  SLIDEDP_PEERS_ARGS="--batches 12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro --slidedp-args=--gemm-algorithm=timed" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
  [ $((${CALL_BUDGET:-560} - (SECONDS - S))) -ge 140 ] && ab 12 1 110
else
  ab 8 2 110
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
