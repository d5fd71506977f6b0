#!/usr/bin/env python3
"""An update tail (--update-tail-units M) against none: interleaved jobs' metrics (--metrics
*.jsonl) summarised, the measured step ratio beside the model's (tools/gpu-check.sh tail).

  tail_ab.py --tail T1.jsonl [T2.jsonl ...] --none N1.jsonl [N2.jsonl ...]
             [--predicted-tail S --predicted-none S] [--skip K]

Jobs are paired in the order given (tail 1 with none 1, ...: run them interleaved, so that a
drift of the shared host's memory bandwidth, which paces the leader's AdamW, moves both sides of
a pair alike). Per job: the median over its steps after the first K (default 2: the pipeline's
fill and the allocator's warm-up) of step_s, leader_wait_s (the leader's idle time in a step) and
leader_update_s; per pair the ratio none / tail of the median steps (> 1: the tail is faster).
--predicted-tail and --predicted-none (slidedp_plan --evaluate of both, on the calibration the
jobs' plan used) give the model's ratio.

Prints one RESULT line: pairs, the median measured ratio, its range, the model's ratio.
Exits with a message when a file is missing, unreadable or has no step after the first K.
"""
import argparse
import json
import statistics
import sys


def job(path, skip):
    """Median step_s, leader_wait_s, leader_update_s over the steps after the first `skip`, and
    the job's variant label."""
    rows = []
    try:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"tail_ab.py: {path}: {e}")
    timed = rows[skip:]
    if not timed:
        sys.exit(f"tail_ab.py: {path}: {len(rows)} step(s), none after the first {skip}: a job "
                 "that ended early (see its log)")
    med = lambda k: statistics.median(r[k] for r in timed)
    return {"step_s": med("step_s"), "leader_wait_s": med("leader_wait_s"),
            "leader_update_s": med("leader_update_s"), "steps": len(timed),
            "variant": timed[0].get("variant", "")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tail", nargs="+", required=True, help="metrics of the jobs with the tail")
    ap.add_argument("--none", nargs="+", required=True, help="metrics of the twins with --update-tail-units 0")
    ap.add_argument("--predicted-tail", type=float, default=0, help="the model's step with the tail, s")
    ap.add_argument("--predicted-none", type=float, default=0, help="the model's step without the tail, s")
    ap.add_argument("--skip", type=int, default=2, help="first steps of each job left out (default 2)")
    a = ap.parse_args()
    if len(a.tail) != len(a.none):
        sys.exit(f"tail_ab.py: {len(a.tail)} job(s) with the tail against {len(a.none)} without: give pairs")
    ratios = []
    print(f"{'pair':>4} {'side':>5} {'steps':>5} {'step_s':>8} {'wait_s':>8} {'update_s':>8}  variant")
    for i, (pt, pn) in enumerate(zip(a.tail, a.none), 1):
        jt, jn = job(pt, a.skip), job(pn, a.skip)
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
