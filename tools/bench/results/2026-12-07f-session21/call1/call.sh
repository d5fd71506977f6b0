#!/usr/bin/env bash
# Call 1 (twenty-first session; binary .prebuilt/COMMIT). Run from the repository root with
# .prebuilt, .gpu and .whl carried.
# - On an H200 (the issue's card): the twentieth session's call3/call.sh, both of issue 12's
#   unmet targets in one run (DeepSpeed + Liger at 4, 8, 16; FSDP2 + Liger at 12), 5 timed
#   steps after 2 warm-up steps for every system.
# - On another card: why a job's last step can take the leader's AdamW twice as long (twentieth
#   session, call 4: step 21 of 21, update 2.102 s against 0.99-1.08). Two jobs at batch 16
#   (2 passes), each tracing step 6 (--trace: the leader's per-unit reduce + AdamW events):
#   job A runs 7 steps (step 6 is not its last), job B runs 6 (step 6 is its last). vmstat and
#   /proc/vmstat's THP, NUMA and compaction counters are recorded around and during each job.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ "$GPU" == *H200* ]]; then
  exec bash tools/bench/results/2026-12-07e-session20/call3/call.sh
fi
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > "$OUT/thp.txt" 2>&1
counters() { grep -E "^(thp|numa|compact|pgfault|pgmajfault|pgmigrate|pgsteal|pgscan|nr_dirty|nr_writeback)" /proc/vmstat; }
for job in A:7 B:6; do
  tag=${job%%:*} steps=${job##*:}
  counters > "$OUT/vmstat-before-$tag.txt"
  (vmstat -t 1 > "$OUT/vmstat-$tag.log" 2>&1) & VM=$!
  SLIDEDP_BENCH_SWEEP="replicated/cpu+ga2@16" SLIDEDP_BENCH_STEPS=$steps SLIDEDP_BENCH_TAG=$tag \
    SLIDEDP_BENCH_EXTRA="--trace-step 6" SLIDEDP_BENCH_TIMEOUT=250 \
    bash tools/gpu-check.sh slidedp 2>&1 | grep -E "step [0-9]+/|error|Error|using" | cut -c1-330
  kill $VM 2>/dev/null
  counters > "$OUT/vmstat-after-$tag.txt"
  echo "job $tag done at $((SECONDS - S)) s"
done
cd "$OUT" && rm -f smi-*.csv
echo "elapsed $((SECONDS - S)) s"
