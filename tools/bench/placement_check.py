#!/usr/bin/env python3
"""placement_check.py: the per-layer placement of recomputed layers' inputs on a GPU
(worker/input_placement.h), measured: where the GPU budget cannot hold every input, the first
layers' go to pinned host memory, the rest stay on the GPU.

  python3 tools/bench/placement_check.py --config tools/configs/qwen3-4b.json --seq-len 65536 --out DIR

Three jobs of the same shape (batch 1, --activations recompute, random init, the same data and
seed), --steps each, through launcher/slidedp-run on GPU 0:
  gpu      no budget set: every input on the GPU (offloaded 0)
  partial  --gpu-memory-budget = the gpu job's GPU peak less --squeeze GiB: the fewest first
           layers' inputs that make the rest fit go to the host (the step line's "K inputs in
           host memory", 0 < K < L expected)
  host     --offload-activations: every input to the host (K = L)
Prints, per job, the median step time of the steps after the first, the inputs in host memory
and the GPU peak of the last step, and each step's loss; then the partial and host jobs' step
time against the gpu job's (the cost of the copies that are not hidden) and their largest loss
difference from it (the copies move bytes exactly, so only the nondeterminism of the attention
backward's atomics remains). Exit status 1 when a job fails, when the partial job offloads none
or all, or when a loss differs by more than --loss-tol (relative).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_config import raised_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(a, name, extra, cfg):
    metrics = os.path.join(a.out, f"placement-{name}.jsonl")
    if os.path.exists(metrics):
        os.remove(metrics)
    worker = os.environ.get("SLIDEDP_WORKER", os.path.join(ROOT, "build/bin/slidedp_worker"))
    argv = [os.path.join(ROOT, "launcher/slidedp-run"), "--gpus", a.gpus, "--", "--model-config", cfg,
            "--seq-len", str(a.seq_len), "--batch-size", "1", "--steps", str(a.steps), "--lr", "1e-5",
            "--activations", "recompute", "--metrics", metrics, *extra]
    log = os.path.join(a.out, f"placement-{name}.log")
    with open(log, "w") as f:
        try:
            rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                                env={**os.environ, "SLIDEDP_WORKER": worker}, timeout=a.job_timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"  # (subprocess.run killed the launcher; its ranks end with it)
    steps = []
    if os.path.exists(metrics):
        with open(metrics) as f:
            steps = [json.loads(line) for line in f if line.strip()]
    if rc != 0 or len(steps) < a.steps:
        with open(log) as f:
            tail = f.read()[-1500:]
        print(f"{name}: rc {rc}, {len(steps)} of {a.steps} steps\n{tail}")
        return None
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=os.path.join(ROOT, "tools/configs/qwen3-4b.json"))
    ap.add_argument("--seq-len", type=int, default=65536)
    ap.add_argument("--steps", type=int, default=3, help="steps per job (>= 2: the first is not timed)")
    ap.add_argument("--squeeze", type=float, default=4.0,
                    help="GiB below the gpu job's peak for the partial job's budget")
    ap.add_argument("--gpus", default="0")
    ap.add_argument("--loss-tol", type=float, default=1e-3)
    ap.add_argument("--job-timeout", type=float, default=170, help="seconds per job (three jobs)")
    ap.add_argument("--out", default="placement-check")
    a = ap.parse_args()
    if a.steps < 2:
        ap.error("--steps must be >= 2: the first step of a shape places by an estimate")
    os.makedirs(a.out, exist_ok=True)
    cfg = raised_config(a.config, a.seq_len, a.out)
    with open(cfg) as f:
        L = int(json.load(f)["num_hidden_layers"])
    results = {}
    results["gpu"] = run(a, "gpu", [], cfg)
    if results["gpu"] is None:
        return 1
    peak = results["gpu"][-1]["gpu_peak_bytes"] / 2**30
    budget = round(peak - a.squeeze, 2)
    results["partial"] = run(a, "partial", ["--gpu-memory-budget", str(budget)], cfg)
    results["host"] = run(a, "host", ["--offload-activations"], cfg)
    print(f"placement check: {os.path.basename(a.config)}, {a.seq_len} tokens, batch 1, recompute, "
          f"{a.steps} steps; partial budget {budget} GiB (the gpu job's peak {peak:.1f} less {a.squeeze})")
    print(f"{'job':8} {'step s':>8} {'vs gpu':>7} {'host inputs':>12} {'GPU peak GiB':>13}  losses (max rel diff vs gpu)")
    ok = True
    base = statistics.median(s["step_s"] for s in results["gpu"][1:])
    for name in ("gpu", "partial", "host"):
        steps = results[name]
        if steps is None:
            print(f"{name:8} failed")
            ok = False
            continue
        t = statistics.median(s["step_s"] for s in steps[1:])
        off = [s.get("offloaded_layers", 0) for s in steps]
        diff = max(abs(s["loss"] - g["loss"]) / abs(g["loss"]) for s, g in zip(steps, results["gpu"]))
        print(f"{name:8} {t:8.3f} {t / base:7.3f} {'/'.join(str(o) for o in off):>12} "
              f"{steps[-1]['gpu_peak_bytes'] / 2**30:13.1f}  "
              f"{' '.join('%.5f' % s['loss'] for s in steps)} ({diff:.2e})")
        if diff > a.loss_tol:
            print(f"  {name}: a loss differs from the gpu job's by {diff:.2e} > {a.loss_tol}")
            ok = False
        if name == "partial" and not 0 < off[-1] < L:
            print(f"  partial: {off[-1]} of {L} inputs in host memory in the last step: the budget did not "
                  f"split them (try another --squeeze)")
            ok = False
        if name == "gpu" and any(off):
            print(f"  gpu: {max(off)} inputs in host memory without a budget, expected 0")
            ok = False
        if name == "host" and off[-1] != L:
            print(f"  host: {off[-1]} of {L} inputs in host memory, expected {L}")
            ok = False
    print("PLACEMENT " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
