// The decoder's math in LibTorch, one streaming unit at a time (see param_layout.h):
// embedding, decoder layer (RMSNorm -> GQA attention with RoPE -> residual -> RMSNorm ->
// SwiGLU MLP -> residual) and head (final RMSNorm + LM head + chunked cross-entropy).
// Formulas follow transformers' modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py /
// modeling_mistral.py (LlamaRMSNorm, apply_rotary_pos_emb, repeat_kv, LlamaMLP) and
// modeling_rope_utils.py (_compute_default_rope_parameters, _compute_llama3_parameters).
// Design decisions: (1) a unit's parameters are views into its flat buffer (fp32 or bf16,
// on CPU or CUDA), so the flat gradient of a backward IS the unit's gradient buffer;
// (2) backward recomputes the unit's forward from its saved input under autograd (activation
// checkpointing at unit boundaries); (3) the loss never materialises [tokens, V] logits: the
// head runs chunk by chunk with a hand-written softmax-cross-entropy gradient and returns the
// SUM of token losses and the COUNT of targets, the runtime normalising by the global count.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "model/config.h"
#include "model/hf_checkpoint.h"
#include "model/param_layout.h"

namespace slidedp::model {

/// Label value that contributes no loss (transformers' ignore_index).
constexpr int64_t kIgnoreIndex = -100;

/// What every decoder layer of one micro-batch shares: rotary tables and the attention mask.
struct AttentionContext {
  at::Tensor cos;   // [B, T, D], compute dtype, on the device
  at::Tensor sin;   // [B, T, D]
  at::Tensor mask;  // undefined: plain causal attention; else bool [B, 1, T, T], true = attend
};

/// RoPE inverse frequencies [D/2], float32 on CPU, exactly as transformers computes them
/// (default: 1 / theta^(arange(0, D, 2) / D); llama3: _compute_llama3_parameters).
at::Tensor ropeInvFreq(const ModelConfig& config);

/// Builds the context of a micro-batch of B rows of T tokens. `positionIds` [B, T] int64
/// (any device) or undefined (then 0..T-1 in every row). Packed documents: a new document
/// starts at t = 0 and wherever position_ids[t] != position_ids[t-1] + 1; attention is causal
/// inside a document and blocked across documents (an explicit bool mask, on CPU and CUDA).
/// Without a reset the mask is left undefined and attention runs with is_causal.
/// cos/sin are computed in float32 and cast to `dtype` (HF LlamaRotaryEmbedding.forward).
AttentionContext makeAttentionContext(const ModelConfig& config, int64_t B, int64_t T,
                                      const at::Tensor& positionIds, at::ScalarType dtype,
                                      at::Device device);

/// Views of a unit's parameters into `flat` ([unit.numel], any float dtype/device), in
/// unit.params order; the views share flat's storage (and autograd graph).
std::vector<at::Tensor> unitParamViews(const UnitLayout& unit, const at::Tensor& flat);

/// Embedding unit forward: inputIds [B, T] int64 -> hidden [B, T, C] in flat's dtype.
at::Tensor embeddingForward(const ModelConfig& config, const at::Tensor& embedFlat,
                            const at::Tensor& inputIds);

/// Embedding unit backward: adds d(loss)/d(embedding) for gradOut [B, T, C] into
/// `gradEmbedFlat` ([unit 0 numel], same dtype as gradOut or float32), in place.
void embeddingBackward(const ModelConfig& config, const at::Tensor& inputIds,
                       const at::Tensor& gradOut, at::Tensor& gradEmbedFlat);

/// Decoder layer forward: x [B, T, C] -> [B, T, C], in flat's dtype. Builds an autograd graph
/// only if flat or x requires grad (run under at::NoGradGuard in the forward pass).
/// Attention: torch scaled_dot_product_attention (is_causal, or ctx.mask), scale D^-0.5,
/// GQA through repeat_kv.
at::Tensor decoderLayerForward(const ModelConfig& config, const UnitLayout& unit,
                               const at::Tensor& flat, const at::Tensor& x,
                               const AttentionContext& ctx);

struct UnitGrads {
  at::Tensor gradInput;  // [B, T, C]: d(loss)/d(x)
  at::Tensor gradFlat;   // [unit.numel]: d(loss)/d(flat), zero in the padding
};

/// Decoder layer backward by recompute: runs decoderLayerForward(x) again with autograd and
/// back-propagates gradOut [B, T, C]. Deterministic on CPU.
UnitGrads decoderLayerBackward(const ModelConfig& config, const UnitLayout& unit,
                               const at::Tensor& flat, const at::Tensor& x,
                               const at::Tensor& gradOut, const AttentionContext& ctx);

struct HeadResult {
  double lossSum = 0;        // sum over unmasked targets of -log softmax(logits)[label]
  int64_t count = 0;         // number of labels != kIgnoreIndex
  at::Tensor gradHidden;     // [B, T, C]: gradScale * d(lossSum)/d(hidden)
  at::Tensor gradHeadFlat;   // [head unit numel]: gradScale * d(lossSum)/d(head flat)
  at::Tensor gradEmbedFlat;  // tied only: [unit 0 numel], the LM head's share of the
                             // embedding gradient (add it to embeddingBackward's); else undefined
};

/// Head unit forward + backward: final RMSNorm, LM head (lm_head.weight, or the embedding
/// when tied) and cross-entropy against `labels` [B, T] int64 (aligned with hidden: the
/// target of position t is labels[t]; kIgnoreIndex = no loss), `chunkTokens` target tokens at
/// a time, so the largest temporary is [chunkTokens, V] float32. Logits are computed in the
/// compute dtype and upcast to float32 for the softmax (as transformers' loss does).
/// Gradients are of gradScale * lossSum (pass 1 / global count for the mean loss).
HeadResult headForwardBackward(const ModelConfig& config, const UnitLayout& headUnit,
                               const at::Tensor& headFlat, const at::Tensor& embedFlat,
                               const at::Tensor& hidden, const at::Tensor& labels,
                               int64_t chunkTokens = 1024, double gradScale = 1.0);

/// Logits [B, T, V] float32 of the head (no loss; for generation and tests). embedFlat is
/// needed only when the embeddings are tied.
at::Tensor headLogits(const ModelConfig& config, const UnitLayout& headUnit,
                      const at::Tensor& headFlat, const at::Tensor& embedFlat,
                      const at::Tensor& hidden);

/// The unit buffers of a HostModel as tensors on `device` in `dtype` (CPU fp32: zero-copy).
std::vector<at::Tensor> unitTensors(const HostModel& model, at::ScalarType dtype,
                                    at::Device device);

/// Whole-model logits [B, T, V] float32 for inputIds [B, T] (no grad), unit by unit.
at::Tensor modelLogits(const ModelConfig& config, const ParamLayout& layout,
                       const std::vector<at::Tensor>& units, const at::Tensor& inputIds,
                       const at::Tensor& positionIds = at::Tensor());

struct GenerateOptions {
  int64_t maxNewTokens = 40;
  double temperature = 0.0;  // 0: greedy (argmax); > 0: sample softmax(logits / temperature)
  double topP = 1.0;         // nucleus sampling threshold (1 = off)
  uint64_t seed = 0;
  bool stopAtEos = true;  // stop after any of config.eosTokenIds
};

/// Autoregressive decoding from `prompt` (token ids, e.g. starting with BOS); returns the
/// new tokens only. Recomputes the whole prefix each step (no KV cache): meant for checking
/// trained models, not for serving.
std::vector<int64_t> generate(const ModelConfig& config, const ParamLayout& layout,
                              const std::vector<at::Tensor>& units,
                              const std::vector<int64_t>& prompt, const GenerateOptions& options);

}  // namespace slidedp::model
