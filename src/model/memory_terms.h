// The GPU memory of a decoder step, each formula once: the MLP's automatic sequence tiling and
// the head's logits chunk that decide it, what a kept layer holds, and the first step's reserve
// estimate. The worker's activation placement (worker/worker.cpp) and the step-time model
// (planner/cost_model.cpp) both price memory with these, so the two cannot drift apart. No
// LibTorch (the planner and the leader link only slidedp_model_core).
#pragma once

#include <cstdint>

namespace slidedp::model {

struct ModelConfig;

inline constexpr int64_t kMlpTileAboveBytes = int64_t{4} << 30;  // untiled up to 4 GiB of gate/up
inline constexpr int64_t kMlpTileBytes = int64_t{512} << 20;     // a tile's gate/up output, bytes

/// The automatic MLP tiling (mlp_tiles.h, without its process-wide override): rows per tile for
/// N tokens, I intermediate size and `elementBytes` of the compute dtype. 0 (untiled) while the
/// [N, 2I] gate/up output is at most kMlpTileAboveBytes, else max(256, kMlpTileBytes / (2I *
/// elementBytes) rounded down to 256), and 0 again when that is not below N (one tile).
/// Qwen3-4B, bf16: 13568 rows from 110 K tokens up.
int64_t autoMlpTileRows(int64_t N, int64_t I, int64_t elementBytes);

/// Tokens per logits chunk of the head (headForwardBackward) for `chunkTokens` (> 0: that; 0:
/// auto, 2^30 logits per chunk clamped to [1024, 16384] tokens) and vocabulary V.
int64_t lossChunkTokens(int64_t chunkTokens, int64_t V);

/// Whether a kept layer carries the attention's fp32 log-sum-exp per head, so the
/// attention-output policy (LayerActivations::attentionOnly) applies: bf16 (2-byte compute) on
/// CUDA, fp32 or bf16 on CPU workers.
inline bool keepsAttentionLse(bool cuda, int64_t elementBytes) {
  return cuda ? elementBytes == 2 : (elementBytes == 4 || elementBytes == 2);
}

/// What a decoder step's memory depends on.
struct LayerMemoryShape {
  int64_t C = 0, I = 0, H = 0, KV = 0, D = 0, V = 0;  // names as in model/config.h
  int64_t element_bytes = 2;                          // compute dtype
  bool qk_norm = false;                               // per-head Q/K RMSNorm (Qwen3)
  bool lse = false;                                   // keepsAttentionLse
  /// The shape of `config` computed in `elementBytes`, on CUDA or CPU workers.
  static LayerMemoryShape of(const ModelConfig& config, int64_t elementBytes, bool cuda);
};

/// Bytes a kept decoder layer holds beyond its input for `tokens` tokens (LayerActivations other
/// than x): q|k|v, the attention output, h1 and, unless the MLP runs tiled, gate|up in the
/// compute dtype; rstd1 and rstd2 (fp32); the per-head Q/K-norm rstd (fp32, Qwen3); the LSE.
int64_t keptLayerBytes(const LayerMemoryShape& s, int64_t tokens, bool mlpTiled);

/// Bytes a layer keeping only its attention output holds beyond its input: the output
/// [tokens, H D] in the compute dtype and the fp32 log-sum-exp [H] per token.
int64_t attentionOutputBytes(const LayerMemoryShape& s, int64_t tokens);

/// The first step's estimate of what the head and the backward need above the end-of-forward
/// level, for `tokens` tokens of the worker in micro-batches of `mbTokens`: the head's logits
/// chunk (`lossChunk` tokens x V) and its four [tokens, C] temporaries and the fp32 gradients
/// of the embedding and head units; one recomputed layer's kept bytes and temporaries per
/// micro-batch (the tiled MLP's per tile: `mlpTile` rows, 0 untiled); three fp32 gradients of
/// the largest unit; 1 GiB. About twice what a step measures at the Qwen3-4B shape (2.0-2.7x
/// from 4K to 576K tokens, tools/bench/results/2026-12-04e-h200x1-reserve/).
int64_t reserveEstimateBytes(const LayerMemoryShape& s, int64_t tokens, int64_t mbTokens,
                             int64_t lossChunk, int64_t mlpTile, int64_t embeddingNumel,
                             int64_t headNumel, int64_t maxUnitNumel);

}  // namespace slidedp::model
