#!/usr/bin/env bash
# Call 1 (seventeenth session, binary fccf762). Branches on the card it is given:
# - H200 (the card issue 12's targets are set on): slidedp against FSDP2 + Liger (no AC and with
#   AC, each at its largest micro-batch that fits) at 8, 12, 16 with FlashAttention-3 the default and
#   the recompute pass without the down projection (e142d45): the FSDP2 ratio was last measured on an
#   H200 with cuDNN attention (1.078).
# - H100: 765e33a's check (2026-12-07a-session16/call3): slidedp alone at batch 16 and 8, the hand-set
#   flags, then --policy auto (a job per batch, calibrating first).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/machine.txt"
if [[ "$GPU" == *H200* ]]; then
  B=$((550 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
else
  SLIDEDP_PEERS_ARGS="--batches 16,8 --slidedp-accumulation 16:2 --systems slidedp --steps 3 --warmup 1 --time-budget 140" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
  tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp*.log' 2>/dev/null | grep -E "kept [0-9]+/36" \
    | sed -E 's/.*\| (replicated[^ |]*) \|.* ([0-9]+ tok\/s) .*(kept [0-9]+\/36 layers[^|]{0,40}).*/\1 \2 \3/' | tail -6
  mkdir -p "$OUT/hand" && mv "$OUT"/peers.tgz "$OUT/hand/" 2>/dev/null; rm -f "$OUT"/peers.log
  B=$((540 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 16,8 --slidedp-policy auto --systems slidedp --steps 3 --warmup 1 --time-budget $B" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|policy|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
  tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp-B*.log' 2>/dev/null | grep -E "policy auto:|step 4/4" | cut -c1-420 | head -8
fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
