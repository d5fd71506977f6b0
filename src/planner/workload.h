// What one training step has to move and compute, independent of the machine: the model's
// unit sizes and shapes, the global batch, the worker count and the dtypes (design.md, "The
// step-time model and policies"). The cost model (cost_model.h) prices a Workload under a
// Policy on a MachineDescription. No LibTorch: the unit sizes come from model::ParamLayout
// (slidedp_model_core), exactly as the runtime lays them out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/window_schedule.h"

namespace slidedp::model {
struct ModelConfig;
}

namespace slidedp::planner {

struct Workload {
  // ---- the model (names as in HF configs; see model/config.h) ----
  std::string model_name;          // for reports ("qwen3-4b.json")
  std::vector<int64_t> unit_numels;  // padded elements per unit: 0 = embedding, 1..L, L+1 = head
  int64_t L = 0, C = 0, I = 0, H = 0, KV = 0, D = 0, V = 0;
  bool tied = true;                // LM head = embedding (resident from the forward: windowSchedule)
  bool qk_norm = false;            // Qwen3 (kept per-head rstd)
  bool mlp_tileable = true;        // the MLP may run tiled along the tokens (no MLP biases:
                                   // decoder.cpp mlpTiles)
  int64_t parameters = 0;          // real parameters (without padding), for FLOPs/MFU
  // ---- the run ----
  int G = 1;                       // workers per node (GPUs, or CPU workers)
  int nodes = 1;                   // N nodes, each a leader + G workers (design.md "Several nodes")
  bool node_sharded = true;        // N > 1: state sharded across nodes (else replicated)
  bool copy_sharded = false;       // N > 1, sharded: the delivery copy too (fully-sharded): the
                                   // workers all-gather every unit they deliver over the network
  int64_t global_rows = 8;         // B: rows per step over all workers
  int64_t T = 4096;                // tokens per row
  bool cuda = true;                // GPU workers (else CPU workers)
  int compute_bytes = 2;           // bf16 compute / delivery (4: fp32 from the master)
  bool clip = false;               // exact global-norm clipping (--max-grad-norm > 0)
  bool flash_lse = true;           // kept activations carry fp32 LSE per head, so the
                                   // attention-output policy applies (model::keepsAttentionLse:
                                   // bf16 on CUDA, fp32 or bf16 on CPU workers)
  bool host_embedding_lookup = true;  // --embedding-lookup host (windowSchedule; GPU workers)
  bool split_embedding = true;     // the row-split embedding update (--embedding-update split;
                                   // the runtime applies it on the cpu reduction route only)
  int64_t layer_bucket_split = 0;  // gradient buckets (--grad-buckets split): elements of a
                                   // decoder unit before its MLP bucket, which is handed off
                                   // first (model::ParamLayout::gradientBucketSplits; 0: whole)

  /// Token rows of a step (runtime/token_rows.h), an upper bound: min(V, B * T). Uniformly
  /// random tokens reach V (1 - exp(-B T / V)) rows, text far fewer.
  int64_t tokenRowsBound() const { return global_rows * T < V ? global_rows * T : V; }

  /// Rows of the busiest worker: ceil(B / (N G)) (trainer.h rowsForWorker: the batch is split
  /// over every worker of every node, the first B mod NG one more).
  int64_t rowsPerWorker() const { return (global_rows + int64_t{G} * nodes - 1) / (int64_t{G} * nodes); }
  /// Rows of the least busy worker (every worker runs the same number of accumulation steps).
  int64_t fewestRowsPerWorker() const { return global_rows / (int64_t{G} * nodes); }
  /// Tokens of the busiest worker in one step.
  int64_t tokensPerWorker() const { return rowsPerWorker() * T; }
  int64_t totalNumel() const;
  int64_t maxUnitNumel() const;
  /// Sum of the decoder units' numel (units 1..L).
  int64_t decoderNumel() const;
  /// Parameters of one decoder layer (unit 1), used for its FLOPs.
  int64_t layerNumel() const { return unit_numels.at(1); }
  /// Model FLOPs of one step, as the trainer counts them: 6 N tokens + 12 L H D T tokens.
  double stepFlops() const;

  /// The worker's window schedule with K rotating slots (runtime/window_schedule.h): the tied
  /// embedding is resident unless the delivery copy is sharded across nodes; GPU workers look
  /// its rows up in host memory with --embedding-lookup host.
  WindowSchedule windowSchedule(int K) const {
    const bool copy_split = nodes > 1 && node_sharded && copy_sharded;
    return {K, static_cast<int>(L), tied && !copy_split && L >= 1, cuda && host_embedding_lookup};
  }
};

/// The workload of `config` (its units from model::ParamLayout). Throws UserError when
/// B < G (a worker would have no row) or T < 2.
Workload makeWorkload(const model::ModelConfig& config, const std::string& model_name, int G,
                      int64_t global_rows, int64_t T, bool cuda);

}  // namespace slidedp::planner
