// The knobs of a training run that leader and workers must agree on: routes, chunking,
// optimizer, precision. Every field has its default and unit here; the command line and the
// config file (apps/) fill it, and it is broadcast from world rank 0 so all ranks hold the same.
#pragma once

#include <cstdint>
#include <string>

#include "optim/lr_schedule.h"

namespace slidedp {

/// How parameters reach the workers (design.md, "Routes").
enum class DeliveryRoute : uint8_t {
  kReplicated = 0,  // every worker reads the whole unit from the host
  kSharded = 1,     // every worker reads 1/G of the unit, then all-gather between workers
                    // (NCCL between GPU workers, MPI between CPU workers)
  kShardedIpc = 2,  // GPU workers: 1/G from the host, then the other shards pulled from the
                    // peers' window slots with CUDA IPC peer copies (copy engines, no SMs)
};
/// What a worker keeps of a decoder layer's forward for its backward (design.md, "The
/// step-time model and policies").
enum class ActivationPolicy : uint8_t {
  kRecompute = 0,  // only the layer input; backward recomputes the layer's forward first
  kKeep = 1,       // the layer's saved activations (model/decoder.h LayerActivations)
  kAuto = 2,       // keep layers in forward order while the GPU memory budget allows, then
                   // keep the attention output, then recompute (CPU workers: keep)
  kAttentionOutput = 3,  // the layer input, the attention output and its log-sum-exp
                         // (LayerActivations::attentionOnly); backward recomputes the norms,
                         // projections and MLP but not the attention (bf16 GPU or CPU workers)
};

/// The attention kernel of bf16 GPU workers' plain causal rows (model/decoder.h
/// AttentionKernel; packed documents always run variable-length FlashAttention-2).
enum class AttentionChoice : uint8_t {
  kAuto = 0,   // the measured default (model/decoder.h AttentionKernel): today FlashAttention-3
               // where built and taken (H100/H200, head dim 128, bf16), else cuDNN
  kFa3 = 1,    // FlashAttention-3 where taken, else cuDNN (what auto resolves to today)
  kCudnn = 2,  // ATen's cuDNN attention
  kFlash = 3,  // ATen's FlashAttention-2
};

/// How gradients reach the leader.
enum class ReductionRoute : uint8_t {
  kCpu = 0,  // every worker writes its whole gradient to its staging slot; the leader sums G
  kGpu = 1,  // reduce-scatter between workers; each writes its reduced shard; the leader reads 1
             // (NCCL between GPU workers, MPI between CPU workers)
  kGpuIpc = 2,  // GPU workers: as kGpu, the peers' gradient shards pulled with CUDA IPC peer
                // copies and summed in one kernel
};

/// How the state is laid out across nodes (design.md, "Several nodes"; leader/node_layout.h).
/// With one node both are the same thing.
enum class NodeLayoutKind : uint8_t {
  kReplicated = 0,  // every node holds the whole state; node gradients all-reduced by the leaders
  kSharded = 1,     // node p owns 1/N of every chunk (master, m, v): node gradients
                    // reduce-scattered by the leaders, each updates its part, the updated
                    // delivery-copy parts all-gathered to every node
  kFullySharded = 2,  // as kSharded, and the delivery copy too holds only the node's parts:
                      // each delivery all-gathers the unit from every node (the workers of the
                      // same index, over the network): host memory 12/N (+2/N bf16) B/param
};

/// Whether the optimizer state (master, m, v) is cut across nodes by `k` (sharded or
/// fully-sharded; nothing is cut on one node).
inline bool shardsState(NodeLayoutKind k) { return k != NodeLayoutKind::kReplicated; }

const char* nodeLayoutName(NodeLayoutKind k);
/// "replicated" | "sharded" | "fully-sharded". Throws UserError otherwise.
NodeLayoutKind parseNodeLayout(const std::string& s);
const char* routeName(DeliveryRoute r);
const char* routeName(ReductionRoute r);
const char* policyName(ActivationPolicy p);
/// "recompute" | "keep" | "auto" | "attention-output". Throws UserError otherwise.
ActivationPolicy parseActivationPolicy(const std::string& s);
/// "auto" | "fa3" | "cudnn" | "flash". Throws UserError otherwise.
AttentionChoice parseAttentionChoice(const std::string& s);
/// "replicated" | "sharded" | "sharded-ipc"; "cpu" | "gpu" | "gpu-ipc". Throw UserError otherwise.
DeliveryRoute parseDeliveryRoute(const std::string& s);
ReductionRoute parseReductionRoute(const std::string& s);
/// Whether a worker reads only its 1/G shard of each unit from the host.
inline bool isSharded(DeliveryRoute r) { return r != DeliveryRoute::kReplicated; }
/// Whether the workers reduce gradients among themselves (the leader reads one copy).
inline bool reducesOnWorkers(ReductionRoute r) { return r != ReductionRoute::kCpu; }
/// Whether a route moves data between GPUs through CUDA IPC (GPU workers only).
inline bool usesCudaIpc(DeliveryRoute r) { return r == DeliveryRoute::kShardedIpc; }
inline bool usesCudaIpc(ReductionRoute r) { return r == ReductionRoute::kGpuIpc; }

struct TrainOptions {
  DeliveryRoute delivery = DeliveryRoute::kReplicated;
  ReductionRoute reduction = ReductionRoute::kCpu;
  NodeLayoutKind node_layout = NodeLayoutKind::kSharded;  // across nodes (no effect on one node)
  int64_t chunk_numel = 1 << 22;  // elements per gradient chunk handed to the leader
  int ring_slots = 4;             // staging ring depth (chunks in flight per worker)
  bool bf16_staging = false;      // gradients cross in bf16 (else fp32)
  bool bf16_compute = false;      // workers compute in bf16 from the bf16 copy (else fp32 master)
  int window_slots = 2;           // K: GPU layer window depth (>= 2: next delivery overlaps)
  int64_t batch_rows = 0;         // B: rows of every step's global batch (the fewest, when a run
                                  // varies it). Required: the Trainer refuses < 1, and fewer rows
                                  // than workers (of every node together: each needs a row),
                                  // before any start-up work
  int64_t micro_batch_rows = 0;   // rows per micro-batch (0: all of a worker's rows at once)
  int64_t accumulation_steps = 1; // forward + backward passes per step, each over 1/N of a
                                  // worker's rows with the layers delivered again; gradients
                                  // summed on the device, handed off in the last (>= 1, at most
                                  // the rows of every worker)
  int64_t loss_chunk_tokens = 0;  // tokens per LM-head/cross-entropy chunk (0: ~2 GiB of bf16 logits)
  int64_t mlp_tile_tokens = 0;    // tokens per MLP tile (model/mlp_tiles.h; 0: auto, tiled only
                                  // above 4 GiB of [tokens, 2I] gate/up; -1: never tiled)
  ActivationPolicy activations = ActivationPolicy::kAuto;
  int max_kept_layers = -1;         // cap on the decoder layers kept per step (-1: none)
  double gpu_memory_budget_gib = 0; // auto policy: GiB of the GPU a worker may allocate
                                    // (0: the device's total memory minus 3 GiB)
  bool offload_activations = false;  // boundary activations of recomputed layers to pinned host
  int64_t first_step_reserve_bytes = 0;  // --policy auto: the reserve of head + backward that
                                         // calibration measured for this model and shape
                                         // (planner/machine.h reserve_gib), where train_job.cpp's
                                         // conditions hold; the first step takes the smaller of
                                         // it and the shape estimate (0: the estimate)
  AttentionChoice attention = AttentionChoice::kAuto;  // bf16 GPU workers' attention kernel
  std::string gpu_profile;          // slidedp_worker --gpu-profile: path of the profiled step's
  int64_t gpu_profile_step = 0;     //   trace (workers insert -w<worker>) and that step (0: none)
  std::string memory_snapshot;      // slidedp_worker --memory-snapshot: path of the allocator
  int64_t memory_snapshot_step = 0; //   snapshot (workers insert -w<worker>), recorded through
                                    //   that step (0: none)
  bool split_embedding = true;       // row-split embedding update (runtime/token_rows.h): the
                                     // rows outside the step's tokens updated right after the
                                     // head; needs the cpu reduction route (else: whole, last)
  bool gradient_buckets = true;      // a decoder layer's gradient goes to the leader in two
                                     // buckets, its MLP's first, while its attention's backward
                                     // runs (ChunkPlan::bucket_splits; the cpu reduction route
                                     // sends it early, the others after the layer); one node
  bool timed_gemm_algorithms = false; // GPU workers: the decoder's GEMMs run the fastest of
                                      // cuBLASLt's candidates, timed on each shape's first call
                                      // (kernels/lt_matmul.h); false: the library's choice
  bool host_embedding_lookup = true; // GPU workers, tied embedding: the forward's lookup reads
                                     // the delivery copy in host memory (runtime/window_schedule.h)
  int update_tail_units = 0;         // layers 1..m handed off after the embedding, in forward
                                     // order, and the step agreed before the leader updates
                                     // them (ChunkPlan::tail_units, Trainer::earlyAgreement)
  // AdamW (torch.optim.AdamW semantics; decay only on ndim >= 2, as HF Trainer)
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
  double max_grad_norm = 0;       // > 0: exact global-norm clipping (torch clip_grad_norm_)
  bool reserve_grad_accumulation = false;  // allocate the clipping region even if off now
  optim::LrScheduleKind schedule = optim::LrScheduleKind::kConstant;
  int64_t warmup_steps = 0;
  int64_t total_steps = 0;        // for linear/cosine schedules
  int leader_threads = 0;         // AdamW threads on the leader (0: all cores it may use)
  double wait_timeout_s = 0;      // deadline of a wait on a peer's counter, seconds (0: none; a
                                  // wait ends when the watchdog proves the peer dead, hung or
                                  // stalled, runtime/job_guard.h)

  optim::LrSchedule lrSchedule() const {
    optim::LrSchedule s;
    s.kind = schedule;
    s.baseLr = lr;
    s.warmupSteps = warmup_steps;
    s.trainingSteps = total_steps;
    return s;
  }
};

/// Whether a step's agreement (Trainer::step) comes as soon as the workers' backward is over,
/// before the leader updates the update tail's layers (ChunkPlan::tail_units = `tail_units` >
/// 0), so that the next step's forward runs beside that update: with the cpu reduction route
/// (each hand-off owns its tensor), one accumulation step (the next step would reuse the
/// accumulators the tail's hand-offs still read), no clipping (its updates wait for every
/// gradient) and one node (the leaders' norm and publish are collectives). The leader and the
/// workers decide it alike, from the same options. Pure.
inline bool earlyStepAgreement(const TrainOptions& o, int tail_units, int num_nodes) {
  return tail_units > 0 && o.reduction == ReductionRoute::kCpu && o.accumulation_steps == 1 &&
         !(o.max_grad_norm > 0) && num_nodes == 1;
}

}  // namespace slidedp
