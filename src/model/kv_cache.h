// The keys and values of the tokens seen so far, per decoder layer: generate's incremental
// decoding (each new token runs the layers over itself only, attending to the cache).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <map>
#include <vector>

#include "model/config.h"
#include "model/param_layout.h"

namespace slidedp::model {

/// Per decoder unit (UnitLayout::index): k and v buffers [B, KV, capacity, D] in the compute
/// dtype, on the model's device, RoPE already applied to k; their first `past` positions are
/// the tokens seen. The capacity at least doubles when full (an append copies only the new
/// tokens, amortised O(1) per token). Filled by the layers' forward when an AttentionContext
/// points at it (AttentionContext::kvCache). Not thread-safe; one sequence batch at a time.
struct KvCache {
  std::map<int, at::Tensor> k, v;
  int64_t past = 0;  // tokens cached (the next token's position)
  /// The most positions the sequence will hold (0: unknown): the capacity grows to at most
  /// this (generate: the prompt and --max-new-tokens, within the context), not to twice it.
  int64_t max_positions = 0;
};

/// Attention of the new tokens over the cache and themselves, appending them to it.
/// q [N, H, D], k [N, KV, D], v [N, KV*D] (a view into qkv), N = B * T new tokens at positions
/// cache.past .. cache.past + T - 1 (the caller advances cache.past after the last layer);
/// returns [N, H*D]. Causal: new token i sees the cached tokens and new tokens 0..i
/// (bottom-right aligned, as transformers' cached attention). `scale`: 1/sqrt(D) or the model's.
at::Tensor cachedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t B,
                           int64_t T, int64_t H, int64_t KV, int64_t D, double scale, KvCache& cache,
                           int unit);

/// Runs `ids` (one sequence's next tokens, at positions cache.past ..) through the model over
/// the cache, appends their keys and values and advances cache.past; returns the logits after
/// the last of them, float32 [V] on the CPU. `units` as unitTensors gives them (any dtype and
/// device); ids non-empty, cache.past + ids.size() <= max_position_embeddings (not checked
/// here: generate stops before). Forward only, no grad. Equals modelLogits over the whole
/// prefix at its last position up to the attention's summation order.
at::Tensor decodeStep(const ModelConfig& config, const ParamLayout& layout, const std::vector<at::Tensor>& units,
                      const std::vector<int64_t>& ids, KvCache& cache);

}  // namespace slidedp::model
