#!/usr/bin/env python3
"""compare.py: runs slidedp and its peers on the same model shape, sequence length and sweep of
global batches on this machine, and reports tokens/s, TFLOPS per GPU, MFU, peak GPU memory,
host memory and step time per (system, global batch), the slidedp/peer ratio per row and the
summary numbers the project's targets are stated in.

  python3 tools/bench/compare.py --config tools/configs/qwen3-4b.json --seq-len 4096 \
      --batches 4,8,16 --systems slidedp,fsdp2,fsdp2_liger,fsdp2_liger_ac,deepspeed_liger \
      --gpus 0 --out DIR [--slidedp-args "--chunk-numel 4194304"] [--steps 4 --warmup 1] \
      [--peer-args=--fit-micro] [--time-budget 540]
  python3 tools/bench/compare.py ... --seq-lens 65536,131072 --batches 1 \
      --systems slidedp,fsdp2_liger_ac                # long sequences
  python3 tools/bench/compare.py --from-results DIR      # re-render from DIR/results.jsonl

Systems: slidedp (one job, launcher/slidedp-run, --route-sweep ROUTE@B for every batch; with
--slidedp-policy auto one job per batch as a user runs it, which on GPUs the default --policy
auto plans: its choice is each row's `policy`); the
peers of tools/bench/peer_train.py, each one torchrun job for the whole sweep:
  fsdp2, fsdp2_ac              FSDP2 (fully_shard per layer), without / with activation checkpointing
  fsdp2_offload[_ac]           FSDP2 + CPUOffloadPolicy (optimizer on the CPU)
  deepspeed[_ac]               DeepSpeed ZeRO-2 + offload_optimizer cpu (ZeRO-Offload)
  deepspeed_z3[_ac]            the same at ZeRO stage 3
  <any of them>_liger[_ac]     the same with Liger-Kernel patched into the transformers model
                               (rope, RMSNorm, SwiGLU, fused linear cross-entropy; GPU only):
                               fsdp2_liger, fsdp2_liger_ac, deepspeed_liger, ...
Several sequence lengths (--seq-lens T1,T2): every system runs once per T (T outer, systems
inner); when a T exceeds the config's max_position_embeddings, every system gets a copy of
the config with it raised to the largest T (DIR/config-maxpos<T>.json; slidedp refuses longer
rows, and nothing else in these configs depends on it). --time-budget S bounds the whole
comparison: each run's timeout is what is left of S (less a reserve for the report), and the
runs that no longer fit are recorded as not_run.
Writes DIR/<system>.log (each subprocess's output; <system>-T<T>.log with several T), DIR/raw/
(the systems' own records), DIR/results.jsonl and DIR/results.csv (one row per system x T x
global batch), DIR/summary.txt (the table and the summary lines) and DIR/throughput.png.

Measurements: each system's own step times (median of the steps after the warm-up ones,
synchronised; slidedp's --metrics, peer_train.py's records); FLOPs = 6 N tokens + 12 L H D T
tokens (slidedp's formula: every attention score counted) and, beside it, 6 N tokens +
6 L H D T tokens (causal: only the half of the scores a causal kernel computes; the honest
figure at long T), the same formulas for every system; MFU against 989.4 TFLOP/s; GPU memory: the system's own allocator
peak (torch max_memory_reserved; slidedp's gpu_peak_bytes where its metrics have it) and the
NVML peak of memory used on any of the job's GPUs minus the value before the system started;
host memory: the peak of system-wide used memory (MemTotal - MemAvailable, /proc/meminfo, read
at every sample because on the GPU VM MemTotal grows as memory is used) minus the value before
the system started. Peaks are taken over each batch's time window where the records give one
(peers: t_start/t_end; slidedp: when its metrics lines appeared), else over the whole run.

The one design decision: every system is one subprocess for its whole sweep (set-up paid once,
as a user would run it) watched from outside by one sampler thread (0.25 s), so the same host
and NVML measurements apply to every system, including slidedp's several ranks, whatever
each system reports about itself; a system that fails, runs out of memory or times out becomes
rows with that status and the tail of its log, and the driver goes on to the next.
"""
import argparse
import csv
import datetime
import json
import math
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

PROG = "compare"
# --time-budget: kept after the last run's timeout for stopping it (stop_group: up to 33 s)
# and the report (a few s)
REPORT_RESERVE_S = 45
MIN_RUN_S = 45           # --time-budget: a run with less than this left is not started
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
H200_PEAK_BF16_TFLOPS = 989.4
GIB = float(1 << 30)

# peer name -> peer_train.py arguments
PEERS = {
    "fsdp2": ["--system", "fsdp2"],
    "fsdp2_ac": ["--system", "fsdp2", "--ac"],
    "fsdp2_offload": ["--system", "fsdp2_offload"],
    "fsdp2_offload_ac": ["--system", "fsdp2_offload", "--ac"],
    "deepspeed": ["--system", "deepspeed"],
    "deepspeed_ac": ["--system", "deepspeed", "--ac"],
    "deepspeed_z3": ["--system", "deepspeed", "--zero-stage", "3"],
    "deepspeed_z3_ac": ["--system", "deepspeed", "--zero-stage", "3", "--ac"],
}
# every peer also with Liger-Kernel: fsdp2_liger, fsdp2_liger_ac, deepspeed_liger, ...
for _name, _args in list(PEERS.items()):
    _base, _ac = (_name[:-3], True) if _name.endswith("_ac") else (_name, False)
    PEERS[_base + "_liger" + ("_ac" if _ac else "")] = _args + ["--liger"]
SYSTEMS = ["slidedp"] + list(PEERS)
DEFAULT_SYSTEMS = ("slidedp,fsdp2,fsdp2_ac,fsdp2_liger,fsdp2_liger_ac,fsdp2_offload,deepspeed,"
                   "deepspeed_liger")
# "the best FSDP2 variant": the max over every FSDP2 system (eager or Liger, AC or not, offload
# or not) and every global batch
FSDP2_PEAK_FROM = tuple(p for p in PEERS if p.startswith("fsdp2"))
GEOMEAN_PEERS = ("fsdp2_offload", "deepspeed", "deepspeed_liger")
# A family's best setting per global batch: the best ok row of its variants that ran.
PEER_FAMILIES = {
    "FSDP2 (any variant)": FSDP2_PEAK_FROM,
    "FSDP2 + CPU offload": tuple(p for p in PEERS if p.startswith("fsdp2_offload")),
    "DeepSpeed ZeRO-Offload (eager or Liger)": tuple(p for p in PEERS if p.startswith("deepspeed")),
}
SLIDEDP_KNOWN = ("step", "variant", "delivery", "reduction", "loss", "lr", "grad_norm", "tokens",
                 "step_s", "tokens_per_s", "tflops_per_gpu", "gpu_peak_bytes")
SLIDEDP_BREAKDOWN = ("fwd_s", "head_s", "bwd_s", "h2d_s", "d2h_s", "version_wait_s",
                     "handoff_wait_s", "leader_wait_s", "leader_update_s")
# environment of every process started here (GPU machine rules: no NVLink multicast; root)
BASE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
            "NVSHMEM_DISABLE_NVLS": "1", "OMPI_ALLOW_RUN_AS_ROOT": "1",
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
CSV_FIRST = ["system", "status", "global_batch", "micro_batch", "accum", "G", "seq_len",
             "tokens_per_step", "step_s", "tokens_per_s", "tflops_per_gpu", "mfu",
             "tflops_per_gpu_causal", "mfu_causal", "ratio_slidedp_over_this", "liger", "gpu_peak_bytes", "gpu_alloc_peak_bytes",
             "nvml_peak_bytes", "host_peak_bytes", "nvml_peak_run_bytes", "host_peak_run_bytes",
             "model_params", "layers", "heads", "head_dim", "ac", "threads", "route", "note"]


class UsageError(Exception):
    """A user or configuration error: message and a hint, exit status 2."""

    def __init__(self, msg, hint=None):
        super().__init__(msg)
        self.hint = hint


def say(msg):
    print(f"{PROG}: {msg}", flush=True)


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# The model: N and the FLOPs formula

def load_config(path):
    if not os.path.isfile(path):
        raise UsageError(f"config file '{path}' not found",
                         "give a Hugging Face config.json, e.g. tools/configs/qwen3-4b.json")
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise UsageError(f"config file '{path}' is not JSON: {e}")


def model_shape(cfg):
    """(N, L, H, D): parameters (a tied embedding once), layers, heads, head dim of an HF
    config of the Llama/Mistral/Qwen2/Qwen3 families (the decoders slidedp runs)."""
    C = cfg["hidden_size"]
    L = cfg["num_hidden_layers"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    D = cfg.get("head_dim") or C // H
    I = cfg["intermediate_size"]
    V = cfg["vocab_size"]
    mt = cfg.get("model_type", "")
    if mt not in ("llama", "mistral", "qwen2", "qwen3"):
        return None, L, H, D
    attn = C * H * D + 2 * C * KV * D + H * D * C
    if mt == "qwen2":
        attn += H * D + 2 * KV * D            # q, k, v biases
    elif cfg.get("attention_bias"):
        attn += H * D + 2 * KV * D + C        # q, k, v, o biases
    if mt == "qwen3":
        attn += 2 * D                         # q_norm, k_norm
    mlp = 3 * C * I + (2 * I + C if cfg.get("mlp_bias") else 0)
    N = V * C + L * (attn + mlp + 2 * C) + C + (0 if cfg.get("tie_word_embeddings") else V * C)
    return N, L, H, D


FLOPS_FORMULA = "6·N·tokens + 12·L·H·D·T·tokens"
FLOPS_FORMULA_CAUSAL = "6·N·tokens + 6·L·H·D·T·tokens"


def flops_per_step(N, L, H, D, T, tokens, causal=False):
    """Model FLOPs of one step over `tokens` tokens in rows of T: 6 N tokens (the matmuls,
    forward + backward) plus QK^T and PV, 12 L H D T tokens with every score counted
    (slidedp's formula, PaLM appendix B) or 6 L H D T tokens with only the causal half."""
    return 6.0 * N * tokens + (6.0 if causal else 12.0) * L * H * D * T * tokens


def derive(row, peak_known=True):
    """Fills tokens_per_step, tokens_per_s, both TFLOPS/GPU figures and both MFUs of an ok row
    from its step_s and shape (model_params, layers, heads, head_dim, seq_len, G); the one place
    the formulas are applied, also on --from-results (so older results gain the causal
    columns). MFU only where peak_known (a GPU run)."""
    B, T, G = row.get("global_batch"), row.get("seq_len"), row.get("G") or 1
    if B and T:
        row["tokens_per_step"] = B * T
    if row.get("status") != "ok" or not row.get("step_s") or not (B and T):
        return row
    tokens = B * T
    row["tokens_per_s"] = tokens / row["step_s"]
    shape = [row.get(k) for k in ("model_params", "layers", "heads", "head_dim")]
    if all(shape):
        N, L, H, D = shape
        for key, causal in (("", False), ("_causal", True)):
            tf = flops_per_step(N, L, H, D, T, tokens, causal) / row["step_s"] / G / 1e12
            row["tflops_per_gpu" + key] = tf
            row["mfu" + key] = tf / H200_PEAK_BF16_TFLOPS if peak_known else None
    return row


# ---------------------------------------------------------------------------------------------
# Sampling host memory and NVML

def host_used_bytes():
    total = avail = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) * 1024
            elif line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
            if total is not None and avail is not None:
                break
    return total - avail


class Nvml:
    """Memory used per GPU (NVML indices = nvidia-smi indices), or nothing without pynvml."""

    def __init__(self, gpus):
        self.handles, self.names, self.totals, self.error = [], [], [], None
        if not gpus:
            return
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nv = pynvml
            for g in gpus:
                h = pynvml.nvmlDeviceGetHandleByIndex(g)
                self.handles.append(h)
                name = pynvml.nvmlDeviceGetName(h)
                self.names.append(name.decode() if isinstance(name, bytes) else name)
                self.totals.append(pynvml.nvmlDeviceGetMemoryInfo(h).total)
        except Exception as e:  # noqa: BLE001 - NVML is optional
            self.handles, self.error = [], f"{type(e).__name__}: {e}"

    def used(self):
        return [self.nv.nvmlDeviceGetMemoryInfo(h).used for h in self.handles]


class Sampler(threading.Thread):
    """Every `interval` s: (time, host used bytes, [GPU used bytes]); optionally stamps the
    lines appended to a JSONL file (slidedp's metrics) with the time they appeared."""

    def __init__(self, nvml, interval, tail=None):
        super().__init__(daemon=True)
        self.nvml, self.interval, self.tail = nvml, interval, tail
        self.samples, self.lines = [], []
        self._halt = threading.Event()
        self._pos, self._buf = 0, ""
        self.base_host = host_used_bytes()
        self.base_gpu = nvml.used() if nvml.handles else []

    def sample(self):
        self.samples.append((time.time(), host_used_bytes(),
                             self.nvml.used() if self.nvml.handles else []))
        if self.tail and os.path.exists(self.tail):
            with open(self.tail) as f:
                f.seek(self._pos)
                data = f.read()
                self._pos = f.tell()
            self._buf += data
            *done, self._buf = self._buf.split("\n")
            now = time.time()
            for line in done:
                if line.strip():
                    self.lines.append((now, line))

    def run(self):
        while not self._halt.is_set():
            try:
                self.sample()
            except Exception as e:  # noqa: BLE001 - a sampler must not kill the driver
                warn(f"sampler: {type(e).__name__}: {e}")
            self._halt.wait(self.interval)

    def stop(self):
        self._halt.set()
        self.join()
        self.sample()

    def peaks(self, t0=None, t1=None):
        """(host peak - baseline, max over GPUs of (GPU peak - its baseline)) in bytes over
        [t0, t1] widened by one interval (None: the whole run)."""
        if t0 is None:
            sel = self.samples
        else:
            lo, hi = t0 - self.interval, t1 + self.interval
            sel = [s for s in self.samples if lo <= s[0] <= hi]
        if not sel:
            return None, None
        host = max(s[1] for s in sel) - self.base_host
        gpu = None
        if self.base_gpu:
            gpu = max(max(s[2][i] for s in sel) - b for i, b in enumerate(self.base_gpu))
        return max(0, host), (max(0, gpu) if gpu is not None else None)


def settle(nvml, limit=20.0, interval=0.5):
    """Waits (at most `limit` s) until host and GPU memory in use stop falling or rising, so
    that the baseline of the next system does not include the previous one's memory that the
    kernel and driver are still releasing."""
    t_end = time.time() + limit
    prev = (host_used_bytes(), nvml.used() if nvml.handles else [])
    while time.time() < t_end:
        time.sleep(interval)
        cur = (host_used_bytes(), nvml.used() if nvml.handles else [])
        if abs(cur[0] - prev[0]) < (128 << 20) and \
                all(abs(a - b) < (64 << 20) for a, b in zip(cur[1], prev[1])):
            return
        prev = cur


# ---------------------------------------------------------------------------------------------
# Running one system

def tail_lines(path, n=40, frames=True):
    """The last n non-empty lines of a log; frames=False drops Python traceback frames (the
    'File ...' lines, their source lines and carets), which from torchrun's agent say nothing."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out, skip_next = [], False
    for ln in lines:
        if not ln.strip():
            continue
        if not frames:
            if re.match(r'\s+File ".*", line \d+', ln):
                skip_next = True
                continue
            if skip_next or re.fullmatch(r"\s*[\^~]+\s*", ln):
                skip_next = False
                continue
        out.append(ln)
    return out[-n:]


def log_shows_oom(path):
    pat = re.compile(r"out of memory|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY|std::bad_alloc",
                     re.I)
    return any(pat.search(ln) for ln in tail_lines(path, 400))


def run_process(cmd, env, log_path, timeout, sampler):
    """Runs cmd in its own session with output to log_path; returns (rc, timed_out, wall s)."""
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        log.flush()
        t0 = time.time()
        sampler.start()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                cwd=ROOT, start_new_session=True)
        timed_out = False
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            warn(f"timeout after {timeout:.0f} s: stopping process group {proc.pid}")
            rc = stop_group(proc)
        except BaseException:
            stop_group(proc)
            sampler.stop()
            raise
        sampler.stop()
        wall = time.time() - t0
        log.write(f"\n# {PROG}: exit status {rc}{' (timeout)' if timed_out else ''}, "
                  f"{wall:.1f} s\n")
    return rc, timed_out, wall


def stop_group(proc):
    """SIGTERM twice (slidedp checkpoints-and-stops on the first, stops on the second;
    torchrun and mpirun forward it), then SIGKILL the process group."""
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            return proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()


def env_for(extra):
    env = dict(os.environ)
    env.update(BASE_ENV)
    env.update(extra)
    return env


def peer_command(o, name, raw, T):
    cmd = [o.python, "-m", "torch.distributed.run", "--standalone",
           "--nproc_per_node", str(o.G), os.path.join(HERE, "peer_train.py")]
    cmd += PEERS[name] + ["--name", name, "--config", o.config_path, "--seq-len", str(T),
                          "--global-batches", ",".join(map(str, o.batches)),
                          "--steps", str(o.steps), "--warmup", str(o.warmup),
                          "--device", o.device, "--dtype", o.dtype, "--threads", str(o.threads),
                          "--out", raw]
    if o.micro_batch:
        cmd += ["--micro-batch", str(o.micro_batch)]
    return cmd + shlex.split(o.peer_args)


def slidedp_route(o):
    return o.slidedp_route or ("sharded/gpu" if o.G > 1 else "replicated/cpu")


def batch_map(spec, flag, example, least):
    """"B:N,..." (flag's value): global batch -> N (a whole number >= least)."""
    out = {}
    for item in filter(None, (spec or "").split(",")):
        b, _, n = item.partition(":")
        if not (b.strip().isdigit() and n.strip().isdigit() and int(n) >= least):
            sys.exit(f"compare.py: {flag} item '{item}': expected BATCH:N with N >= {least}, e.g. {example}")
        out[int(b)] = int(n)
    return out


def slidedp_accumulation(o):
    """--slidedp-accumulation "B:N,...": global batch -> gradient accumulation steps."""
    return batch_map(o.slidedp_accumulation, "--slidedp-accumulation", "16:2", 1)


def slidedp_tail(o):
    """--slidedp-tail "B:M,...": global batch -> update tail layers (--update-tail-units)."""
    return batch_map(o.slidedp_tail, "--slidedp-tail", "4:20", 0)


def slidedp_variant(o, B):
    """The --route-sweep item of global batch B (its label in the metrics): ROUTE[+gaN][+tailM]@B."""
    n = slidedp_accumulation(o).get(B, 1)
    m = slidedp_tail(o).get(B)
    return f"{slidedp_route(o)}{f'+ga{n}' if n > 1 else ''}{f'+tail{m}' if m is not None else ''}@{B}"


def slidedp_command(o, metrics, T, B=None):
    """The slidedp job: under --slidedp-policy sweep one job for every batch (a --route-sweep of
    slidedp_variant per batch); under auto the job of global batch B alone, without a sweep or
    a knob flag, as a user runs it (on GPUs the default --policy auto plans it)."""
    launcher = os.path.join(ROOT, "launcher", "slidedp-run")
    where = (["--gpus", ",".join(map(str, o.gpus))] if o.device == "cuda"
             else ["--cpu-workers", str(o.G)])
    cmd = [sys.executable, launcher] + where + shlex.split(o.launcher_args) + ["--"]
    cmd += ["--model-config", o.config_path, "--seq-len", str(T),
            "--batch-size", str(o.batches[0] if B is None else B), "--steps", str(o.warmup + o.steps),
            "--warmup-steps", str(o.warmup)]
    if B is None:
        cmd += ["--route-sweep", ",".join(slidedp_variant(o, b) for b in o.batches)]
    cmd += ["--metrics", metrics, "--lr", "1e-5", "--beta1", "0.9", "--beta2", "0.95",
            "--weight-decay", "0.1", "--precision", o.dtype]
    return cmd + shlex.split(o.slidedp_args)


# The job's log line of --policy auto's choice (src/apps/train_job.cpp): "policy auto: LABEL
# (predicted ...", then "  = FLAGS" on the next line.
POLICY_LINE = re.compile(r"policy auto: (.+?) \(predicted ([0-9.]+) s/step")


def planned_policy(log_path):
    """(label, flags) of the policy --policy auto chose in the job of log_path, or None when the
    job ran its flags as given (CPU workers; no plan)."""
    try:
        with open(log_path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for i, ln in enumerate(lines):
        m = POLICY_LINE.search(ln)
        if m:
            flags = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return m.group(1), flags[2:] if flags.startswith("= ") else ""
    return None


def flag_value(flags, name):
    """The integer after `name` in a flags string, or None."""
    m = re.search(re.escape(name) + r"\s+(\d+)", flags or "")
    return int(m.group(1)) if m else None


def read_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                warn(f"{path}:{i}: not JSON, skipped")
    return out


def median_or_none(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def slidedp_rows(o, metrics_path, sampler, B_alone=None, log=None):
    """One row per batch from slidedp's per-step metrics: medians over the non-warm-up steps
    of each variant (its label is ROUTE@B); B_alone: the job of that batch alone (every
    record is its, whatever the label), its policy read from `log`."""
    recs = read_jsonl(metrics_path)
    stamps = {}
    for (t, line) in sampler.lines:
        try:
            r = json.loads(line)
            stamps[r.get("step")] = t
        except json.JSONDecodeError:
            pass
    by_variant = {}
    for r in recs:
        by_variant.setdefault(r.get("variant") if B_alone is None else B_alone, []).append(r)
    route = slidedp_route(o)
    rows = {}
    prev_end = None  # when the previous variant's last line appeared
    for B in (o.batches if B_alone is None else [B_alone]):
        vs = by_variant.get(slidedp_variant(o, B) if B_alone is None else B, [])
        timed = vs[o.warmup:]
        if not timed:
            continue
        step_s = median_or_none([r.get("step_s") for r in timed])
        row = {"status": "ok", "global_batch": B, "route": route, "step_s": step_s,
               "step_times": [r.get("step_s") for r in timed],
               "loss": timed[-1].get("loss"), "micro_batch": None,
               "accum": slidedp_accumulation(o).get(B), "update_tail": slidedp_tail(o).get(B)}
        if B_alone is not None:  # the job's own choice (its variant label: ROUTE[+gaN])
            chosen = planned_policy(log) if log else None
            label = vs[-1].get("variant") or ""
            row["route"] = label.split("@")[0].split("+")[0] or route
            m = re.search(r"\+ga(\d+)", label)
            row["accum"] = int(m.group(1)) if m else None
            if chosen:
                row["policy"] = f"auto: {chosen[0]}"
                row["update_tail"] = flag_value(chosen[1], "--update-tail-units")
                row["accum"] = flag_value(chosen[1], "--gradient-accumulation-steps") or row["accum"]
            else:
                row["policy"] = "the job's flags as given (no --policy auto plan in its log)"
        for k in SLIDEDP_BREAKDOWN:
            row[k] = median_or_none([r.get(k) for r in timed])
        for k, v in timed[-1].items():  # fields newer than this script (e.g. kept_layers)
            if k not in row and k not in SLIDEDP_KNOWN and isinstance(v, (int, float)):
                row[k] = median_or_none([r.get(k) for r in timed])
        peaks = [r.get("gpu_peak_bytes") for r in vs if r.get("gpu_peak_bytes") is not None]
        row["gpu_peak_bytes"] = max(peaks) if peaks else None
        row["tflops_per_gpu_reported"] = median_or_none([r.get("tflops_per_gpu") for r in timed])
        # the batch's window: from the end of the previous variant (or this variant's first
        # step's start) to the appearance of its last line
        t_first, t_last = stamps.get(vs[0].get("step")), stamps.get(vs[-1].get("step"))
        if t_first is not None and t_last is not None:
            row["t_start"] = prev_end if prev_end is not None else \
                t_first - (vs[0].get("step_s") or 0.0)
            row["t_end"] = t_last
            prev_end = t_last
        rows[B] = row
    return rows


def peer_rows(o, raw):
    rows = {}
    for r in read_jsonl(raw):
        rows[r["global_batch"]] = dict(r)
    return rows


def run_system(o, name, T, index, count, timeout, B=None):
    """Runs one system over the batch sweep at sequence length T with the given timeout (B:
    slidedp's job of that global batch alone, --slidedp-policy auto); returns (info, {batch:
    row}, (rc, timed_out), skipped note or None)."""
    tag = (name if len(o.seq_lens) == 1 else f"{name}-T{T}") + ("" if B is None else f"-B{B}")
    log = os.path.join(o.out, f"{tag}.log")
    raw_dir = os.path.join(o.out, "raw")
    os.makedirs(raw_dir, exist_ok=True)
    nvml = Nvml(o.gpus if o.device == "cuda" else [])
    info = {"system": name, "seq_len": T, "log": log}
    if B is not None:
        info["global_batch"] = B
    if name == "slidedp":
        raw = os.path.join(raw_dir, f"{tag.replace('slidedp', 'slidedp-metrics', 1)}.jsonl")
        cmd = slidedp_command(o, raw, T, B)
        env = env_for({})
        worker = os.environ.get("SLIDEDP_WORKER", os.path.join(ROOT, "build", "bin", "slidedp_worker"))
        if not os.access(worker, os.X_OK):
            note = f"{worker} not found (build it: bash tools/setup.sh, or set SLIDEDP_WORKER)"
            warn(f"[{index}/{count}] slidedp: {note}; skipped")
            with open(log, "w") as f:
                f.write(note + "\n")
            info.update(cmd=cmd, rc=None, timed_out=False, wall_s=0.0, skipped=note)
            return info, {}, None, note
    else:
        raw = os.path.join(raw_dir, f"{tag}.jsonl")
        cmd = peer_command(o, name, raw, T)
        extra = {"OMP_NUM_THREADS": str(o.threads)}
        if o.device == "cuda":
            extra.update(CUDA_DEVICE_ORDER="PCI_BUS_ID",
                         CUDA_VISIBLE_DEVICES=",".join(map(str, o.gpus)))
            if o.alloc_conf and "PYTORCH_CUDA_ALLOC_CONF" not in os.environ:
                extra["PYTORCH_CUDA_ALLOC_CONF"] = o.alloc_conf
        env = env_for(extra)
    if os.path.exists(raw):
        os.remove(raw)
    t_settle = time.time()
    settle(nvml)
    if o.time_budget:  # the wait counts against the budget
        timeout = max(1.0, timeout - (time.time() - t_settle))
    say(f"[{index}/{count}] {tag}: " + " ".join(shlex.quote(c) for c in cmd))
    say(f"[{index}/{count}] {tag}: log {log}, timeout {timeout:.0f} s")
    sampler = Sampler(nvml, o.sample_interval, tail=raw if name == "slidedp" else None)
    rc, timed_out, wall = run_process(cmd, env, log, timeout, sampler)
    info.update(cmd=cmd, rc=rc, timed_out=timed_out, wall_s=round(wall, 1), timeout_s=timeout)
    rows = slidedp_rows(o, raw, sampler, B, log) if name == "slidedp" else peer_rows(o, raw)
    host_run, gpu_run = sampler.peaks()
    info.update(host_peak_run_bytes=host_run, nvml_peak_run_bytes=gpu_run,
                nvml_error=nvml.error, gpu_names=nvml.names, gpu_total_bytes=nvml.totals)
    for B, row in rows.items():
        if row.get("t_start") is not None and row.get("t_end") is not None:
            h, g = sampler.peaks(row["t_start"], row["t_end"])
            row["peak_window"] = "batch"
        elif row.get("status") == "ok":
            h, g = host_run, gpu_run
            row["peak_window"] = "run"
        else:
            h = g = None
        row["host_peak_bytes"], row["nvml_peak_bytes"] = h, g
        row["host_peak_run_bytes"], row["nvml_peak_run_bytes"] = host_run, gpu_run
    say(f"[{index}/{count}] {tag}: exit status {rc}{' (timeout)' if timed_out else ''} after "
        f"{wall:.0f} s; {len(rows)}/{1 if B is not None else len(o.batches)} batch(es) recorded")
    return info, rows, (rc, timed_out), None


def complete_rows(o, name, T, rows, outcome, skipped, info, shape, skip_status="error",
                  batches=None):
    """One row per requested batch at sequence length T (or per batch of `batches`, a job's
    own): the system's own record, or the process's fate (skip_status with the note `skipped`
    when it did not start)."""
    N, L, H, D = shape
    out = []
    missing_seen = False
    tail = [ln.strip() for ln in tail_lines(info["log"], 3, frames=False)]
    for B in (o.batches if batches is None else batches):
        row = rows.get(B)
        if row is None:
            if skipped:
                status, note = skip_status, skipped
            else:
                rc, timed_out = outcome
                if missing_seen:
                    status, note = "not_run", "not run: an earlier batch of this job did not finish"
                elif timed_out:
                    status = "timeout"
                    note = f"timeout after {info.get('timeout_s', o.timeout):.0f} s: " + " | ".join(tail)
                elif log_shows_oom(info["log"]):
                    status = "oom"
                    note = f"exit status {rc}, the log shows out of memory: " + " | ".join(tail)
                else:
                    status = "error"
                    killed = rc in (-9, 137) or any("Signal 9 (SIGKILL)" in ln
                                                    for ln in tail_lines(info["log"], 60))
                    note = (f"exit status {rc}"
                            + (" (a rank was SIGKILLed: the host's OOM killer? see dmesg)"
                               if killed else "") + ": " + " | ".join(tail))
            missing_seen = True
            row = {"global_batch": B, "status": status, "note": note}
        row = dict(row)
        row["system"] = name
        row.setdefault("G", o.G)
        row["seq_len"] = T
        row.setdefault("config", o.config_path)
        if name == "slidedp":
            row.update(model_params=N, layers=L, heads=H, head_dim=D, ac=None,
                       threads=None, liger=None)
            row.setdefault("note", f"route {row.get('route') or slidedp_route(o)}"
                           + (f"; policy {row['policy']}" if row.get("policy") else ""))
        else:
            row.setdefault("liger", "--liger" in PEERS[name])
            if N and row.get("model_params") not in (None, N):
                warn(f"{name}: N = {row['model_params']} counted by the model, {N} from the "
                     "config formula: the FLOPs use the model's count")
        derive(row, peak_known=o.device == "cuda")
        row["log"] = info["log"]
        out.append(row)
    return out


# ---------------------------------------------------------------------------------------------
# Report: table, summary, CSV, plot

def fmt(x, spec, dash="-"):
    """format(x, spec), or the dash right-aligned to the spec's width when x is None."""
    if x is None:
        m = re.match(r"(\d+)", spec)
        return dash.rjust(int(m.group(1))) if m else dash
    return format(x, spec)


def gib(b):
    return None if b is None else b / GIB


def seq_lens_of(rows):
    return sorted({r.get("seq_len") for r in rows if r.get("seq_len")})


def add_ratios(rows):
    """ratio_slidedp_over_this: slidedp's tokens/s over the row's, same T and global batch."""
    sd = {(r.get("seq_len"), r["global_batch"]): r for r in rows
          if r["system"] == "slidedp" and r["status"] == "ok" and r.get("tokens_per_s")}
    for r in rows:
        s = sd.get((r.get("seq_len"), r["global_batch"]))
        r["ratio_slidedp_over_this"] = (
            s["tokens_per_s"] / r["tokens_per_s"]
            if s and r["system"] != "slidedp" and r["status"] == "ok" and r.get("tokens_per_s")
            else None)


def step_spread(row):
    """(slowest - fastest) / median timed step of a row, in percent; None with fewer than 2
    timed steps. A large spread says the row's median rests on a few uneven steps."""
    ts = [t for t in (row.get("step_times") or []) if t]
    if len(ts) < 2 or not row.get("step_s"):
        return None
    return 100.0 * (max(ts) - min(ts)) / row["step_s"]


def table(rows):
    hdr = (f"{'system':<20} {'T':>6} {'B':>4} {'mb x acc':>9} {'status':<8} {'tok/s':>9} "
           f"{'TFLOPS/GPU':>10} {'MFU%':>6} {'TF causal':>9} {'MFU% c':>6} {'step s':>8} "
           f"{'spread%':>7} {'GPU GiB':>8} {'NVML GiB':>8} {'host GiB':>8} {'slidedp/x':>9}")
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        mb = (f"{r['micro_batch']}x{r['accum']}" if r.get("micro_batch") is not None
              else f"ga {r['accum']}" if r.get("accum") else "-")
        mfu, mfuc = r.get("mfu"), r.get("mfu_causal")
        lines.append(
            f"{r['system']:<20} {fmt(r.get('seq_len'), '6d')} {r['global_batch']:>4} {mb:>9} "
            f"{r['status']:<8} {fmt(r.get('tokens_per_s'), '9.0f')} "
            f"{fmt(r.get('tflops_per_gpu'), '10.1f')} {fmt(None if mfu is None else 100 * mfu, '6.1f')} "
            f"{fmt(r.get('tflops_per_gpu_causal'), '9.1f')} "
            f"{fmt(None if mfuc is None else 100 * mfuc, '6.1f')} {fmt(r.get('step_s'), '8.3f')} "
            f"{fmt(step_spread(r), '7.1f')} {fmt(gib(r.get('gpu_peak_bytes')), '8.1f')} {fmt(gib(r.get('nvml_peak_bytes')), '8.1f')} "
            f"{fmt(gib(r.get('host_peak_bytes')), '8.1f')} "
            f"{fmt(r.get('ratio_slidedp_over_this'), '9.2f')}")
    return "\n".join(lines)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def best_row(rows):
    return max(rows, key=lambda r: r["tokens_per_s"]) if rows else None


def describe_setting(r):
    mb = (f", micro {r['micro_batch']} x {r['accum']}" if r.get("micro_batch") is not None
          else f", {r['accum']} gradient accumulation steps" if r.get("accum") else "")
    return f"{r['system']}, global batch {r['global_batch']}{mb}"


def summary_lines(rows):
    """The summary per sequence length (a 'T = ...:' heading when there are several), then,
    with several T, slidedp/peer per T on one line per peer."""
    out = []
    Ts = seq_lens_of(rows)
    for T in Ts:
        if len(Ts) > 1:
            out.append(f"T = {T}:")
        out += ["  " + ln if len(Ts) > 1 else ln
                for ln in summary_lines_at([r for r in rows if r.get("seq_len") == T])]
    if len(Ts) > 1 and any(r["system"] == "slidedp" for r in rows):
        peers = [s for s in dict.fromkeys(r["system"] for r in rows) if s != "slidedp"]
        for p in peers:
            parts = []
            for T in Ts:
                for b in sorted({r["global_batch"] for r in rows if r.get("seq_len") == T}):
                    x = [r for r in rows if r["system"] == p and r.get("seq_len") == T
                         and r["global_batch"] == b]
                    ratio = x[0].get("ratio_slidedp_over_this") if x else None
                    parts.append(f"T {T} @ {b}: {fmt(ratio, '.3f')}")
            out.append(f"slidedp/{p} by sequence length: " + ", ".join(parts))
    return out


def summary_lines_at(rows):
    """Summary lines of one sequence length's rows."""
    out = []
    ok = [r for r in rows if r["status"] == "ok" and r.get("tokens_per_s")]
    sd = [r for r in ok if r["system"] == "slidedp"]
    best = best_row(sd)
    if best:
        out.append(f"slidedp best: {best['tokens_per_s']:.0f} tok/s at global batch "
                   f"{best['global_batch']} ({best.get('route', '')}"
                   + (f"; policy {best['policy']}" if best.get("policy") else "") + "), "
                   f"{fmt(best.get('tflops_per_gpu'), '.1f')} TFLOPS/GPU "
                   f"({fmt(best.get('tflops_per_gpu_causal'), '.1f')} counting causal attention)")
    else:
        out.append("slidedp best: none (no ok slidedp row)")
    ran = list(dict.fromkeys(r["system"] for r in rows))
    fsdp_ran = [s for s in FSDP2_PEAK_FROM if s in ran]
    fpk = best_row([r for r in ok if r["system"] in FSDP2_PEAK_FROM])
    if fpk:
        out.append(f"best FSDP2 variant (max over every global batch of {', '.join(fsdp_ran)}): "
                   f"{fpk['tokens_per_s']:.0f} tok/s ({describe_setting(fpk)})")
    elif fsdp_ran:
        out.append(f"best FSDP2 variant: none (no ok row of {', '.join(fsdp_ran)})")
    if best and fpk:
        out.append(f"slidedp best / best FSDP2 variant = "
                   f"{best['tokens_per_s'] / fpk['tokens_per_s']:.3f}")
    peers = [s for s in ran if s != "slidedp"]
    order = [p for p in GEOMEAN_PEERS if p in peers] + [p for p in peers if p not in GEOMEAN_PEERS]
    sd_by_b = {r["global_batch"]: r for r in sd}
    for p in order:
        pr = {r["global_batch"]: r for r in rows if r["system"] == p}
        both = [b for b in sorted(pr) if b in sd_by_b and pr[b]["status"] == "ok"
                and pr[b].get("tokens_per_s")]
        left = [f"{b} ({'slidedp ' + slidedp_status(rows, b) if b not in sd_by_b else p + ' ' + pr[b]['status']})"
                for b in sorted(pr) if b not in both]
        ratios = [sd_by_b[b]["tokens_per_s"] / pr[b]["tokens_per_s"] for b in both]
        if len(both) == 1:
            b = both[0]
            line = (f"slidedp/{p} at global batch {b}: {ratios[0]:.3f} "
                    f"({sd_by_b[b]['tokens_per_s']:.0f} / {pr[b]['tokens_per_s']:.0f} tok/s)")
        else:
            line = (f"geomean slidedp/{p} over global batches {','.join(map(str, both)) or 'none'} "
                    f"(both ok): {fmt(geomean(ratios), '.3f')}")
        out.append(line + (f"; left out: {', '.join(left)}" if left else ""))
    for fam, members in PEER_FAMILIES.items():
        fam_ran = [m for m in members if m in peers]
        if len(fam_ran) < 2:
            continue  # one variant: its own line above says it all
        best_b = {}
        for r in ok:
            if r["system"] in fam_ran and (r["global_batch"] not in best_b or
                                           r["tokens_per_s"] > best_b[r["global_batch"]]["tokens_per_s"]):
                best_b[r["global_batch"]] = r
        both = [b for b in sorted(best_b) if b in sd_by_b]
        g = geomean([sd_by_b[b]["tokens_per_s"] / best_b[b]["tokens_per_s"] for b in both])
        which = ", ".join(f"{b}: {best_b[b]['system']}" for b in both)
        out.append(f"geomean slidedp / {fam} at its best setting per batch ({which or 'none'}): "
                   f"{fmt(g, '.3f')}")
    return out


def slidedp_status(rows, b):
    for r in rows:
        if r["system"] == "slidedp" and r["global_batch"] == b:
            return r["status"]
    return "not run"


def write_csv(path, rows):
    keys = list(CSV_FIRST)
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (json.dumps(v) if isinstance(v, (list, dict)) else v)
                        for k, v in r.items()})


def plot(path, rows, meta):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        warn(f"no plot ({e}); pip install matplotlib")
        return False
    systems = list(dict.fromkeys(r["system"] for r in rows))
    batches = sorted({r["global_batch"] for r in rows})
    Ts = seq_lens_of(rows)
    # x: the global batch; with several T and one batch (long sequences), T; with several of
    # both, one line per (system, T) over the batch
    by_T = len(Ts) > 1 and len(batches) == 1
    xkey = "seq_len" if by_T else "global_batch"
    xs = Ts if by_T else batches
    series = [(s, T) for s in systems for T in ([None] if by_T or len(Ts) <= 1 else Ts)]
    fig, ax = plt.subplots(1, 3, figsize=(18, 5.2))
    for k, (s, T) in enumerate(series):
        label = s if T is None else f"{s} T={T}"
        rs = sorted((r for r in rows if r["system"] == s and (T is None or r.get("seq_len") == T)),
                    key=lambda r: r.get(xkey) or 0)
        good = [r for r in rs if r["status"] == "ok" and r.get("tokens_per_s")]
        style = dict(marker="o", lw=2.5 if s == "slidedp" else 1.5)
        line = ax[0].plot([r[xkey] for r in good], [r["tokens_per_s"] for r in good],
                          label=label, **style)[0]
        bad = [r for r in rs if r["status"] != "ok" and r.get(xkey)]
        for r in bad:
            ax[0].plot(r[xkey], 0, marker="x", ms=9, color=line.get_color())
            ax[0].annotate(r["status"], (r[xkey], 0), textcoords="offset points",
                           xytext=(4, 6 + 10 * k), fontsize=7, color=line.get_color())
        mem = [(r[xkey], r.get("gpu_peak_bytes") or r.get("nvml_peak_bytes")) for r in good]
        mem = [(b, m / GIB) for b, m in mem if m]
        if mem:
            ax[1].plot(*zip(*mem), label=label, color=line.get_color(), **style)
        host = [(r[xkey], r["host_peak_bytes"] / GIB) for r in good
                if r.get("host_peak_bytes") is not None]
        if host:
            ax[2].plot(*zip(*host), label=label, color=line.get_color(), **style)
    if not ax[1].lines:
        ax[1].text(0.5, 0.5, "no GPU memory measured" + (" (CPU run)" if meta.get("device") == "cpu" else ""),
                   ha="center", va="center", transform=ax[1].transAxes, color="grey")
    totals = meta.get("gpu_total_bytes") or []
    if totals:
        ax[1].axhline(min(totals) / GIB, color="grey", ls="--", lw=1)
        ax[1].annotate("GPU capacity", (xs[0], min(totals) / GIB), fontsize=8,
                       color="grey", textcoords="offset points", xytext=(2, -12))
    titles = ("tokens/s (x: oom/error/timeout)", "peak GPU memory, GiB (own allocator, else NVML)",
              "peak host memory in use above baseline, GiB")
    for a, t in zip(ax, titles):
        a.set_xscale("log", base=2)
        a.set_xlim(xs[0] / 1.3, xs[-1] * 1.3)
        a.set_xticks(xs)
        a.set_xticklabels([str(b) for b in xs])
        a.set_xlabel(f"tokens per row T (global batch {batches[0]})" if by_T else
                     "global batch (rows of %s tokens)" % ",".join(map(str, Ts)))
        a.set_title(t, fontsize=10)
        a.grid(alpha=0.3)
        a.set_ylim(bottom=0)
    ax[0].legend(fontsize=8)
    fig.suptitle(f"{os.path.basename(str(meta.get('config', '')))}, G = {meta.get('G')} "
                 f"({meta.get('device_name', meta.get('device', ''))}), T = {','.join(map(str, Ts))}",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def report(out_dir, rows, meta, runs):
    peak_known = meta.get("device", "cuda") == "cuda"
    for r in rows:
        derive(r, peak_known=peak_known and (r.get("mfu") is not None or r["system"] == "slidedp"))
    add_ratios(rows)
    Ts = seq_lens_of(rows)
    text = [f"slidedp vs peers: {meta.get('config')} (N = {meta.get('model_params')}), "
            f"T = {','.join(map(str, Ts)) or meta.get('seq_len')}, G = {meta.get('G')} on "
            f"{meta.get('device_name', meta.get('device'))}, "
            f"{meta.get('host', '')} ({meta.get('cpu_count')} CPUs); {meta.get('warmup')} warm-up + "
            f"{meta.get('steps')} timed steps per batch, medians",
            f"TFLOPS/GPU and MFU%: FLOPs = {FLOPS_FORMULA} (every attention score counted, "
            f"slidedp's formula); TF causal and MFU% c: FLOPs = {FLOPS_FORMULA_CAUSAL} (only "
            f"the causal half of the scores); the same for every system; MFU of "
            f"{H200_PEAK_BF16_TFLOPS} TFLOP/s (H200 dense bf16).",
            "", table(rows), "",
            "GPU GiB: the system's own allocator peak (torch max_memory_reserved; slidedp: its "
            "gpu_peak_bytes); NVML GiB and host GiB: peak above the value before the system "
            "started (per batch window where known). spread%: (slowest - fastest) / median of "
            "the row's timed steps. slidedp/x: slidedp tokens/s over this row's at the same T "
            "and global batch.", ""]
    if meta.get("config_note"):
        text += [meta["config_note"], ""]
    text += summary_lines(rows)
    if runs:
        text += ["", "runs:"]
        for r in runs:
            at = (f" T={r['seq_len']}" if len(Ts) > 1 and r.get("seq_len") else "") + \
                (f" B={r['global_batch']}" if r.get("global_batch") is not None else "")
            text.append(f"  {r['system']}{at}: exit {r.get('rc')}{' (timeout)' if r.get('timed_out') else ''}, "
                        f"{r.get('wall_s')} s, log {r['log']}"
                        + (f" [{r['skipped']}]" if r.get("skipped") else ""))
            if r.get("cmd"):
                text.append("    $ " + " ".join(shlex.quote(c) for c in r["cmd"]))
        fails = [r for r in runs if (r.get("rc") not in (0, None) or r.get("timed_out"))]
        for r in fails:
            text += ["", f"tail of {r['log']} (traceback frames left out):"] + \
                ["  " + ln for ln in tail_lines(r["log"], 25, frames=False)]
    body = "\n".join(text) + "\n"
    print("\n" + body)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(body)
    write_csv(os.path.join(out_dir, "results.csv"), rows)
    with open(os.path.join(out_dir, "results.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(dict(meta, runs=runs), f, indent=1)
    png = os.path.join(out_dir, "throughput.png")
    if plot(png, rows, meta):
        say(f"wrote {out_dir}/results.csv, results.jsonl, summary.txt, throughput.png")


# ---------------------------------------------------------------------------------------------

def parse_int_list(text, what):
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        out = []
    if not out or min(out) < 0 or (what == "--batches" and min(out) <= 0):
        raise UsageError(f"{what} takes a comma-separated list of "
                         f"{'positive ' if what == '--batches' else ''}integers (got '{text}')")
    return out


def visible_gpus():
    cvd = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if re.fullmatch(r"\d+(,\d+)*", cvd):
        return [int(x) for x in cvd.split(",")]
    return nvidia_smi_gpus()


def nvidia_smi_gpus():
    """GPU indices nvidia-smi lists ([] without nvidia-smi or GPUs)."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            r = subprocess.run([smi, "--query-gpu=index", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=30)
            if r.returncode == 0:
                return [int(x) for x in r.stdout.split() if x.strip().isdigit()]
        except (OSError, subprocess.SubprocessError):
            pass
    return []


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Systems: " + ", ".join(SYSTEMS))
    ap.add_argument("--config", help="Hugging Face config.json of the model shape (random init)")
    ap.add_argument("--seq-len", "--seq-lens", dest="seq_len", default="4096",
                    help="tokens per row T, or a comma-separated list of them, each a run of "
                         "every system (e.g. --seq-lens 65536,131072 --batches 1 for long "
                         "sequences; the last of these options given wins; default 4096)")
    ap.add_argument("--batches", default="4,8,16",
                    help="comma-separated global batches, rows per optimizer step (default 4,8,16)")
    ap.add_argument("--systems", default=DEFAULT_SYSTEMS,
                    help=f"comma-separated systems to run, in this order (default {DEFAULT_SYSTEMS})")
    ap.add_argument("--gpus", default=None,
                    help="comma-separated GPU indices as nvidia-smi numbers them (default: "
                         "CUDA_VISIBLE_DEVICES, else every GPU); G = their count")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda (default) or cpu: every system on CPU ranks (tests)")
    ap.add_argument("--cpu-workers", type=int, default=2,
                    help="G with --device cpu: slidedp CPU workers and peer ranks (default 2)")
    ap.add_argument("--out", default="bench-out", help="output folder (default bench-out)")
    ap.add_argument("--steps", type=int, default=4, help="timed steps per batch (default 4)")
    ap.add_argument("--warmup", type=int, default=1, help="warm-up steps per batch before them (default 1)")
    ap.add_argument("--dtype", choices=("bf16", "fp32"), default=None,
                    help="compute dtype of every system (default bf16 on cuda, fp32 on cpu)")
    ap.add_argument("--micro-batch", type=int, default=0,
                    help="peers: rows per forward per rank (default 0: global/G, no accumulation)")
    ap.add_argument("--threads", type=int, default=0,
                    help="peers: CPU threads per rank (default os.cpu_count() // G)")
    ap.add_argument("--peer-args", default="", help="extra arguments for peer_train.py")
    ap.add_argument("--slidedp-route", default=None,
                    help="slidedp route delivery/reduction[+offload] (default sharded/gpu when "
                         "G > 1, replicated/cpu when G = 1)")
    ap.add_argument("--slidedp-accumulation", default="",
                    help="slidedp gradient accumulation steps per global batch, e.g. \"16:2,64:8\" "
                         "(--route-sweep's +gaN; default none: one forward + backward per step)")
    ap.add_argument("--slidedp-tail", default="",
                    help="slidedp update tail per global batch, e.g. \"4:20\" (--route-sweep's +tailM, "
                         "--update-tail-units; for leader-bound batches: `slidedp_plan` prices it)")
    ap.add_argument("--slidedp-policy", choices=("sweep", "auto"), default="sweep",
                    help="sweep (default): one slidedp job for every batch, a --route-sweep of "
                         "ROUTE[+gaN][+tailM]@B as --slidedp-route/-accumulation/-tail give "
                         "(the planner's other knobs at their manual defaults); auto: one job "
                         "per batch as a user runs it, without a sweep or a knob flag, so that on "
                         "GPUs the default --policy auto chooses route, passes, update tail and "
                         "activations from this machine's calibration (measured on the first "
                         "job of a shape; a start-up per batch)")
    ap.add_argument("--slidedp-args", default="",
                    help="extra slidedp_worker flags, e.g. \"--chunk-numel 4194304 --activations auto\"")
    ap.add_argument("--launcher-args", default="",
                    help="extra launcher/slidedp-run options before --, e.g. \"--worker-threads 2\"")
    ap.add_argument("--timeout-per-system", dest="timeout", type=float, default=900.0,
                    help="seconds one system (its whole sweep at one T) may run before it is "
                         "stopped and recorded as timeout (default 900)")
    ap.add_argument("--time-budget", type=float, default=0.0,
                    help="seconds the whole comparison may take (0: no bound, the default): a "
                         "run's timeout is at most what is left less %d s for the report, and a "
                         "run with less than %d s left is not started (its rows: not_run); use "
                         "it where the machine's calls are bounded" % (REPORT_RESERVE_S, MIN_RUN_S))
    ap.add_argument("--alloc-conf", default="expandable_segments:True",
                    help="PYTORCH_CUDA_ALLOC_CONF of the peers unless it is set already "
                         "(default expandable_segments:True; '' for torch's default)")
    ap.add_argument("--sample-interval", type=float, default=0.25,
                    help="seconds between host/NVML memory samples (default 0.25)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter with torch for the peers (default: this one)")
    ap.add_argument("--from-results", metavar="DIR", default=None,
                    help="re-render the table, CSV, summary and plot from DIR/results.jsonl; "
                         "runs nothing")
    o = ap.parse_args(argv)
    if o.from_results:
        return o
    if not o.config:
        raise UsageError("--config is required (or --from-results DIR)",
                         "e.g. --config tools/configs/qwen3-4b.json")
    o.cfg = load_config(o.config)
    o.config_path = os.path.relpath(os.path.abspath(o.config), ROOT) \
        if os.path.abspath(o.config).startswith(ROOT + os.sep) else os.path.abspath(o.config)
    o.batches = sorted(set(parse_int_list(o.batches, "--batches")))
    o.seq_lens = sorted(set(parse_int_list(o.seq_len, "--seq-len")))
    if min(o.seq_lens) < 2:
        raise UsageError(f"--seq-len must be >= 2, a row needs a next-token target (got {o.seq_len})")
    if o.time_budget < 0 or o.timeout <= 0:
        raise UsageError("--time-budget must not be negative and --timeout-per-system must be "
                         "positive")
    given = [f for f, v in (("--slidedp-route", o.slidedp_route),
                            ("--slidedp-accumulation", o.slidedp_accumulation),
                            ("--slidedp-tail", o.slidedp_tail)) if v]
    if o.slidedp_policy == "auto" and given:
        raise UsageError(f"--slidedp-policy auto runs each batch as the default policy chooses: "
                         f"{', '.join(given)} would override it",
                         "drop " + ", ".join(given) + ", or use --slidedp-policy sweep")
    o.systems = [s.strip() for s in o.systems.split(",") if s.strip()]
    bad = [s for s in o.systems if s not in SYSTEMS]
    if bad or not o.systems:
        raise UsageError(f"unknown system(s) {', '.join(bad) or '(none given)'}",
                         f"known: {', '.join(SYSTEMS)}")
    if o.steps <= 0 or o.warmup < 0 or o.micro_batch < 0 or o.threads < 0:
        raise UsageError("--steps must be positive; --warmup, --micro-batch, --threads must not "
                         "be negative")
    liger = [s for s in o.systems if "--liger" in PEERS.get(s, [])]
    if liger and o.device != "cuda":
        raise UsageError(f"{', '.join(liger)}: Liger-Kernel's kernels are Triton GPU kernels, "
                         "--device cpu cannot run them", "leave the _liger systems out of a CPU run")
    if o.device == "cuda":
        o.gpus = parse_int_list(o.gpus, "--gpus") if o.gpus else visible_gpus()
        if not o.gpus:
            raise UsageError("no GPU found (CUDA_VISIBLE_DEVICES unset and nvidia-smi lists none)",
                             "pass --gpus 0,1 on the GPU machine, or --device cpu for a test run")
        if len(set(o.gpus)) != len(o.gpus):
            raise UsageError(f"--gpus lists a GPU twice ({o.gpus})")
        listed = nvidia_smi_gpus()
        if listed and any(g not in listed for g in o.gpus):
            raise UsageError(f"--gpus {','.join(map(str, o.gpus))}: nvidia-smi lists GPU(s) "
                             f"{','.join(map(str, listed))}", "see nvidia-smi -L")
        o.G = len(o.gpus)
    else:
        if o.cpu_workers <= 0:
            raise UsageError("--cpu-workers must be positive")
        o.gpus, o.G = [], o.cpu_workers
    if o.dtype is None:
        o.dtype = "bf16" if o.device == "cuda" else "fp32"
    unit = o.G * (o.micro_batch or 1)
    bad = [b for b in o.batches if b % unit]
    if bad:
        raise UsageError(f"global batch(es) {','.join(map(str, bad))} not divisible by "
                         + (f"G*micro = {o.G}*{o.micro_batch}" if o.micro_batch else f"G = {o.G}"),
                         f"use multiples of {unit}")
    if o.threads == 0:
        o.threads = max(1, (os.cpu_count() or 1) // o.G)
    return o


def run_timeout(o, elapsed):
    """(timeout of the next run in s, None) or (None, why it is not started) under
    --time-budget: what is left of the budget less the report's reserve, at most
    --timeout-per-system; no run with less than MIN_RUN_S left."""
    if not o.time_budget:
        return o.timeout, None
    left = o.time_budget - elapsed - REPORT_RESERVE_S
    if left < MIN_RUN_S:
        return None, (f"not run: --time-budget {o.time_budget:.0f} s spent ({elapsed:.0f} s "
                      f"elapsed, less than {MIN_RUN_S} s left for a run)")
    return min(o.timeout, left), None


def raise_max_position(o):
    """When the longest T exceeds the config's max_position_embeddings: writes a copy of the
    config with it raised to that T into the output folder, points every system at it and
    returns a note saying so (None when nothing changed)."""
    T = max(o.seq_lens)
    have = o.cfg.get("max_position_embeddings")
    if not have or T <= have:
        return None
    cfg = dict(o.cfg, max_position_embeddings=T)
    stem = os.path.splitext(os.path.basename(o.config))[0]
    path = os.path.abspath(os.path.join(o.out, f"{stem}-maxpos{T}.json"))
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
    was = o.config_path
    o.cfg = cfg
    o.config_path = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
    return (f"config: T = {T} exceeds max_position_embeddings = {have} of {was}; every system "
            f"runs {o.config_path}, a copy with max_position_embeddings = {T} (nothing else "
            f"changed)")


def main(argv):
    o = parse_args(argv)
    if o.from_results:
        d = o.from_results
        path = os.path.join(d, "results.jsonl")
        if not os.path.isfile(path):
            raise UsageError(f"{path} not found", "give the --out folder of an earlier run")
        rows = read_jsonl(path)
        if not rows:
            raise UsageError(f"{path} holds no rows")
        meta = {}
        if os.path.isfile(os.path.join(d, "meta.json")):
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)
        runs = meta.pop("runs", [])
        for k in ("config", "G", "seq_len", "model_params"):
            meta.setdefault(k, rows[0].get(k))
        report(d, rows, meta, runs)
        return 0

    t_begin = time.time()
    os.makedirs(o.out, exist_ok=True)
    config_note = raise_max_position(o)
    shape = model_shape(o.cfg)
    nv = Nvml(o.gpus if o.device == "cuda" else [])
    meta = {"config": o.config_path, "model_params": shape[0], "layers": shape[1],
            "heads": shape[2], "head_dim": shape[3], "G": o.G, "gpus": o.gpus,
            "device": o.device, "dtype": o.dtype, "seq_len": o.seq_lens[0],
            "seq_lens": o.seq_lens, "batches": o.batches, "time_budget_s": o.time_budget,
            "timeout_per_system_s": o.timeout, "config_note": config_note,
            "steps": o.steps, "warmup": o.warmup, "systems": o.systems,
            "micro_batch": o.micro_batch, "threads_per_rank": o.threads,
            "slidedp_route": slidedp_route(o), "slidedp_args": o.slidedp_args,
            "slidedp_accumulation": o.slidedp_accumulation, "slidedp_tail": o.slidedp_tail,
            "slidedp_policy": o.slidedp_policy,
            "peer_args": o.peer_args, "alloc_conf_peers": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", o.alloc_conf),
            "host": socket.gethostname(), "cpu_count": os.cpu_count(),
            "device_name": (f"{nv.names[0]} x{o.G}" if nv.names else
                            ("CPU ranks" if o.device == "cpu" else "GPU")),
            "gpu_total_bytes": nv.totals, "nvml": nv.error or ("ok" if nv.handles else "not used"),
            "started": datetime.datetime.now().isoformat(timespec="seconds")}
    if o.device == "cuda" and not nv.handles:
        warn(f"NVML unavailable ({nv.error}): no NVML GPU memory column")
    say(f"{o.config_path}: N = {shape[0]}, L = {shape[1]}; T = {','.join(map(str, o.seq_lens))}; "
        f"global batches {o.batches}; G = {o.G} ({meta['device_name']}); systems "
        f"{', '.join(o.systems)}; output {o.out}"
        + (f"; time budget {o.time_budget:.0f} s" if o.time_budget else ""))
    if config_note:
        say(config_note)
    rows, runs = [], []
    # (T, system, B): B is a global batch where slidedp runs a job per batch
    # (--slidedp-policy auto), else None (one job for the whole sweep)
    plan = [(T, name, B) for T in o.seq_lens for name in o.systems
            for B in (o.batches if name == "slidedp" and o.slidedp_policy == "auto" else [None])]
    for i, (T, name, B) in enumerate(plan, 1):
        timeout, skip = run_timeout(o, time.time() - t_begin)
        if skip:
            warn(f"[{i}/{len(plan)}] {name} T={T}{'' if B is None else f' B={B}'}: {skip}")
            info = {"system": name, "seq_len": T, "log": "", "rc": None, "timed_out": False,
                    "wall_s": 0.0, "skipped": skip}
            if B is not None:
                info["global_batch"] = B
            got, outcome = {}, None
        else:
            info, got, outcome, skip = run_system(o, name, T, i, len(plan), timeout, B)
        runs.append(info)
        # a run the budget left out is not_run; a system that could not start (no slidedp
        # worker) is an error
        rows += complete_rows(o, name, T, got, outcome, skip, info, shape,
                              skip_status="not_run" if outcome is None and got == {} and
                              skip and skip.startswith("not run: --time-budget") else "error",
                              batches=None if B is None else [B])
        # keep what is known after every system: a later crash of the driver loses nothing
        with open(os.path.join(o.out, "results.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if shape[0] is None:
        counted = [r.get("model_params") for r in rows if r.get("model_params")]
        meta["model_params"] = counted[0] if counted else None
    meta["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    report(o.out, rows, meta, runs)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        if e.hint:
            print(f"HINT: {e.hint}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. `compare.py --from-results DIR | head`
        sys.exit(0)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        sys.exit(130)
