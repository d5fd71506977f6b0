#!/usr/bin/env python3
"""test_peer_bench.py: the peer comparison (tools/bench/compare.py, peer_train.py, peers.sh)
without a GPU, in three parts (CTest runs each as its own test):

  report  (default)  the FLOPs formulas (full and causal) against hand-computed values; the
          Liger systems in the tables, the default lists of compare.py / peers.sh / gpu-check;
          --fit-micro's micro-batches after an out-of-memory (every divisor of the rows);
          --from-results on synthetic rows: the best FSDP2 variant is the max over every FSDP2
          system and batch, the per-peer and per-family geometric means, the causal TFLOPS/MFU
          columns in table, CSV and JSONL, the long-sequence (several T, batch 1) ratio lines
          and plot; --time-budget leaves runs out as not_run; a config whose
          max_position_embeddings is below T is copied with it raised; peer_train.apply_liger
          calls Liger's patch of the config's model_type with the issue's arguments (a stand-in
          liger_kernel package); clear errors for bad input.
  liger   the real Liger-Kernel patch (the wheel in <repo>/.whl or an installed liger_kernel):
          peer_train's FSDP2 set-up (with AC) on the patched model completes on a CPU rank;
          the model built after peer_train.apply_liger has LigerRMSNorm, LigerSwiGLUMLP, Liger's
          rope and fused linear cross-entropy forward, the same parameter count (so the same
          FLOPs) and initialises under peer_train's rules. Exit 77 (CTest: skipped) without it.
  cpu-run compare.py end to end on CPU ranks (qwen3-tiny, two sequence lengths, fsdp2 and
          fsdp2_ac through torchrun; slidedp too when a worker binary is given): ok rows with
          both TFLOPS figures from the peers' own records, per-T logs and the summary.

  tests/launcher/test_peer_bench.py [report|liger|cpu-run [SLIDEDP_WORKER]]   (run with a
  Python that has torch, transformers and matplotlib, e.g. the venv's)
"""
import csv
import glob
import importlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "tools", "bench")
COMPARE = os.path.join(BENCH, "compare.py")
PEER_TRAIN = os.path.join(BENCH, "peer_train.py")
TINY = os.path.join(ROOT, "tools", "configs", "qwen3-tiny.json")
QWEN3_4B = os.path.join(ROOT, "tools", "configs", "qwen3-4b.json")
sys.path.insert(0, BENCH)
import compare  # noqa: E402
import peer_train  # noqa: E402


def run(args, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, env=e,
                          timeout=timeout, cwd=ROOT)


def row(system, T, B, tok_s, **kw):
    """A results.jsonl row as compare.py writes it, with the qwen3-4b shape, measured at tok_s."""
    N, L, H, D = compare.model_shape(json.load(open(QWEN3_4B)))
    r = {"system": system, "status": "ok", "global_batch": B, "seq_len": T, "G": 1,
         "model_params": N, "layers": L, "heads": H, "head_dim": D,
         "step_s": B * T / tok_s, "micro_batch": None if system == "slidedp" else B,
         "accum": None if system == "slidedp" else 1, "mfu": 0.0 if system != "slidedp" else None,
         "gpu_peak_bytes": 80 << 30, "host_peak_bytes": 2 << 30}
    r.update(kw)
    return r


def render(rows, meta=None):
    d = tempfile.mkdtemp(prefix="peer-bench-")
    with open(os.path.join(d, "results.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(dict({"device": "cuda", "config": "tools/configs/qwen3-4b.json", "G": 1,
                        "warmup": 1, "steps": 2}, **(meta or {})), f)
    p = run([COMPARE, "--from-results", d])
    return d, p


class Formulas(unittest.TestCase):
    def test_flops_full_and_causal(self):
        # qwen3-4b: N from the config formula, checked against the count the 2026-12-01 run
        # printed for the transformers model (4022468096)
        N, L, H, D = compare.model_shape(json.load(open(QWEN3_4B)))
        self.assertEqual((N, L, H, D), (4022468096, 36, 32, 128))
        T, tokens = 4096, 8 * 4096
        full = 6 * N * tokens + 12 * L * H * D * T * tokens
        causal = 6 * N * tokens + 6 * L * H * D * T * tokens
        for mod in (compare, peer_train):
            self.assertEqual(mod.flops_per_step(N, L, H, D, T, tokens), full)
            self.assertEqual(mod.flops_per_step(N, L, H, D, T, tokens, causal=True), causal)
        # the causal half matters at long T: at 128K the score FLOPs exceed the matmuls'
        T = 131072
        self.assertGreater(12 * L * H * D * T, 6 * N)

    def test_derive(self):
        r = row("fsdp2_liger", 4096, 8, 17091.0)
        compare.derive(r)
        tokens = 8 * 4096
        N, L, H, D = r["model_params"], 36, 32, 128
        tf = (6 * N * tokens + 12 * L * H * D * 4096 * tokens) / r["step_s"] / 1e12
        tfc = (6 * N * tokens + 6 * L * H * D * 4096 * tokens) / r["step_s"] / 1e12
        self.assertAlmostEqual(r["tokens_per_s"], 17091.0, places=6)
        self.assertAlmostEqual(r["tflops_per_gpu"], tf, places=9)
        self.assertAlmostEqual(r["tflops_per_gpu_causal"], tfc, places=9)
        self.assertAlmostEqual(r["mfu"], tf / 989.4, places=12)
        self.assertAlmostEqual(r["mfu_causal"], tfc / 989.4, places=12)
        # the issue's table: 17,091 tok/s of the 4B shape is 536 TFLOPS/GPU (full formula)
        self.assertEqual(round(r["tflops_per_gpu"]), 536)
        cpu = compare.derive(row("fsdp2", 64, 2, 100.0), peak_known=False)
        self.assertIsNone(cpu["mfu"])
        self.assertIsNone(cpu["mfu_causal"])
        self.assertIsNotNone(cpu["tflops_per_gpu_causal"])


class Systems(unittest.TestCase):
    def test_liger_peers(self):
        P = compare.PEERS
        self.assertEqual(P["fsdp2_liger"], ["--system", "fsdp2", "--liger"])
        self.assertEqual(sorted(P["fsdp2_liger_ac"]), sorted(["--system", "fsdp2", "--ac", "--liger"]))
        self.assertEqual(P["deepspeed_liger"], ["--system", "deepspeed", "--liger"])
        self.assertIn("--zero-stage", P["deepspeed_z3_liger_ac"])
        for name, args in P.items():  # the name says what runs
            self.assertEqual("_liger" in name, "--liger" in args, name)
            self.assertEqual(name.endswith("_ac"), "--ac" in args, name)
        for s in ("fsdp2", "fsdp2_ac", "fsdp2_liger", "fsdp2_liger_ac", "fsdp2_offload_liger"):
            self.assertIn(s, compare.FSDP2_PEAK_FROM)
        self.assertNotIn("deepspeed_liger", compare.FSDP2_PEAK_FROM)
        # peer_train's default record name is the compare.py system name
        for name, args in P.items():
            a = peer_train.parse_args(args + ["--config", QWEN3_4B, "--device", "cuda"])
            self.assertEqual(a.name, name)

    def test_fit_micro_tries_every_divisor_of_the_rows(self):
        # --fit-micro after an out-of-memory at micro-batch m: the largest divisor of the
        # rank's rows below m, so batch 12 reaches micro-batches 4, 2 and 1 (halving stopped
        # at 3), the global batch and tokens per step unchanged; a later batch starts below
        # the smallest that ran out (8 ran out: 16 rows start at 4, 12 rows at 6)
        steps, m = [], 12
        while m > 1:
            m = peer_train.micro_within(m - 1, 12)
            steps.append(m)
        self.assertEqual(steps, [6, 4, 3, 2, 1])
        self.assertEqual(peer_train.micro_within(7, 8), 4)
        self.assertEqual(peer_train.micro_within(2, 9), 1)
        self.assertEqual(peer_train.micro_within(7, 16), 4)
        self.assertEqual(peer_train.micro_within(7, 12), 6)
        self.assertEqual(peer_train.micro_within(8, 16), 8)
        self.assertEqual(peer_train.micro_within(6, 4), 4)
        self.assertEqual(peer_train.micro_within(1, 7), 1)
        # end to end on a CPU rank, the simulated out-of-memory above a micro-batch size: batch
        # 8 runs out at 8 and 4 and fits 2; 12 then starts at 3 (4 ran out), 16 at 2
        out = os.path.join(tempfile.mkdtemp(), "fit.jsonl")
        p = run(["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "1", PEER_TRAIN,
                 "--system", "fsdp2", "--config", TINY, "--seq-len", "32", "--global-batches",
                 "12,16,8", "--steps", "1", "--warmup", "0", "--device", "cpu", "--dtype", "fp32",
                 "--out", out, "--fit-micro"],
                env={"SLIDEDP_BENCH_SIMULATE_OOM": "12>4,8>2", "OMP_NUM_THREADS": "1"}, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("batch 8: micro-batch 4 ran out of memory; again with 2 x accum 4", p.stdout + p.stderr)
        got = {}
        for line in open(out):
            r = json.loads(line)
            got[r["global_batch"]] = (r["micro_batch"], r["accum"], r["status"])
        self.assertEqual(got, {8: (2, 4, "ok"), 12: (3, 4, "ok"), 16: (2, 8, "ok")})

    def test_simulated_oom_items_and_malformed_ones(self):
        # the testing hook's forms, and a malformed item a usage error naming it, not a traceback
        self.assertEqual(peer_train.simulated_oom_items(" 8, 12>4 ,16@1,4>2@0,"),
                         [(8, None, None), (12, None, 4), (16, 1, None), (4, 0, 2)])
        for bad in ("8>x", "x", "8@y", "8>4@", "-8", "\u00b2"):
            with self.assertRaises(peer_train.UsageError) as e:
                peer_train.simulated_oom_items(bad)
            self.assertIn(f"item '{bad}'", str(e.exception))
        p = run([PEER_TRAIN, "--system", "fsdp2", "--config", TINY, "--seq-len", "32", "--global-batches",
                 "8", "--device", "cpu", "--dtype", "fp32", "--out", os.devnull],
                env={"SLIDEDP_BENCH_SIMULATE_OOM": "8>x"}, timeout=120)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("SLIDEDP_BENCH_SIMULATE_OOM item '8>x' is malformed", p.stderr)
        self.assertIn("HINT: its items are B, B@RANK", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_default_lists_agree(self):
        d = compare.DEFAULT_SYSTEMS.split(",")
        for s in ("slidedp", "fsdp2", "fsdp2_liger", "fsdp2_liger_ac", "deepspeed_liger"):
            self.assertIn(s, d)
        self.assertTrue(all(s in compare.SYSTEMS for s in d))
        sh = open(os.path.join(BENCH, "peers.sh")).read()
        m = re.search(r'^device=cuda systems="([^"]*)"', sh, re.M)
        self.assertIsNotNone(m, "peers.sh: no default systems line")
        self.assertEqual(m.group(1), compare.DEFAULT_SYSTEMS)
        # gpu-check's peers step passes no --systems of its own: it runs compare.py's default
        gc = open(os.path.join(ROOT, "tools", "gpu-check.sh")).read()
        peers_step = gc[gc.index("do_peers() {"):gc.index("do_main() {")]
        self.assertNotIn("--systems", peers_step.replace("${SLIDEDP_PEERS_ARGS:-}", ""))


class PlannedPolicy(unittest.TestCase):
    """--slidedp-policy auto: each batch's job, and the policy its log says --policy auto chose."""

    def test_reads_the_jobs_choice(self):
        d = tempfile.mkdtemp(prefix="peer-bench-policy-")
        log = os.path.join(d, "slidedp-B4.log")
        with open(log, "w") as f:  # the format of src/apps/train_job.cpp's plan line
            f.write("[23:06:14.197] [leader 0/2] [info] policy auto: replicated/cpu c16M r4 K3 "
                    "mball keep36/36 t14 tail21 (predicted 1.598 s/step, 10253 tokens/s, bound by "
                    "host-mem; 288 of 288 policies fit; machine: calibration cache x.json)\n"
                    "  = --delivery replicated --reduction cpu --chunk-numel 16777216 --ring-slots "
                    "4 --window 3 --micro-batch-rows 0 --gradient-accumulation-steps 2 "
                    "--activations keep --leader-threads 14 --update-tail-units 21\n")
        label, flags = compare.planned_policy(log)
        self.assertEqual(label, "replicated/cpu c16M r4 K3 mball keep36/36 t14 tail21")
        self.assertEqual(compare.flag_value(flags, "--update-tail-units"), 21)
        self.assertEqual(compare.flag_value(flags, "--gradient-accumulation-steps"), 2)
        self.assertIsNone(compare.flag_value(flags, "--max-kept-layers"))
        with open(log, "w") as f:
            f.write("[info] step 1/3 | replicated/cpu@4 | loss 5.0\n")
        self.assertIsNone(compare.planned_policy(log))
        self.assertIsNone(compare.planned_policy(os.path.join(d, "missing.log")))

    def test_one_job_per_batch_without_a_sweep(self):
        o = compare.parse_args(["--config", TINY, "--device", "cpu", "--batches", "2,4",
                                "--systems", "slidedp,fsdp2", "--slidedp-policy", "auto",
                                "--out", tempfile.mkdtemp()])
        cmd = compare.slidedp_command(o, "m.jsonl", 64, 4)
        self.assertNotIn("--route-sweep", cmd)
        self.assertNotIn("--policy", cmd)
        self.assertEqual(cmd[cmd.index("--batch-size") + 1], "4")
        sweep = compare.slidedp_command(o, "m.jsonl", 64)
        route = compare.slidedp_route(o)
        self.assertEqual(sweep[sweep.index("--route-sweep") + 1], f"{route}@2,{route}@4")


class Report(unittest.TestCase):
    def sweep(self):
        rows = []
        tok = {"slidedp": (10756, 14548, 13908), "fsdp2": (12562, 12656, 12707),
               "fsdp2_ac": (10780, 11081, 11147), "fsdp2_liger": (16500, 17091, 18289),
               "fsdp2_liger_ac": (15000, 15606, 15800), "deepspeed": (5117, 6218, 8906),
               "deepspeed_liger": (5500, 6900, 9500)}
        for s, v in tok.items():
            for B, t in zip((4, 8, 16), v):
                rows.append(row(s, 4096, B, float(t), liger="liger" in s))
        return rows, tok

    def test_best_fsdp2_variant_and_geomeans(self):
        rows, tok = self.sweep()
        d, p = render(rows)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = open(os.path.join(d, "summary.txt")).read()
        # the max over every FSDP2 variant and batch: fsdp2_liger at 16 (micro 16 x 1 here)
        self.assertIn("best FSDP2 variant (max over every global batch of fsdp2, fsdp2_ac, "
                      "fsdp2_liger, fsdp2_liger_ac): 18289 tok/s (fsdp2_liger, global batch 16",
                      text)
        self.assertIn(f"slidedp best / best FSDP2 variant = {14548 / 18289:.3f}", text)
        g = math.exp(sum(math.log(a / b) for a, b in zip(tok["slidedp"], tok["deepspeed_liger"])) / 3)
        self.assertIn(f"geomean slidedp/deepspeed_liger over global batches 4,8,16 (both ok): "
                      f"{g:.3f}", text)
        best = [max(tok[s][i] for s in tok if s.startswith("fsdp2")) for i in range(3)]
        gf = math.exp(sum(math.log(a / b) for a, b in zip(tok["slidedp"], best)) / 3)
        self.assertIn(f"geomean slidedp / FSDP2 (any variant) at its best setting per batch "
                      f"(4: fsdp2_liger, 8: fsdp2_liger, 16: fsdp2_liger): {gf:.3f}", text)
        bestd = [max(tok[s][i] for s in ("deepspeed", "deepspeed_liger")) for i in range(3)]
        gd = math.exp(sum(math.log(a / b) for a, b in zip(tok["slidedp"], bestd)) / 3)
        self.assertIn(f"geomean slidedp / DeepSpeed ZeRO-Offload (eager or Liger) at its best "
                      f"setting per batch (4: deepspeed_liger, 8: deepspeed_liger, 16: "
                      f"deepspeed_liger): {gd:.3f}", text)
        # both formulas are stated, both columns are in the table, CSV and JSONL
        self.assertIn("6·N·tokens + 12·L·H·D·T·tokens", text)
        self.assertIn("6·N·tokens + 6·L·H·D·T·tokens", text)
        self.assertIn("TF causal", text)
        with open(os.path.join(d, "results.csv")) as f:
            got = list(csv.DictReader(f))
        self.assertEqual(len(got), len(rows))
        for r in got:
            B, T = int(r["global_batch"]), int(r["seq_len"])
            st = float(r["step_s"])
            N = int(r["model_params"])
            full = (6 * N + 12 * 36 * 32 * 128 * T) * B * T / st / 1e12
            causal = (6 * N + 6 * 36 * 32 * 128 * T) * B * T / st / 1e12
            self.assertAlmostEqual(float(r["tflops_per_gpu"]), full, places=6)
            self.assertAlmostEqual(float(r["tflops_per_gpu_causal"]), causal, places=6)
            self.assertAlmostEqual(float(r["mfu_causal"]), causal / 989.4, places=9)
        jl = [json.loads(x) for x in open(os.path.join(d, "results.jsonl"))]
        self.assertTrue(all(r.get("tflops_per_gpu_causal") for r in jl))
        self.assertEqual({r["system"]: r["liger"] for r in jl}["fsdp2_liger_ac"], True)
        self.assertGreater(os.path.getsize(os.path.join(d, "throughput.png")), 20000)

    def test_step_spread_column(self):
        # two timed steps 1.375 and 1.625 s (median 1.5): spread (1.625 - 1.375) / 1.5 = 16.7%
        uneven = row("slidedp", 4096, 4, 4 * 4096 / 1.5, step_times=[1.375, 1.625])
        single = row("deepspeed_liger", 4096, 4, 5990.0, step_times=[2.735])
        d, p = render([uneven, single])
        self.assertEqual(p.returncode, 0, p.stderr)
        text = open(os.path.join(d, "summary.txt")).read()
        self.assertIn("spread%", text)
        lines = {ln.split()[0]: ln for ln in text.splitlines()
                 if ln.split()[:2] in (["slidedp", "4096"], ["deepspeed_liger", "4096"])}
        cols = lines["slidedp"].split()
        self.assertEqual(cols[cols.index("1.500") + 1], "16.7")
        cols = lines["deepspeed_liger"].split()
        self.assertEqual(cols[cols.index("2.735") + 1], "-")  # one timed step: no spread

    def test_published_results_rerender_with_causal_columns(self):
        src = os.path.join(ROOT, "tools", "bench", "results", "2026-12-01-h200x1-qwen3-4b")
        rows = [json.loads(x) for x in open(os.path.join(src, "results.jsonl"))]
        meta = json.load(open(os.path.join(src, "meta.json")))
        d, p = render(rows, meta)
        self.assertEqual(p.returncode, 0, p.stderr)
        jl = [json.loads(x) for x in open(os.path.join(d, "results.jsonl"))]
        ok = [r for r in jl if r["status"] == "ok"]
        self.assertEqual(len(ok), 14)
        for r in ok:  # causal < full, by the share of the score FLOPs
            self.assertLess(r["tflops_per_gpu_causal"], r["tflops_per_gpu"])
            self.assertIsNotNone(r["mfu_causal"])

    def test_long_sequences(self):
        rows = [row("slidedp", 65536, 1, 5123.0), row("fsdp2_liger_ac", 65536, 1, 4819.0),
                row("slidedp", 131072, 1, 2699.0), row("fsdp2_liger_ac", 131072, 1, 2681.0)]
        d, p = render(rows)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = open(os.path.join(d, "summary.txt")).read()
        self.assertIn("T = 65536:", text)
        self.assertIn("T = 131072:", text)
        self.assertIn(f"slidedp/fsdp2_liger_ac at global batch 1: {5123 / 4819:.3f} "
                      "(5123 / 4819 tok/s)", text)
        self.assertIn(f"slidedp/fsdp2_liger_ac by sequence length: T 65536 @ 1: "
                      f"{5123 / 4819:.3f}, T 131072 @ 1: {2699 / 2681:.3f}", text)
        jl = [json.loads(x) for x in open(os.path.join(d, "results.jsonl"))]
        for r in jl:  # at 128K the causal figure is far below the full one
            share = r["tflops_per_gpu_causal"] / r["tflops_per_gpu"]
            T = r["seq_len"]
            N = r["model_params"]
            want = (6 * N + 6 * 36 * 32 * 128 * T) / (6 * N + 12 * 36 * 32 * 128 * T)
            self.assertAlmostEqual(share, want, places=12)
        self.assertGreater(os.path.getsize(os.path.join(d, "throughput.png")), 20000)


class Driver(unittest.TestCase):
    """compare.py's driver without running a system (a budget too small for any run)."""

    def test_time_budget_and_raised_max_position(self):
        d = tempfile.mkdtemp(prefix="peer-bench-")
        cfg = json.load(open(TINY))
        cfg["max_position_embeddings"] = 48
        small = os.path.join(d, "tiny48.json")
        json.dump(cfg, open(small, "w"))
        out = os.path.join(d, "out")
        p = run([COMPARE, "--device", "cpu", "--cpu-workers", "1", "--config", small,
                 "--seq-len", "16", "--seq-lens", "32,64", "--batches", "1,2",
                 "--systems", "slidedp,fsdp2_ac", "--time-budget", "30", "--out", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        jl = [json.loads(x) for x in open(os.path.join(out, "results.jsonl"))]
        self.assertEqual(sorted((r["system"], r["seq_len"], r["global_batch"]) for r in jl),
                         sorted((s, T, B) for s in ("slidedp", "fsdp2_ac") for T in (32, 64)
                                for B in (1, 2)))
        for r in jl:
            self.assertEqual(r["status"], "not_run")
            self.assertIn("--time-budget 30 s spent", r["note"])
        copy = os.path.join(out, "tiny48-maxpos64.json")
        self.assertTrue(os.path.isfile(copy))
        c = json.load(open(copy))
        self.assertEqual(c["max_position_embeddings"], 64)
        self.assertEqual({k: v for k, v in c.items() if k != "max_position_embeddings"},
                         {k: v for k, v in cfg.items() if k != "max_position_embeddings"})
        meta = json.load(open(os.path.join(out, "meta.json")))
        self.assertEqual(meta["seq_lens"], [32, 64])
        self.assertIn("max_position_embeddings = 48", meta["config_note"])
        self.assertTrue(all(r["config"].endswith("tiny48-maxpos64.json") for r in jl))
        self.assertIn("max_position_embeddings = 64", p.stdout)

    def test_run_timeout(self):
        class O:
            time_budget, timeout = 500.0, 900.0
        t, skip = compare.run_timeout(O, 100.0)
        self.assertEqual((t, skip), (500.0 - 100.0 - compare.REPORT_RESERVE_S, None))
        O.timeout = 120.0
        self.assertEqual(compare.run_timeout(O, 100.0), (120.0, None))
        t, skip = compare.run_timeout(O, 500.0 - compare.REPORT_RESERVE_S - compare.MIN_RUN_S + 1)
        self.assertIsNone(t)
        self.assertIn("--time-budget 500 s spent", skip)
        O.time_budget = 0.0
        self.assertEqual(compare.run_timeout(O, 1e6), (120.0, None))


class UsageErrors(unittest.TestCase):
    def bad(self, script, args, want):
        p = run([script] + args)
        out = p.stdout + p.stderr
        self.assertEqual(p.returncode, 2, out)
        self.assertIn(want, out)
        self.assertNotIn("Traceback", out)

    def test_compare(self):
        base = ["--config", TINY, "--device", "cpu", "--out", tempfile.mkdtemp()]
        self.bad(COMPARE, base + ["--systems", "fsdp2_liger"], "Triton GPU kernels")
        self.bad(COMPARE, base + ["--systems", "fsdp2_ligre"], "unknown system(s) fsdp2_ligre")
        self.bad(COMPARE, base + ["--seq-lens", "65536,1"], "--seq-len must be >= 2")
        self.bad(COMPARE, base + ["--seq-lens", "64k"], "comma-separated list")
        self.bad(COMPARE, base + ["--time-budget", "-5"], "--time-budget must not be negative")
        self.bad(COMPARE, base + ["--slidedp-policy", "auto", "--slidedp-tail", "4:21"],
                 "--slidedp-policy auto runs each batch as the default policy chooses: "
                 "--slidedp-tail would override it")

    def test_peer_train(self):
        self.bad(PEER_TRAIN, ["--system", "fsdp2", "--liger", "--config", TINY, "--device", "cpu"],
                 "--liger needs --device cuda")
        self.bad(PEER_TRAIN, ["--system", "fsdp2", "--config", TINY, "--device", "cpu",
                              "--seq-len", "8192"], "pass --max-position 8192")
        self.bad(PEER_TRAIN, ["--system", "fsdp2", "--config", TINY, "--device", "cpu",
                              "--max-position", "-1"], "--max-position must not be negative")
        d = tempfile.mkdtemp()
        cfg = json.load(open(TINY))
        cfg["model_type"] = "gpt2"
        json.dump(cfg, open(os.path.join(d, "gpt2.json"), "w"))
        self.bad(PEER_TRAIN, ["--system", "fsdp2", "--liger", "--config",
                              os.path.join(d, "gpt2.json")], "no Liger patch for model_type 'gpt2'")
        # --max-position lifts the limit (parse only: nothing runs)
        a = peer_train.parse_args(["--system", "fsdp2", "--config", TINY, "--device", "cpu",
                                   "--seq-len", "8192", "--max-position", "8192"])
        self.assertEqual(a.max_position, 8192)


class LigerCall(unittest.TestCase):
    """peer_train.apply_liger against a stand-in liger_kernel package that records its calls."""

    def test_calls_the_model_types_patch_with_the_issue_arguments(self):
        d = tempfile.mkdtemp()
        pkg = os.path.join(d, "liger_kernel", "transformers")
        os.makedirs(pkg)
        open(os.path.join(d, "liger_kernel", "__init__.py"), "w").close()
        with open(os.path.join(pkg, "__init__.py"), "w") as f:
            f.write("CALLS = []\n")
            for mt in ("llama", "mistral", "qwen2", "qwen3"):
                f.write(f"def apply_liger_kernel_to_{mt}(**kw):\n"
                        f"    CALLS.append(('{mt}', kw))\n")
        code = ("import sys, json; sys.path[:0] = [%r, %r]\n"
                "import peer_train, liger_kernel.transformers as lt\n"
                "descs = [peer_train.apply_liger(mt) for mt in ('qwen3', 'llama', 'qwen2', 'mistral')]\n"
                "print(json.dumps({'calls': lt.CALLS, 'descs': descs}))\n") % (d, BENCH)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(p.stdout.strip().splitlines()[-1])
        want = {"rope": True, "rms_norm": True, "swiglu": True, "cross_entropy": False,
                "fused_linear_cross_entropy": True}
        self.assertEqual(got["calls"], [[mt, want] for mt in ("qwen3", "llama", "qwen2", "mistral")])
        self.assertIn("apply_liger_kernel_to_qwen3(rope, rms_norm, swiglu, "
                      "fused_linear_cross_entropy)", got["descs"][0])

    def test_missing_package_is_a_usage_error(self):
        code = ("import sys; sys.path.insert(0, %r); sys.modules['liger_kernel'] = None\n"
                "import peer_train\n"
                "try:\n    peer_train.apply_liger('qwen3')\n"
                "except peer_train.UsageError as e:\n    print('USAGE', e, '|', e.hint)\n") % BENCH
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertIn("USAGE --liger: cannot import liger_kernel", p.stdout, p.stderr)
        self.assertIn("fetch_peer_wheels.sh", p.stdout)


# ---------------------------------------------------------------------------------------------

def liger_path():
    """A sys.path entry with liger_kernel: the wheel of <repo>/.whl unpacked, or '' when it
    is importable already; None when neither."""
    try:
        importlib.import_module("liger_kernel")
        return ""
    except ImportError:
        pass
    wheels = sorted(glob.glob(os.path.join(ROOT, ".whl", "liger_kernel-*.whl")))
    if not wheels:
        return None
    d = tempfile.mkdtemp(prefix="liger-")
    with zipfile.ZipFile(wheels[-1]) as z:
        z.extractall(d)
    return d


class LigerReal(unittest.TestCase):
    def test_patched_model(self):
        code = r"""
import json, sys
import peer_train
from transformers import AutoModelForCausalLM
cfg = peer_train.load_config(sys.argv[1])
plain = AutoModelForCausalLM.from_config(cfg)
before = type(plain).forward.__module__
n_plain = peer_train.count_params(plain)
desc = peer_train.apply_liger("qwen3")
m = AutoModelForCausalLM.from_config(cfg)
peer_train.init_weights_(m, 0.02, 1)
import transformers.models.qwen3.modeling_qwen3 as mq
layer = m.model.layers[0]
print(json.dumps({"desc": desc, "before": before, "after": type(m).forward.__module__,
    "norm": type(m.model.norm).__name__, "mlp": type(layer.mlp).__name__,
    "q_norm": type(layer.self_attn.q_norm).__name__,
    "in_norm": type(layer.input_layernorm).__name__,
    "rope": mq.apply_rotary_pos_emb.__module__, "n_plain": n_plain,
    "n_liger": peer_train.count_params(m),
    "norm_ones": bool((m.model.norm.weight == 1).all()),
    "mlp_std": float(layer.mlp.gate_proj.weight.std())}))
"""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            x for x in (LIGER_DIR, BENCH, os.environ.get("PYTHONPATH", "")) if x))
        p = subprocess.run([sys.executable, "-c", code, TINY], capture_output=True, text=True,
                           env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        got = json.loads(p.stdout.strip().splitlines()[-1])
        print(f"\n  {got['desc']}", file=sys.stderr)
        self.assertTrue(got["before"].startswith("transformers."), got["before"])
        self.assertTrue(got["after"].startswith("liger_kernel."), got["after"])  # fused linear CE
        self.assertEqual((got["norm"], got["q_norm"], got["in_norm"]), ("LigerRMSNorm",) * 3)
        self.assertEqual(got["mlp"], "LigerSwiGLUMLP")
        self.assertTrue(got["rope"].startswith("liger_kernel."), got["rope"])
        self.assertEqual(got["n_plain"], got["n_liger"])  # same N, same FLOPs
        self.assertTrue(got["norm_ones"])
        self.assertAlmostEqual(got["mlp_std"], 0.02, delta=0.004)

    def test_fsdp2_set_up_with_liger_and_ac(self):
        """peer_train's FSDP2 set-up (meta build, checkpoint_wrapper, fully_shard, to_empty,
        init, rotary restore) on the Liger-patched model, on one gloo rank; the step itself
        needs a GPU (Triton)."""
        code = r"""
import json, os, sys, torch, torch.distributed as dist
import peer_train as pt
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(pt.free_port()), RANK="0",
                  WORLD_SIZE="1", LOCAL_RANK="0")
dist.init_process_group("gloo")
a = pt.parse_args(["--system", "fsdp2", "--ac", "--config", sys.argv[1], "--device", "cpu"])
desc = pt.apply_liger("qwen3")
step, set_batch, n, state = pt.build_fsdp2(a, pt.load_config(a.config), torch.device("cpu"), 1,
                                           offload=False)
import gc
kinds = [type(o).__name__ for o in gc.get_objects() if isinstance(o, torch.nn.Module)]
print(json.dumps({"n": n, "desc": state["desc"], "liger": desc,
                  "rms": kinds.count("LigerRMSNorm"), "mlp": kinds.count("LigerSwiGLUMLP"),
                  "eager_rms": kinds.count("Qwen3RMSNorm")}))
dist.destroy_process_group()
"""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            x for x in (LIGER_DIR, BENCH, os.environ.get("PYTHONPATH", "")) if x))
        p = subprocess.run([sys.executable, "-c", code, TINY], capture_output=True, text=True,
                           env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        got = json.loads(p.stdout.strip().splitlines()[-1])
        self.assertEqual(got["n"], 106880)  # qwen3-tiny, as without Liger
        self.assertIn("checkpoint_wrapper per layer", got["desc"])
        # 2 layers x (input, post-attention, q, k norms) + the final norm; 2 MLPs
        self.assertEqual((got["rms"], got["mlp"], got["eager_rms"]), (9, 2, 0))


class CpuRun(unittest.TestCase):
    def test_two_sequence_lengths(self):
        out = tempfile.mkdtemp(prefix="peer-bench-run-")
        systems = (["slidedp"] if WORKER else []) + ["fsdp2", "fsdp2_ac"]
        env = {"SLIDEDP_WORKER": WORKER} if WORKER else {}
        p = run([COMPARE, "--device", "cpu", "--cpu-workers", "1", "--config", TINY,
                 "--seq-lens", "32,64", "--batches", "2,4", "--systems", ",".join(systems),
                 "--steps", "2", "--warmup", "1", "--timeout-per-system", "240",
                 "--slidedp-accumulation", "4:2", "--slidedp-tail", "2:1",
                 "--time-budget", "1500", "--out", out], env=env, timeout=1700)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        jl = [json.loads(x) for x in open(os.path.join(out, "results.jsonl"))]
        self.assertEqual(len(jl), len(systems) * 4)
        for r in jl:
            self.assertEqual(r["status"], "ok", r.get("note"))
            self.assertGreater(r["tflops_per_gpu"], r["tflops_per_gpu_causal"])
            self.assertIsNone(r["mfu_causal"])  # no peak on CPU ranks
            if r["system"] != "slidedp":
                self.assertIs(r["liger"], False)
            else:  # batch 4 in 2 gradient accumulation steps (--route-sweep's +ga2), batch 2
                # with an update tail of 1 layer (+tail1: the plan reordered between the variants)
                self.assertEqual(r["accum"], 2 if r["global_batch"] == 4 else None, r)
                self.assertEqual(r["update_tail"], 1 if r["global_batch"] == 2 else None, r)
        for s in systems:
            for T in (32, 64):
                self.assertTrue(os.path.isfile(os.path.join(out, f"{s}-T{T}.log")))
        text = open(os.path.join(out, "summary.txt")).read()
        self.assertIn("T = 32:", text)
        self.assertIn("best FSDP2 variant (max over every global batch of fsdp2, fsdp2_ac)", text)
        if WORKER:
            self.assertIn("slidedp/fsdp2 by sequence length: T 32 @ 2: ", text)
        print("\n" + text[:text.find("runs:")], file=sys.stderr)


    def test_a_job_per_batch_as_a_user_runs_it(self):
        """--slidedp-policy auto: a slidedp job per batch, without a sweep (on CPU workers the
        job keeps its flags as given: the rows say so)."""
        if not WORKER:
            self.skipTest("no slidedp worker given")
        out = tempfile.mkdtemp(prefix="peer-bench-auto-")
        p = run([COMPARE, "--device", "cpu", "--cpu-workers", "1", "--config", TINY,
                 "--seq-len", "32", "--batches", "2,4", "--systems", "slidedp", "--steps", "2",
                 "--warmup", "1", "--slidedp-policy", "auto", "--timeout-per-system", "240",
                 "--out", out], env={"SLIDEDP_WORKER": WORKER}, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        jl = [json.loads(x) for x in open(os.path.join(out, "results.jsonl"))]
        self.assertEqual([r["global_batch"] for r in jl], [2, 4])
        for r in jl:
            self.assertEqual(r["status"], "ok", r.get("note"))
            self.assertTrue(r["log"].endswith(f"slidedp-B{r['global_batch']}.log"), r["log"])
            self.assertTrue(os.path.isfile(r["log"]))
            self.assertNotIn("--route-sweep", open(r["log"]).readline())
            self.assertEqual(r["policy"], "the job's flags as given (no --policy auto plan in its log)")
            self.assertGreater(r["tokens_per_s"], 0)
        meta = json.load(open(os.path.join(out, "meta.json")))
        self.assertEqual([x.get("global_batch") for x in meta["runs"]], [2, 4])


LIGER_DIR = None
WORKER = None

if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "report"
    parts = {"report": [Formulas, Systems, PlannedPolicy, Report, Driver, UsageErrors, LigerCall],
             "liger": [LigerReal], "cpu-run": [CpuRun]}
    if part not in parts:
        sys.exit(f"usage: {sys.argv[0]} [report|liger|cpu-run [SLIDEDP_WORKER]]")
    if part == "liger":
        LIGER_DIR = liger_path()
        if LIGER_DIR is None:
            print("SKIP: no liger_kernel importable and no .whl/liger_kernel-*.whl "
                  "(bash tools/bench/fetch_peer_wheels.sh fetches it)")
            sys.exit(77)
    if part == "cpu-run" and len(sys.argv) > 2 and sys.argv[2]:
        WORKER = sys.argv[2]
        if not os.access(WORKER, os.X_OK):
            sys.exit(f"cpu-run: {WORKER} is not an executable slidedp worker")
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c)
                               for c in parts[part])
    res = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if res.wasSuccessful() else 1)
