#!/usr/bin/env bash
# test_launcher_signals.sh: a real CPU job through launcher/slidedp-run, stopped by signals sent
# to the launcher (as Slurm, a shell's kill or a terminal's Ctrl-C do): the first SIGTERM must
# make every rank checkpoint at the end of its step and exit 0; a second SIGINT sent to the
# launcher's whole process group (Ctrl-C twice) must stop the job at once. A SIGTERM that comes
# early (right after the launcher prints `running:`, before the ranks have their handlers, or
# during start-up) must end the job cleanly before step 1: exit 0, rank 0's "stopped on request
# before step 1" line once, no checkpoint. Every time every rank is gone promptly and no segment
# is left in /dev/shm. A launcher killed by SIGKILL takes its ranks with it, and the control
# directory it could not remove is removed by the next launcher. An mpirun killed by SIGKILL is
# reported by the launcher (exit 137); a SIGTERM while --policy auto plans ends it before step 1.
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
# the launcher says what the stop does, once; the ranks it relayed the stop to say nothing more
[ "$(grep -c "SIGTERM: asking every rank to checkpoint" "$TMP/a.log")" -eq 1 ] || fail "SIGTERM: the launcher's line is not there once: $(grep -i stop "$TMP/a.log")"
grep -q "slidedp: stop requested" "$TMP/a.log" && fail "SIGTERM: a rank repeated the launcher's stop line: $(grep -c "slidedp: stop requested" "$TMP/a.log") times"
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

# 3. SIGTERM to the launcher as soon as it prints `running:` (mpirun has not started the ranks),
#    and 0.7 s later (ranks starting, before their handlers are installed): a clean stop before
#    step 1, not lost (the job would train on) and not a crash (status 138, SIGUSR1's default).
early_stop_ok() {  # $1 = case, $2 = log, $3 = exit status, $4 = seconds it took
  [ "$3" -eq 0 ] || fail "$1: exit status $3, expected 0: $(tail -5 "$2")"
  [ "$4" -le 30 ] || fail "$1: the job took $4 s to end, expected under 30 s"
  N=$(grep -c "stopped on request before step 1: nothing trained, nothing saved" "$2")
  [ "$N" -eq 1 ] || fail "$1: the 'stopped on request before step 1' line printed $N times: $(tail -8 "$2")"
  grep -q "step 1/" "$2" && fail "$1: a step ran after the stop"
  grep -q "caught SIGUSR1" "$2" && fail "$1: a rank was killed by SIGUSR1"
  [ -e "$TMP/ck/latest" ] && fail "$1: a checkpoint was written"
  ranks_gone 10 || fail "$1: ranks still running 10 s after the launcher exited"
  [ -e "/dev/shm/$NAME" ] && fail "$1: segment /dev/shm/$NAME left behind"
  rm -f "/dev/shm/$NAME"
}
for DELAY in 0 0.7; do
  rm -rf "$TMP/ck"
  "$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/c.log" 2>&1 &
  PID=$!
  for _ in $(seq 3000); do grep -q "running:" "$TMP/c.log" 2>/dev/null && break; sleep 0.01; done
  sleep $DELAY
  T0=$(date +%s)
  kill -TERM $PID
  wait $PID
  RC=$?
  early_stop_ok "SIGTERM ${DELAY} s after running:" "$TMP/c.log" $RC $(( $(date +%s) - T0 ))
done

# 4. SIGTERM during start-up (the ranks have printed the topology and read the data, which a
#    test hook makes last 4 s): the stop is agreed before step 1.
rm -rf "$TMP/ck"
SLIDEDP_TEST_SLOW_STARTUP=4 "$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/d.log" 2>&1 &
PID=$!
for _ in $(seq 1200); do grep -q "sleeps .* in start-up" "$TMP/d.log" 2>/dev/null && break; sleep 0.1; done
grep -q "worker(s) on" "$TMP/d.log" || fail "start-up: the job never reached start-up: $(tail -5 "$TMP/d.log")"
T0=$(date +%s)
kill -TERM $PID
wait $PID
RC=$?
early_stop_ok "SIGTERM during start-up" "$TMP/d.log" $RC $(( $(date +%s) - T0 ))

# 4b. SIGUSR1 to every rank during start-up (as mpirun forwards it; not through the launcher):
#     the stop is agreed before step 1 and announced once, by the node's leader (there is no
#     segment yet to agree on who).
rm -rf "$TMP/ck" "$TMP/pids"
SLIDEDP_TEST_SLOW_STARTUP=4 "$ROOT/launcher/slidedp-run" "${JOB[@]}" --pid-file "$TMP/pids" > "$TMP/g.log" 2>&1 &
PID=$!
for _ in $(seq 1200); do grep -q "sleeps .* in start-up" "$TMP/g.log" 2>/dev/null && break; sleep 0.1; done
T0=$(date +%s)
kill -USR1 $(awk '{print $2}' "$TMP/pids")
wait $PID
RC=$?
early_stop_ok "SIGUSR1 to every rank during start-up" "$TMP/g.log" $RC $(( $(date +%s) - T0 ))
N=$(grep -c "slidedp: stop requested (signal) during start-up" "$TMP/g.log")
[ "$N" -eq 1 ] || fail "SIGUSR1 to every rank during start-up: the stop announced $N times, expected once"

# 4c. One SIGTERM to the launcher and every rank together (a batch system's scancel or
#     preemption), in both orders of arrival: the ranks take the launcher's relayed SIGUSR1 after
#     their SIGTERM as the same stop, and a SIGTERM after the relayed SIGUSR1 too (only the
#     launcher's own second signal, its stop-now file, means at once), so the step's checkpoint
#     is written and the job exits 0.
for ORDER in ranks-first launcher-first; do
  rm -rf "$TMP/ck" "$TMP/pids"
  "$ROOT/launcher/slidedp-run" "${JOB[@]}" --pid-file "$TMP/pids" > "$TMP/h.log" 2>&1 &
  PID=$!
  wait_for_step "$TMP/h.log" || fail "$ORDER: the job never reached step 2: $(tail -5 "$TMP/h.log")"
  RANKS=$(awk '{print $2}' "$TMP/pids")
  if [ $ORDER = ranks-first ]; then
    kill -TERM $RANKS; sleep 0.5; kill -TERM $PID
  else
    kill -TERM $PID; sleep 0.5; kill -TERM $RANKS
  fi
  wait $PID
  RC=$?
  [ $RC -eq 0 ] || fail "SIGTERM to the launcher and the ranks ($ORDER): exit status $RC, expected 0: $(tail -5 "$TMP/h.log")"
  grep -q "caught SIG" "$TMP/h.log" && fail "SIGTERM to the launcher and the ranks ($ORDER): a rank stopped at once: $(grep "caught SIG" "$TMP/h.log" | head -2)"
  [ -f "$TMP/ck/latest" ] || fail "SIGTERM to the launcher and the ranks ($ORDER): no checkpoint"
  ranks_gone 10 || fail "SIGTERM to the launcher and the ranks ($ORDER): ranks still running 10 s later"
  rm -f "/dev/shm/$NAME"
done

# 5. SIGKILL to the launcher (no handler runs): the ranks go (their parent's death signal), and
#    its control directory, left behind, is removed by the next launcher; a live launcher's stays.
rm -rf "$TMP/ck"
mkdir -p "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/e.log" 2>&1 &
PID=$!
wait_for_step "$TMP/e.log" || fail "SIGKILL: the job never reached step 2: $(tail -5 "$TMP/e.log")"
kill -KILL $PID
wait $PID 2>/dev/null
ranks_gone 20 || fail "SIGKILL to the launcher: ranks still running 20 s later"
rm -f "/dev/shm/$NAME"
LEFT=$(ls -d "$TMP"/tmpdir/slidedp-run-* 2>/dev/null)
[ -n "$LEFT" ] || fail "SIGKILL: no control directory was left behind to clean (the test needs one)"
sleep 1000 & LIVE=$!  # a live launcher's directory (its pid alive) must stay
mkdir "$TMP/tmpdir/slidedp-run-live" && echo "$LIVE $(stat -L -c %i /proc/self/ns/pid)" > "$TMP/tmpdir/slidedp-run-live/owner"
rm -rf "$TMP/ck"
TMPDIR="$TMP/tmpdir" "$ROOT/launcher/slidedp-run" --cpu-workers 2 -- --model-config "$ROOT/tools/configs/kjv-tiny-llama.json" \
  --seq-len 64 --batch-size 4 --steps 1 --shm-name "$NAME" > "$TMP/f.log" 2>&1
RC=$?
[ $RC -eq 0 ] || fail "the run after a SIGKILL: exit status $RC: $(tail -5 "$TMP/f.log")"
for d in $LEFT; do [ -e "$d" ] && fail "SIGKILL: $d was not removed by the next launcher"; done
[ -d "$TMP/tmpdir/slidedp-run-live" ] || fail "a live launcher's control directory was removed"
kill $LIVE 2>/dev/null; wait $LIVE 2>/dev/null
[ "$(ls "$TMP/tmpdir" | grep -c slidedp-run-)" -eq 1 ] || fail "control directories left: $(ls "$TMP/tmpdir")"

# 6. SIGKILL to mpirun (the OOM killer's choice): the ranks go with it, and the launcher says what
#    happened and what to do (exit 137), instead of ending without a word.
rm -rf "$TMP/ck"
"$ROOT/launcher/slidedp-run" "${JOB[@]}" > "$TMP/g.log" 2>&1 &
PID=$!
wait_for_step "$TMP/g.log" || fail "mpirun SIGKILL: the job never reached step 2: $(tail -5 "$TMP/g.log")"
MPIRUN=$(pgrep -P $PID | head -1)
[ -n "$MPIRUN" ] && kill -KILL "$MPIRUN"
wait $PID
RC=$?
[ $RC -eq 137 ] || fail "mpirun SIGKILL: launcher exit status $RC, want 137"
grep -q "mpirun was ended by SIGKILL (not by this launcher; exit 137)" "$TMP/g.log" \
  || fail "mpirun SIGKILL: no word of it: $(tail -3 "$TMP/g.log")"
ranks_gone 20 || fail "mpirun SIGKILL: ranks still running 20 s later"
rm -f "/dev/shm/$NAME"

# 7. SIGTERM while --policy auto plans (calibrating a new shape): the plan ends, nothing starts,
#    exit 0 with the launcher's note (it was killed at once, with exit 143 and no word).
"$ROOT/launcher/slidedp-run" --cpu-workers 2 -- --model-config "$ROOT/tools/configs/qwen3-tiny.json" --seq-len 64 \
  --batch-size 4 --steps 2 --policy auto --calibration "$TMP/cal.json" --shm-name "$NAME" > "$TMP/p.log" 2>&1 &
PID=$!
for _ in $(seq 300); do grep -q "calibrating" "$TMP/p.log" && break; sleep 0.1; done
grep -q "calibrating" "$TMP/p.log" || fail "planning: never calibrated: $(tail -3 "$TMP/p.log")"
kill -TERM $PID
wait $PID
RC=$?
[ $RC -eq 0 ] || fail "SIGTERM while planning: exit status $RC, want 0: $(tail -3 "$TMP/p.log")"
grep -q "stopped on request (SIGTERM) while planning, before step 1" "$TMP/p.log" \
  || fail "SIGTERM while planning: no note: $(tail -3 "$TMP/p.log")"
grep -q "step 1/" "$TMP/p.log" && fail "SIGTERM while planning: the job started anyway"
sleep 0.5
pgrep -f -- "--calibration $TMP/cal.json" >/dev/null && fail "SIGTERM while planning: the plan still runs"

if [ $FAILS -eq 0 ]; then echo "launcher signal tests: all passed"; else echo "launcher signal tests: $FAILS FAILED"; exit 1; fi
