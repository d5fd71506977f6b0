#!/usr/bin/env bash
# test_plot_metrics.sh: tools/plot/plot_metrics.py draws a PNG from a small per-step JSONL (the
# keys slidedp_worker --metrics writes, two routes, a held-out loss every 4th step) and from the
# same rows as CSV (eval columns empty where not evaluated), and refuses
# a missing file, an empty file and rows without the required columns with a clear message.
#
#   tests/launcher/test_plot_metrics.sh PYTHON      (CTest: plot_metrics; PYTHON has matplotlib)
set -uo pipefail
PY=${1:?usage: test_plot_metrics.sh PYTHON (an interpreter with matplotlib, e.g. the venv python)}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PLOT=$ROOT/tools/plot/plot_metrics.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

"$PY" - "$TMP" <<'PYEOF'
import csv, json, math, sys
d = sys.argv[1]
rows = []
for s in range(1, 13):
    route = ("replicated", "cpu") if s <= 6 else ("sharded", "gpu")
    r = {"step": s, "variant": "/".join(route), "delivery": route[0], "reduction": route[1], "loss": 6.0 * math.exp(-s / 6) + 1,
         "lr": 1e-3 * min(1.0, s / 4), "grad_norm": 2.0 / s, "tokens": 4096,
         "tokens_per_s": 40000 + 100 * s, "tflops_per_gpu": 300.0, "step_s": 0.10 + 0.002 * s,
         "fwd_s": 0.03, "head_s": 0.005, "bwd_s": 0.055, "h2d_s": 0.004, "d2h_s": 0.003,
         "version_wait_s": 0.002, "handoff_wait_s": 0.001, "leader_wait_s": 0.07,
         "leader_update_s": 0.03}
    if s % 4 == 0:  # --eval-data --eval-every 4: the held-out loss on some rows only
        r["eval_loss"] = 6.0 * math.exp(-s / 6) + 1.2
        r["eval_ppl"] = math.exp(r["eval_loss"])
    rows.append(r)
with open(f"{d}/m.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
with open(f"{d}/m.csv", "w", newline="") as f:
    # the worker's CSV: no delivery/reduction columns (the variant names the route)
    cols = [k for k in rows[3] if k not in ("delivery", "reduction")]
    w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
with open(f"{d}/noloss.jsonl", "w") as f:
    f.write(json.dumps({"step": 1, "lr": 1e-3, "fwd_s": 0.1}) + "\n")
open(f"{d}/empty.jsonl", "w").close()
PYEOF

png_ok() {  # png_ok FILE NAME: exists, PNG signature, > 20 KB (a drawn figure, not a blank one)
  if [ ! -f "$1" ]; then fail "$2: $1 not written"; return; fi
  local size; size=$(stat -c %s "$1")
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$2: not a PNG"
  [ "$size" -gt 20000 ] || fail "$2: only $size bytes"
  echo "$2: $1 ($size bytes)"
}
"$PY" "$PLOT" "$TMP/m.jsonl" --out "$TMP/loss.png" || fail "jsonl: exit $?"
png_ok "$TMP/loss.png" jsonl
"$PY" "$PLOT" "$TMP/m.csv" || fail "csv: exit $?"
png_ok "$TMP/m.png" "csv (default --out)"

bad() {  # bad NAME MESSAGE FILE
  local out rc
  out=$("$PY" "$PLOT" "$3" --out "$TMP/bad.png" 2>&1); rc=$?
  echo "$1 (exit $rc): $out"
  [ "$rc" -ne 0 ] || fail "$1: exit 0"
  [[ "$out" == *"$2"* ]] || fail "$1: message lacks '$2'"
  [[ "$out" != *Traceback* ]] || fail "$1: a Python traceback instead of a message"
}
bad missing "does not exist" "$TMP/none.jsonl"
bad empty "is empty" "$TMP/empty.jsonl"
bad "no loss column" "lacks column(s) loss, step_s" "$TMP/noloss.jsonl"
[ ! -e "$TMP/bad.png" ] || fail "a PNG was written for bad input"

if [ "$FAILS" -eq 0 ]; then echo "plot_metrics tests: passed"; else echo "plot_metrics tests: $FAILS FAILED"; exit 1; fi
