#!/usr/bin/env bash
# One call, branching on the card that came. On an H200 (the machine): slidedp (default
# attention, auto = FlashAttention-3) against FSDP2 + Liger without AC (the H200's best FSDP2
# variant, micro 4 there) at global batches 8, 12, 16, the peer from its whole batch down
# (--fit-micro). On an H100: slidedp against DeepSpeed ZeRO-Offload + Liger at 4, 8, 16 with the
# new default attention (the tenth session's 1.818 ran cuDNN). Stops starting parts by the clock.
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
B=$((570 - (SECONDS - S)))
if [[ "$GPU" == *H200* ]]; then
  SYS="slidedp,fsdp2_liger"; BATCHES="8,12,16"
else
  SYS="slidedp,deepspeed_liger"; BATCHES="4,8,16"
fi
SLIDEDP_PEERS_ARGS="--batches $BATCHES --slidedp-accumulation 16:2 --systems $SYS --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -24
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
