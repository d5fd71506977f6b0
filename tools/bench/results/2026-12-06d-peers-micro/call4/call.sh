#!/usr/bin/env bash
# One call: slidedp with the new default attention (auto: FlashAttention-3) against FSDP2 +
# Liger + AC at global batches 8, 12, 16, the peer at its largest micro-batch that fits (no
# cap: --fit-micro halves from the whole batch), same run. FSDP2 + Liger without AC fits only
# micro-batch 1 here (call 1: 6 907-8 026 tok/s, half of the AC variant) and is left out.
cd "$(git rev-parse --show-toplevel)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SLIDEDP_PEERS_ARGS="--batches 8,12,16 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger_ac --steps 2 --warmup 1 --time-budget 330 --peer-args=--fit-micro" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -22
