#!/usr/bin/env bash
# Call 3 (twentieth session; binary .prebuilt/COMMIT): calls 1 and 2 in one device call, for a
# session with device time for one call only. Run from the repository root with .prebuilt, .gpu
# and .whl carried. Every system gets 5 timed steps after 2 warm-up steps per batch.
# 1. slidedp against DeepSpeed ZeRO-Offload + Liger at global batch 4, 8, 16 (the issue's
#    geometric-mean target), the peer at its largest micro-batch that fits (--fit-micro), slidedp
#    with the update tail of 21 layers at batch 4 and 2 passes at 16 (as call1/call.sh).
# 2. H200 only, in the time left: slidedp against FSDP2 + Liger without activation checkpointing
#    at batch 12, the peer at micro-batch 4 (its best there on the H200, 2026-12-05; as
#    call2/call.sh, at 12 only).
# On an H100 part 1 runs too (the peer's micro-batch then fits at 4 at most): another card than
# the targets, named as such in the notes.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
BUDGET=${CALL_BUDGET:-580}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
B=$((BUDGET * 68 / 100 - (SECONDS - S)))
[[ "$GPU" == *H200* ]] || B=$((BUDGET - (SECONDS - S) - 20))
SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 5 --warmup 2 --time-budget $B --peer-args=--fit-micro" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
mv "$OUT/peers.tgz" "$OUT/ds-peers.tgz"; mv "$OUT/peers.log" "$OUT/ds-peers.log"
if [[ "$GPU" == *H200* ]]; then
  B=$((BUDGET - (SECONDS - S) - 20))
  echo "=== part 2: $B s left"
  if ((B > 150)); then
    SLIDEDP_PEERS_ARGS="--batches 12 --systems slidedp,fsdp2_liger --micro-batch 4 --steps 5 --warmup 2 --time-budget $B" \
      bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -25
    mv "$OUT/peers.tgz" "$OUT/fsdp2-peers.tgz"; mv "$OUT/peers.log" "$OUT/fsdp2-peers.log"
  fi
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
