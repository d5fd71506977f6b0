#!/usr/bin/env python3
"""An update tail (--route-sweep's +tailM) against none in one job: its metrics (--metrics
*.jsonl) summarised, the measured step ratio beside the model's (tools/gpu-check.sh tail).

  tail_ab.py METRICS.jsonl [--predicted-tail S --predicted-none S] [--skip K]

The job alternates the variants (e.g. R+tail21@4,R@4,R+tail21@4,R@4: a drift of the shared
host's memory bandwidth, which paces the leader's AdamW, moves both sides of a pair alike). Each
run of consecutive steps of one variant is a block; a block whose label has +tailM with M > 0 is
a tail block, any other a block without. Blocks pair in order (the first tail block with the
first block without, ...). Per block: the median over its steps after the first K (default 2:
the pipeline's fill and, after a switch, the allocator's warm-up) of step_s, leader_wait_s (the
leader's idle time in a step) and leader_update_s; per pair the ratio none / tail of the median
steps (> 1: the tail is faster). --predicted-tail and --predicted-none (slidedp_plan --evaluate
of both, on the calibration the job's plan used) give the model's ratio.

Prints one RESULT line: pairs, the median measured ratio, its range, the model's ratio. Exits
with a message when the file is missing or unreadable, a block has no step after the first K,
or the blocks do not pair.
"""
import argparse
import json
import re
import statistics
import sys


def blocks(path):
    """[(variant label, [rows])] for each run of consecutive steps of one variant."""
    try:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"tail_ab.py: {path}: {e}")
    out = []
    for r in rows:
        if out and out[-1][0] == r.get("variant"):
            out[-1][1].append(r)
        else:
            out.append((r.get("variant"), [r]))
    return out


def has_tail(label):
    m = re.search(r"\+tail(\d+)", label or "")
    return bool(m) and int(m.group(1)) > 0


def summary(label, rows, skip):
    timed = rows[skip:]
    if not timed:
        sys.exit(f"tail_ab.py: variant {label}: {len(rows)} step(s), none after the first {skip}")
    med = lambda k: statistics.median(r[k] for r in timed)
    return {"step_s": med("step_s"), "leader_wait_s": med("leader_wait_s"),
            "leader_update_s": med("leader_update_s"), "steps": len(timed), "variant": label}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("metrics", help="the job's --metrics file (.jsonl)")
    ap.add_argument("--predicted-tail", type=float, default=0, help="the model's step with the tail, s")
    ap.add_argument("--predicted-none", type=float, default=0, help="the model's step without the tail, s")
    ap.add_argument("--skip", type=int, default=2, help="first steps of each block left out (default 2)")
    a = ap.parse_args()
    bs = blocks(a.metrics)
    tails = [summary(l, r, a.skip) for l, r in bs if has_tail(l)]
    nones = [summary(l, r, a.skip) for l, r in bs if not has_tail(l)]
    if not tails or len(tails) != len(nones):
        sys.exit(f"tail_ab.py: {a.metrics}: {len(tails)} block(s) with a tail and {len(nones)} without: "
                 "give a sweep that alternates them")
    ratios = []
    print(f"{'pair':>4} {'side':>5} {'steps':>5} {'step_s':>8} {'wait_s':>8} {'update_s':>8}  variant")
    for i, (jt, jn) in enumerate(zip(tails, nones), 1):
        for side, j in (("tail", jt), ("none", jn)):
            print(f"{i:>4} {side:>5} {j['steps']:>5} {j['step_s']:8.3f} {j['leader_wait_s']:8.3f} "
                  f"{j['leader_update_s']:8.3f}  {j['variant']}")
        ratios.append(jn["step_s"] / jt["step_s"])
        print(f"{i:>4} none/tail {ratios[-1]:.3f}")
    model = a.predicted_none / a.predicted_tail if a.predicted_tail > 0 and a.predicted_none > 0 else float("nan")
    print(f"RESULT name=update_tail pairs={len(ratios)} measured_none_over_tail={statistics.median(ratios):.3f} "
          f"min={min(ratios):.3f} max={max(ratios):.3f} model_none_over_tail={model:.3f} "
          f"predicted_tail_s={a.predicted_tail:.3f} predicted_none_s={a.predicted_none:.3f}")


if __name__ == "__main__":
    main()
