#!/usr/bin/env bash
# tools/gpu-check.sh ckpt with SLIDEDP_CKPT_REPEATS=2 on this machine (CPU workers: the step's
# dry run with the stories260K shape, checkpoints every 5 steps): two interleaved pairs, each
# costed by tools/bench/ckpt_cost.py, then the summary (ckpt-cost.txt: each pair, the medians,
# a RESULT line name=ckpt_cost_repeats with pairs=2) and the pairs' files packed into
# ckpt-repeats.tgz, none left beside it. ckpt_cost.py --summary fails (exit 1, names the file)
# when a pair has no RESULT line, and its pass decision is the medians' against the target.
# Usage: test_ckpt_bench.sh BUILD_DIR SHARED_DIR
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1 SHARED=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
cd "$ROOT"

mkdir -p "$TMP/out"
OUT=$TMP/out SLIDEDP_BUILD_DIR=$BUILD SLIDEDP_CKPT_CONFIG=$SHARED/models/stories260K/config.json \
  SLIDEDP_CKPT_EVERY=5 SLIDEDP_CKPT_REPEATS=2 SLIDEDP_CKPT_BATCH=2 SLIDEDP_CKPT_SEQ=64 \
  SLIDEDP_CKPT_DIR=$TMP/disk bash tools/gpu-check.sh ckpt > "$TMP/log" 2>&1 || fail "gpu-check.sh ckpt exit $?"
grep -q "RESULT name=ckpt_cost_repeats pairs=2 median_pct_of_100_steps=" "$TMP/out/ckpt-cost.txt" \
  || { fail "no summary RESULT line"; tail -30 "$TMP/log"; }
[ "$(grep -c '^ *[12]  ' "$TMP/out/ckpt-cost.txt")" = 2 ] || fail "the summary does not list 2 pairs"
packed=$(tar tzf "$TMP/out/ckpt-repeats.tgz" 2>/dev/null | sort | tr '\n' ' ')
for f in ckpt-base-r1.jsonl ckpt-run-r1.log ckpt-cost-r1.txt ckpt-base-r2.jsonl ckpt-run-r2.log ckpt-cost-r2.txt; do
  [[ " $packed" == *" $f "* ]] || fail "$f not in ckpt-repeats.tgz ($packed)"
done
ls "$TMP/out" | grep -q -- "-r[0-9]" && fail "per-pair files left beside the archive: $(ls "$TMP/out")"
[ -e "$TMP/disk/slidedp-ckpt-bench" ] && fail "the checkpoint directory was left behind"

# --summary on its own: medians against the target, and a pair without a RESULT line.
row() { echo "RESULT name=ckpt_cost mode=stream step_s=1.8 own_step_s=1.8 write_s=80 pct_of_100_steps=$1 pct_of_100_own_steps=$2 target_pct=3 pass=x" > "$TMP/$3"; }
row 1.0 1.0 a; row 5.0 1.0 b; row 2.0 4.0 c
python3 tools/bench/ckpt_cost.py --summary "$TMP/a" "$TMP/b" "$TMP/c" > "$TMP/s1" \
  && grep -q "median_pct_of_100_steps=2.00 .*median_pct_of_100_own_steps=1.00 .*pass=yes" "$TMP/s1" \
  || fail "medians 2.00 / 1.00 should pass: $(cat "$TMP/s1")"
row 4.0 1.0 d
python3 tools/bench/ckpt_cost.py --summary "$TMP/b" "$TMP/d" "$TMP/a" > "$TMP/s2" \
  && grep -q "median_pct_of_100_steps=4.00 .*pass=no" "$TMP/s2" || fail "a median of 4.00 should fail: $(cat "$TMP/s2")"
echo "no result here" > "$TMP/e"
python3 tools/bench/ckpt_cost.py --summary "$TMP/a" "$TMP/e" > /dev/null 2> "$TMP/err"
[ $? = 1 ] && grep -q "$TMP/e has no RESULT line" "$TMP/err" || fail "a pair without RESULT: $(cat "$TMP/err")"

# The drift-bracketed figure: steps 1-10 at 1.0 s, the checkpoint at step 10, its write over steps
# 11-20 at 1.5 s (written to at the log time of step 20's end), then 21-40 at 2.0 s (the machine
# slowed). Against the steps before (1.0) the run costs 25 s (the slower steps after the write
# included); against the mean of before and after (1.5), 0.5 s: step 21, the first logged after
# "written to", counts as during the write.
: > "$TMP/b.jsonl"; : > "$TMP/r.jsonl"; : > "$TMP/r.log"
for s in $(seq 1 40); do
  t=1.0; [ "$s" -gt 10 ] && t=1.5; [ "$s" -gt 20 ] && t=2.0
  echo "{\"step\": $s, \"step_s\": 1.0}" >> "$TMP/b.jsonl"
  echo "{\"step\": $s, \"step_s\": $t, \"checkpoint_wait_s\": 0.0}" >> "$TMP/r.jsonl"
  printf '[23:59:%02d.500] [leader 0/2] [info] step %d/40 | x\n' $(( s % 60 )) "$s" >> "$TMP/r.log"
  [ "$s" = 10 ] && echo "[23:59:10.600] [leader 0/2] [info] checkpoint of step 10: streaming to d while training continues (0.000 s to start)" >> "$TMP/r.log"
  [ "$s" = 20 ] && echo "[23:59:20.700] [leader 0/2] [info] checkpoint of step 10 written to d (1.00 GiB in 10.00 s to the fsync, 0.11 GB/s)" >> "$TMP/r.log"
done
python3 tools/bench/ckpt_cost.py --base "$TMP/b.jsonl" --run "$TMP/r.jsonl" --log "$TMP/r.log" > "$TMP/br" 2>&1
grep -q "drift bracketed: steps 11-21 (during the write) against the mean of the medians .*before (1.000 s) and 26-40 after (2.000 s)" "$TMP/br" \
  && grep -q "pct_of_100_own_steps=.* post_step_s=2.000 pct_of_100_bracketed_steps=0.33 " "$TMP/br" \
  || fail "drift bracketing: $(tail -3 "$TMP/br")"

[ "$FAILS" = 0 ] && echo "test_ckpt_bench: all checks passed"
exit $(( FAILS > 0 ))
