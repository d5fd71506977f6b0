// Model FLOPs of a decoder layer's passes, one formula for everyone who counts them: the step-time
// model (planner/cost_model.cpp), the device calibration that turns measured seconds into rates
// (planner/device_calibration.cpp) and the layer benchmark (tools/bench/bench_layer.cpp). No
// LibTorch (the planner links only slidedp_model_core).
//
// Counting (the convention of tools/bench/bench_layer.cpp and the TFLOPS column): a GEMM
// of m x k by k x n is 2 m k n; the attention 4 H D T per token (scores and the weighted sum,
// non-causal, as MFU's "12 L H D T" counts it for forward + backward); element-wise work 0.
#pragma once

#include <cstdint>

#include "model/config.h"
#include "model/memory_terms.h"  // autoMlpTileRows

namespace slidedp::model {

/// A decoder layer's shape for its FLOPs (names as in model/config.h; numel: the unit's
/// elements, every weight of the layer counted once).
struct LayerFlopsShape {
  int64_t numel = 0, C = 0, I = 0, H = 0, D = 0, T = 0;
  int64_t element_bytes = 2;  // compute dtype (decides the MLP's automatic tiling)
  bool mlp_tileable = true;   // the MLP may run tiled: no MLP biases (config.mlpBias; the
                              // runtime's condition, decoder.cpp mlpTiles)

  /// A decoder layer of `config` (`numel`: its unit's elements) at T tokens per row, computed
  /// in `elementBytes`.
  static LayerFlopsShape of(const ModelConfig& config, int64_t numel, int64_t T, int64_t elementBytes) {
    return {numel, config.hiddenSize, config.intermediateSize, config.numHeads, config.headDim, T,
            elementBytes, !config.mlpBias};
  }
};

/// The layer forward over `tokens` tokens (a micro-batch of tokens / T rows of T): tokens
/// (2 numel + 4 H D T).
inline double layerForwardFlops(const LayerFlopsShape& s, double tokens) {
  return tokens * (2.0 * double(s.numel) + 4.0 * double(s.H) * double(s.D) * double(s.T));
}

/// The forward a recompute runs (decoder.h decoderLayerRecompute) over `tokens` tokens of one
/// micro-batch: the layer forward without what only its output needs, the down projection's
/// GEMM (C I weights), or, where the MLP runs tiled along the tokens (mlp_tileable and
/// autoMlpTileRows > 0 at these tokens: the automatic tiling, not --mlp-tile-tokens), the whole
/// MLP (3 C I); and without the attention when `attention` is false (the attention-output
/// policy: its output is kept). Biases' FLOPs are not counted.
inline double recomputeFlops(const LayerFlopsShape& s, double tokens, bool attention) {
  const bool tiled = s.mlp_tileable && autoMlpTileRows(static_cast<int64_t>(tokens), s.I, s.element_bytes) > 0;
  const double skipped = (tiled ? 3.0 : 1.0) * double(s.C) * double(s.I);
  const double attn = attention ? 4.0 * double(s.H) * double(s.D) * double(s.T) : 0.0;
  return tokens * (2.0 * (double(s.numel) - skipped) + attn);
}

/// The order of --activations auto (the runtime's, worker.cpp, and the planner's copy of it,
/// planner/search.cpp autoLayerSplit): whether the GPU budget is better spent keeping the
/// attention output of every remaining layer before keeping any whole. Compares the FLOPs a
/// byte saves in backward: an attention-output keep saves the attention (4 H D T per token) for
/// `attention_bytes` per token; a whole keep saves, for its `kept_bytes` - `attention_bytes`
/// more per token, the attention-output recompute (recomputeFlops without the attention, at
/// micro-batches of `mb_tokens`). True at long sequences, where attention dominates, and when
/// a whole keep costs no more than the attention output.
inline bool attentionOutputFirst(const LayerFlopsShape& s, double mb_tokens, double attention_bytes,
                                 double kept_bytes) {
  if (kept_bytes <= attention_bytes) return true;
  const double attn = 4.0 * double(s.H) * double(s.D) * double(s.T);
  const double rest = recomputeFlops(s, mb_tokens, false) / mb_tokens;
  return attn / attention_bytes > rest / (kept_bytes - attention_bytes);
}

}  // namespace slidedp::model
