// The training job's options (apps/train_job.h, group "Training"): each declared once, with
// its default, unit and meaning. Apart from train_job.cpp so that slidedp_plan can declare the
// same names without linking the trainer.
#include <cmath>
#include <string>

#include "apps/option_numbers.h"
#include "apps/path_options.h"
#include "apps/train_job.h"

namespace slidedp {

void addTrainOptions(CLI::App& app, TrainJobOptions& o) {
  auto* g = app.add_option_group("Training", "Train a model (given --model or --model-config)");
  dirOption(g->add_option("--model", o.model, "Hugging Face model directory (config.json + safetensors) to fine-tune"));
  fileOption(g->add_option("--model-config", o.model_config, "config.json of a model to initialise randomly (benchmarks)"));
  g->add_option("--seed", o.seed, "Seed of random initialisation and synthetic data")
      ->check(seedCheck)->capture_default_str();
  fileOption(g->add_option("--data", o.data, "Data: a file (a token file of `launcher/slidedp-run prepare` "
                "(Hugging Face tokenizers, chat templates), .bin token stream (llm.c header or raw), .npy, "
                ".jsonl with input_ids[/labels] (labels unshifted, as transformers takes them), .txt "
                "with a SentencePiece --tokenizer), synthetic (random tokens), "
                "synthetic-packed:MIN:MAX (random tokens in packed documents of MIN..MAX tokens) "
                "or reference:FILE.safetensors (step{s}.input_ids/labels)"))->capture_default_str();
  fileOption(g->add_option("--eval-data", o.eval_data, "Held-out data (any --data format; a prepared file for "
                "chat): its loss and perplexity, forward only, every --eval-every steps and at the end"));
  g->add_option("--eval-every", o.eval_every, "Evaluate on --eval-data every N steps (0: only after "
                "the last step)")->capture_default_str();
  g->add_option("--eval-batches", o.eval_batches, "Global batches (of --batch-size rows) per "
                "evaluation (0: the whole eval set once)")->capture_default_str();
  g->add_option("--data-format", o.data_format, "Data format: auto (a file of tools/data/prepare.py by "
                "its header, else by extension), prepared, bin, npy, jsonl, text")->capture_default_str();
  fileOption(g->add_option("--tokenizer", o.tokenizer, "SentencePiece tokenizer.model for text data (default: "
                "the model directory's tokenizer.model)"));
  g->add_option("--token-dtype", o.token_dtype, ".bin without llm.c header: auto (uint16; refused as "
                "ambiguous when the vocabulary exceeds 65,536), uint16, uint32")->capture_default_str();
  // Negatable flags spell both values out and state their default as text: CLI11 2.1's
  // capture_default_str printed (and saved) a default true as "false" for "!--no-x" flags.
  g->add_flag("--shuffle{true},--no-shuffle{false}", o.shuffle,
              "Shuffle documents/windows each epoch (seeded)")->default_str(o.shuffle ? "true" : "false");
  g->add_option("--doc-start-token", o.doc_start_token, "Token streams: id that starts a document "
                "(positions reset there; e.g. BOS); -1: none")->capture_default_str();
  g->add_option("--batch-size", o.batch_size, "Global batch, rows (sequences) per step")->capture_default_str();
  g->add_option("--seq-len", o.seq_len, "Tokens per row T (reference: data has its own B and T)")->capture_default_str();
  g->add_option("--steps", o.steps, "Optimizer steps (per route with --route-sweep)")->capture_default_str();
  g->add_option("--delivery", o.delivery, "Delivery route: replicated (each worker reads the whole "
                "layer from host memory), sharded (1/G each, then NCCL all-gather; MPI on CPU workers) "
                "or sharded-ipc (1/G each, then CUDA IPC peer copies on the copy engines; GPU workers "
                "with peer access)")->capture_default_str();
  g->add_option("--reduction", o.reduction, "Reduction route: cpu (each worker hands its whole "
                "gradient to the leader, which sums), gpu (NCCL reduce-scatter first; MPI on CPU "
                "workers) or gpu-ipc (reduce-scatter by CUDA IPC peer copies and one sum kernel; GPU "
                "workers with peer access)")->capture_default_str();
  g->add_option("--node-layout", o.node_layout, "State layout across nodes (several nodes only): "
                "sharded (each node's leader owns 1/N of every chunk's master weights and moments: "
                "gradients reduce-scattered between the leaders, updated parameters all-gathered; "
                "host memory per node 12/N B/param + the delivery copy), fully-sharded (the "
                "delivery copy too: 14/N B/param, and every delivery all-gathers the unit from "
                "every node over the network) or replicated (every node holds the whole state, "
                "14 B/param; gradients all-reduced)")->capture_default_str();
  g->add_option("--route-sweep", o.route_sweep, "Benchmark: comma-separated variants "
                "delivery/reduction[+clip][+offload][+keep|+recompute|+auto][+gaN][+tailM][@rows], --steps "
                "each, e.g. replicated/cpu,sharded/gpu+recompute@32,sharded-ipc/gpu-ipc,replicated/cpu+ga2@16 "
                "(@rows: that variant's global batch; +gaN: N gradient accumulation steps; +tailM: "
                "--update-tail-units M)");
  g->add_option("--warmup-steps", o.warmup_steps, "Steps left out of the summary (per route)")->capture_default_str();
  g->add_option("--precision", o.precision, "Worker compute dtype: auto (bf16 on GPUs, fp32 on CPU "
                "workers), bf16 (from the leader's bf16 copy) or fp32 (from the FP32 master)")
      ->check(CLI::IsMember({"auto", "bf16", "fp32"}))->capture_default_str();
  g->add_option("--window", o.train.window_slots, "GPU layer window depth K (>= 2)")->capture_default_str();
  g->add_option("--micro-batch-rows", o.train.micro_batch_rows, "Rows per micro-batch (0: all of a worker's rows "
                "in the accumulation step). A step's micro-batches go through each layer before the next "
                "layer is delivered, so their activations are all held at once")->capture_default_str();
  g->add_option("--gradient-accumulation-steps", o.train.accumulation_steps, "Forward + backward passes "
                "per step, each over 1/N of a worker's rows (the sizes differ by at most one row): the "
                "layers are delivered again for each, the gradients are summed on the worker (fp32, 4 "
                "B/param held through the step) and handed to the leader in the last. Holds the "
                "activations of one pass instead of the whole batch: at a large global batch more layers "
                "are kept instead of recomputed, for one more delivery of the model per pass")->capture_default_str();
  g->add_option("--activations", o.activations, "What a worker keeps of each decoder layer for "
                "backward: recompute (only the layer input; backward recomputes the forward), keep "
                "(the layer's saved activations, no recompute), attention-output (the layer input, "
                "the attention output and its log-sum-exp: backward recomputes the projections and "
                "element-wise parts but never the attention; bf16 GPU or CPU workers) or auto (keep "
                "layers while the GPU memory budget allows, the attention output of the next ones, "
                "recompute the rest; CPU workers keep). GPU workers under auto or recompute keep "
                "a recomputed layer's input in pinned host memory where the GPU cannot hold "
                "them all, the first layers' first")
      ->check(CLI::IsMember({"recompute", "keep", "attention-output", "auto"}))->capture_default_str();
  g->add_option("--attention", o.attention, "Attention kernel of bf16 GPU workers (plain causal "
                "rows): auto (the measured default: today FlashAttention-3 on H100/H200 at head dim 128 "
                "where the build has it, else cuDNN), fa3 (FlashAttention-3), cudnn or flash "
                "(FlashAttention-2); fa3 runs cuDNN where it does not apply. Packed documents use "
                "variable-length FlashAttention-2")
      ->check(CLI::IsMember({"auto", "fa3", "cudnn", "flash"}))->capture_default_str();
  g->add_option("--embedding-update", o.embedding_update, "How the embedding's AdamW update is "
                "scheduled: split (the rows outside the step's input tokens are updated right after "
                "the head, while the layers' backward runs; only the token rows are left for the end "
                "of the step) or dense (the whole embedding after the last layer). Results agree to "
                "fp32 rounding; split needs the cpu reduction route and falls back to dense otherwise")
      ->check(CLI::IsMember({"split", "dense"}))->capture_default_str();
  g->add_option("--embedding-lookup", o.embedding_lookup, "Where the forward's embedding lookup "
                "reads its rows on GPU workers of a tied model: host (from the embedding's delivery "
                "copy in host memory, bf16, or the fp32 master with fp32 compute, through PCIe, so the "
                "step starts after B x T rows instead of the whole embedding's copy to the GPU, which "
                "then runs beside the first layers for the LM head) or window (after that copy). The "
                "same values either way; no effect on CPU workers, untied models or a delivery copy "
                "sharded across nodes (--node-layout fully-sharded)")
      ->check(CLI::IsMember({"host", "window"}))->capture_default_str();
  g->add_option("--gemm-algorithm", o.gemm_algorithm, "How bf16 GPU workers choose the cuBLASLt "
                "algorithm of each GEMM of the layers and the LM head: library (the library's "
                "heuristic's first choice, as ATen) or timed (the fastest of up to 16 of its candidates and "
                "ATen's own call, timed on each shape's first call: the first step takes a second "
                "or two more). The same products up to the fp32 summation order; no effect on CPU "
                "workers")
      ->check(CLI::IsMember({"library", "timed"}))->capture_default_str();
  g->add_option("--grad-buckets", o.grad_buckets, "How a decoder layer's gradient goes to the "
                "leader: split (two buckets, as DDP's: its MLP's and post-attention norm's as soon as "
                "their backward is done, so the leader's AdamW of them runs beside the attention's "
                "backward; then the rest) or whole (after the layer). The same update either way; "
                "early only on the cpu reduction route, and one bucket when the state is sharded "
                "across nodes")
      ->check(CLI::IsMember({"split", "whole"}))->capture_default_str();
  g->add_option("--update-tail-units", o.train.update_tail_units, "Decoder layers 1..N whose "
                "gradients go to the leader after the embedding's, in forward order, so that the next "
                "step's forward starts while the leader still updates them (its forward needs layer 1 "
                "first and layer N last): for steps bound by the leader's AdamW (small batches, several "
                "GPUs per leader). 0: none, the backward's order. Takes effect with the cpu reduction "
                "route, one accumulation step, no clipping and one node; the update is the same either way")
      ->check([](const std::string& v) -> std::string {
        const double x = numberIn(v, 0, 1 << 20);
        if (!std::isnan(x) && x == std::floor(x)) return "";
        return "must be a whole number of decoder layers, 0 (none) up to the model's, e.g. 16";
      })
      ->capture_default_str();
  g->add_option("--max-kept-layers", o.train.max_kept_layers, "At most this many decoder layers "
                "keep their activations per step (-1: no cap)")->capture_default_str();
  g->add_option("--gpu-memory-budget", o.train.gpu_memory_budget_gib, "GiB of its GPU a worker "
                "may allocate under --activations auto (0: the GPU's memory minus 3 GiB)")->capture_default_str();
  g->add_flag("--offload-activations", o.train.offload_activations,
              "Keep the layer-boundary activations of every recomputed layer in pinned host "
              "memory (GPU workers), prefetched back one unit ahead in backward (without it, only "
              "those the GPU cannot hold go there)");
  g->add_option("--mlp-tile-tokens", o.train.mlp_tile_tokens, "Tokens per MLP tile: the "
                "post-norm, gate/up, SwiGLU and down GEMMs run on this many tokens at a time, so "
                "the [tokens, 2 x intermediate] gate/up output never exists whole (0: auto, tiled "
                "only above 4 GiB of it, ~512 MiB tiles; -1: never)")->capture_default_str();
  g->add_option("--loss-chunk-tokens", o.train.loss_chunk_tokens, "Tokens per LM-head/cross-entropy "
                "chunk (0: as many as keep the chunk's bf16 logits near 2 GiB)")->capture_default_str();
  g->add_option("--policy", o.policy, "auto (the step-time model's best policy for this machine "
                "and batch: routes, chunk size, ring slots, window, micro-batch rows, kept layers, "
                "offload, leader threads; it reads this machine's calibration for the shape from the "
                "cache, which launcher/slidedp-run fills first by planning the run (once per shape), "
                "or --machine; the step line then shows predicted vs measured) or manual (the "
                "route/chunk/activation flags as given). Not given: auto on GPU workers of one node "
                "when none of those flags is given, with the flags as given where the cache lacks "
                "the shape (a worker started without the launcher); manual otherwise (CPU workers, "
                "several nodes, --route-sweep, a knob flag given). Given as auto, it overrides the "
                "knob flags")
      ->check(CLI::IsMember({"manual", "auto"}))->capture_default_str();
  fileOption(g->add_option("--machine", o.machine, "--policy auto: plan with this machine description "
                "(tools/machines/*.json) instead of this machine's cached calibration"));
  fileOption(g->add_option("--calibration", o.calibration, "--policy auto: the calibration cache (default "
                "$SLIDEDP_CALIBRATION or ~/.cache/slidedp/calibration.json)"));
  g->add_option("--lr", o.train.lr, "Peak learning rate")->capture_default_str();
  g->add_option("--beta1", o.train.beta1, "AdamW beta1")->capture_default_str();
  g->add_option("--beta2", o.train.beta2, "AdamW beta2")->capture_default_str();
  g->add_option("--eps", o.train.eps, "AdamW epsilon")->capture_default_str();
  g->add_option("--weight-decay", o.train.weight_decay, "Decoupled weight decay (ndim >= 2 parameters only)")->capture_default_str();
  g->add_option("--max-grad-norm", o.train.max_grad_norm, "Exact global-norm clipping (0: off)")->capture_default_str();
  g->add_option("--schedule", o.schedule, "LR schedule: constant, linear or cosine")->capture_default_str();
  g->add_option("--warmup", o.train.warmup_steps, "LR warm-up steps")->capture_default_str();
  g->add_option("--leader-threads", o.train.leader_threads, "AdamW threads on the leader (0: all)")->capture_default_str();
  dirOption(g->add_option("--export", o.export_dir, "Write a Hugging Face directory of the trained weights at the end"));
  g->add_flag("--export-bf16{true},--export-fp32{false}", o.export_bf16,
              "Dtype of the exported weights: bf16 (true) or fp32 (--export-fp32)")
      ->default_str(o.export_bf16 ? "true" : "false");
  fileOption(g->add_option("--metrics", o.metrics, "Per-step metrics file: JSONL, or CSV when it ends in .csv"));
  fileOption(g->add_option("--trace", o.trace, "Write a Chrome/Perfetto trace (JSON) of one step's pipeline on every rank"));
  g->add_option("--trace-step", o.trace_step, "The step --trace records")->capture_default_str();
  fileOption(g->add_option("--gpu-profile", o.gpu_profile, "Profile the GPU work of step --trace-step on every "
                "GPU worker with the torch profiler (Kineto/CUPTI): a Chrome trace per worker at "
                "this path with -w<worker> before the extension (.json), and beside it (.txt) the GPU time "
                "per decoder scope and per CUDA stream, and the compute stream's idle gaps by what "
                "ran before and after them. The profiled step runs slower on the host; its GPU "
                "timeline is what to read"));
  fileOption(g->add_option("--memory-snapshot", o.memory_snapshot, "Record the CUDA caching allocator's "
                "history through step --trace-step on every GPU worker and write torch's memory "
                "snapshot at this path with -w<worker> before the extension (.pickle): every "
                "segment and block, and each allocation and free with its size and stream (no stacks), "
                "for https://pytorch.org/memory_viz or torch.cuda._memory_viz (to see what the "
                "allocator reserves beyond what is allocated: fragmentation, blocks per stream)"));
  dirOption(g->add_option("--checkpoint-dir", o.checkpoint_dir, "Write full-state checkpoints (FP32 master weights, "
                "moments, step, data cursor, configuration) under this directory"));
  g->add_option("--checkpoint-every", o.checkpoint_every, "Checkpoint every N steps (0: only at the end "
                "and on SIGTERM/SIGUSR1)")->capture_default_str();
  g->add_option("--keep-checkpoints", o.keep_checkpoints, "Newest step checkpoints kept (0: all)")->capture_default_str();
  g->add_option("--checkpoint-mode", o.checkpoint_mode, "How a periodic checkpoint is written: stream "
                "(the leader writes it while the next step runs; a unit's update waits only until "
                "that unit is written, the step line's ckpt-wait) or blocking (training stops until "
                "it is written). The checkpoints at the end and on a stop signal are complete before "
                "the job exits either way")
      ->check(CLI::IsMember({"stream", "blocking"}))->capture_default_str();
  g->add_option("--checkpoint-staging", o.checkpoint_staging, "Host memory (GiB) a streamed checkpoint "
                "may fill with copies of the state the next steps update before the disk has it, so "
                "training does not wait for a disk slower than a step (a copy at memory speed "
                "instead); reserved at the start and kept; auto: MemAvailable at the start less "
                "max(8 GiB, 10% of RAM), at most the checkpoint's size; 0: wait for the disk")
      ->check([](const std::string& v) -> std::string {
        if (v == "auto" || !std::isnan(numberIn(v, 0, 1e9))) return "";
        return "must be auto, or a number of GiB from 0 to 1e9, e.g. 32";
      })
      ->capture_default_str();
  g->add_option("--checkpoint-write-rate", o.checkpoint_write_rate, "Most MB/s (1e6 bytes) a "
                "checkpoint is written at, to share a disk or network file system or to spread "
                "the write over more of the interval between checkpoints; training waits for it "
                "only where --checkpoint-staging is short. 0: as fast as the disk takes it")
      ->check([](const std::string& v) -> std::string {
        if (numberIn(v, 0, 0) == 0 || !std::isnan(numberIn(v, 1, 1e9))) return "";
        return "must be 0 (uncapped) or a number of MB/s from 1 to 1e9, e.g. 300";
      })
      ->capture_default_str();
  g->add_option("--checkpoint-io", o.checkpoint_io, "How a streamed checkpoint reaches the disk: "
                "direct (O_DIRECT through the writer's own aligned buffers: no page cache, no "
                "kernel writeback competing with the training threads; buffered where the file "
                "system refuses it), buffered (the page cache), or auto: direct when "
                "--checkpoint-staging holds memory, buffered without (the page cache then lets "
                "the next step's updates go on before the disk has the state)")
      ->check(CLI::IsMember({"auto", "direct", "buffered"}))->capture_default_str();
  g->add_option("--checkpoint-at-end", o.checkpoint_at_end, "Also checkpoint after the last step "
                "(false: only every --checkpoint-every steps and on a stop signal; e.g. a benchmark "
                "on a disk with room for one checkpoint)")->capture_default_str();
  g->add_flag("--overwrite-checkpoints", o.overwrite_checkpoints, "Let this run replace the "
              "checkpoints of another run in --checkpoint-dir (without it, a directory holding "
              "checkpoints newer than this run's start is refused)");
  dirOption(g->add_option("--resume", o.resume, "Continue from a checkpoint: a step directory, a --checkpoint-dir "
                "(its latest; without a `latest` file its newest complete step), or auto (the same "
                "for --checkpoint-dir; a fresh start when it holds no checkpoint). Every file's "
                "checksum is verified first"));
}

}  // namespace slidedp
