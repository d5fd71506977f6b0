#!/usr/bin/env bash
# tools/bench/longest_seq.py's search without a GPU (its SLIDEDP_LONGEST_SIMULATE hook: a probe
# trains iff T <= the system's limit): doubling then bisection finds, per system, the longest
# aligned length within the resolution, its tokens/s, the ratio, and the continuation flags;
# a search continued with --known-ok/--known-fail probes only inside the bracket; a dry run
# prints the real commands (slidedp-run with --seq-len, torchrun peer_train.py --liger --ac).
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
  || fail "dry run: no slidedp-run line"
echo "$r" | grep -q 'peer_train.py --system fsdp2 --liger --ac .*--seq-len 65536' \
  || fail "dry run: no peer line"
grep -q '"max_position_embeddings": 65536' "$out"/c/probes-*/config-65536.json || fail "config not raised"
python3 "$py" --systems nope --out "$out/d" > /dev/null 2>&1 && fail "an unknown system was accepted"
echo "PASS"
