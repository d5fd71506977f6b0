#!/usr/bin/env bash
# One call: slidedp's best batch on an H100 against every FSDP2 + Liger variant at the same
# global batches (8, 12, 16; each peer at its largest micro-batch that fits), same run.
cd "$(git rev-parse --show-toplevel)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SLIDEDP_PEERS_ARGS="--batches 8,12,16 --micro-batch 4 --slidedp-accumulation 16:2 --systems slidedp,fsdp2_liger_ac,fsdp2_liger --steps 2 --warmup 1 --time-budget 330 --peer-args=--fit-micro" \
  bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -26
