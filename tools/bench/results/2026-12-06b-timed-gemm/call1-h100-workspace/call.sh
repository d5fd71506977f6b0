#!/usr/bin/env bash
# H200: bench_gemm at ATen's 1 MiB cuBLASLt workspace vs 32 MiB (CUBLASLT_WORKSPACE_SIZE, KiB);
# slidedp batch 12: library, timed, timed with the 32 MiB workspace. Stops starting parts at 480 s.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for ws in 1024 32768; do
  left 200 || continue
  ( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    CUBLASLT_WORKSPACE_SIZE=$ws timeout 90 .ab/bench_gemm --config tools/configs/qwen3-4b.json --rows 12 --algos 8 --repeats 1 --iters 5 > "$OUT/bench-gemm-ws$ws.log" 2>&1
    echo "bench_gemm ws=$ws rc=$? ($((SECONDS - S)) s)"; grep -E "bench_gemm:|RESULT|rror" "$OUT/bench-gemm-ws$ws.log" | sed 's/ all_us=.*//' )
done
export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85
for v in library timed timedws; do
  left 400 || { echo "skip $v (time)"; continue; }
  a=${v%ws}; ws=; [ "$v" = timedws ] && ws=32768
  CUBLASLT_WORKSPACE_SIZE=${ws:-1024} SLIDEDP_BENCH_TAG=$v SLIDEDP_BENCH_EXTRA="--gemm-algorithm $a" bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | sed "s/^/$v /"
  echo "($((SECONDS - S)) s)"
done
echo "elapsed $((SECONDS - S)) s"
