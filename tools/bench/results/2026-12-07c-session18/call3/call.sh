#!/usr/bin/env bash
# Call 3 (eighteenth session). The host AdamW pass on the state's memory: bench_adamw (built here
# from this tree, carried in .prebuilt/bin) over 1 G parameters on the leader's 14 cores, as the
# leader runs (numactl --physcpubind=0-13 --localalloc, OMP_PROC_BIND=close), with its buffers
# in the process's own memory (transparent huge pages) and in /dev/shm (as the runtime's host
# segment), alternating anon / shm / anon / shm. Then, on an H200 with >= 450 s of CALL_BUDGET
# left: slidedp (default flags) against FSDP2 + Liger, no AC and AC, at 12 and 16.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader | tee "$OUT/card.txt"
cat .prebuilt/COMMIT
TL=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__) + "/lib")' 2>/dev/null || true)
for m in anon shm anon shm; do
  OMP_PROC_BIND=close OMP_PLACES=cores LD_LIBRARY_PATH=.prebuilt/lib:$TL numactl --physcpubind=0-13 --localalloc \
    .prebuilt/bin/bench_adamw --n 1G --threads 14 --reps 5 --slots 1 --dtypes f32 --memory $m > "$OUT/adamw-$m-$SECONDS.log" 2>&1
  grep -hE "memory: (Anon|Shmem)Huge|kind=triad when=after|pass=update " "$OUT"/adamw-$m-*.log | tail -4 | cut -c1-200
done
grep -h "transparent_hugepage" "$OUT"/adamw-*.log | sort -u
if [[ "$GPU" == *H200* && $((${CALL_BUDGET:-560} - (SECONDS - S))) -ge 450 ]]; then
  B=$((${CALL_BUDGET:-560} - (SECONDS - S) - 20))
  SLIDEDP_PEERS_ARGS="--batches 12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
fi
cd "$OUT" && rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
