#!/usr/bin/env bash
# One call: the GPU tests (with the start-up check of --gradient-accumulation-steps' fp32
# accumulators, runtime/accumulator_fit.h); that check on the GPU: Qwen3-4B with 2 passes under
# a 14 GiB budget (16 GB of accumulators) must be refused at start-up, and its time to the
# error; then slidedp against DeepSpeed ZeRO-Offload + Liger at global batches 4, 8, 16 with
# slidedp's batch 4 on the update tail of 21 layers (--slidedp-tail 4:21, what --policy auto
# chooses there; call 1 ran it without). Stops starting parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
T0=$SECONDS
SLIDEDP_WORKER=.prebuilt/bin/slidedp_worker timeout 150 launcher/slidedp-run --gpus 0 -- \
  --model-config tools/configs/qwen3-4b.json --seq-len 4096 --batch-size 16 --gradient-accumulation-steps 2 \
  --gpu-memory-budget 14 --steps 2 --warmup-steps 1 > "$OUT/accumulators-over-budget.log" 2>&1
echo "over-budget job: rc=$? after $((SECONDS - T0)) s"
grep -E "error|HINT|accumulat" "$OUT/accumulators-over-budget.log" | cut -c1-600 | head -8
B=$((575 - (SECONDS - S)))
if [ $B -gt 260 ]; then
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -24
else echo "skip peers (time)"; fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
