#!/usr/bin/env bash
# test_launcher_signals.sh: a real CPU job through launcher/slidedp-run, stopped by signals sent
# to the launcher (as Slurm, a shell's kill or a terminal's Ctrl-C do): the first SIGTERM must
# make every rank checkpoint at the end of its step and exit 0; a second SIGINT sent to the
# launcher's whole process group (Ctrl-C twice) must stop the job at once. Either way every rank
# is gone promptly and no segment is left in /dev/shm.
#
#   tests/launcher/test_launcher_signals.sh SLIDEDP_WORKER     (CTest: launcher_signals)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export SLIDEDP_WORKER=${1:?usage: $0 path/to/slidedp_worker}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
NAME=slidedp-sigtest-$$
JOB=(--cpu-workers 2 -- --model-config "$ROOT/tools/configs/kjv-tiny-llama.json" --seq-len 256
     --batch-size 4 --steps 1000000 --shm-name "$NAME" --checkpoint-dir "$TMP/ck")
wait_for_step() {  # $1 = log: until the job has run a step (at most 120 s)
  for _ in $(seq 1200); do grep -q "step 2/" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
ranks_gone() {  # within $1 s
  for _ in $(seq $(($1 * 10))); do pgrep -f -- "--shm-name $NAME" >/dev/null || return 0; sleep 0.1; done
  return 1
}

# 1. one SIGTERM to the launcher: checkpoint at the step's end, exit 0
"$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/a.log" 2>&1 &
PID=$!
wait_for_step "$TMP/a.log" || fail "the job never reached step 2: $(tail -5 "$TMP/a.log")"
kill -TERM $PID
wait $PID
RC=$?
[ $RC -eq 0 ] || fail "SIGTERM to the launcher: exit status $RC, expected 0: $(tail -5 "$TMP/a.log")"
grep -q "checkpoint of step [0-9]* written" "$TMP/a.log" || fail "SIGTERM: no checkpoint was written"
[ -f "$TMP/ck/latest" ] || fail "SIGTERM: $TMP/ck/latest is missing"
ranks_gone 10 || fail "SIGTERM: ranks still running 10 s after the launcher exited"
[ -e "/dev/shm/$NAME" ] && fail "SIGTERM: segment /dev/shm/$NAME left behind"

# 2. Ctrl-C twice to the launcher's process group: stop at once
rm -rf "$TMP/ck"
setsid "$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/b.log" 2>&1 &
PID=$!
wait_for_step "$TMP/b.log" || fail "the second job never reached step 2"
kill -INT -- -$PID
sleep 0.3
kill -INT -- -$PID
T0=$(date +%s)
wait $PID
ranks_gone 10 || fail "Ctrl-C twice: ranks still running 10 s later"
echo "Ctrl-C twice: the job was gone $(( $(date +%s) - T0 )) s after the second signal"
[ -e "/dev/shm/$NAME" ] && fail "Ctrl-C twice: segment /dev/shm/$NAME left behind"
rm -f "/dev/shm/$NAME"
if [ $FAILS -eq 0 ]; then echo "launcher signal tests: all passed"; else echo "launcher signal tests: $FAILS FAILED"; exit 1; fi
