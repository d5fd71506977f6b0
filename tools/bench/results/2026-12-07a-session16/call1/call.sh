#!/usr/bin/env bash
# One call (sixteenth session): the recompute forward without what only the layer's output needs
# (decoderLayerRecompute: no SwiGLU product and down projection; around a kept attention output
# also no q/k norm + RoPE) and its calibrated price. The GPU tests; bench_layer at 8 x 4096
# (layer_recompute_pass / layer_attention_output_recompute_pass against layer_forward, the kept
# forward a recompute ran before); then slidedp alone at batch 8 and 16 with the hand-set flags
# of the peer sweep (as 2026-12-06h-session15 call2) and as --policy auto plans it (call1 there).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/machine.txt"
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
SLIDEDP_LAYER_ROWS=8 SLIDEDP_LAYER_CONFIGS=tools/configs/qwen3-4b.json bash tools/gpu-check.sh layer > "$OUT/layer-step.log" 2>&1
echo "layer rc=$? ($((SECONDS - S)) s)"
grep -hE "RESULT name=fused_(fa3|cudnn)_(layer|agree)" "$OUT"/*.log | sort -u | head -24
B=$((300 - (SECONDS - S) / 2))
SLIDEDP_PEERS_ARGS="--batches 8,16 --slidedp-accumulation 16:2 --systems slidedp --steps 3 --warmup 1 --time-budget $((B > 120 ? B : 120))" \
  bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
mkdir -p "$OUT/hand" && mv "$OUT"/peers* "$OUT/hand/" 2>/dev/null
B=$((560 - (SECONDS - S)))
if [ $B -gt 150 ]; then
  SLIDEDP_PEERS_ARGS="--batches 8,16 --slidedp-policy auto --systems slidedp --steps 3 --warmup 1 --time-budget $B" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|policy|rror|runs:|B=" | grep -v "^\s*\\$" | head -12
  tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp-B*.log' 2>/dev/null | grep -E "policy auto:|calibrat" | cut -c1-300 | head -8
else echo "skip auto (time)"; fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
