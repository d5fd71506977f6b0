#!/usr/bin/env bash
# One call: the start-up check of --gradient-accumulation-steps' fp32 accumulators on the GPU
# (call 2 ran the worker without the prebuilt libraries' path): Qwen3-4B with 2 passes under a
# 14 GiB budget must be refused at start-up, with its time to the error; slidedp's batch 4 with
# and without the update tail of 21 layers alternating in one job (A B A B); then slidedp against
# DeepSpeed ZeRO-Offload + Liger at 4, 8, 16 again (batch 4 on the tail), a third sample of the
# peer (it ran 6-13% apart between calls 1 and 2 on two machines).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
NCCL_LIB=$(python3 -c 'import os, nvidia.nccl; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
T0=$SECONDS
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:${NCCL_LIB:+$NCCL_LIB:}/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  SLIDEDP_WORKER=.prebuilt/bin/slidedp_worker timeout 150 launcher/slidedp-run --gpus 0 -- \
    --model-config tools/configs/qwen3-4b.json --seq-len 4096 --batch-size 16 --gradient-accumulation-steps 2 \
    --gpu-memory-budget 14 --steps 2 --warmup-steps 1 > "$OUT/accumulators-over-budget.log" 2>&1 )
echo "over-budget job: rc=$? after $((SECONDS - T0)) s"
grep -E "error|HINT" "$OUT/accumulators-over-budget.log" | cut -c1-700 | head -6
( export SLIDEDP_BENCH_SWEEP="replicated/cpu@4,replicated/cpu+tail21@4,replicated/cpu@4,replicated/cpu+tail21@4" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=120 SLIDEDP_BENCH_TAG=tail
  bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@4 |rror" | grep -v "info\]" )
echo "($((SECONDS - S)) s)"
B=$((575 - (SECONDS - S)))
if [ $B -gt 260 ]; then
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp,deepspeed_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -24
else echo "skip peers (time)"; fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
