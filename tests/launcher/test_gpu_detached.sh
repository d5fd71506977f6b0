#!/usr/bin/env bash
# tools/gpu-detached.sh (a job across chained calls of the GPU machine), on this machine: a job
# started in its own session outlives the call that started it (the caller's process group is
# killed, as the device tool kills a returning call's processes), `wait` reports it running
# (exit 3) then ended (exit 0, its status), brings its files to $OUT; a second start of a
# running job, an unknown job and a bad name are refused (exit 2).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$ROOT/tools/gpu-detached.sh
NAME=test-detached-$$
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" /tmp/slidedp-detached/$NAME' EXIT
export OUT=$TMP/out
mkdir -p "$OUT"
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# The "call": its own process group, killed whole after start returns.
setsid bash -c "bash '$D' start $NAME -- bash -c 'echo started; echo data > \$OUT/result.txt; sleep 6; echo finished; exit 4' > '$TMP/start.txt' 2>&1; sleep 30" &
caller=$!
for _ in $(seq 50); do grep -q "started $NAME" "$TMP/start.txt" 2>/dev/null && break; sleep 0.1; done
grep -q "started $NAME" "$TMP/start.txt" || fail "start did not report the job: $(cat "$TMP/start.txt")"
kill -9 -- -"$caller" 2>/dev/null
bash "$D" wait $NAME 1 > "$TMP/w1.txt" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "wait while running exited $rc (want 3): $(cat "$TMP/w1.txt")"
bash "$D" start $NAME -- true > "$TMP/again.txt" 2>&1
[ $? -eq 2 ] && grep -q "already running" "$TMP/again.txt" || fail "a second start was not refused: $(cat "$TMP/again.txt")"
bash "$D" wait $NAME 30 > "$TMP/w2.txt" 2>&1
rc=$?
cat "$TMP/w2.txt"
[ $rc -eq 0 ] || fail "wait after the end exited $rc (want 0)"
grep -q "finished" "$TMP/w2.txt" || fail "the job was killed with its caller (no 'finished' in its log)"
grep -q "ended with exit status 4" "$TMP/w2.txt" || fail "the job's exit status was not reported"
[ "$(tar xzf "$OUT/$NAME/out.tgz" -O out/result.txt 2>/dev/null)" = data ] || fail "the job's file was not brought to \$OUT (out.tgz)"
[ "$(find "$OUT/$NAME" -type f | wc -l)" -le 8 ] || fail "more files in \$OUT than the device returns (8)"
[ "$(cat "$OUT/$NAME/rc" 2>/dev/null)" = 4 ] || fail "no rc file in \$OUT"
bash "$D" wait no-such-job-$$ 1 > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown job was not refused with exit 2"
bash "$D" start 'bad name' -- true > /dev/null 2>&1
[ $? -eq 2 ] || fail "a bad name was not refused with exit 2"
[ $FAILS -eq 0 ] && echo "gpu-detached: all checks passed"
exit $FAILS
