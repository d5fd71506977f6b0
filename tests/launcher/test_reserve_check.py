#!/usr/bin/env python3
"""tools/bench/reserve_check.py (the `reserve` step of tools/gpu-check.sh), without a GPU: it reads
the worker's debug lines as a real 589 824-token job printed them (1xH200, 2026-12-04,
tools/bench/results/2026-12-04e-h200x1-reserve/), projects the full model's inputs on the GPU as
worker/input_placement.h places them, and cuts the config to the asked layer count."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import reserve_check  # noqa: E402

LOG = """\
[19:45:28.775] [worker 1/2] [debug] step 1: budget 146888654848 B, allocated 4517680128 B, reserve 106027800832 B (fragmentation 0 B), one input 3019898880 B: 0 of 2 inputs to pinned host memory
[19:46:13.795] [worker 1/2] [debug] step 1: GPU peak 63706025984 B allocated, 65055752192 B reserved (1509949440 B at the start); reserve above the forward level 53114993664 B, fragmentation 1349726208 B
[19:46:13.831] [worker 1/2] [debug] step 2: budget 146888654848 B, allocated 4551234560 B, reserve 57388905011 B (fragmentation 1349726208 B), one input 3019898880 B: 0 of 2 inputs to pinned host memory
"""


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def main():
    steps = reserve_check.parse(LOG)
    s1 = steps[1]
    check(s1["reserve_used"] == 106027800832 and s1["measured"] == 53114993664, f"step 1 parsed: {s1}")
    check(s1["budget"] == 146888654848 and s1["allocated"] == 4517680128 and s1["input"] == 3019898880,
          f"step 1 budget/allocated/input: {s1}")
    check(steps[2]["reserve_used"] == 57388905011 and "measured" not in steps[2], f"step 2: {steps[2]}")
    # input_placement.h: (budget - allocated - reserve) // input inputs fit, at most `layers`
    room = 146888654848 - 4517680128 - 106027800832
    check(reserve_check.on_gpu(146888654848, 4517680128, 106027800832, 3019898880, 36) == room // 3019898880,
          "inputs on the GPU with the estimate")
    check(reserve_check.on_gpu(100, 50, 60, 1, 36) == 0, "no room: none on the GPU")
    check(reserve_check.on_gpu(10 ** 12, 0, 0, 1, 36) == 36, "room for all: every layer's")
    with tempfile.TemporaryDirectory() as d:
        path, full = reserve_check.cut_config(os.path.join(ROOT, "tools/configs/qwen3-4b.json"), 589824, 2, d)
        cfg = json.load(open(path))
        check(full == 36 and cfg["num_hidden_layers"] == 2 and cfg["max_position_embeddings"] == 589824,
              f"cut config: {full}, {cfg['num_hidden_layers']}, {cfg['max_position_embeddings']}")
        # bad input: a clear argparse error, no traceback
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools/bench/reserve_check.py"), "--config",
                            "x.json", "--out", d, "--layers", "1"], capture_output=True, text=True)
        check(p.returncode == 2 and "--layers must be at least 2" in p.stderr and "Traceback" not in p.stderr,
              f"--layers 1 refused: {p.returncode} {p.stderr[-300:]}")
    print("reserve_check: ok")


if __name__ == "__main__":
    main()
