#!/usr/bin/env bash
# Call 2 (twenty-first session; binary .prebuilt/COMMIT), for the device time left after the
# refused requests (~450 s). Run from the repository root with .prebuilt, .gpu and .whl carried.
# - On an H200: issue 12's nearest target only, slidedp against FSDP2 + Liger without activation
#   checkpointing at batch 12, the peer at micro-batch 4 (its best there on the H200,
#   2026-12-05), 5 timed steps after 2 warm-up steps each (the twentieth session's call3 part 2).
# - On another card: call1/call.sh's trace of the slow last step.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
BUDGET=${CALL_BUDGET:-430}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
[[ "$GPU" == *H200* ]] || exec bash tools/bench/results/2026-12-07f-session21/call1/call.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
B=$((BUDGET - (SECONDS - S) - 20))
SLIDEDP_PEERS_ARGS="--batches 12 --systems slidedp,fsdp2_liger --micro-batch 4 --steps 5 --warmup 2 --time-budget $B" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -25
mv "$OUT/peers.tgz" "$OUT/fsdp2-peers.tgz"; mv "$OUT/peers.log" "$OUT/fsdp2-peers.log"
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
