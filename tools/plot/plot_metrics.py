#!/usr/bin/env python3
"""plot_metrics.py: draws a training run's per-step metrics (the JSONL `slidedp_worker
--metrics FILE` writes, or a CSV with the same columns) into one PNG:

  (a) loss vs step, the held-out loss (eval_loss, from --eval-data) where evaluated, with the
      learning rate on a twin axis;
  (b) the step-time breakdown, per step: two stacked bars side by side, the workers' timeline
      (fwd, head, bwd, H2D, D2H, version wait, hand-off wait; each the max over workers) and
      the leader's (update, wait), with the step's wall time as a black tick.

The one decision a reader needs: the workers' and the leader's times are drawn as separate
stacks because they run concurrently; stacking all of them in one bar would add up to more
than the step. Segments of a sweep (the 'variant' column, or delivery/reduction) are
labelled.

  /root/.cache/slidedp/venv/bin/python tools/plot/plot_metrics.py METRICS.jsonl [--out loss.png]
"""
import argparse
import csv
import json
import math
import os
import sys

REQUIRED = ["step", "loss", "step_s"]
WORKER_PARTS = [("fwd_s", "fwd"), ("head_s", "head"), ("bwd_s", "bwd"), ("h2d_s", "H2D"),
                ("d2h_s", "D2H"), ("version_wait_s", "version wait"),
                ("handoff_wait_s", "hand-off wait")]
LEADER_PARTS = [("leader_update_s", "leader update"), ("leader_wait_s", "leader wait")]
NUMERIC = REQUIRED + ["lr", "grad_norm", "tokens_per_s", "tflops_per_gpu", "eval_loss", "eval_ppl"] + \
    [k for k, _ in WORKER_PARTS + LEADER_PARTS]


class InputError(Exception):
    def __init__(self, msg, hint=None):
        super().__init__(msg)
        self.hint = hint


def load(path):
    """Rows as dicts (numbers as float, delivery/reduction as str), sorted by step."""
    if not os.path.isfile(path):
        raise InputError(f"{path} does not exist",
                         "write it with slidedp_worker --metrics FILE (rank 0 writes it)")
    with open(path, newline="") as f:
        text = f.read()
    if not text.strip():
        raise InputError(f"{path} is empty (no steps)",
                         "did the run finish a step? the file gets one line per optimizer step")
    rows = []
    first = text.lstrip()[0]
    if first == "{":
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: not a JSON object ({e.msg})",
                                 "expected one JSON object per line (JSONL)")
            if not isinstance(obj, dict):
                raise InputError(f"{path}:{lineno}: a JSON {type(obj).__name__}, not an object")
            rows.append(obj)
    else:
        reader = csv.DictReader(text.splitlines())
        rows = [dict(r) for r in reader]
        if not rows:
            raise InputError(f"{path}: a CSV header but no rows")
    have = set(rows[0])
    for i, r in enumerate(rows):
        missing = [k for k in REQUIRED if k not in r or r[k] in ("", None)]
        if missing:
            raise InputError(f"{path}: row {i + 1} lacks column(s) {', '.join(missing)}"
                             f" (it has: {', '.join(sorted(r)) or 'none'})",
                             "the file should come from slidedp_worker --metrics (keys step, loss, "
                             "lr, step_s, fwd_s, ...)")
        have &= set(r)
        for k in NUMERIC:
            if k in r and r[k] not in ("", None):
                try:
                    r[k] = float(r[k])
                except (TypeError, ValueError):
                    raise InputError(f"{path}: row {i + 1}: {k}='{r[k]}' is not a number")
            else:
                r.pop(k, None)
    parts = [p for p in WORKER_PARTS + LEADER_PARTS if p[0] in have]
    if not parts:
        raise InputError(f"{path}: none of the time-breakdown columns "
                         f"({', '.join(k for k, _ in WORKER_PARTS + LEADER_PARTS)})")
    rows.sort(key=lambda r: r["step"])
    return rows, have


def route_segments(rows):
    """[(first index, last index, label)] for runs of rows with the same sweep variant (the
    'variant' column, else 'delivery/reduction')."""
    segs = []
    for i, r in enumerate(rows):
        name = str(r.get("variant") or
                   f"{r.get('delivery', '')}/{r.get('reduction', '')}".strip("/"))
        if segs and segs[-1][2] == name:
            segs[-1][1] = i
        else:
            segs.append([i, i, name])
    return [s for s in segs if s[2]]


def plot(rows, have, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in rows]
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(12.5, 8), sharex=True,
                                 gridspec_kw={"height_ratios": [1, 1.2]})
    # (a) loss and lr
    ax.plot(steps, [r["loss"] for r in rows], "o-", color="tab:blue", ms=3, label="loss")
    ev = [(r["step"], r["eval_loss"]) for r in rows if "eval_loss" in r]
    if ev:
        ax.plot([s for s, _ in ev], [l for _, l in ev], "s-", color="tab:green", ms=5,
                label="held-out loss (eval)")
    ax.set_ylabel("loss")
    ax.grid(alpha=0.3)
    handles = ax.get_lines()[:]
    if "lr" in have:
        lx = ax.twinx()
        handles += lx.plot(steps, [r["lr"] for r in rows], "--", color="tab:orange", label="lr")
        lx.set_ylabel("learning rate")
        lx.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    ax.legend(handles, [h.get_label() for h in handles], loc="upper left", bbox_to_anchor=(1.07, 1))
    for si, (a, b, name) in enumerate(route_segments(rows)):
        ax.axvspan(steps[a] - 0.5, steps[b] + 0.5, alpha=0.08, color="tab:gray" if si % 2 else "tab:blue")
        ax.text((steps[a] + steps[b]) / 2, 1.01, name, transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=8)
    ax.set_title(title, pad=16)

    # (b) time breakdown: worker stack (left) and leader stack (right) per step
    width = 0.38
    colors = plt.get_cmap("tab10").colors
    groups = [([p for p in WORKER_PARTS if p[0] in have], -width / 2),
              ([p for p in LEADER_PARTS if p[0] in have], width / 2)]
    ci = 0
    for parts, off in groups:
        if not parts:
            continue
        bottom = [0.0] * len(rows)
        for key, label in parts:
            vals = [max(0.0, r.get(key, 0.0)) for r in rows]
            bx.bar([s + off for s in steps], vals, width, bottom=bottom, label=label,
                   color=colors[ci % len(colors)])
            bottom = [b + v for b, v in zip(bottom, vals)]
            ci += 1
    bx.scatter(steps, [r["step_s"] for r in rows], marker="_", s=400, color="k", zorder=3,
               label="step (wall)")
    bx.set_xlabel("step")
    bx.set_ylabel("seconds  (left bar: workers, right bar: leader)")
    bx.grid(axis="y", alpha=0.3)
    bx.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    if "tokens_per_s" in have:
        tps = sorted(r["tokens_per_s"] for r in rows)
        med = tps[len(tps) // 2]
        bx.set_title(f"step-time breakdown, each part the max over ranks, parts may overlap "
                     f"(median {med:,.0f} tokens/s)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("metrics", help="per-step JSONL (slidedp_worker --metrics) or CSV")
    ap.add_argument("--out", help="PNG to write (default: METRICS with .png)")
    ap.add_argument("--title", help="figure title (default: the file name)")
    a = ap.parse_args(argv)
    out = a.out or os.path.splitext(a.metrics)[0] + ".png"
    try:
        rows, have = load(a.metrics)
        if not any(math.isfinite(r["loss"]) for r in rows):
            raise InputError(f"{a.metrics}: no finite loss in {len(rows)} row(s)")
        plot(rows, have, out, a.title or os.path.basename(a.metrics))
    except InputError as e:
        print(f"plot_metrics: error: {e}", file=sys.stderr)
        if e.hint:
            print(f"HINT: {e.hint}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"plot_metrics: error: {e}", file=sys.stderr)
        print("HINT: use the project's venv: ~/.cache/slidedp/venv/bin/python (tools/setup.sh "
              "creates it; it has matplotlib)", file=sys.stderr)
        return 2
    print(f"plot_metrics: {len(rows)} step(s) from {a.metrics} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
