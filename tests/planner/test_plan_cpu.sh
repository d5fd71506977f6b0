#!/usr/bin/env bash
# test_plan_cpu.sh: the step-time model against the real CPU-worker path (the same code as on
# GPUs: delivery, hand-off thread, staging ring, leader's fused AdamW), end to end:
#   1. `launcher/slidedp-run --cpu-workers 1 --plan` calibrates this machine at the run's shape
#      (the worker's layer code on one thread, the leader's AdamW, memcpy) into a fresh cache and
#      prints the ranked policies;
#   2. a run with `--policy auto` picks the best one and logs predicted vs measured each step;
#      the fastest measured step (steps 3..8) must be within a factor 2 of the prediction.
#      Why the fastest and why so coarse: the CI machine has 2 cores shared by other jobs (other
#      builds run beside the tests), so both the calibration (which keeps its fastest repetition)
#      and the run can only be slowed down, at different moments; a CPU worker also shares cores
#      with the leader and MPI progress, which the model does not price. The model's logic, not
#      the machine's noise, is what this checks (the 10% target is checked on the GPU by
#      tools/gpu-check.sh plan);
#   3. `--policy auto` without a calibration for the shape fails early with a HINT;
#   4. `--evaluate` of recompute-all predicts a slower step than keep-all on the same machine.
#
#   tests/planner/test_plan_cpu.sh BUILD_DIR        (CTest: planner_cpu_check)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/build}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export SLIDEDP_WORKER=$BUILD/bin/slidedp_worker SLIDEDP_PLAN=$BUILD/bin/slidedp_plan
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
CFG=$HERE/qwen3-cpu-check.json
BASE=(--model-config "$CFG" --batch-size 4 --calibration "$TMP/cal.json")
ARGS=("${BASE[@]}" --seq-len 256)
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# 1. plan (calibrates)
"$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin --plan -- "${ARGS[@]}" --top 5 > "$TMP/plan.txt" 2>&1
rc=$?
cat "$TMP/plan.txt"
[ $rc -eq 0 ] || fail "slidedp-run --plan exited $rc"
grep -q "calibrated now" "$TMP/plan.txt" || fail "the first plan did not calibrate"
grep -q "^best: " "$TMP/plan.txt" || fail "no best policy printed"
[ -s "$TMP/cal.json" ] || fail "no calibration cache written"

# 2. --policy auto: predicted vs measured
"$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin -- "${ARGS[@]}" --steps 8 --policy auto \
    --metrics "$TMP/m.jsonl" > "$TMP/run.txt" 2>&1
rc=$?
grep -E "policy auto|step [0-9]+/" "$TMP/run.txt" | cut -c1-260
[ $rc -eq 0 ] || { tail -20 "$TMP/run.txt"; fail "the --policy auto run exited $rc"; }
python3 - "$TMP/m.jsonl" <<'PY' || fail "predicted vs measured outside a factor 2 (see above)"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all("predicted_step_s" in r for r in rows), "no predicted_step_s in the metrics"
meas = min(r["step_s"] for r in rows[2:])
med = statistics.median(r["step_s"] for r in rows[2:])
pred = rows[0]["predicted_step_s"]
print(f"predicted {pred:.4f} s, measured fastest {meas:.4f} s, median {med:.4f} s (steps 3..{len(rows)}), "
      f"predicted/fastest {pred / meas:.2f}")
sys.exit(0 if 0.5 <= pred / meas <= 2.0 else 1)
PY

# 3. no calibration for another shape: a clear error before start-up
"$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin -- "${BASE[@]}" --seq-len 128 --steps 1 \
    --policy auto > "$TMP/nocal.txt" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "--policy auto without a calibration succeeded"
grep -q "no calibration of this machine" "$TMP/nocal.txt" || { cat "$TMP/nocal.txt"; fail "no clear message"; }
grep -q "HINT" "$TMP/nocal.txt" || fail "no HINT"

# 4. the extremes priced on the cached machine
keep=$("$BUILD/bin/slidedp_plan" "${ARGS[@]}" --gpus 1 --device cpu --evaluate --activations keep | sed -n 's/^PREDICTION step_s=\([0-9.]*\).*/\1/p')
reco=$("$BUILD/bin/slidedp_plan" "${ARGS[@]}" --gpus 1 --device cpu --evaluate --activations recompute | sed -n 's/^PREDICTION step_s=\([0-9.]*\).*/\1/p')
echo "evaluate: keep-all $keep s, recompute-all $reco s"
python3 -c "import sys; sys.exit(0 if 0 < float('$keep') < float('$reco') else 1)" || fail "recompute-all is not slower than keep-all ($reco vs $keep)"

# 5. nonsense values refused (exit 2, naming the flag), and a shape too large to measure here
# is a clear error, not LibTorch's terminate and backtrace
for bad in "--gpu-memory-budget -4" "--gpu-memory-budget nan" "--gpus -1" "--top 0"; do
  out=$("$BUILD/bin/slidedp_plan" "${ARGS[@]}" --device cpu $bad 2>&1); rc=$?
  [ $rc -ne 0 ] && [[ "$out" == *"${bad%% *}"* ]] || fail "slidedp_plan $bad: exit $rc: $out"
done
out=$(SLIDEDP_CALIBRATION="$TMP/huge-cal.json" "$BUILD/bin/slidedp_plan" --model-config \
      "$ROOT/tests/planner/qwen3-cpu-check.json" --device cpu --batch-size 100000000000 2>&1); rc=$?
echo "huge batch (exit $rc): $(echo "$out" | grep -m1 error)"
[ $rc -eq 2 ] || fail "slidedp_plan --batch-size 1e11: exit $rc (want 2)"
[[ "$out" == *"terminate called"* || "$out" == *"frame #"* ]] && fail "slidedp_plan --batch-size 1e11: a crash: $out"
[[ "$out" == *"HINT"* ]] || fail "slidedp_plan --batch-size 1e11: no HINT: $out"

[ $FAILS -eq 0 ] && echo "planner_cpu_check: all checks passed" || echo "FAIL: $FAILS check(s) failed"
exit $FAILS
