#!/usr/bin/env bash
# The GPU call (device run, carry .prebuilt .gpu .ab; about 5 minutes): the kernel A/B at the
# Qwen3-4B shape, 12 x 4096 tokens, twice, then the 35 GPU tests of the bundle.
cd "$(git rev-parse --show-toplevel)"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee "$OUT/gpu.txt"
for i in 1 2; do for v in xent2 new; do
  echo "== $v run $i"
  .ab/bench_kernels_$v --config tools/configs/qwen3-4b.json --rows 12 2>&1 | grep -E "RESULT|rror"
done; done 2>&1 | tee "$OUT/kernels.txt"
bash tools/gpu-check.sh test > "$OUT/test-step.log" 2>&1; echo "test rc=$?"
grep -E "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest-gpu.log" "$OUT/test-step.log" | head -30
