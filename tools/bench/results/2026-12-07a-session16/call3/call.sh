#!/usr/bin/env bash
# One call (sixteenth session, 765e33a): --policy auto now passes no --max-kept-layers where its
# split is the most the model's budget holds, so the run keeps what its measured memory holds.
# slidedp alone at batch 16 (the session's device time left no more): the hand-set flags of the peer sweep, then --policy auto
# (a job per batch, calibrating first), same machine.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/machine.txt"
SLIDEDP_PEERS_ARGS="--batches 16 --slidedp-accumulation 16:2 --systems slidedp --steps 3 --warmup 1 --time-budget 100" \
  bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp*.log' 2>/dev/null | grep -E "kept [0-9]+/36" \
  | sed -E 's/.*\| (replicated[^ |]*) \|.* ([0-9]+ tok\/s) .*(kept [0-9]+\/36 layers[^|]{0,40}).*/\1 \2 \3/' | tail -6
mkdir -p "$OUT/hand" && mv "$OUT"/peers.tgz "$OUT/hand/" 2>/dev/null; rm -f "$OUT"/peers.log
B=$((280 - (SECONDS - S)))
SLIDEDP_PEERS_ARGS="--batches 16 --slidedp-policy auto --systems slidedp --steps 3 --warmup 1 --time-budget $B" \
  bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|policy|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp-B*.log' 2>/dev/null | grep -E "policy auto:|step 4/4" | cut -c1-420 | head -8
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
