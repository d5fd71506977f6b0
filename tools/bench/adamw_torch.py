#!/usr/bin/env python3
"""PyTorch peer baselines for bench_adamw (run by tools/bench/bench_adamw.sh).

Two measurements on CPU, one flat fp32 parameter of N elements, torch.set_num_threads(T),
AdamW(lr 1e-3, betas (0.9, 0.95), eps 1e-8, weight_decay 0.1, fused=True), median of --reps
steps after --warmup steps:

  kind=torch_adamw_fused     optimizer.step() alone on an existing fp32 gradient (reads 4 B of
                             gradient, no bf16 copy): torch's fused CPU AdamW kernel.
  kind=torch_pipeline G=g    what the leader's one fused pass replaces, done the torch way:
                             p.grad = slot_0 (+ slot_1 + ... : fp32 sum of G staging slots,
                             bf16 slots converted), optimizer.step(), bf16_copy.copy_(p)
                             (round-to-nearest-even). For G=1 f32 the slot is used as p.grad
                             directly (no copy).

Each prints "RESULT kind=... n=N threads=T seconds=S Gparams=X".
"""
import argparse
import statistics
import time

import torch


def parse_count(s: str) -> int:
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if s[-1].upper() in mult:
        return int(float(s[:-1]) * mult[s[-1].upper()])
    return int(float(s))


def timed(fn, warmup: int, reps: int) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=parse_count, default=256 << 20, help="parameters (K/M/G suffix)")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--slots", default="1,2,4", help="G values of the pipeline measurement")
    ap.add_argument("--dtypes", default="f32,bf16", help="gradient dtypes of the pipeline")
    ap.add_argument("--no-pipeline", action="store_true", help="only the bare fused step")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    n, t = args.n, args.threads

    p = torch.nn.Parameter(torch.randn(n) * 0.02)
    p.grad = torch.randn(n) * 1e-3
    opt = torch.optim.AdamW([p], lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1,
                            fused=True)
    s = timed(opt.step, args.warmup, args.reps)
    print(f"RESULT kind=torch_adamw_fused n={n} threads={t} seconds={s:.6f} "
          f"Gparams={n / s / 1e9:.3f} torch={torch.__version__}", flush=True)
    if args.no_pipeline:
        return

    copy = torch.empty(n, dtype=torch.bfloat16)
    grad_buf = p.grad
    slots_list = [int(x) for x in args.slots.split(",")]
    for dt in args.dtypes.split(","):
        dtype = torch.float32 if dt == "f32" else torch.bfloat16
        slots = [(torch.randn(n) * 1e-3).to(dtype) for _ in range(max(slots_list))]
        for g in slots_list:
            def step() -> None:
                if g == 1 and dtype == torch.float32:
                    p.grad = slots[0]
                else:
                    grad_buf.copy_(slots[0])
                    for x in slots[1:g]:
                        grad_buf.add_(x)
                    p.grad = grad_buf
                opt.step()
                copy.copy_(p)

            s = timed(step, args.warmup, args.reps)
            print(f"RESULT kind=torch_pipeline grad={dt} G={g} n={n} threads={t} "
                  f"seconds={s:.6f} Gparams={n / s / 1e9:.3f}", flush=True)
        del slots


if __name__ == "__main__":
    main()
