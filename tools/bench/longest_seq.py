#!/usr/bin/env python3
"""longest_seq.py: the longest sequence a system trains on this machine (batch 1, one GPU by
default), for slidedp and for FSDP2 + Liger-Kernel + activation checkpointing, with tokens/s.

  python3 tools/bench/longest_seq.py --config tools/configs/qwen3-4b.json \
      --systems slidedp,fsdp2_liger_ac --start 32768 --time-budget 540 --out DIR

Search, per system: double the sequence from --start while each probe trains, then bisect
between the longest that trained and the shortest that did not, down to --resolution (a
fraction of the longest that trained, rounded to --align tokens). A probe is one job of
--steps optimizer steps at that length (a config copy with max_position_embeddings raised to
it, random init, uniformly random tokens), run as its own process group and ended (SIGTERM
twice, then SIGKILL) at --probe-timeout or when the --time-budget would be exceeded. Its
outcome is ok (tokens/s of the last step), oom (out of GPU or host memory), timeout (not
trainable within the bound: reported apart, never as a length that trains) or error.

A length trains when a probe's second step completes: the first step does not hold every byte
a run holds. The peer creates its AdamW moments in its first optimizer step, after the backward
that sets its peak (FSDP2 + Liger + AC at 262144 tokens on one H200: 108.6 GiB in a one-step
probe, 138.4 GiB in the second step, 2026-12-03), and slidedp's auto activation policy re-plans
its kept layers from the memory the first step left free. So --steps is at least 2, for every
system alike, and the last step is the one timed.

Bounded in time: a probe's time is predicted from the last probe that trained (its start-up
plus its step time scaled by the square of the length ratio: attention dominates at these
lengths); a probe that would not fit its limit is not started: the search then stops and prints
its bracket, and --known-ok/--known-fail continue it in the next call (the GPU machine's calls
last at most 10 minutes, and a 512K-token step of the Qwen3-4B shape took ~10 minutes on one
H200: a longer probe runs detached, tools/gpu-detached.sh).

Prints one line per probe and a table at the end; writes every probe to DIR/longest.jsonl.
The ratio of the two longest lengths is printed when both systems ran.

Systems:
  slidedp         launcher/slidedp-run -- --model-config CFG --seq-len T --batch-size 1 (the
                  defaults: auto activations, auto attention); $SLIDEDP_WORKER is the binary
  fsdp2_liger_ac  torchrun tools/bench/peer_train.py --system fsdp2 --liger --ac (Liger's
                  apply_liger_kernel_to_<model>(rope, rms_norm, swiglu,
                  fused_linear_cross_entropy); needs the liger-kernel package)
  fsdp2_ac        the same without Liger
  The peers run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--alloc-conf).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_config import raised_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSTEMS = ("slidedp", "fsdp2_liger_ac", "fsdp2_ac")
OOM = re.compile(r"out of memory|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY|CUBLAS_STATUS_ALLOC_FAILED"
                 r"|signal 9|Killed|needs .* of host RAM|cudaErrorMemoryAllocation", re.I)


# Lines of a probe's log that say why it ended: slidedp's failure lines and mpirun's report.
WHY = re.compile(r"slidedp: .*(failed|error|detected|caught|exits)|exited on signal|process rank \d+ with PID"
                 r"|[Ee]rror:", re.I)


def log(msg):
    print(f"longest_seq: {msg}", flush=True)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="longest_seq.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=os.path.join(ROOT, "tools/configs/qwen3-4b.json"),
                    help="Hugging Face config.json of the model shape (random init)")
    ap.add_argument("--systems", default="slidedp,fsdp2_liger_ac",
                    help=f"comma-separated, from {', '.join(SYSTEMS)}")
    ap.add_argument("--start", type=int, default=32768, help="first length probed (tokens)")
    ap.add_argument("--max", type=int, default=4 << 20, help="longest length probed")
    ap.add_argument("--resolution", type=float, default=0.125,
                    help="bisect until the bracket is below this fraction of the longest ok")
    ap.add_argument("--align", type=int, default=4096, help="lengths are multiples of this")
    ap.add_argument("--steps", type=int, default=2,
                    help="optimizer steps per probe, at least 2 (the first does not hold all a run "
                         "holds), the last one timed")
    ap.add_argument("--probe-timeout", type=float, default=480, help="seconds per probe, at most")
    ap.add_argument("--time-budget", type=float, default=540,
                    help="seconds for the whole search (all systems)")
    ap.add_argument("--known-ok", default="",
                    help="continue a search: SYSTEM=T,... lengths already known to train")
    ap.add_argument("--known-fail", default="",
                    help="continue a search: SYSTEM=T,... lengths already known not to train")
    ap.add_argument("--slidedp-args", default="",
                    help="extra slidedp_worker flags of every slidedp probe, e.g. "
                         "'--offload-activations' or '--activations attention-output'")
    ap.add_argument("--gpus", default="0", help="slidedp-run --gpus; torchrun ranks = their count")
    ap.add_argument("--cpu-workers", type=int, default=0,
                    help="slidedp only: N CPU workers instead of --gpus (tests without a GPU)")
    ap.add_argument("--alloc-conf", default=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
                    help="PYTORCH_CUDA_ALLOC_CONF of the peer probes (default: the environment's, else "
                         "expandable_segments:True, as tools/bench/compare.py; '' for torch's default)")
    ap.add_argument("--python", default=os.environ.get("SLIDEDP_PYTHON", sys.executable),
                    help="interpreter with torch/transformers for the peer")
    ap.add_argument("--out", default=os.environ.get("OUT", "longest-out"), help="output folder")
    ap.add_argument("--dry-run", action="store_true", help="print the probe commands, run none")
    a = ap.parse_args(argv)
    a.systems = [s for s in a.systems.split(",") if s]
    for s in a.systems:
        if s not in SYSTEMS:
            ap.error(f"unknown system '{s}' (choose from {', '.join(SYSTEMS)})")
    if a.steps < 2:
        ap.error("--steps must be at least 2: a length trains when a second step completes (a "
                 "first step does not hold the peer's optimizer moments, nor slidedp's re-planned "
                 "activations)")
    if a.start < 2 or a.max < a.start or a.align < 1 or a.probe_timeout <= 0:
        ap.error("need 2 <= --start <= --max, --align >= 1, --probe-timeout > 0")
    if not os.path.isfile(a.config):
        ap.error(f"--config {a.config} not found")

    def known(text):
        out = {}
        for item in filter(None, text.split(",")):
            if "=" not in item:
                ap.error(f"--known-ok/--known-fail take SYSTEM=T items, got '{item}'")
            s, t = item.split("=", 1)
            out.setdefault(s, []).append(int(t))
        return out
    a.known_ok, a.known_fail = known(a.known_ok), known(a.known_fail)
    return a


def command(a, system, T, cfg, folder, steps, tag=""):
    """(argv, environment additions, metrics file) of one probe of `steps` optimizer steps."""
    metrics = os.path.join(folder, f"{system}-{T}{tag}.jsonl")
    if system == "slidedp":
        worker = os.environ.get("SLIDEDP_WORKER", os.path.join(ROOT, "build/bin/slidedp_worker"))
        where = ["--cpu-workers", str(a.cpu_workers)] if a.cpu_workers else ["--gpus", a.gpus]
        argv = [os.path.join(ROOT, "launcher/slidedp-run"), *where, "--", "--model-config",
                cfg, "--seq-len", str(T), "--batch-size", "1", "--steps", str(steps),
                "--warmup-steps", str(steps - 1), "--lr", "1e-5", "--metrics", metrics,
                *a.slidedp_args.split()]
        return argv, {"SLIDEDP_WORKER": worker}, metrics
    G = len(a.gpus.split(","))
    argv = [a.python, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={G}",
            os.path.join(ROOT, "tools/bench/peer_train.py"), "--system", "fsdp2", "--ac",
            "--config", cfg, "--seq-len", str(T), "--global-batches", str(G), "--steps", "1",
            "--warmup", str(steps - 1), "--out", metrics]
    if system == "fsdp2_liger_ac":
        argv.insert(argv.index("--ac"), "--liger")
    # The peer's strongest setting for length: expandable segments leave less of the GPU to
    # fragmentation (the peer comparison, compare.py --alloc-conf, uses the same default).
    env = {"PYTORCH_CUDA_ALLOC_CONF": a.alloc_conf} if a.alloc_conf else {}
    return argv, env, metrics


def simulated(system, T, tag=""):
    """Testing hook: SLIDEDP_LONGEST_SIMULATE="slidedp=300000,fsdp2_liger_ac=100000" makes a
    probe of SYSTEM train (ok, tokens/s = 1e9 / T) iff T <= its number, else fail with oom,
    without running anything; None when the hook is off or names no such system.
    SLIDEDP_LONGEST_SIMULATE_ERROR="slidedp=65536" makes that probe's first run end in error."""
    spec = os.environ.get("SLIDEDP_LONGEST_SIMULATE", "")
    limits = dict(item.split("=", 1) for item in spec.split(",") if "=" in item)
    if system not in limits:
        return None
    errs = os.environ.get("SLIDEDP_LONGEST_SIMULATE_ERROR", "")
    if not tag and f"{system}={T}" in errs.split(","):
        return {"system": system, "T": T, "steps": 1, "seconds": 1.0, "rc": 1, "status": "error",
                "tokens_per_s": None, "tail": "simulated error"}
    ok = T <= int(limits[system])
    return {"system": system, "T": T, "steps": 1, "seconds": 1.0, "rc": 0 if ok else 1,
            "status": "ok" if ok else "oom", "tokens_per_s": 1e9 / T if ok else None}


def run_probe(a, system, T, limit_s, folder, steps, tag=""):
    """One probe; `tag` tells a repeated probe's files apart."""
    sim = simulated(system, T, tag)
    if sim is not None:
        return sim
    cfg = raised_config(a.config, T, folder)
    argv, env_add, metrics = command(a, system, T, cfg, folder, steps, tag)
    if a.dry_run:
        log(f"[dry run] {system} T={T}: {' '.join(argv)}")
        return {"system": system, "T": T, "status": "dry-run", "seconds": 0.0}
    logfile = os.path.join(folder, f"{system}-{T}{tag}.log")
    env = dict(os.environ, **env_add)
    t0 = time.monotonic()
    status = None
    with open(logfile, "w") as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True, cwd=ROOT)
        try:
            rc = p.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            status = "timeout"
            # slidedp-run: the first SIGTERM asks for a checkpoint at the end of the step,
            # the second stops at once; then nothing is left running on the GPU.
            for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGTERM, 5.0), (signal.SIGKILL, 0)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=pause or None)
                    break
                except subprocess.TimeoutExpired:
                    pass
            rc = p.wait()
    seconds = time.monotonic() - t0
    text = open(logfile, errors="replace").read()
    rec = {"system": system, "T": T, "steps": steps, "seconds": round(seconds, 1), "rc": rc,
           "log": logfile}
    tokens_per_s = None
    if os.path.isfile(metrics):
        for line in open(metrics):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("tokens_per_s"):
                tokens_per_s = r["tokens_per_s"]
            if r.get("status") and r.get("status") != "ok":
                status = status or ("oom" if r["status"] == "oom" else "error")
            for k in ("gpu_peak_bytes", "step_s"):
                if r.get(k) is not None:
                    rec[k] = r[k]
    if status is None:
        if rc == 0 and tokens_per_s:
            status = "ok"
        elif OOM.search(text):
            status = "oom"
        else:
            status = "error"
    rec["status"] = status
    rec["tokens_per_s"] = tokens_per_s
    if status != "ok":
        # The job's own error lines (a rank's failure, a caught signal) and mpirun's verdict
        # (which rank, which PID) first, then the last lines.
        lines = [l for l in text.splitlines() if l.strip()]
        why = [l for l in lines if WHY.search(l)][:4]
        rec["tail"] = " | ".join(x[:200] for x in why + [l for l in lines[-3:] if l not in why])
    return rec


def align(a, T):
    return max(a.align, (T // a.align) * a.align)


def search(a, system, deadline, folder, results):
    ok = max(a.known_ok.get(system, [0]))
    fail = min(a.known_fail.get(system, [0]) or [0]) or None
    best_rate = None
    last = None  # the last probe that trained: (T, start-up seconds, step seconds)
    T = align(a, max(a.start, ok * 2 if ok else a.start)) if fail is None else None
    while True:
        if fail is None:
            if T is None or T > a.max:
                break
        else:
            if fail - ok <= max(a.align, int(a.resolution * ok)):
                break
            T = align(a, (ok + fail) // 2)
            if T <= ok or T >= fail:
                break
        remaining = deadline - time.monotonic()
        limit = min(a.probe_timeout, remaining)
        # Predicted probe time: the last probe's start-up plus its step time scaled by the
        # square of the length ratio (attention dominates here), times --steps.
        predicted = last[1] + a.steps * last[2] * (T / last[0]) ** 2 if last else None
        if remaining < 30 or (predicted and predicted > limit):
            log(f"{system}: stopping at T={T}: {remaining:.0f} s left"
                + (f", the probe would take about {predicted:.0f} s" if predicted else ""))
            break
        rec = run_probe(a, system, T, limit, folder, a.steps)
        if rec["status"] == "error" and not a.dry_run and deadline - time.monotonic() > limit / 2:
            # An error that is not a lack of memory says nothing about the length (Open MPI
            # 4.1 can report a rank that finalized as "exiting improperly" under load): the
            # same probe once more; both are in longest.jsonl.
            log(f"{system} T={T}: error in {rec['seconds']:.0f} s ({rec.get('tail', '')}); "
                "probing the same length once more")
            results.append(rec)
            with open(os.path.join(folder, "longest.jsonl"), "a") as f:
                f.write(json.dumps(rec) + "\n")
            rec = run_probe(a, system, T, min(limit, deadline - time.monotonic()), folder, a.steps, "-again")
        results.append(rec)
        with open(os.path.join(folder, "longest.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        rate = f"{rec['tokens_per_s']:.0f} tok/s" if rec.get("tokens_per_s") else ""
        log(f"{system} T={T}: {rec['status']} in {rec['seconds']:.0f} s {rate} {rec.get('tail', '')}")
        if a.dry_run:
            break
        if rec["status"] == "ok":
            ok, best_rate = T, rec["tokens_per_s"]
            step_s = rec.get("step_s") or rec["seconds"] / (rec.get("steps") or 1)
            startup = max(0.0, rec["seconds"] - (rec.get("steps") or 1) * step_s)
            last = (T, startup, step_s)
            if fail is None:
                T = T * 2
        else:
            fail = T
    return ok, fail, best_rate


def main(argv):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="probes-", dir=os.path.abspath(a.out))
    deadline = time.monotonic() + a.time_budget
    results, summary = [], {}
    log(f"config {a.config}, systems {','.join(a.systems)}, start {a.start}, budget {a.time_budget:.0f} s, "
        f"probe limit {a.probe_timeout:.0f} s; logs in {folder}")
    for system in a.systems:
        summary[system] = search(a, system, deadline, folder, results)
    print(f"\n{'system':<16} {'longest ok':>11} {'tok/s there':>12} {'shortest failed':>16}  continue with")
    for system, (ok, fail, rate) in summary.items():
        cont = (f"--known-ok {system}={ok}" if ok else "") + (f" --known-fail {system}={fail}" if fail else "")
        print(f"{system:<16} {ok or '-':>11} {f'{rate:.0f}' if rate else '-':>12} {fail or '-':>16}  {cont}")
    oks = {s: v[0] for s, v in summary.items() if v[0]}
    if "slidedp" in oks and len(oks) > 1:
        for s, v in oks.items():
            if s != "slidedp":
                print(f"slidedp / {s}: {oks['slidedp'] / v:.2f}x the longest sequence")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
