#!/usr/bin/env bash
# One call (b92f9e0's binaries): slidedp batch 12 --gemm-algorithm library vs timed on the same
# machine, then slidedp (timed) against FSDP2 + Liger with and without activation checkpointing
# at global batches 12 and 16, each peer at its largest micro-batch that fits. Stops starting
# parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
nvidia-smi > "$OUT/machine.txt" 2>&1; nproc >> "$OUT/machine.txt"
( export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85
  for v in library1 timed2; do
    left 200 || { echo "skip $v (time)"; continue; }
    SLIDEDP_BENCH_TAG=$v SLIDEDP_BENCH_EXTRA="--gemm-algorithm ${v%[0-9]}" bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | grep -v "info\]" | sed "s/^/$v /"
    echo "($((SECONDS - S)) s)"
  done )
B=$((575 - (SECONDS - S) - 25))
SLIDEDP_PEERS_ARGS="--batches 12,16 --micro-batch 4 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 3 --warmup 1 --time-budget $B --peer-args=--fit-micro --slidedp-args=--gemm-algorithm=timed" \
  bash tools/gpu-check.sh peers 2>&1 | tail -32
echo "elapsed $((SECONDS - S)) s"
