#!/usr/bin/env bash
# One call: bench_gemm (GEMM algorithm headroom), the 35+ GPU tests, slidedp --gemm-algorithm
# library vs timed (L T T L, batch 12), the pending kernels' A/B. Stops starting parts at 500 s.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  timeout 80 .ab/bench_gemm --config tools/configs/qwen3-4b.json --rows 12 --algos 8 --repeats 1 --iters 5 > "$OUT/bench-gemm.log" 2>&1
  echo "bench_gemm rc=$? ($((SECONDS - S)) s)"; grep -E "RESULT|rror" "$OUT/bench-gemm.log" | sed 's/ all_us=.*//' )
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=3 SLIDEDP_BENCH_TIMEOUT=75
for a in library timed; do
  left 215 || { echo "skip slidedp $a (time)"; continue; }
  n=$((${n:-0} + 1))
  SLIDEDP_BENCH_TAG=$a$n SLIDEDP_BENCH_EXTRA="--gemm-algorithm $a" bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | sed "s/^/$a$n /"
done
echo "slidedp done ($((SECONDS - S)) s)"
if left 290; then
  ( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    for v in xent2 new; do echo "== $v"; timeout 20 .ab/bench_kernels_$v --config tools/configs/qwen3-4b.json --rows 12 2>&1 | grep -E "RESULT|rror"; done ) | tee "$OUT/kernels.txt" | grep -E "==|softmax|qk_norm_rope_forward"
fi
echo "elapsed $((SECONDS - S)) s"
