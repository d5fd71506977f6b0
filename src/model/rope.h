// Rotary position embeddings (RoPE) of every rope type slidedp trains, exactly as
// transformers 5.17 computes them (modeling_rope_utils.py: _compute_default_rope_parameters,
// _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
// _compute_yarn_parameters, _compute_llama3_parameters; LlamaRotaryEmbedding.forward):
//   default  inv_freq = 1 / theta^(arange(0, D, 2) / D)
//   linear   inv_freq / factor
//   dynamic  NTK: theta' = theta * (factor * S / M - (factor - 1))^(D / (D - 2)) with S the
//            sequence length when it exceeds M = max_position_embeddings, else default
//   yarn     a ramp between interpolated (inv_freq / factor) and extrapolated frequencies,
//            and cos/sin multiplied by the attention factor (0.1 ln(factor) + 1 by default)
//   llama3   the smoothed low/high-frequency split of Llama 3.1
// Design decision (dynamic): transformers keeps the longest sequence seen so far in a cache
// (stateful across calls); slidedp uses each document's own length S = its last position + 1,
// which is what running that document alone through a fresh transformers model gives, so a
// training step does not depend on which batches came before. The other types do not depend
// on the sequence. Every computation is in float32 with the operations transformers uses,
// so the tables agree with it to float32 rounding.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/config.h"

namespace slidedp::model {

/// RoPE inverse frequencies [D/2], float32 on CPU, for sequences of `seqLen` positions
/// (`seqLen` matters only to dynamic; <= 0: at initialisation, i.e. max_position_embeddings).
at::Tensor ropeInvFreq(const ModelConfig& config, int64_t seqLen = 0);

/// The factor transformers multiplies cos and sin by (attention_scaling): yarn's attention
/// factor, 1 for every other type.
double ropeAttentionScaling(const ModelConfig& config);

/// cos and sin tables [B, T, D] in float32 on positionIds' device, for positionIds [B, T]
/// int64: emb = cat(freqs, freqs) with freqs = pos * inv_freq, times the attention scaling
/// (LlamaRotaryEmbedding.forward before its cast to the compute dtype). Dynamic: per document
/// (a document starts at t = 0 and wherever position_ids[t] != position_ids[t-1] + 1, as in
/// makeAttentionContext), with that document's last position + 1 as its length.
void ropeCosSin(const ModelConfig& config, const at::Tensor& positionIds, at::Tensor* cos,
                at::Tensor* sin);

}  // namespace slidedp::model
