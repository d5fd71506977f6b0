#!/usr/bin/env bash
# One call: the split kernels (src/kernels/{rms_norm,qk_norm_rope,swiglu,softmax_xent}.cu, the
# cross-entropy kernels' shared row reduction) and the bench tools on CLI11: the GPU tests, the
# element-wise kernels before (bench_kernels of b92f9e0) and after, A B A B; slidedp at batch 12;
# then slidedp against DeepSpeed ZeRO-Offload + Liger at global batches 4, 8, 16. Stops starting
# parts by the clock.
cd "$(git rev-parse --show-toplevel)"
D=tools/bench/results/2026-12-06c-h100-peers-kernels/call3
S=$SECONDS
left() { [ $((SECONDS - S)) -lt "$1" ]; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$? ($((SECONDS - S)) s)"
grep -hE "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -20
for f in $D/bench_kernels_*.xz; do xz -dkf "$f"; done; chmod +x $D/bench_kernels_b92f9e0 $D/bench_kernels_split
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
( export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  for v in b92f9e0 split b92f9e0 split; do
    echo "== $v"; timeout 30 $D/bench_kernels_$v --config tools/configs/qwen3-4b.json --rows 12 2>&1 | grep -E "RESULT|rror"
  done ) > "$OUT/kernels.txt" 2>&1
python3 - "$OUT/kernels.txt" <<'PY'
import re, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list)); v = None
for l in open(sys.argv[1]):
    if l.startswith('== '): v = l.split()[1]; continue
    m = re.search(r'kernel=(\S+).*?\bus=([\d.]+)', l)
    if m and v: t[m.group(1)][v].append(float(m.group(2)))
for k, d in t.items(): print(f"{k:34s} " + "  ".join(f"{v} {min(x):8.1f} us" for v, x in d.items()))
PY
echo "($((SECONDS - S)) s)"
( export SLIDEDP_BENCH_SWEEP="replicated/cpu@12" SLIDEDP_BENCH_STEPS=4 SLIDEDP_BENCH_TIMEOUT=85 SLIDEDP_BENCH_TAG=split
  bash tools/gpu-check.sh slidedp 2>&1 | grep -E "@12 |rror" | grep -v "info\]" )
echo "($((SECONDS - S)) s)"
if left 330; then
  B=$((575 - (SECONDS - S) - 20))
  SLIDEDP_PEERS_ARGS="--batches 4,8,16 --slidedp-accumulation 16:2 --systems slidedp,deepspeed_liger --steps 2 --warmup 1 --time-budget $B --peer-args=--fit-micro" \
    bash tools/gpu-check.sh peers 2>&1 | grep -vE "^\s+\\$|^compare: \[" | tail -24
else echo "skip peers (time)"; fi
cd "$OUT" && tar czf rest.tgz trace*.json smi-*.csv 2>/dev/null; rm -f trace*.json smi-*.csv
echo "elapsed $((SECONDS - S)) s"
