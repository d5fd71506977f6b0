#!/usr/bin/env bash
# test_launcher_errors.sh: real CPU jobs through launcher/slidedp-run that end on a configuration
# error every rank agrees on, before MPI_Init (a misspelt flag, a launcher flag after --) and after
# it (--eval-every without --eval-data): the launcher exits 2 with the error once, and mpirun's
# banners ("Primary job terminated normally, but 1 process returned a non-zero exit code", "mpirun
# detected that one or more processes exited with non-zero status") do not bury it
# (runtime/job_guard.h, agreedExitStatus). A failure that is not a configuration error (a rank
# killed mid-step) still ends non-zero. Without the launcher the status stays 2, and an error of
# one rank only is printed by it. No segment and no control directory are left.
#
#   tests/launcher/test_launcher_errors.sh SLIDEDP_WORKER     (CTest: launcher_errors)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export SLIDEDP_WORKER=${1:?usage: $0 path/to/slidedp_worker}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
mkdir -p "$TMP/tmpdir"
export TMPDIR=$TMP/tmpdir  # the launcher's control directories, counted below
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { CHECKS=$((CHECKS + 1)); }
NAME=slidedp-errtest-$$
MODEL=(--model-config "$ROOT/tools/configs/kjv-tiny-llama.json" --seq-len 64 --batch-size 2
       --shm-name "$NAME")

# $1 = case, $2 = expected exit status, $3 = the error's text; the rest: launcher arguments
case_() {
  local what=$1 want=$2 text=$3
  shift 3
  timeout 240 "$ROOT/launcher/slidedp-run" "$@" > "$TMP/$what.log" 2>&1
  local rc=$?
  echo "--- $what: exit $rc"
  [ "$rc" -eq "$want" ] && ok || fail "$what: exit status $rc, expected $want: $(tail -5 "$TMP/$what.log")"
  local n
  n=$(grep -cF -- "$text" "$TMP/$what.log")
  [ "$n" -eq 1 ] && ok || fail "$what: '$text' printed $n times, expected once: $(tail -8 "$TMP/$what.log")"
  if [ "$want" -eq 2 ]; then
    for banner in "Primary job" "mpirun detected" "returned a non-zero exit code"; do
      grep -qF "$banner" "$TMP/$what.log" && fail "$what: mpirun's banner ('$banner') below the error: $(tail -12 "$TMP/$what.log")" || ok
    done
    tail -6 "$TMP/$what.log" | grep -qE "error|HINT" && ok || fail "$what: the error is not at the end: $(tail -6 "$TMP/$what.log")"
  fi
  [ -e "/dev/shm/$NAME" ] && fail "$what: segment /dev/shm/$NAME left behind" || ok
  rm -f "/dev/shm/$NAME"
}

# before MPI_Init: the command line, refused by every rank, said by rank 0
case_ misspelt 2 "unknown option --stpes" --cpu-workers 2 -- "${MODEL[@]}" --stpes 3
case_ launcher-flag-after-dashdash 2 "--gpus is an option of launcher/slidedp-run" \
  --cpu-workers 2 -- "${MODEL[@]}" --gpus 0 --steps 3
# after MPI_Init: a check of the training job (AgreedError)
case_ eval-every-without-eval-data 2 "--eval-every 2 without --eval-data" --cpu-workers 2 -- "${MODEL[@]}" --steps 3 --eval-every 2
# not a configuration error: a worker killed in step 4 ends the job non-zero (mpirun's status),
# and the launcher names the last checkpoint (step 2) and how to continue from it
timeout 240 "$ROOT/launcher/slidedp-run" --cpu-workers 2 -- "${MODEL[@]}" --steps 5 --kill-at backward@4:1 \
  --checkpoint-dir "$TMP/killed-ck" --checkpoint-every 2 --checkpoint-mode blocking > "$TMP/killed.log" 2>&1
RC=$?
echo "--- killed worker: exit $RC"
[ "$RC" -ne 0 ] && ok || fail "a worker killed mid-step: the launcher exited 0: $(tail -5 "$TMP/killed.log")"
grep -q "the job failed (exit $RC; the first error above says why); its last checkpoint is step 2 in $TMP/killed-ck/step-00000002" \
  "$TMP/killed.log" && grep -q -- "^  $ROOT/launcher/slidedp-run --cpu-workers 2 -- .* --steps 5 --kill-at backward@4:1 --checkpoint-dir $TMP/killed-ck --checkpoint-every 2 --checkpoint-mode blocking --resume $TMP/killed-ck\$" \
  "$TMP/killed.log" && ok || fail "a worker killed mid-step: no resume hint: $(tail -5 "$TMP/killed.log")"
[ -e "/dev/shm/$NAME" ] && fail "killed worker: segment /dev/shm/$NAME left behind" || ok
rm -f "/dev/shm/$NAME"
# without the launcher (plain mpirun): a $SLIDEDP_STATUS_FILE inherited from elsewhere (not a
# running launcher's control directory) does not turn the status into 0 ...
mkdir -p "$TMP/elsewhere"
SLIDEDP_STATUS_FILE=$TMP/elsewhere/status timeout 120 mpirun --oversubscribe --bind-to none -np 3 \
  "$SLIDEDP_WORKER" --device cpu "${MODEL[@]}" --stpes 3 > "$TMP/plain.log" 2>&1
RC=$?
echo "--- plain mpirun with an inherited SLIDEDP_STATUS_FILE: exit $RC"
[ "$RC" -eq 2 ] && ok || fail "plain mpirun, inherited SLIDEDP_STATUS_FILE: exit status $RC, expected 2: $(tail -5 "$TMP/plain.log")"
[ -e "$TMP/elsewhere/status" ] && fail "plain mpirun: the status was written to an inherited SLIDEDP_STATUS_FILE" || ok
# ... and a flag error on one rank only (a hand-written mpirun line that gives it other flags) is
# printed by that rank, named
timeout 120 mpirun --oversubscribe --bind-to none -np 2 "$SLIDEDP_WORKER" --device cpu "${MODEL[@]}" --steps 3 : \
  -np 1 "$SLIDEDP_WORKER" --device cpu "${MODEL[@]}" --stpes 3 > "$TMP/mpmd.log" 2>&1
RC=$?
echo "--- a flag error on rank 2 only: exit $RC"
[ "$RC" -eq 2 ] && ok || fail "a flag error on rank 2 only: exit status $RC, expected 2: $(tail -5 "$TMP/mpmd.log")"
grep -q "slidedp: error: rank 2: unknown option --stpes" "$TMP/mpmd.log" && ok || fail "a flag error on rank 2 only: not printed by rank 2: $(tail -12 "$TMP/mpmd.log")"
rm -f "/dev/shm/$NAME"
# the job that succeeds still exits 0
case_ succeeds 0 "step 2/2" --cpu-workers 2 -- "${MODEL[@]}" --steps 2
[ "$(ls "$TMP/tmpdir" | grep -c slidedp-run-)" -eq 0 ] && ok || fail "control directories left: $(ls "$TMP/tmpdir")"

echo
if [ "$FAILS" -eq 0 ]; then
  echo "launcher error tests: all $CHECKS checks passed"
else
  echo "launcher error tests: $FAILS of $((CHECKS + FAILS)) checks FAILED"
  exit 1
fi
