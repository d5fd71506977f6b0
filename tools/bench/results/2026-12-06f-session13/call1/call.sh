#!/usr/bin/env bash
# One call: the accumulators' start-up check as it landed (0e9d49f: per --route-sweep variant, agreed
# over the ranks) must refuse a `+ga2` variant under a 14 GiB budget with exit 2 and one message;
# then, on an H200 (the card issue 12's targets are set on), slidedp against FSDP2 + Liger (no AC
# and with AC, each from the whole batch down to its largest micro-batch that fits)
# at 8, 12, 16 with FlashAttention-3 the default, and a job pair --attention cudnn / default at 12.
# On an H100: the check, then slidedp alone at 4, 8, 16 as the sweep runs it and as
# --slidedp-policy auto does (a job per batch under the default --policy auto).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
NCCL_LIB=$(python3 -c 'import os, nvidia.nccl; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
T0=$SECONDS
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:${NCCL_LIB:+$NCCL_LIB:}/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  SLIDEDP_WORKER=.prebuilt/bin/slidedp_worker timeout 150 launcher/slidedp-run --gpus 0 -- \
    --model-config tools/configs/qwen3-4b.json --seq-len 4096 --batch-size 16 \
    --route-sweep "replicated/cpu@16,replicated/cpu+ga2@16" --gpu-memory-budget 14 --steps 2 --warmup-steps 1 \
    > "$OUT/accumulators-sweep-over-budget.log" 2>&1 )
echo "sweep variant over budget: rc=$? after $((SECONDS - T0)) s"
grep -cE "error" "$OUT/accumulators-sweep-over-budget.log"
grep -E "error|HINT" "$OUT/accumulators-sweep-over-budget.log" | cut -c1-700 | head -6
grep -E "step [0-9]" "$OUT/accumulators-sweep-over-budget.log" | head -3
if [[ "$GPU" == *H200* ]]; then
  B=$((560 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget $((B - 150)) --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -30
  echo "($((SECONDS - S)) s)"
  for A in cudnn default; do
    [ $((SECONDS - S)) -lt 500 ] || { echo "skip $A (time)"; continue; }
    X=""; [ $A = cudnn ] && X="--attention cudnn"
    ( export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=5 SLIDEDP_BENCH_TIMEOUT=90 SLIDEDP_BENCH_TAG=$A SLIDEDP_BENCH_EXTRA="$X"
      bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | grep -v "info\]" )
  done
else
  # slidedp alone at 4, 8, 16: the sweep as the peer comparisons ran it (2 passes at 16, tail 21
  # at 4: the check must let the 2-pass variant through), then --slidedp-policy auto (a job per
  # batch under the default --policy auto, planned from this machine's calibration)
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --slidedp-tail 4:21 --systems slidedp --steps 3 --warmup 1" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|rror" | head -8
  mv "$OUT/peers.log" "$OUT/peers-sweep.log"; mv "$OUT/peers.tgz" "$OUT/peers-sweep.tgz"
  echo "($((SECONDS - S)) s)"
  B=$((560 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-policy auto --systems slidedp --steps 3 --warmup 1 --time-budget $B" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|policy|rror|runs:|B=" | grep -v "^\s*\\$" | head -20
  tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp-B*.log' | grep -E "policy auto:|calibrat" | cut -c1-260 | head -12
fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
