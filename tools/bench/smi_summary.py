#!/usr/bin/env python3
"""Summarise nvidia-smi samples taken during a benchmark (tools/gpu-check.sh smi_start).

Input: CSV rows without header, as written by
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,
             utilization.gpu,clocks_event_reasons.active --format=csv,noheader -lms 250
Output, per GPU, over the samples with utilization >= 50% (the benchmark running, not start-up):
median and minimum SM clock (MHz), median and maximum power (W), maximum temperature (C), and
each non-idle clock-event reason bitmask with its share of those samples (0x4 = SW power cap,
0x20 = SW thermal slowdown, 0x40 = HW thermal, 0x80 = HW power brake; nvidia-smi
--help-query-gpu). Tells whether a slower run had a slower clock or slower code.
"""
import csv
import statistics
import sys
from collections import Counter, defaultdict


def number(field):
    try:
        return float(field.strip().split()[0])
    except (ValueError, IndexError):
        return None


def main(paths):
    for path in paths:
        busy = defaultdict(list)
        with open(path, newline="") as f:
            for row in csv.reader(f):
                if len(row) < 8:
                    continue
                util = number(row[6])
                if util is None or util < 50:
                    continue
                busy[row[1].strip()].append(
                    (number(row[2]), number(row[4]), number(row[5]), row[7].strip()))
        if not busy:
            print(f"{path}: no sample with the GPU >= 50% busy")
            continue
        for gpu, samples in sorted(busy.items()):
            sm = [s[0] for s in samples if s[0] is not None]
            power = [s[1] for s in samples if s[1] is not None]
            temp = [s[2] for s in samples if s[2] is not None]
            reasons = Counter(s[3] for s in samples)
            reasons_text = ", ".join(f"{r} {100 * n / len(samples):.0f}%"
                                     for r, n in reasons.most_common())
            print(f"{path}: GPU {gpu}, {len(samples)} busy samples: SM clock median "
                  f"{statistics.median(sm):.0f} MHz (min {min(sm):.0f}), power median "
                  f"{statistics.median(power):.0f} W (max {max(power):.0f}), max "
                  f"{max(temp):.0f} C; clock-event reasons: {reasons_text}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: smi_summary.py SMI.csv [...]")
    main(sys.argv[1:])
