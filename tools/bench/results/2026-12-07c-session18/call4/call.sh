#!/usr/bin/env bash
# Call 4 (eighteenth session; the binary is .prebuilt's, built from the working tree named in
# this directory's README). The optimizer state (master, m, v) in the leader's own memory with
# transparent huge pages (shm/leader_regions.h, the default with bf16 compute) against the
# shared segment's 4 KiB tmpfs pages (SLIDEDP_OPTIMIZER_STATE=shared): slidedp at batch 8
# (hand-set flags; the step there is bound by the leader's update on these hosts), one job
# each, alternating shared / leader / shared / leader, 5 steps each. Then the GPU tests of the
# binary (their jobs run bf16 compute, so the leader's own memory).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
i=0
for st in shared leader shared leader; do
  i=$((i + 1))
  SLIDEDP_OPTIMIZER_STATE=$st SLIDEDP_BENCH_TAG="$i-$st" SLIDEDP_BENCH_SWEEP="replicated/cpu@8" SLIDEDP_BENCH_STEPS=5 \
    SLIDEDP_BENCH_TIMEOUT=110 bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@8 |rror" | grep -v "info\]" | cut -c1-200 | sed "s/^/$st /"
  grep -h "host state" "$OUT/bench-slidedp-$i-$st.log" | grep -o "state whole.*" | head -1
done
bash tools/gpu-check.sh test 2>&1 | tail -4
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
