#!/usr/bin/env bash
# One call (b92f9e0's binaries): where the step's non-compute time goes at batch 12: the GPU
# profile of step 3 (compute-stream idle gaps) and the runtime's trace (leader unit updates,
# hand-offs) of the same job. Everything but the logs packed into one archive.
cd "$(git rev-parse --show-toplevel)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_PROFILE=3 SLIDEDP_BENCH_TIMEOUT=120 SLIDEDP_BENCH_TAG=prof \
  bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror|PROFILE|compute stream" | grep -v "info\]"
grep -A60 "idle" "$OUT"/bench-slidedpprof.log | head -90
cd "$OUT" && tar czf call2.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv; ls -la "$OUT"
