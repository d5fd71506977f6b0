#!/usr/bin/env bash
# tools/bench/longest_seq.py's search without a GPU (its SLIDEDP_LONGEST_SIMULATE hook: a probe
# trains iff T <= the system's limit): doubling then bisection finds, per system, the longest
# aligned length within the resolution, its tokens/s, the ratio, and the continuation flags;
# a search continued with --known-ok/--known-fail probes only inside the bracket; a dry run
# prints the real commands (slidedp-run with --seq-len, torchrun peer_train.py --liger --ac);
# with the worker binary as $1, real slidedp probes on a CPU worker (stories260K, 64..256
# tokens) train and report their tokens/s from the job's metrics.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="$here/../../tools/bench/longest_seq.py"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
r=$(SLIDEDP_LONGEST_SIMULATE=slidedp=600000,fsdp2_liger_ac=150000 python3 "$py" --out "$out/a" 2>&1) \
  || fail "simulated search exited non-zero: $r"
echo "$r"
# slidedp: 32K..512K ok, 1M fails, bisection ends within 1/8 of 589824 = 73728
echo "$r" | grep -Eq '^slidedp +589824 +1695 +655360 ' || fail "slidedp's longest is not 589824 (bracket 655360)"
echo "$r" | grep -Eq '^fsdp2_liger_ac +147456 +6782 +163840 ' || fail "the peer's longest is not 147456"
echo "$r" | grep -q 'slidedp / fsdp2_liger_ac: 4.00x' || fail "no ratio line"
[ "$(wc -l < "$out"/a/probes-*/longest.jsonl)" -eq 16 ] || fail "expected 16 probes in longest.jsonl"
r=$(SLIDEDP_LONGEST_SIMULATE=slidedp=600000 python3 "$py" --systems slidedp --known-ok slidedp=524288 \
    --known-fail slidedp=1048576 --out "$out/b" 2>&1) || fail "continued search exited non-zero: $r"
echo "$r" | grep -q 'slidedp T=32768' && fail "a continued search probed below its bracket"
echo "$r" | grep -Eq '^slidedp +589824 ' || fail "continued search did not reach 589824: $r"
r=$(python3 "$py" --dry-run --start 65536 --systems slidedp,fsdp2_liger_ac --out "$out/c" 2>&1) || fail "dry run: $r"
echo "$r" | grep -q 'slidedp-run --gpus 0 -- --model-config .*--seq-len 65536 --batch-size 1' \
  || fail "dry run: no slidedp-run line: $r"
echo "$r" | grep -q 'peer_train.py --system fsdp2 --liger --ac .*--seq-len 65536' \
  || fail "dry run: no peer line: $r"
grep -q '"max_position_embeddings": 65536' "$out"/c/probes-*/config-max-positions-65536.json || fail "config not raised"
# a probe that ends in an error (not a lack of memory) is run once more before it counts
r=$(SLIDEDP_LONGEST_SIMULATE=slidedp=600000 SLIDEDP_LONGEST_SIMULATE_ERROR=slidedp=65536 python3 "$py" \
    --systems slidedp --out "$out/f" 2>&1) || fail "search with an error: $r"
echo "$r" | grep -q 'slidedp T=65536: error .*probing the same length once more' || fail "no second probe: $r"
echo "$r" | grep -Eq '^slidedp +589824 +1695 +655360 ' || fail "one error ended the search: $r"
[ "$(wc -l < "$out"/f/probes-*/longest.jsonl)" -eq 10 ] || fail "expected 10 probe records (9 + the error)"
python3 "$py" --systems nope --out "$out/d" > /dev/null 2>&1 && fail "an unknown system was accepted"
# one step does not show a length trains (the peer's AdamW moments come with its first step)
r=$(python3 "$py" --steps 1 --dry-run --out "$out/g" 2>&1) && fail "--steps 1 was accepted: $r"
echo "$r" | grep -q -- "--steps must be at least 2" || fail "--steps 1: no clear message: $r"
if [ -n "${1:-}" ]; then
  shared="${SLIDEDP_SHARED_DIR:-$here/../../../shared}"
  r=$(SLIDEDP_WORKER="$1" python3 "$py" --config "$shared/models/stories260K/config.json" --systems slidedp \
      --cpu-workers 1 --start 64 --max 256 --align 64 --out "$out/e" 2>&1) || fail "CPU probes: $r"
  echo "$r"
  if ! echo "$r" | grep -Eq 'slidedp T=256: ok'; then  # the failing probes' whole logs, for the record
    for f in "$out"/e/probes-*/*.log; do echo "== $f"; cat "$f"; done
  fi
  echo "$r" | grep -Eq 'slidedp T=256: ok in [0-9]+ s [0-9]+ tok/s' || fail "the 256-token CPU probe did not train"
  echo "$r" | grep -Eq '^slidedp +256 +[0-9]+ +- ' || fail "CPU search: no longest 256 with its tokens/s"
fi
echo "PASS"
