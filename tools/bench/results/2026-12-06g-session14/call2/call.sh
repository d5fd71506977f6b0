#!/usr/bin/env bash
# One call: on an H200 (the card issue 12's targets are set on), slidedp against FSDP2 + Liger (no AC
# and with AC, each from the whole batch down to its largest micro-batch that fits)
# at 8, 12, 16 with FlashAttention-3 the default, and a job pair --attention cudnn / default at 12.
# On an H100: the check, then slidedp alone at 4, 8, 16 as --slidedp-policy auto runs it (a job
# per batch under the default --policy auto; call1 of 2026-12-06g-session14 ran the sweep and
# found the plan binary missing: gpu-check.sh now passes SLIDEDP_PLAN, the launcher looks beside
# SLIDEDP_WORKER).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
NCCL_LIB=$(python3 -c 'import os, nvidia.nccl; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
# (the accumulators' start-up check passed in call1 on an H100: not repeated)
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
  echo "($((SECONDS - S)) s)"
  B=$((430 - (SECONDS - S)))
  SLIDEDP_PEERS_ARGS="--batches 8,16,4 --slidedp-policy auto --systems slidedp --steps 3 --warmup 1 --time-budget $B" \
    bash tools/gpu-check.sh peers 2>&1 | grep -E "^slidedp |slidedp best|policy|rror|runs:|B=" | grep -v "^\s*\\$" | head -20
  tar xzf "$OUT/peers.tgz" -O --wildcards 'peers/slidedp-B*.log' | grep -E "policy auto:|calibrat" | cut -c1-260 | head -12
fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
