#!/usr/bin/env bash
# test_plan_cpu.sh: the step-time model against the real CPU-worker path (the same code as on
# GPUs: delivery, hand-off thread, staging ring, leader's fused AdamW), end to end:
#   1. `launcher/slidedp-run --cpu-workers 1 --plan` calibrates this machine at the run's shape
#      (the worker's layer code on one thread, the leader's AdamW, memcpy) into a fresh cache, with
#      both recompute passes' rates, and prints the ranked policies;
#   2. a run with `--policy auto` picks the best one and logs predicted vs measured each step;
#      the fastest measured step (steps 3..8) must be within a factor 2 of the prediction (a
#      second attempt, recalibrated, when the first is not: see below).
#      Why the fastest and why so coarse: the CI machine has 2 cores shared by other jobs (other
#      builds run beside the tests), so both the calibration and the run can be slowed down, at
#      different moments; a CPU worker also shares cores
#      with the leader and MPI progress, which the model does not price. The model's logic, not
#      the machine's noise, is what this checks (the 10% target is checked on the GPU by
#      tools/gpu-check.sh plan);
#   3. `--policy auto` for a shape without a calibration: the launcher plans (calibrates) first,
#      then runs it; the worker without the launcher fails early with a HINT;
#   4. `--evaluate` of recompute-all predicts a slower step than keep-all on the same machine;
#   5. nonsense values are refused;
#   6. a plan that does not hold is said once: a --policy auto run on a copy of the cache with
#      the compute rates 20x too fast warns (src/apps/prediction_watch.h), naming the workers'
#      compute, with a HINT.
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

# 1 + 2, once more (recalibrated) when the check of 2 fails: a calibration and a run taken at
# different moments of a loaded machine can differ by more than the factor (seen: 0.55 s
# predicted against a fastest step of 2.81 s while the whole machine ran 1.7x slower); both
# attempts are printed, and 1's own checks must hold in each.
attempt() {  # $1: the attempt's number; extra arguments go to --plan (e.g. --recalibrate)
  local n=$1; shift
  # 1. plan (calibrates)
  "$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin --plan -- "${ARGS[@]}" --top 5 "$@" > "$TMP/plan.txt" 2>&1
  rc=$?
  cat "$TMP/plan.txt"
  [ $rc -eq 0 ] || fail "slidedp-run --plan exited $rc (attempt $n)"
  grep -q "calibrated now" "$TMP/plan.txt" || fail "the plan did not calibrate (attempt $n)"
  grep -q "^best: " "$TMP/plan.txt" || fail "no best policy printed (attempt $n)"
  [ -s "$TMP/cal.json" ] || fail "no calibration cache written (attempt $n)"
  # both recompute passes measured (the attention-output one: CPU workers keep the LSE)
  python3 -c 'import json, sys; g = [m["gpu"] for m in json.load(open(sys.argv[1])).values()]
sys.exit(0 if g and all(x["recompute_tflops"] > 0 and x.get("attention_recompute_tflops", 0) > 0 for x in g) else 1)' \
    "$TMP/cal.json" || fail "the calibration lacks a recompute rate (attempt $n)"

  # 2. --policy auto: predicted vs measured
  rm -f "$TMP/m.jsonl"
  "$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin -- "${ARGS[@]}" --steps 8 --policy auto \
      --metrics "$TMP/m.jsonl" > "$TMP/run.txt" 2>&1
  rc=$?
  grep -E "policy auto|step [0-9]+/" "$TMP/run.txt" | cut -c1-260
  [ $rc -eq 0 ] || { tail -20 "$TMP/run.txt"; fail "the --policy auto run exited $rc (attempt $n)"; return 0; }
  python3 - "$TMP/m.jsonl" "$n" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all("predicted_step_s" in r for r in rows), "no predicted_step_s in the metrics"
meas = min(r["step_s"] for r in rows[2:])
med = statistics.median(r["step_s"] for r in rows[2:])
pred = rows[0]["predicted_step_s"]
print(f"attempt {sys.argv[2]}: predicted {pred:.4f} s, measured fastest {meas:.4f} s, median {med:.4f} s "
      f"(steps 3..{len(rows)}), predicted/fastest {pred / meas:.2f}")
sys.exit(0 if 0.5 <= pred / meas <= 2.0 else 3)
PY
}
attempt 1
case $? in
  0) ;;
  3) echo "attempt 1: predicted vs measured outside a factor 2: recalibrating and running once more"
     attempt 2 --recalibrate
     case $? in 0) ;; 3) fail "predicted vs measured outside a factor 2 in both attempts (see above)";;
                *) fail "the metrics check failed (see above)";; esac;;
  *) fail "the metrics check failed (see above)";;
esac

# 3. --policy auto for a shape the cache lacks: through the launcher, the plan calibrates it
#    first and the job runs; the worker started without the launcher refuses it early, with a HINT
"$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin -- "${BASE[@]}" --seq-len 128 --steps 1 \
    --policy auto > "$TMP/firstrun.txt" 2>&1
rc=$?
grep -E "planning first|calibrated now|policy auto:|step 1/" "$TMP/firstrun.txt" | cut -c1-200
[ $rc -eq 0 ] || { tail -20 "$TMP/firstrun.txt"; fail "--policy auto on an uncalibrated shape through the launcher exited $rc"; }
grep -q "planning first" "$TMP/firstrun.txt" || fail "the launcher did not plan before the --policy auto job"
grep -q "calibrated now" "$TMP/firstrun.txt" || fail "the plan before the job did not calibrate the new shape"
grep -q "policy auto: " "$TMP/firstrun.txt" || fail "the job did not report the policy it chose"
mpirun --oversubscribe -np 2 "$SLIDEDP_WORKER" --device cpu "${BASE[@]}" --seq-len 64 --steps 1 \
    --policy auto > "$TMP/nocal.txt" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "--policy auto without a calibration succeeded (worker without the launcher)"
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

# 6. the plan against the run: compute rates 20x too fast in the cache -> one warning
python3 - "$TMP/cal.json" "$TMP/fast.json" <<'PY'
import json, sys
cache = json.load(open(sys.argv[1]))
for m in cache.values():
    for k in ("fwd_tflops", "bwd_tflops", "recompute_tflops", "attention_recompute_tflops", "head_tflops"):
        m["gpu"][k] = m["gpu"].get(k, 0) * 20
json.dump(cache, open(sys.argv[2], "w"))
PY
"$ROOT/launcher/slidedp-run" --cpu-workers 1 --no-pin -- --model-config "$CFG" --batch-size 4 \
    --calibration "$TMP/fast.json" --seq-len 256 --steps 8 --policy auto > "$TMP/fast.txt" 2>&1
rc=$?
grep -E "policy auto|warn" "$TMP/fast.txt" | cut -c1-400
[ $rc -eq 0 ] || { tail -20 "$TMP/fast.txt"; fail "the --policy auto run on the too-fast calibration exited $rc"; }
n=$(grep -c "the plan's .* s (+" "$TMP/fast.txt")
[ "$n" -eq 1 ] || fail "a plan 20x too fast: $n warnings (want exactly 1)"
grep -q "the workers compute slower than calibrated" "$TMP/fast.txt" || fail "the warning does not name the workers' compute"
grep -q "HINT: .*--recalibrate" "$TMP/fast.txt" || fail "the warning has no HINT to recalibrate"

[ $FAILS -eq 0 ] && echo "planner_cpu_check: all checks passed" || echo "FAIL: $FAILS check(s) failed"
exit $FAILS
