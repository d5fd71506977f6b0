#!/usr/bin/env bash
# A job longer than one call of the GPU machine (10 minutes: a 512K-token step of the 4B shape,
# a long-sequence search), run across chained calls. The device tool kills what a call leaves
# running except a new process session, which lives until the machine is given back (30 s
# after a call ends, unless another call comes): `start` launches the command in its own
# session and returns; `wait` (the next calls, back to back) waits for it, up to a bound, and
# brings its files to $OUT each time as $OUT/NAME/out.tgz (the job's folder, one file: the
# device returns at most 8), with its log (detached.log) and, once it ended, its rc ($OUT is
# emptied before every call, so the job writes to its own folder on the machine).
#
#   bash tools/gpu-detached.sh start NAME -- COMMAND [ARGS...]   # e.g. in the first call, after a build
#   bash tools/gpu-detached.sh wait NAME [SECONDS]               # default 560: returns when the job
#                                                                # ends or SECONDS pass
#   bash tools/gpu-detached.sh status NAME
#
# The job runs in the checkout with $OUT set to its folder, /tmp/slidedp-detached/NAME/out (so
# tools/gpu-check.sh steps can be the COMMAND); its output goes to .../log, its exit status to
# .../rc once it ends. `wait` exits 0 when the job has ended (its status in the last line),
# 3 while it still runs (call `wait` again), 2 when there is no such job.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
verb=$1 name=$2
shift 2
[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "gpu-detached: NAME must be letters, digits, . _ -: '$name'"; exit 2; }
dir=/tmp/slidedp-detached/$name
collect() {
  [ -n "${OUT:-}" ] || return 0
  # One archive of the job's folder: the device tool brings back at most 8 files from $OUT, and
  # none more than 2 folders down (a plan sweep's 17 files came back as 8, its logs left out).
  mkdir -p "$OUT/$name" && tar czf "$OUT/$name/out.tgz" -C "$dir" out 2>/dev/null
  cp "$dir/log" "$OUT/$name/detached.log" 2>/dev/null
  [ -f "$dir/rc" ] && cp "$dir/rc" "$OUT/$name/rc"
  return 0
}
case "$verb" in
  start)
    [ "${1:-}" = "--" ] && shift
    [ $# -ge 1 ] || usage
    if [ -f "$dir/pid" ] && [ ! -f "$dir/rc" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "gpu-detached: job $name is already running (pid $(cat "$dir/pid")); wait for it or pick another NAME"
      exit 2
    fi
    rm -rf "$dir" && mkdir -p "$dir/out"
    printf '%q ' "$@" > "$dir/command"
    # setsid: a new session, which the device tool leaves running when this call returns.
    OUT=$dir/out setsid bash -c '"$@" > "$0/log" 2>&1; echo $? > "$0/rc.tmp" && mv "$0/rc.tmp" "$0/rc"' \
      "$dir" "$@" < /dev/null > /dev/null 2>&1 &
    echo $! > "$dir/pid"
    echo "gpu-detached: started $name (pid $(cat "$dir/pid")): $(cat "$dir/command")"
    echo "gpu-detached: next call, back to back: bash tools/gpu-detached.sh wait $name"
    ;;
  wait | status)
    [ -d "$dir" ] || { echo "gpu-detached: no job $name on this machine (a fresh machine has none)"; exit 2; }
    limit=${1:-560}
    [ "$verb" = status ] && limit=0
    t0=$(date +%s)
    while [ ! -f "$dir/rc" ] && [ $(( $(date +%s) - t0 )) -lt "$limit" ]; do sleep 1; done
    collect
    tail -n 30 "$dir/log" 2>/dev/null
    if [ -f "$dir/rc" ]; then
      echo "gpu-detached: $name ended with exit status $(cat "$dir/rc") after its command: $(cat "$dir/command")"
      exit 0
    fi
    echo "gpu-detached: $name still running after $(( $(date +%s) - t0 )) s of waiting; call 'wait $name' again (back to back: the machine goes back 30 s after a call)"
    exit 3
    ;;
  *) usage ;;
esac
