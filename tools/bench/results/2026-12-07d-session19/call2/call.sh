#!/usr/bin/env bash
# Call 2 (nineteenth session; binary .prebuilt/COMMIT = 233f9af), chained on call 1's warm H200:
# the optimizer state's placement at batch 4 with the update tail of 21 layers, alternating
# shared / leader / shared / leader, 5 steps each (medians of steps 2-5).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS; i=0
for st in shared leader shared leader; do
  i=$((i+1))
  SLIDEDP_OPTIMIZER_STATE=$st SLIDEDP_BENCH_TAG="$i-$st" SLIDEDP_BENCH_SWEEP="replicated/cpu+tail21@4" SLIDEDP_BENCH_STEPS=5 \
    SLIDEDP_BENCH_TIMEOUT=70 timeout 75 bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@4 |rror|huge pages|leader's own" \
    | grep -v "info\]" | cut -c1-220 | sed "s/^/$st /"
  [ $((SECONDS-S)) -gt 200 ] && break
done
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled
echo elapsed $((SECONDS-S))
