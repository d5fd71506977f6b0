#!/usr/bin/env bash
# Call 5 (eighteenth session; binary .prebuilt/COMMIT = 4374d95). With the session's last device
# time (CALL_BUDGET s):
# - H200: slidedp (default flags) against FSDP2 + Liger without AC (its best on the H200 on
#   2026-12-05; the time left does not hold the AC variant too) at batch 12 alone (where
#   slidedp's best and the peer's best within 0.01% of its 16 came on 2026-12-05).
# - H100: the optimizer state's placement at batch 4 (the update tail of 21 layers that
#   --policy auto chooses there; the step most bound by the leader's update): shared / leader.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
if [[ "$GPU" == *H200* ]]; then
  B=$((${CALL_BUDGET:-460} - (SECONDS - S) - 15))
  SLIDEDP_PEERS_ARGS="--batches 12 --systems slidedp,fsdp2_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  i=0
  for st in shared leader; do
    i=$((i + 1))
    SLIDEDP_OPTIMIZER_STATE=$st SLIDEDP_BENCH_TAG="$i-$st" SLIDEDP_BENCH_SWEEP="replicated/cpu+tail21@4" SLIDEDP_BENCH_STEPS=6 \
      SLIDEDP_BENCH_TIMEOUT=110 bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@4 |rror" | grep -v "info\]" | cut -c1-200 | sed "s/^/$st /"
  done
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
