#!/usr/bin/env bash
# The benchmark tools' command lines (tools/bench/bench_cli.h, CLI11): each tool given here
# answers --help with exit 0, refuses a bad value and an unknown option with exit 2 and a message
# naming the option, and bench_adamw (CPU) still runs a small measurement to its RESULT line.
#   test_bench_cli.sh BENCH_ADAMW [BENCH_LAYER [BENCH_KERNELS [BENCH_GEMM]]]   (paths; the GPU
#   tools' checks stop before any CUDA call, so they run on a machine without a GPU)
set -u
fail=0
check() {  # check NAME WANT_RC PATTERN -- CMD...
  local name=$1 want=$2 pat=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL: $name: exit $rc, want $want"; echo "$out" | tail -5; fail=1; return; fi
  if ! grep -qE -- "$pat" <<<"$out"; then echo "FAIL: $name: output lacks /$pat/"; echo "$out" | tail -5; fail=1; return; fi
  echo "ok: $name"
}
adamw=$1
check "bench_adamw --help" 0 "--reps" -- "$adamw" --help
check "bench_adamw --reps 0" 2 "--reps: must be >= 1, got 0" -- "$adamw" --reps 0
check "bench_adamw --bogus" 2 "bogus" -- "$adamw" --bogus
check "bench_adamw --slots 17" 2 "--slots" -- "$adamw" --slots 1,17
check "bench_adamw runs" 0 "^RESULT " -- "$adamw" --n 64K --threads 1 --reps 1 --slots 1 --dtypes f32
for tool in "${@:2}"; do
  name=$(basename "$tool")
  check "$name --help" 0 "--rows" -- "$tool" --help
  check "$name --rows 0" 2 "--rows: must be >= 1, got 0" -- "$tool" --config tools/configs/qwen3-4b.json --rows 0
  check "$name --iters x" 2 "--iters" -- "$tool" --config tools/configs/qwen3-4b.json --iters x
  check "$name --bogus" 2 "bogus" -- "$tool" --config tools/configs/qwen3-4b.json --bogus
  if [ "$name" = bench_layer ]; then  # its variants and rounds, refused before any CUDA call
    check "$name --rounds 0" 2 "--rounds: must be >= 1, got 0" -- "$tool" --config tools/configs/qwen3-4b.json --rounds 0
    check "$name --variants fa3" 2 "--variants: no variant 'fa3' \\(one of fused_flash" -- \
      "$tool" --config tools/configs/qwen3-4b.json --variants fused_cudnn,fa3
  fi
done
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
