#!/usr/bin/env python3
"""What a checkpoint costs training: two runs of the same job, one without checkpoints and one
with --checkpoint-every K (tools/gpu-check.sh ckpt), compared step by step.

    ckpt_cost.py --checkpoint-bytes CONFIG.json
        prints the bytes of one checkpoint of that model shape (FP32 master, m, v: 12 B/param,
        plus 1 MiB of header and JSON), for the disk-space decision of the caller.
    ckpt_cost.py --base A.jsonl --run B.jsonl --log B.log [--target-pct 3]
        A, B: the runs' --metrics files (one JSON object per step, "step_s" and, in B,
        "checkpoint_wait_s"); B.log: the checkpoint run's output (its checkpoint lines).

The extra seconds of the checkpoint run over the steps from the first checkpoint on:
    sum over those steps of (B's step_s - the median step_s of A after its warm-up step)
  + the seconds each checkpoint took to start (the step line's caller was blocked)
  + the seconds a checkpoint still being written held the next one (the log says so)
  + the seconds the job waited after its last step for the last streamed checkpoint
divided by the checkpoints written, is the cost of one checkpoint; as a share of 100 steps of
A, it is what `--checkpoint-every 100` costs in throughput (issue 20's target: <= 3%).
The pre-checkpoint steps of B against A (steps 2..K) give the noise of the comparison.
The same sum against the checkpoint run's own steps before its first checkpoint (the later
half of them, past the staging pool's fault-in; the same process minutes earlier) is printed
beside it: on a machine whose speed drifts between runs the two differ, and the bench passes
only when both are within the target.
A third figure brackets the drift: the steps during the writes (from each checkpoint to the
first step logged after its "written to" line, in the log's line order) against the mean of two
medians, the run's own steps before the first checkpoint (as above) and its steps from 5 past
the last write's end to the last step (a write is fsync'ed before that line, so no page-cache
writeback follows it), plus start, held and end wait as above. A machine whose speed drifts
during a run (tools/bench/results/2026-12-03c-h200x1-ckpt-every100, pair 1: steps after the
write as slow as during it) moves the first two figures and not this one; it is printed and not
part of the pass decision (n/a when fewer than 5 steps lie from 5 past the last write's end to
the last step, or a write ended after the last step).
Prints a RESULT line (key=value) and a short table.

    ckpt_cost.py --summary COST1.txt COST2.txt ...
        the outputs of the above for interleaved pairs of runs (gpu-check.sh ckpt with
        SLIDEDP_CKPT_REPEATS=N): each pair's cost, then their median, minimum and maximum, in a
        RESULT line name=ckpt_cost_repeats; pass when the medians of both costs (against the base
        run and against the run's own steps) are within the target."""
import argparse
import json
import re
import statistics
import sys


def checkpoint_bytes(config_path):
    c = json.load(open(config_path))
    C, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    I = c["intermediate_size"]
    H = c["num_attention_heads"]
    KV = c.get("num_key_value_heads", H)
    hd = c.get("head_dim") or C // H
    per_layer = C * H * hd + 2 * C * KV * hd + H * hd * C + 3 * C * I + 2 * C
    if c.get("model_type") == "qwen3":
        per_layer += 2 * hd  # q_norm, k_norm
    if c.get("attention_bias"):
        per_layer += H * hd + 2 * KV * hd
    params = L * per_layer + V * C + C + (0 if c.get("tie_word_embeddings", False) else V * C)
    return params * 12 + (1 << 20)


def write_end_steps(log):
    """{checkpoint step: the first step logged after its "written to" line} from the run's log,
    in line order (one process writes both lines); a write with no step after it is absent."""
    events = [(m.group(1), m.group(2)) for m in re.finditer(
        r"^\[[^]]*\] .*?\] (?:step (\d+)/\d+ |checkpoint of step (\d+) written to )", log, re.M)]
    out, pending = {}, []
    for step, written in events:
        if written:
            pending.append(int(written))
        elif pending:
            for w in pending:
                out[w] = int(step)
            pending = []
    return out


def read_metrics(path):
    out = {}
    for line in open(path):
        line = line.strip()
        if line:
            j = json.loads(line)
            out[int(j["step"])] = j
    return out


def summary(paths):
    rows = []
    for path in paths:
        found = None
        for line in open(path, errors="replace"):
            if line.startswith("RESULT name=ckpt_cost"):
                found = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if found is None:
            print(f"ckpt_cost.py: {path} has no RESULT line (that pair failed)", file=sys.stderr)
            return 1
        rows.append(found)
    target = float(rows[0].get("target_pct", 3))
    print("pair  step_s  own_step_s  pct_of_100_steps  pct_of_100_own_steps  pct_of_100_bracketed_steps  write_s")
    for i, r in enumerate(rows, 1):
        print(f"{i:4d}  {float(r['step_s']):6.3f}  {float(r['own_step_s']):10.3f}  "
              f"{float(r['pct_of_100_steps']):16.2f}  {float(r['pct_of_100_own_steps']):20.2f}  "
              f"{float(r.get('pct_of_100_bracketed_steps', 'nan')):26.2f}  {float(r['write_s']):7.2f}")
    out = []
    medians = []
    for key in ("pct_of_100_steps", "pct_of_100_own_steps", "pct_of_100_bracketed_steps"):
        v = [float(r[key]) for r in rows if key in r and r[key] != "nan"]
        if not v:
            continue
        m = statistics.median(v)
        if key != "pct_of_100_bracketed_steps":  # information, not the pass decision
            medians.append(m)
        out.append(f"median_{key}={m:.2f} min_{key}={min(v):.2f} max_{key}={max(v):.2f}")
    print(f"RESULT name=ckpt_cost_repeats pairs={len(rows)} {' '.join(out)} target_pct={target:g} "
          f"pass={'yes' if max(medians) <= target else 'no'}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint-bytes", metavar="CONFIG")
    ap.add_argument("--base")
    ap.add_argument("--run")
    ap.add_argument("--log")
    ap.add_argument("--target-pct", type=float, default=3.0)
    ap.add_argument("--label", default="")
    ap.add_argument("--summary", nargs="+", metavar="COST.txt")
    a = ap.parse_args()
    if a.summary:
        return summary(a.summary)
    if a.checkpoint_bytes:
        print(checkpoint_bytes(a.checkpoint_bytes))
        return 0
    if not (a.base and a.run and a.log):
        ap.error("--base, --run and --log are needed (or --checkpoint-bytes CONFIG)")
    A, B = read_metrics(a.base), read_metrics(a.run)
    log = open(a.log, errors="replace").read()
    starts = {int(m.group(1)): float(m.group(2)) for m in re.finditer(
        r"checkpoint of step (\d+): (?:streaming to \S+ while training continues \(([0-9.]+) s to start\))", log)}
    blocking = {int(m.group(1)): float(m.group(2)) for m in re.finditer(
        r"checkpoint of step (\d+): training stopped ([0-9.]+) s for it", log)}
    written = [(int(m.group(1)), m.group(2), float(m.group(3)),
                float(m.group(4)) * (1e-3 if m.group(5) == "MB" else 1.0), m.group(6) or "0 B",
                float(m.group(7) or 0)) for m in re.finditer(
        r"checkpoint of step (\d+) written to \S+ \((\S+ \S+) in ([0-9.]+) s to the fsync, ([0-9.]+) (GB|MB)/s"
        r"(?:; (\S+ \S+) of it copied to staging memory in ([0-9.]+) s)?", log)]
    held = sum(float(x) for x in re.findall(r"held training ([0-9.]+) s before the checkpoint", log))
    end_wait = sum(float(x) for x in re.findall(r"waited ([0-9.]+) s after the last step for the streamed", log))
    ckpt_steps = sorted(set(starts) | set(blocking))
    if not ckpt_steps:
        print("ckpt_cost.py: the checkpoint run's log names no checkpoint", file=sys.stderr)
        return 1
    first = ckpt_steps[0]
    base_steps = [A[s]["step_s"] for s in sorted(A) if s >= 2]
    if not base_steps:
        print("ckpt_cost.py: the run without checkpoints has no step after its warm-up", file=sys.stderr)
        return 1
    base = statistics.median(base_steps)
    window = [s for s in sorted(B) if s > first]
    steps_extra = sum(B[s]["step_s"] - base for s in window)
    ckpt_wait = sum(B[s].get("checkpoint_wait_s", 0.0) for s in window)
    start_s = sum(starts.values()) + sum(blocking.values())
    extra = steps_extra + start_s + held + end_wait
    n = len(ckpt_steps)
    per = extra / n
    pct = 100.0 * per / (100.0 * base)
    own_steps = [B[s]["step_s"] for s in sorted(B) if max(2, first // 2) <= s <= first]
    own = statistics.median(own_steps) if own_steps else float("nan")
    extra_own = sum(B[s]["step_s"] - own for s in window) + start_s + held + end_wait
    pct_own = 100.0 * extra_own / n / (100.0 * own)
    # Drift bracketed: the steps during the writes against the mean of before and after them.
    ends = write_end_steps(log)
    during = [s for s in sorted(B) if any(c < s <= ends.get(c, 10**12) for c in ckpt_steps)]
    last_end = max(ends.get(c, 10**12) for c in ckpt_steps)
    post_steps = [B[s]["step_s"] for s in sorted(B) if s >= last_end + 5]
    if len(post_steps) >= 5 and own_steps:
        post = statistics.median(post_steps)
        bracket = 0.5 * (own + post)
        extra_br = sum(B[s]["step_s"] - bracket for s in during) + start_s + held + end_wait
        pct_br = 100.0 * extra_br / n / (100.0 * bracket)
        spans = []  # the during steps as ranges: "11-21" or "11-21, 31-41"
        for s in during:
            if spans and s == spans[-1][1] + 1:
                spans[-1][1] = s
            else:
                spans.append([s, s])
        bracket_text = (f"drift bracketed: steps {', '.join(f'{a}-{b}' for a, b in spans) or '-'} "
                        f"(during the write{'s' if n > 1 else ''}) against the mean of the medians of the "
                        f"run's own steps before ({own:.3f} s) and {last_end + 5}-{max(B)} after "
                        f"({post:.3f} s): {extra_br:.2f} extra seconds, {pct_br:.2f}% of 100 steps")
    else:
        post, bracket, pct_br = float("nan"), float("nan"), float("nan")
        bracket_text = ("drift bracketed: n/a (fewer than 5 steps from 5 past the last write's end, "
                        "or a write ended after the last step)")
    pre = [B[s]["step_s"] - base for s in sorted(B) if 2 <= s <= first]
    noise = statistics.pstdev(pre) if len(pre) > 1 else float("nan")
    print("step  base_s   ckpt_run_s  ckpt-wait_s")
    for s in sorted(B):
        mark = " <- checkpoint" if s in ckpt_steps else ""
        print(f"{s:4d}  {A.get(s, {}).get('step_s', float('nan')):7.3f}  {B[s]['step_s']:10.3f}  "
              f"{B[s].get('checkpoint_wait_s', 0.0):10.3f}{mark}")
    for step, size, sec, rate, staged, copy_s in written:
        print(f"checkpoint of step {step}: {size} written and fsync'ed in {sec:.2f} s ({rate:.2f} GB/s); "
              f"{staged} copied to staging memory in {copy_s:.2f} s")
    write_s = statistics.mean(w[2] for w in written) if written else float("nan")
    rate = statistics.mean(w[3] for w in written) if written else float("nan")
    print(f"extra seconds: steps {steps_extra:.2f} (of which the leader's ckpt-wait {ckpt_wait:.2f}) + "
          f"start {start_s:.2f} + held by the previous {held:.2f} + end wait {end_wait:.2f} = {extra:.2f} "
          f"for {n} checkpoint(s); step noise before the first checkpoint {noise:.3f} s/step")
    print(f"against the checkpoint run's own steps {max(2, first // 2)}-{first} (median {own:.3f} s): "
          f"{extra_own:.2f} extra seconds, {pct_own:.2f}% of 100 steps")
    print(bracket_text)
    print(f"RESULT name=ckpt_cost{(' ' + a.label) if a.label else ''} checkpoints={n} every={first} "
          f"step_s={base:.3f} write_s={write_s:.2f} write_GBps={rate:.2f} ckpt_wait_s={ckpt_wait / n:.2f} "
          f"per_checkpoint_s={per:.2f} pct_of_100_steps={pct:.2f} own_step_s={own:.3f} "
          f"pct_of_100_own_steps={pct_own:.2f} post_step_s={post:.3f} "
          f"pct_of_100_bracketed_steps={pct_br:.2f} target_pct={a.target_pct:g} "
          f"pass={'yes' if max(pct, pct_own) <= a.target_pct else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
