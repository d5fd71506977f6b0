#!/usr/bin/env bash
# One call: cuDNN's attention against FlashAttention-3's at seq 4096 on this GPU (call 1 gave
# FlashAttention-3 +2.4% at batch 8 in one pair of jobs): bench_layer (which times the layer
# forward + backward with each, same process) at 8 and 12 rows, twice; then the job at batch 8,
# F C F C (call 1 ran C F), and at batch 12, C F. Stops starting parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  for r in 8 12 8 12; do
    echo "== rows $r"; timeout 90 .prebuilt/bin/bench_layer --config tools/configs/qwen3-4b.json --rows $r --seq-len 4096 --iters 10 2>&1
  done ) > "$OUT/bench-layer.log" 2>&1
grep -E "^== |RESULT name=(fused_cudnn|fused_fa3)" "$OUT/bench-layer.log" | cut -c1-220
echo "($((SECONDS - S)) s)"
for vb in fa3@8 cudnn@8 fa3@8 cudnn@8 cudnn@12 fa3@12; do
  v=${vb%@*} b=${vb#*@}
  left 490 || { echo "skip $vb (time)"; continue; }
  SLIDEDP_BENCH_SWEEP="replicated/cpu@$b" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85 SLIDEDP_BENCH_TAG=$v$b SLIDEDP_BENCH_EXTRA="--attention $v" \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@$b |rror" | grep -v "info\]" | sed "s/^/$v /"
done
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv bench-slidedp*.jsonl 2>/dev/null; rm -f trace*.json smi-*.csv bench-slidedp*.jsonl
echo "elapsed $((SECONDS - S)) s"
