#!/usr/bin/env bash
# Runs bench_adamw (fused host AdamW vs a same-run STREAM-like triad) and, where PyTorch is
# importable, adamw_torch.py (torch.optim.AdamW(fused=True) on CPU, alone and as the torch way
# of doing the leader's work: sum G slots, step, bf16 copy) with the same size and thread count,
# then prints slidedp/torch ratios for every (gradient dtype, G) measured.
#
# Usage: tools/bench/bench_adamw.sh [--build DIR] [--python PY] [bench_adamw flags...]
#   --build DIR    build directory holding bin/bench_adamw or tools/bench/bench_adamw
#                  (default: build)
#   --python PY    interpreter for adamw_torch.py (default: $SLIDEDP_PYTHON, then the set-up's
#                  venv /root/.cache/slidedp/venv/bin/python, then python3)
#   other flags go to bench_adamw (--n, --threads, --reps, --isa, --slots, --dtypes, --stream);
#   --n, --threads, --reps, --slots and --dtypes are also passed to adamw_torch.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build"
py="${SLIDEDP_PYTHON:-}"
if [[ -z "$py" && -x /root/.cache/slidedp/venv/bin/python ]]; then py=/root/.cache/slidedp/venv/bin/python; fi
py="${py:-python3}"
bench_args=()
torch_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --python) py="$2"; shift 2 ;;
    --n|--threads|--reps|--slots|--dtypes) bench_args+=("$1" "$2"); torch_args+=("$1" "$2"); shift 2 ;;
    *) bench_args+=("$1"); shift ;;
  esac
done
bin="$build/bin/bench_adamw"                      # the project's RUNTIME_OUTPUT_DIRECTORY
[[ -x "$bin" ]] || bin="$build/tools/bench/bench_adamw"
if [[ ! -x "$bin" ]]; then
  echo "bench_adamw.sh: $bin not found. HINT: cmake --build $build --target bench_adamw" >&2
  exit 1
fi

out="$("$bin" "${bench_args[@]}")"
echo "$out"

if ! "$py" -c 'import torch' 2>/dev/null; then
  echo "bench_adamw.sh: '$py' cannot import torch; skipping the PyTorch comparison"
  exit 0
fi
tout="$("$py" "$here/adamw_torch.py" "${torch_args[@]}")"
echo "$tout"

torch_g="$(sed -n 's/.*kind=torch_adamw_fused.* Gparams=\([0-9.]*\).*/\1/p' <<<"$tout")"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
echo "--- slidedp fused pass (reduce G slots + AdamW + bf16 copy) vs PyTorch, same n and threads ---"
echo "    vs_step: torch.optim.AdamW(fused=True).step() alone (fp32 grad, no reduction, no copy)"
echo "    vs_pipeline: torch doing the same work: sum G slots, step(), copy to bf16 (target >= 1.5x)"
grep 'kind=adamw pass=update ' <<<"$out" | while read -r line; do
  g="$(field Gparams "$line")"; dt="$(field grad "$line")"; G="$(field G "$line")"
  tl="$(grep "kind=torch_pipeline grad=$dt G=$G " <<<"$tout" || true)"
  tp="$(field Gparams "$tl")"
  awk -v a="$g" -v b="$torch_g" -v c="${tp:-0}" -v d="$dt" -v G="$G" 'BEGIN {
    printf "RATIO grad=%s G=%s slidedp=%.3f Gparam/s torch_step=%.3f vs_step=%.2fx", d, G, a, b, a / b
    if (c > 0) printf " torch_pipeline=%.3f vs_pipeline=%.2fx", c, a / c
    printf "\n" }'
done
