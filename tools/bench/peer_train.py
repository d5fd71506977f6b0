#!/usr/bin/env python3
"""peer_train.py: one peer training system (FSDP2, FSDP2 + CPU offload, DeepSpeed ZeRO-Offload)
on a randomly initialised Hugging Face model, timed the way slidedp times its steps, for
tools/bench/compare.py.

  torchrun --standalone --nproc_per_node G tools/bench/peer_train.py --system fsdp2 \
      --config tools/configs/qwen3-4b.json --seq-len 4096 --global-batches 4,8,16 --out r.jsonl

Systems (one process group of G ranks, one rank per GPU):
  fsdp2          transformers AutoModelForCausalLM (sdpa attention), torch fully_shard on every
                 decoder layer and on the root, MixedPrecisionPolicy(bf16 params, fp32 reduce),
                 fp32 sharded master weights, torch AdamW(fused) on the GPU. --ac: activation
                 checkpointing of every decoder layer (checkpoint_wrapper, non-reentrant, applied
                 before fully_shard as torchtitan does).
  fsdp2_offload  the same with CPUOffloadPolicy(pin_memory=True): sharded fp32 params, gradients
                 and the optimizer live in host memory; AdamW(fused) steps on the CPU with
                 --threads threads per rank.
  deepspeed      DeepSpeed ZeRO-Offload: ZeRO stage 2 (--zero-stage 3), offload_optimizer cpu
                 (pinned), bf16, DeepSpeedCPUAdam (adamw_mode); --ac through HF gradient
                 checkpointing.
  --liger        (any system) Liger-Kernel's Triton kernels patched into the transformers model
                 before it is built, as TRL/axolotl users switch them on:
                 apply_liger_kernel_to_<model_type>(rope=True, rms_norm=True, swiglu=True,
                 cross_entropy=False, fused_linear_cross_entropy=True) for model_type llama,
                 mistral, qwen2, qwen3 (the fused linear cross-entropy never materialises the
                 logits). GPU only (Triton).
Common to all: AdamW lr 1e-5, betas (0.9, 0.95), eps 1e-8, weight decay 0.1 on parameters of
ndim >= 2 only (as slidedp's host optimizer); uniformly random tokens (seeded), labels = inputs
(HF shifts them), HF's mean cross-entropy; global_batch * seq_len tokens per optimizer step
(the same as slidedp's step); FSDP2 reduce-scatters after every micro-batch (its default).

Per global batch it writes one JSON line (rank 0) with the median step time of the timed
steps, tokens/s, TFLOPS per GPU (FLOPs = 6 N tokens + 12 L H D T tokens, the formula slidedp
uses, which counts every attention score; and, as tflops_per_gpu_causal / mfu_causal,
6 N tokens + 6 L H D T tokens, which counts only the causal half of the scores), MFU against
989.4 TFLOP/s (H200 dense bf16), the peak of torch's CUDA allocator
(max_memory_reserved, max over ranks) and a status: ok, oom (out of memory; larger batches with
at least that micro-batch are then not run) or error.

The one design decision: the whole sweep of global batches runs in this one process on one
model and optimizer, in ascending order, so set-up (materialising and sharding the model,
allocating the host optimizer state, loading DeepSpeed's CPU Adam) is paid once; the timed
region is exactly what a slidedp step contains (forward and backward of every micro-batch, the
optimizer step, zero_grad), bracketed by device synchronisations. Ranks agree on every step's
outcome through a separate gloo group, so an out-of-memory on one rank ends the sweep on all
ranks instead of leaving the others blocked in a collective.

Testing hook: SLIDEDP_BENCH_SIMULATE_OOM="8,16" raises torch.OutOfMemoryError in the first
step of those global batches, after the backward of the last micro-batch and before the
optimizer step (where a real first-step OOM of the optimizer state happens); "8@1" raises on
rank 1 only (safe for fsdp2, whose optimizer step has no collective; DeepSpeed's has); "12>4"
raises at global batch 12 only while the micro-batch is above 4 rows (--fit-micro's search);
a malformed item is a usage error before anything loads.
"""
import argparse
import gc
import json
import os
import socket
import statistics
import sys
import time
import traceback

SYSTEMS = ("fsdp2", "fsdp2_offload", "deepspeed")
H200_PEAK_BF16_TFLOPS = 989.4
PROG = "peer_train"
# model_type -> Liger-Kernel's patch function, and the patch every Liger system applies
LIGER_APPLY = {"llama": "apply_liger_kernel_to_llama", "mistral": "apply_liger_kernel_to_mistral",
               "qwen2": "apply_liger_kernel_to_qwen2", "qwen3": "apply_liger_kernel_to_qwen3"}
LIGER_KWARGS = {"rope": True, "rms_norm": True, "swiglu": True, "cross_entropy": False,
                "fused_linear_cross_entropy": True}


def flops_per_step(n_params, L, H, D, T, tokens, causal=False):
    """Model FLOPs of one optimizer step over `tokens` tokens of rows of T: 6 N tokens for the
    matmuls of forward + backward, plus the attention scores and their product with V,
    12 L H D T tokens when every score is counted (slidedp's formula, PaLM appendix B) or
    6 L H D T tokens when only the causal half is (what a causal kernel computes)."""
    return 6.0 * n_params * tokens + (6.0 if causal else 12.0) * L * H * D * T * tokens


class UsageError(Exception):
    """A user or configuration error: message and a hint, exit status 2."""

    def __init__(self, msg, hint=None):
        super().__init__(msg)
        self.hint = hint


def parse_batches(text):
    try:
        out = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise UsageError(f"--global-batches takes comma-separated positive integers (got '{text}')",
                         "e.g. --global-batches 2,4,8,16")
    if not out or out[0] <= 0:
        raise UsageError(f"--global-batches takes comma-separated positive integers (got '{text}')",
                         "e.g. --global-batches 2,4,8,16")
    return out


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="peer_train.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Launch with torchrun --standalone --nproc_per_node G (one rank per GPU).")
    ap.add_argument("--system", required=True, choices=SYSTEMS, help="the peer system to run")
    ap.add_argument("--name", default=None,
                    help="system label written to the records (default: --system, plus _ac with "
                         "--ac and _z3 with --zero-stage 3)")
    ap.add_argument("--config", required=True, help="a Hugging Face config.json (random init)")
    ap.add_argument("--seq-len", type=int, default=4096, help="tokens per row T (default 4096)")
    ap.add_argument("--global-batches", default="2,4,8,16",
                    help="comma-separated global batches (rows per optimizer step), run in "
                         "ascending order in this one process (default 2,4,8,16)")
    ap.add_argument("--micro-batch", type=int, default=0,
                    help="rows per forward per rank; 0 (default): global/G, i.e. no gradient "
                         "accumulation; else accumulation steps = global / (micro * G)")
    ap.add_argument("--steps", type=int, default=4, help="timed optimizer steps per batch (default 4)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed optimizer steps before them per batch (default 1)")
    ap.add_argument("--ac", action="store_true", help="activation checkpointing of every decoder layer")
    ap.add_argument("--liger", action="store_true",
                    help="patch Liger-Kernel into the model before it is built (rope, rms_norm, "
                         "swiglu, fused_linear_cross_entropy; needs the liger-kernel package and "
                         "--device cuda)")
    ap.add_argument("--max-position", type=int, default=0,
                    help="override the config's max_position_embeddings (e.g. 131072 for long "
                         "sequences; default 0: the config's value); --seq-len may not exceed it")
    ap.add_argument("--fit-micro", action="store_true",
                    help="on out of memory, run the same global batch again at the next smaller "
                         "micro-batch that divides the rank's rows (12: 6, 4, 3, 2, 1), "
                         "accumulating the rest, down to 1 row; later batches start below the "
                         "smallest micro-batch that ran out (the peer's best batch that fits)")
    ap.add_argument("--zero-stage", type=int, default=2, choices=(2, 3),
                    help="DeepSpeed ZeRO stage (default 2; deepspeed only)")
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads per rank (default: os.cpu_count() // G); they run the host "
                         "optimizer of fsdp2_offload and deepspeed")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda (NCCL, one GPU per rank; default) or cpu (gloo; tests)")
    ap.add_argument("--dtype", choices=("bf16", "fp32"), default=None,
                    help="compute dtype (default bf16 on cuda, fp32 on cpu); master weights "
                         "and optimizer state are fp32 in every case")
    ap.add_argument("--lr", type=float, default=1e-5, help="AdamW learning rate (default 1e-5)")
    ap.add_argument("--seed", type=int, default=1234, help="seed of the random init and tokens")
    ap.add_argument("--pg-timeout", type=float, default=600.0,
                    help="seconds a collective may wait before the process group fails "
                         "(default 600; bounds a hang after a one-sided failure)")
    ap.add_argument("--out", default=None, help="append one JSON line per global batch here (rank 0)")
    a = ap.parse_args(argv)
    if not os.path.isfile(a.config):
        raise UsageError(f"config file '{a.config}' not found",
                         "give a Hugging Face config.json, e.g. tools/configs/qwen3-4b.json")
    if a.seq_len <= 0 or a.steps <= 0 or a.warmup < 0 or a.micro_batch < 0 or a.threads < 0:
        raise UsageError("--seq-len and --steps must be positive; --warmup, --micro-batch and "
                         "--threads must not be negative")
    if a.system != "deepspeed" and a.zero_stage != 2:
        raise UsageError("--zero-stage applies to --system deepspeed only")
    if a.max_position < 0:
        raise UsageError(f"--max-position must not be negative (got {a.max_position})")
    try:
        with open(a.config) as f:
            raw = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise UsageError(f"config file '{a.config}' is not readable JSON: {e}")
    a.model_type = raw.get("model_type", "")
    max_pos = a.max_position or raw.get("max_position_embeddings")
    if max_pos and a.seq_len > max_pos:
        raise UsageError(f"--seq-len {a.seq_len} exceeds max_position_embeddings = {max_pos} of "
                         f"{a.config}", f"pass --max-position {a.seq_len} (or more)")
    if a.liger:
        if a.device != "cuda":
            raise UsageError("--liger needs --device cuda: Liger-Kernel's kernels are Triton GPU "
                             "kernels", "run the Liger systems on the GPU machine")
        if a.model_type not in LIGER_APPLY:
            raise UsageError(f"--liger: no Liger patch for model_type '{a.model_type}' of "
                             f"{a.config}", f"supported: {', '.join(LIGER_APPLY)}")
    a.batches = parse_batches(a.global_batches)
    if a.dtype is None:
        a.dtype = "bf16" if a.device == "cuda" else "fp32"
    if a.name is None:
        a.name = (a.system + ("_z3" if a.zero_stage == 3 else "") + ("_liger" if a.liger else "")
                  + ("_ac" if a.ac else ""))
    return a


def apply_liger(model_type):
    """Patches Liger-Kernel into transformers' modeling module of `model_type` (module-level
    classes and functions), so that every model built afterwards in this process uses
    LigerRMSNorm, LigerSwiGLUMLP, Liger's rotary embedding and the fused linear cross-entropy
    forward. Returns a description for the records. Raises UsageError when liger_kernel does
    not import."""
    try:
        import liger_kernel.transformers as lt
    except ImportError as e:
        raise UsageError(f"--liger: cannot import liger_kernel ({e})",
                         "bash tools/bench/fetch_peer_wheels.sh puts the liger-kernel wheel into "
                         ".whl/; tools/bench/peers.sh installs it (or pip install liger-kernel)")
    try:
        from importlib.metadata import version
        ver = version("liger-kernel")
    except Exception:  # noqa: BLE001 - the version is only for the description
        ver = "?"
    fn = LIGER_APPLY[model_type]
    getattr(lt, fn)(**LIGER_KWARGS)
    on = ", ".join(k for k, v in LIGER_KWARGS.items() if v)
    return f"Liger-Kernel {ver} {fn}({on})"


def plan_batches(batches, micro, G):
    """[(global, micro, accum)] or UsageError for a batch that does not split into G ranks."""
    out = []
    for B in batches:
        m = micro if micro > 0 else B // G
        if m <= 0 or B % (m * G) != 0:
            per = f"G*micro = {G}*{m} = {G * m}" if micro > 0 else f"G = {G}"
            raise UsageError(f"global batch {B} is not divisible by {per}",
                             "choose global batches that are multiples of "
                             f"{G * (micro or 1)}, or another --micro-batch")
        out.append((B, m, B // (m * G)))
    return out


# ---------------------------------------------------------------------------------------------
# Early environment: thread counts must be set before torch (and its OpenMP runtime) loads.

def early_threads(argv):
    world = int(os.environ.get("WORLD_SIZE", "1"))
    threads = 0
    for i, x in enumerate(argv):
        if x == "--threads" and i + 1 < len(argv):
            threads = int(argv[i + 1]) if argv[i + 1].isdigit() else 0
        elif x.startswith("--threads="):
            v = x.split("=", 1)[1]
            threads = int(v) if v.isdigit() else 0
    if threads <= 0:
        threads = max(1, (os.cpu_count() or 1) // max(1, world))
    # torchrun sets OMP_NUM_THREADS=1; DeepSpeed's CPU Adam and torch's CPU kernels read it
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return threads


# ---------------------------------------------------------------------------------------------

def is_oom(exc):
    import torch
    return isinstance(exc, torch.OutOfMemoryError) or "out of memory" in str(exc).lower()


def micro_within(limit, rows):
    """--fit-micro: the largest divisor of `rows` (a rank's rows per step) not above `limit`
    (>= 1), `limit` being one below the smallest micro-batch that ran out of memory. Of 12 rows
    after 12 ran out: 6, then 4, 3, 2, 1; every attempt keeps the global batch and its tokens per
    optimizer step. After 8 ran out, 16 rows start at 4 and 12 rows at 6."""
    return max(d for d in range(1, min(limit, rows) + 1) if rows % d == 0)


def fit_within(micro, accum, limit):
    """(micro-batch, accumulation steps) for the same rows per step (micro * accum) with the
    micro-batch micro_within(limit, rows)."""
    m = micro_within(limit, micro * accum)
    return m, micro * accum // m


def simulated_oom_items(spec):
    """SLIDEDP_BENCH_SIMULATE_OOM's items as (batch, rank or None, above or None); UsageError
    naming the item and the accepted forms where one is malformed."""
    items = []
    digits = lambda t: t.isascii() and t.isdigit()  # noqa: E731 (int() takes other digits too)
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        b, at, r = item.partition("@")
        b, gt, above = b.partition(">")
        if not (digits(b) and (not at or digits(r)) and (not gt or digits(above))):
            raise UsageError(f"SLIDEDP_BENCH_SIMULATE_OOM item '{item}' is malformed (in '{spec}')",
                             "its items are B, B@RANK, B>MICRO or B>MICRO@RANK, non-negative "
                             "integers, comma-separated (a testing hook; unset it for real runs)")
        items.append((int(b), int(r) if r else None, int(above) if above else None))
    return items


def simulated_oom(global_batch, rank, micro):
    for b, r, above in simulated_oom_items(os.environ.get("SLIDEDP_BENCH_SIMULATE_OOM", "")):
        if b == global_batch and (r is None or r == rank) and (above is None or micro > above):
            return True
    return False


def count_params(model):
    """N: elements of every parameter, a tied (shared) parameter once."""
    return sum(p.numel() for p in model.parameters())


def load_config(path, max_position=0):
    from transformers import AutoConfig
    cfg = AutoConfig.from_pretrained(path)
    cfg.use_cache = False  # training: no KV cache per layer
    if max_position:
        cfg.max_position_embeddings = max_position
    return cfg


def init_weights_(model, std, seed):
    """normal(0, std) for linear and embedding weights, zeros for biases, ones for norm weights
    (the HF initialisation), on the local shard of each (possibly DTensor) parameter."""
    import torch
    from torch import nn
    try:
        from torch.distributed.tensor import DTensor
    except ImportError:  # pragma: no cover
        DTensor = ()

    def local(p):
        return p.to_local() if isinstance(p, DTensor) else p

    g = None
    done = set()
    with torch.no_grad():
        for m in model.modules():
            for name, p in m.named_parameters(recurse=False):
                if id(p) in done:
                    continue
                done.add(id(p))
                t = local(p)
                if t.numel() == 0:
                    continue
                if g is None or g.device != t.device:
                    g = torch.Generator(device=t.device)
                    g.manual_seed(seed)
                if "Norm" in type(m).__name__:
                    t.fill_(1.0)
                elif name == "bias":
                    t.zero_()
                elif isinstance(m, (nn.Linear, nn.Embedding)):
                    t.normal_(0.0, std, generator=g)
                else:
                    raise RuntimeError(f"no initialisation rule for parameter {name} of "
                                       f"{type(m).__name__}")


def restore_rotary_(model, device):
    """Recompute the rotary embedding buffers (non-persistent, garbage after to_empty)."""
    import torch
    for m in model.modules():
        if hasattr(m, "inv_freq") and hasattr(m, "config"):
            with torch.device("cpu"):
                fresh = type(m)(m.config)
            m.inv_freq = fresh.inv_freq.to(device)
            if hasattr(m, "original_inv_freq"):
                m.original_inv_freq = fresh.original_inv_freq.to(device)
            if hasattr(fresh, "attention_scaling"):
                m.attention_scaling = fresh.attention_scaling
    for name, b in model.named_buffers():
        if "inv_freq" not in name:
            raise RuntimeError(f"buffer {name} is not re-initialised after meta-device build")


def param_groups(named_params, weight_decay):
    decay = [p for _, p in named_params if p.ndim >= 2]
    no_decay = [p for _, p in named_params if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]


# ---------------------------------------------------------------------------------------------
# Systems: each returns (step(batches, global_batch, rank) -> summed loss tensor,
# set_batch(micro, accum), model_params N, state {"desc": description, "optimizer_steps": ...})

def build_fsdp2(a, cfg, device, G, offload):
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import (CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy,
                                        fully_shard)
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa",
                                                 dtype=torch.float32)
    n_params = count_params(model)
    tied = bool(getattr(cfg, "tie_word_embeddings", False))
    layers = model.model.layers
    if a.ac:
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
            CheckpointImpl, checkpoint_wrapper)
        for i in range(len(layers)):
            layers[i] = checkpoint_wrapper(layers[i], checkpoint_impl=CheckpointImpl.NO_REENTRANT,
                                           preserve_rng_state=False)
    mesh = init_device_mesh(device.type, (G,))
    mp = (MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
          if a.dtype == "bf16" else MixedPrecisionPolicy())
    # pinned host buffers need a CUDA context; on the CPU test device there is nothing to pin
    op = CPUOffloadPolicy(pin_memory=device.type == "cuda") if offload else OffloadPolicy()
    for layer in layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp, offload_policy=op)
    fully_shard(model, mesh=mesh, mp_policy=mp, offload_policy=op)
    model.to_empty(device="cpu" if offload else device)
    if tied and model.get_output_embeddings().weight is not model.get_input_embeddings().weight:
        raise RuntimeError("tied embeddings came apart while materialising the model")
    init_weights_(model, cfg.initializer_range, a.seed + dist_rank())
    restore_rotary_(model, device)
    model.train()

    opt_device = "cpu" if offload else device.type

    def make_opt(fused):
        groups = param_groups(list(model.named_parameters()), 0.1)
        kind = {"fused": True} if fused else {"foreach": True}
        return torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.95), eps=1e-8, **kind)

    def describe(fused):
        return (f"FSDP2 fully_shard per decoder layer + root, {a.dtype} params / fp32 reduce, "
                f"fp32 sharded master, AdamW({'fused' if fused else 'foreach'}) on {opt_device}"
                + (", CPUOffloadPolicy(pin_memory)" if offload else "")
                + (", checkpoint_wrapper per layer" if a.ac else ""))

    state = {"accum": 1, "opt": make_opt(True), "fused": True, "updates": 0}
    state["desc"] = describe(True)
    state["zero_grad"] = lambda: state["opt"].zero_grad(set_to_none=True)

    def set_batch(micro, accum):
        state["accum"] = accum

    def optimizer_step():
        try:
            state["opt"].step()
        except RuntimeError as e:
            # fused AdamW checks devices and dtypes in its first step(): fall back to foreach
            if not state["fused"] or state["updates"] > 0 or is_oom(e):
                raise
            print(f"{PROG}: AdamW(fused=True) failed on {opt_device} ({str(e)[:200]}); "
                  "using AdamW(foreach=True)", file=sys.stderr, flush=True)
            state.update(opt=make_opt(False), fused=False, desc=describe(False))
            state["opt"].step()
        state["updates"] += 1
        state["opt"].zero_grad(set_to_none=True)

    def step(batches, global_batch, rank):
        accum = state["accum"]
        total = None
        for x in batches:
            loss = model(input_ids=x, labels=x).loss / accum
            loss.backward()
            total = loss.detach() if total is None else total + loss.detach()
            del loss
        if simulated_oom(global_batch, rank, batches[0].shape[0]) and state.get("first", True):
            raise torch.OutOfMemoryError(f"simulated: CUDA out of memory at global batch "
                                         f"{global_batch} (SLIDEDP_BENCH_SIMULATE_OOM)")
        optimizer_step()
        return total

    state["optimizer_steps"] = lambda: state["updates"]
    return step, set_batch, n_params, state


def build_deepspeed(a, cfg, device, G, plan):
    import torch
    import deepspeed
    from deepspeed.ops.adam import DeepSpeedCPUAdam
    from transformers import AutoModelForCausalLM

    deepspeed.init_distributed(dist_backend="nccl" if device.type == "cuda" else "gloo")
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float32
    torch.manual_seed(a.seed)
    # built directly on the GPU in the compute dtype (HF init); ZeRO keeps the fp32 master
    # partition on the CPU and, at stage 2, a full bf16 copy on every GPU
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa", dtype=dtype)
    n_params = count_params(model)
    if a.ac:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    _, micro, accum = plan[0]
    ds_config = {
        "train_micro_batch_size_per_gpu": micro,
        "gradient_accumulation_steps": accum,
        "train_batch_size": micro * G * accum,
        "bf16": {"enabled": a.dtype == "bf16"},
        "zero_optimization": {
            "stage": a.zero_stage,
            "offload_optimizer": {"device": "cpu", "pin_memory": device.type == "cuda"},
            "overlap_comm": True,
            "contiguous_gradients": True,
        },
        "gradient_clipping": 0.0,
        "steps_per_print": 1 << 30,
        "wall_clock_breakdown": False,
    }
    groups = param_groups(list(model.named_parameters()), 0.1)
    opt = DeepSpeedCPUAdam(groups, lr=a.lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1,
                           adamw_mode=True)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=ds_config)

    state = {"accum": accum, "optimizer_steps": lambda: engine.global_steps,
             "zero_grad": lambda: engine.zero_grad()}

    def set_batch(micro, accum):
        engine.set_train_micro_batch_size(micro)
        engine.set_train_batch_size(micro * G * accum)
        # the ZeRO optimizer keeps its own copy (its CPU-offload accumulation itself follows
        # the boundary flags set per micro-batch below)
        if hasattr(engine.optimizer, "gradient_accumulation_steps"):
            engine.optimizer.gradient_accumulation_steps = accum
        state["accum"] = accum

    def step(batches, global_batch, rank):
        total = None
        n = len(batches)
        for i, x in enumerate(batches):
            # explicit boundary: the micro-step counter carries over from the previous batch
            engine.set_gradient_accumulation_boundary(i == n - 1)
            loss = engine(input_ids=x, labels=x).loss
            engine.backward(loss)  # scales by 1/gradient_accumulation_steps
            if i == n - 1 and simulated_oom(global_batch, rank, x.shape[0]) and state.get("first", True):
                raise torch.OutOfMemoryError(f"simulated: CUDA out of memory at global batch "
                                             f"{global_batch} (SLIDEDP_BENCH_SIMULATE_OOM)")
            engine.step()
            d = loss.detach() / n
            total = d if total is None else total + d
            del loss
        return total

    state["desc"] = (f"DeepSpeed {deepspeed.__version__} ZeRO-{a.zero_stage} offload_optimizer "
                     f"cpu{' (pinned)' if device.type == 'cuda' else ''}, {a.dtype}, "
                     "DeepSpeedCPUAdam(adamw_mode)" + (", HF gradient checkpointing" if a.ac else ""))
    return step, set_batch, n_params, state


# ---------------------------------------------------------------------------------------------

_RANK = 0


def dist_rank():
    return _RANK


def main(argv):
    global _RANK
    threads = early_threads(argv)
    a = parse_args(argv)
    simulated_oom_items(os.environ.get("SLIDEDP_BENCH_SIMULATE_OOM", ""))  # malformed: a usage error now
    G = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    _RANK = rank
    if a.threads:
        threads = a.threads
    plan = plan_batches(a.batches, a.micro_batch, G)
    # before any model class is instantiated (it patches transformers' module attributes), and
    # before the process group, so that a missing package is a plain usage error on every rank
    liger_desc = apply_liger(a.model_type) if a.liger else ""

    import datetime
    import torch
    import torch.distributed as dist
    import transformers

    if a.device == "cuda":
        if not torch.cuda.is_available():
            raise UsageError("--device cuda but torch sees no GPU",
                             "run on the GPU machine, or pass --device cpu (tests)")
        if local_rank >= torch.cuda.device_count():
            raise UsageError(f"local rank {local_rank} has no GPU: torch sees "
                             f"{torch.cuda.device_count()} (CUDA_VISIBLE_DEVICES="
                             f"{os.environ.get('CUDA_VISIBLE_DEVICES', '')})",
                             "use --nproc_per_node <= the number of visible GPUs")
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device = torch.device("cpu")
        backend = "gloo"
    torch.set_num_threads(threads)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "RANK" not in os.environ:  # a plain `python peer_train.py`: a group of one
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), RANK="0",
                          WORLD_SIZE="1", LOCAL_RANK="0")
    dist.init_process_group(backend=backend, timeout=timeout,
                            device_id=device if device.type == "cuda" else None)
    # agreement on each step's outcome, off the NCCL stream
    agree_group = dist.new_group(backend="gloo", timeout=timeout) if backend != "gloo" else None

    def agree_max(values):
        t = torch.tensor(values, dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=agree_group)
        return t.tolist()

    def log(msg):
        if rank == 0:
            print(f"{PROG}[{a.name}]: {msg}", flush=True)

    log(f"G={G} ranks, device {a.device} ({torch.cuda.get_device_name(device) if a.device == 'cuda' else 'cpu'}), "
        f"threads per rank {threads} (os.cpu_count()={os.cpu_count()}), dtype {a.dtype}, "
        f"torch {torch.__version__}, transformers {transformers.__version__}")
    cfg = load_config(a.config, a.max_position)
    t0 = time.perf_counter()
    try:
        if a.system == "deepspeed":
            step_fn, set_batch, n_params, state = build_deepspeed(a, cfg, device, G, plan)
        else:
            step_fn, set_batch, n_params, state = build_fsdp2(
                a, cfg, device, G, offload=a.system == "fsdp2_offload")
        if liger_desc:
            state["desc"] += "; " + liger_desc
        setup_ok = 1.0
        setup_err = ""
    except Exception as e:  # noqa: BLE001 - reported as a record, then agreed on
        traceback.print_exc()
        setup_ok = 0.0
        setup_err = f"{'out of memory' if is_oom(e) else 'error'} in set-up: {type(e).__name__}: {e}"
        n_params, state = None, {"desc": ""}
    flags = agree_max([1.0 - setup_ok])
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    L = cfg.num_hidden_layers
    H = cfg.num_attention_heads
    D = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    V = cfg.vocab_size
    T = a.seq_len
    log(f"set-up {time.perf_counter() - t0:.1f} s: {state['desc']}; N = {n_params} parameters")

    def record(B, micro, accum, status, note, times=(), peak=None, alloc=None, loss=None,
               t_window=(None, None)):
        tokens = B * T
        rec = {"system": a.name, "config": a.config, "model_params": n_params, "layers": L,
               "heads": H, "head_dim": D, "G": G, "seq_len": T, "global_batch": B,
               "micro_batch": micro, "accum": accum, "ac": a.ac, "threads": threads,
               "liger": a.liger, "max_position": cfg.max_position_embeddings,
               "status": status, "step_s": None, "step_times": [round(x, 6) for x in times],
               "tokens_per_s": None, "tflops_per_gpu": None, "mfu": None,
               "tflops_per_gpu_causal": None, "mfu_causal": None,
               "gpu_peak_bytes": peak, "gpu_alloc_peak_bytes": alloc, "loss": loss,
               "device": a.device, "dtype": a.dtype, "warmup": a.warmup, "steps": a.steps,
               "t_start": t_window[0], "t_end": t_window[1], "host": socket.gethostname(),
               "note": note}
        if a.system == "deepspeed":
            rec["zero_stage"] = a.zero_stage
        if status == "ok" and times:
            s = statistics.median(times)
            tf = flops_per_step(n_params, L, H, D, T, tokens) / s / G / 1e12
            tfc = flops_per_step(n_params, L, H, D, T, tokens, causal=True) / s / G / 1e12
            cuda = a.device == "cuda"
            rec.update(step_s=s, tokens_per_s=tokens / s, tflops_per_gpu=tf,
                       mfu=tf / H200_PEAK_BF16_TFLOPS if cuda else None,
                       tflops_per_gpu_causal=tfc,
                       mfu_causal=tfc / H200_PEAK_BF16_TFLOPS if cuda else None)
        if rank == 0:
            if a.out:
                with open(a.out, "a") as f:
                    f.write(json.dumps(rec) + "\n")
            shown = (f"{rec['tokens_per_s']:.0f} tok/s, {rec['tflops_per_gpu']:.1f} TFLOPS/GPU, "
                     f"step {rec['step_s']:.3f} s, peak {fmt_gib(peak)} GiB"
                     if status == "ok" else note)
            log(f"batch {B} (micro {micro} x accum {accum} x G {G}): {status}: {shown}")

    if flags[0] > 0:
        note = setup_err or "set-up failed on another rank (see its log)"
        for B, m, k in plan:
            record(B, m, k, "oom" if "out of memory" in note else "error", note)
        dist.destroy_process_group()
        return 1

    stop_micro = None   # micro-batch that ran out of memory: no larger one runs
    failed = None       # an error other than OOM: nothing more runs
    any_error = False
    max_micro = None    # --fit-micro: one below the smallest micro-batch that ran out of memory
    queue = list(plan)
    while queue:
        B, micro, accum = queue.pop(0)
        if a.fit_micro and max_micro is not None and micro > max_micro:
            micro, accum = fit_within(micro, accum, max_micro)
        if failed is not None:
            record(B, micro, accum, "error", f"not run: {failed}")
            continue
        if stop_micro is not None and micro >= stop_micro[0]:
            record(B, micro, accum, "oom", f"not run: micro-batch {stop_micro[0]} ran out of "
                   f"memory at global batch {stop_micro[1]}")
            continue
        gen = torch.Generator().manual_seed(a.seed * 1000003 + B * 1009 + rank)
        set_batch(micro, accum)
        state["first"] = True
        if a.device == "cuda":
            gc.collect()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(device)
        times, status, note, loss_v = [], "ok", "", None
        t_start = time.time()
        for s in range(a.warmup + a.steps):
            batches = [torch.randint(0, V, (micro, T), generator=gen).to(device)
                       for _ in range(accum)]
            err = None
            try:
                sync()
                t = time.perf_counter()
                loss = step_fn(batches, B, rank)
                sync()
                dt = time.perf_counter() - t
                loss_v = float(loss)
                del loss
            except Exception as e:  # noqa: BLE001 - classified, agreed on, recorded
                err = ("oom" if is_oom(e) else "error", f"{type(e).__name__}: {str(e)[:400]}")
                if err[0] == "error":
                    traceback.print_exc()
                else:
                    print(f"{PROG}[{a.name}] rank {rank}: out of memory at global batch {B}: "
                          f"{str(e)[:200]}", file=sys.stderr, flush=True)
            state["first"] = False
            del batches
            codes = [0.0] * G
            codes[rank] = 0.0 if err is None else (1.0 if err[0] == "oom" else 2.0)
            codes = agree_max(codes)
            if max(codes) > 0:
                status = "oom" if max(codes) == 1.0 else "error"
                who = ",".join(str(r) for r, c in enumerate(codes) if c > 0)
                note = (f"{'out of memory' if status == 'oom' else 'error'} on rank(s) {who} "
                        f"in step {s + 1}" + (f": {err[1]}" if err is not None else " (see the log)"))
                break
            if s >= a.warmup:
                times.append(dt)
        t_end = time.time()
        if status == "ok" and "optimizer_steps" in state:
            # self-check: exactly one optimizer update per step, whatever the accumulation
            n = state["optimizer_steps"]()
            if n - state.setdefault("optimizer_steps_before", 0) != a.warmup + a.steps:
                status, note = "error", (f"self-check: {n - state['optimizer_steps_before']} "
                                         f"optimizer updates in {a.warmup + a.steps} steps")
            state["optimizer_steps_before"] = n
        if status == "ok":
            # the slowest rank's time per step (ranks are coupled by collectives)
            times = agree_max(times) if times else times
        peak = alloc = None
        if a.device == "cuda":
            pk = agree_max([float(torch.cuda.max_memory_reserved(device)),
                            float(torch.cuda.max_memory_allocated(device))])
            peak, alloc = int(pk[0]), int(pk[1])
        if status == "oom" and a.fit_micro and micro > 1:
            max_micro = micro - 1  # every micro-batch tried is at most the last max_micro
            nxt, nxt_accum = fit_within(micro, accum, max_micro)
            log(f"batch {B}: micro-batch {micro} ran out of memory; again with {nxt} x "
                f"accum {nxt_accum} (--fit-micro)")
            queue.insert(0, (B, nxt, nxt_accum))
            if "optimizer_steps" in state:  # the failed attempt's updates do not count
                state["optimizer_steps_before"] = state["optimizer_steps"]()
            model_zero_grad = state.get("zero_grad")
            if model_zero_grad:
                model_zero_grad()
            if a.device == "cuda":
                gc.collect()
                torch.cuda.empty_cache()
            continue
        record(B, micro, accum, status, note if status != "ok" else state["desc"], times, peak, alloc,
               loss_v, (t_start, t_end))
        if status == "oom":
            stop_micro = (micro, B)
        elif status == "error":
            failed = f"global batch {B} failed: {note}"
            any_error = True
        if status != "ok" and a.device == "cuda":
            gc.collect()
            torch.cuda.empty_cache()
    dist.barrier(group=agree_group)
    dist.destroy_process_group()
    return 1 if any_error else 0


def fmt_gib(b):
    return "-" if b is None else f"{b / 2**30:.1f}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    try:
        rc = main(sys.argv[1:])
        # every record is written and closed: skip the interpreter's teardown, where gloo's and
        # the autograd engine's threads occasionally abort ("terminate called without an
        # active exception") after a clean run
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    except UsageError as e:
        if int(os.environ.get("RANK", "0")) == 0:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            if e.hint:
                print(f"HINT: {e.hint}", file=sys.stderr)
        sys.exit(2)
