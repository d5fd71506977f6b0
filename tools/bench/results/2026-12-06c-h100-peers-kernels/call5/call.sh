#!/usr/bin/env bash
# One call: ltMatmul's plans built from the shared describeProblem / heuristicCandidates, and
# bench_gemm through ltCandidateCalls (no cuBLASLt descriptors of its own): the GPU tests, a
# short bench_gemm, and the job at batch 12 with --gemm-algorithm timed (every plan timed).
cd "$(git rev-parse --show-toplevel)"
D=tools/bench/results/2026-12-06c-h100-peers-kernels/call5
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
xz -dkf $D/bench_gemm.xz && chmod +x $D/bench_gemm
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  timeout 90 $D/bench_gemm --rows 12 --algos 8 --repeats 1 --iters 5 > "$OUT/bench-gemm.log" 2>&1
  echo "bench_gemm rc=$? ($((SECONDS - S)) s)"; grep -E "RESULT|rror" "$OUT/bench-gemm.log" | sed 's/ all_us=.*//' )
( export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85 SLIDEDP_BENCH_TAG=timed
  SLIDEDP_BENCH_EXTRA="--gemm-algorithm timed --log-all-ranks" bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | grep -v "info\]" )
echo "timed GEMM choices logged: $(grep -c "timed GEMM" "$OUT/bench-slidedp-timed.log")"
grep -h "timed GEMM" "$OUT/bench-slidedp-timed.log" | sed 's/^.*timed GEMM/timed GEMM/' | head -12
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv test-step.log prebuilt-check.log 2>/dev/null; rm -f trace*.json smi-*.csv test-step.log prebuilt-check.log
echo "elapsed $((SECONDS - S)) s"
