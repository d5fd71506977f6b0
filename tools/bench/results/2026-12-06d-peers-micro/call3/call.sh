#!/usr/bin/env bash
# One call: `--attention auto` now FlashAttention-3 at every length where built: the GPU tests
# with it; the job at batch 8 with the default (auto) and with --attention cudnn; then the GPU
# profile of step 3 of each (per-op times, compute-stream gaps), to see where the jobs' gap
# comes from while bench_layer times the two layers even. Stops starting parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
for v in auto cudnn; do
  left 420 || { echo "skip $v (time)"; continue; }
  SLIDEDP_BENCH_SWEEP="replicated/cpu@8" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=80 SLIDEDP_BENCH_TAG=$v SLIDEDP_BENCH_EXTRA="--attention $v" \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror" | grep -v "info\]" | sed "s/^/$v /"
done
for v in cudnn auto; do
  left 480 || { echo "skip profile $v (time)"; continue; }
  SLIDEDP_BENCH_SWEEP="replicated/cpu@8" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_PROFILE=3 SLIDEDP_BENCH_TIMEOUT=90 SLIDEDP_BENCH_TAG=prof-$v SLIDEDP_BENCH_EXTRA="--attention $v" \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror|compute stream" | grep -v "info\]" | sed "s/^/prof-$v /"
  [ -f "$OUT/gpu-profile.tgz" ] && mv "$OUT/gpu-profile.tgz" "$OUT/gpu-profile-$v.tgz"
done
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv bench-slidedp*.jsonl gpu-profile-*.tgz 2>/dev/null; rm -f trace*.json smi-*.csv bench-slidedp*.jsonl gpu-profile-*.tgz
echo "elapsed $((SECONDS - S)) s"
