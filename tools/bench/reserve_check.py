#!/usr/bin/env python3
"""reserve_check.py: the worker's first-step GPU reserve estimate against what the step measured.

A GPU worker decides in step 1, before any backward has run, how many recomputed layers keep
their input in pinned host memory and how many layers keep activations: from the GPU budget,
what is allocated, and the reserve that the head and the backward need above the end-of-forward
level (worker.cpp reserveBytes, a shape estimate). From step 2 on it uses the reserve step 1
measured. This runs one short job per sequence length (batch 1, --activations recompute,
--policy manual, 2 steps, SPDLOG_LEVEL=debug) on a copy of the config cut to --layers decoder
layers (the reserve is one layer's backward plus the head: it does not depend on the layer
count, and a 2-layer job at 576K tokens takes seconds instead of 13 minutes), and prints per
length: the estimate, the measured reserve, their ratio, and for the config's full layer count
the inputs that would stay on the GPU with each (a projection from the measured allocation; the
full model's own first step is not run).

  python3 tools/bench/reserve_check.py --config tools/configs/qwen3-4b.json \
      --lengths 16384,65536,262144,589824 --out /tmp/reserve

The worker binary: $SLIDEDP_WORKER (default build/bin/slidedp_worker), through launcher/slidedp-run.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GIB = float(1 << 30)
PLACE = re.compile(r"step (\d+): budget (\d+) B, allocated (\d+) B, reserve (\d+) B \(fragmentation (\d+) B\), "
                   r"one input (\d+) B: (\d+) of (\d+) inputs")
PEAK = re.compile(r"step (\d+): GPU peak (\d+) B allocated, (\d+) B reserved \((\d+) B at the start\); "
                  r"reserve above the forward level (\d+) B")


def cut_config(config, T, layers, folder):
    """A copy of `config` with `layers` decoder layers and max_position_embeddings >= T."""
    with open(config) as f:
        cfg = json.load(f)
    full = int(cfg["num_hidden_layers"])
    cfg["num_hidden_layers"] = layers
    cfg["max_position_embeddings"] = max(int(cfg.get("max_position_embeddings") or 0), T)
    for key in ("layer_types", "max_window_layers"):  # per-layer lists sized to the layer count
        if isinstance(cfg.get(key), list):
            cfg[key] = cfg[key][:layers]
    path = os.path.join(folder, f"config-{layers}layers-{T}.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path, full


def parse(log):
    """{step: {...}} from the worker's debug lines."""
    steps = {}
    for line in log.splitlines():
        m = PLACE.search(line)
        if m:
            s = int(m.group(1))
            steps.setdefault(s, {}).update(budget=int(m.group(2)), allocated=int(m.group(3)),
                                           reserve_used=int(m.group(4)), input=int(m.group(6)),
                                           offloaded=int(m.group(7)))
        m = PEAK.search(line)
        if m:
            s = int(m.group(1))
            steps.setdefault(s, {}).update(peak=int(m.group(2)), measured=int(m.group(5)))
    return steps


def on_gpu(budget, allocated, reserve, input_bytes, layers):
    """Inputs of `layers` recomputed layers that fit the GPU (worker/input_placement.h)."""
    room = budget - allocated - reserve
    return 0 if room <= 0 else min(layers, room // input_bytes)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, help="model config.json (e.g. tools/configs/qwen3-4b.json)")
    ap.add_argument("--lengths", default="16384,65536,262144,589824", help="comma-separated tokens per row")
    ap.add_argument("--layers", type=int, default=2, help="decoder layers of the cut config (>= 2)")
    ap.add_argument("--out", required=True, help="folder for the configs, logs and results.json")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per job")
    ap.add_argument("--worker-args", default="", help="extra slidedp_worker flags")
    a = ap.parse_args(argv)
    if a.layers < 2:
        ap.error("--layers must be at least 2 (layer 1's placement decision needs a later layer)")
    os.makedirs(a.out, exist_ok=True)
    worker = os.environ.get("SLIDEDP_WORKER", os.path.join(ROOT, "build/bin/slidedp_worker"))
    rows, rc = [], 0
    for T in [int(x) for x in a.lengths.split(",") if x]:
        cfg, full = cut_config(a.config, T, a.layers, a.out)
        argv = [os.path.join(ROOT, "launcher/slidedp-run"), "--gpus", "0", "--", "--model-config", cfg,
                "--seq-len", str(T), "--batch-size", "1", "--steps", "2", "--warmup-steps", "1",
                "--lr", "1e-5", "--policy", "manual", "--activations", "recompute", *a.worker_args.split()]
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, env={**os.environ, "SLIDEDP_WORKER": worker, "SPDLOG_LEVEL": "debug"},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=a.timeout)
            log, code = p.stdout, p.returncode
        except subprocess.TimeoutExpired as e:
            log, code = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), 124
        with open(os.path.join(a.out, f"job-{T}.log"), "w") as f:
            f.write(log)
        steps = parse(log)
        s1, s2 = steps.get(1, {}), steps.get(2, {})
        row = {"T": T, "rc": code, "seconds": round(time.monotonic() - t0, 1), "layers": a.layers,
               "full_layers": full, "step1": s1, "step2": s2}
        rows.append(row)
        if code != 0 or "measured" not in s1 or "reserve_used" not in s1:
            rc = 1
            print(f"T={T}: job exit {code} after {row['seconds']} s; no reserve lines (log: job-{T}.log)")
            continue
        est, meas = s1["reserve_used"], s1["measured"]
        # The full model's inputs on the GPU at step 1 with the estimate, and with the measured
        # reserve (what step 2 uses: measured + 5% + 256 MiB).
        used2 = meas + meas // 20 + (256 << 20)
        g_est = on_gpu(s1["budget"], s1["allocated"], est, s1["input"], full)
        g_meas = on_gpu(s1["budget"], s1["allocated"], used2, s1["input"], full)
        row.update(estimate=est, measured=meas, ratio=est / meas if meas else None,
                   full_on_gpu_estimate=g_est, full_on_gpu_measured=g_meas)
    print(f"{'T':>8} {'estimate GiB':>13} {'measured GiB':>13} {'est/meas':>9} {'step-1 peak GiB':>16} "
          f"{'input GiB':>10} {'full model: inputs on GPU, est / meas':>40}")
    for r in rows:
        if "estimate" not in r:
            print(f"{r['T']:>8}  failed (exit {r['rc']})")
            continue
        s1 = r["step1"]
        print(f"{r['T']:>8} {r['estimate'] / GIB:>13.2f} {r['measured'] / GIB:>13.2f} {r['ratio']:>9.2f} "
              f"{s1['peak'] / GIB:>16.2f} {s1['input'] / GIB:>10.2f} "
              f"{r['full_on_gpu_estimate']:>17d} / {r['full_on_gpu_measured']:<3d} of {r['full_layers']}")
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
