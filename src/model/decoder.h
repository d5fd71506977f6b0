// The decoder's math in LibTorch, one streaming unit at a time (see param_layout.h):
// embedding, decoder layer (RMSNorm -> GQA attention with RoPE -> residual -> RMSNorm ->
// SwiGLU MLP -> residual) and head (final RMSNorm + LM head + chunked cross-entropy).
// Formulas follow transformers' modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py /
// modeling_mistral.py (LlamaRMSNorm, apply_rotary_pos_emb, repeat_kv, LlamaMLP) and
// modeling_rope_utils.py (rope.h: default, linear, dynamic, yarn, llama3).
// Design decisions: (1) a unit's parameters are views into its flat buffer (fp32 or bf16,
// on CPU or CUDA), so the flat gradient of a backward IS the unit's gradient buffer;
// (2) forward and backward are written out by hand (no autograd): a layer either keeps the
// few tensors its backward needs (LayerActivations: the GEMM outputs) or only its input, and
// then its backward recomputes the forward first (activation checkpointing at unit boundaries);
// the worker chooses per layer under a GPU memory budget; (3) the loss never materialises
// [tokens, V] logits: the head runs chunk by chunk with a fused softmax-cross-entropy gradient
// and returns the SUM of token losses and the COUNT of targets, the runtime normalising by the
// global count.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "model/config.h"
#include "model/hf_checkpoint.h"
#include "model/memory_terms.h"
#include "model/param_layout.h"
#include "model/rope.h"  // defines: ropeInvFreq, ropeCosSin (every rope type)

namespace slidedp::model {

struct KvCache;  // model/kv_cache.h

/// Label value that contributes no loss (transformers' ignore_index).
constexpr int64_t kIgnoreIndex = -100;

/// What every decoder layer of one micro-batch shares: rotary tables and the attention mask.
struct AttentionContext {
  at::Tensor cos;   // [B, T, D], compute dtype, on the device
  at::Tensor sin;   // [B, T, D]
  at::Tensor mask;  // undefined: plain causal attention; else bool [B, 1, T, T], true = attend
  // Packed documents on the fused path (bf16 on CUDA): variable-length attention over the B*T
  // tokens flattened, causal inside each document, no [T, T] mask. cuSeqlens: int32 [docs + 1]
  // on the device, the documents' first token indices, then B*T; maxSeqlen: the longest
  // document's tokens. Undefined otherwise.
  at::Tensor cuSeqlens;
  int64_t maxSeqlen = 0;
  // Incremental decoding (generate): the rows' earlier tokens' keys and values; the layers'
  // attention runs over them and the new tokens and appends these (kv_cache.h). Forward only;
  // null otherwise.
  KvCache* kvCache = nullptr;
};

/// Builds the context of a micro-batch of B rows of T tokens. `positionIds` [B, T] int64
/// (any device) or undefined (then 0..T-1 in every row). Packed documents: a new document
/// starts at t = 0 and wherever position_ids[t] != position_ids[t-1] + 1; attention is causal
/// inside a document and blocked across documents: by variable-length FlashAttention-2 over the
/// document offsets (cuSeqlens) for bf16 on CUDA, else by an explicit bool [B, 1, T, T] mask
/// with SDPA (CPU workers, fp32). Without a reset neither is built and attention runs with
/// is_causal.
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

/// The same for the packed token rows of the row-split embedding update
/// (runtime/token_rows.h): `rows` [B, T] int64 is each input id's packed row index, and the
/// gradient is added into `gradRowsFlat` ([packed rows * C] float32), in place.
void embeddingBackwardRows(const ModelConfig& config, const at::Tensor& rows,
                           const at::Tensor& gradOut, at::Tensor& gradRowsFlat);

/// The fused attention kernel of bf16 CUDA layers without a packed-document mask:
/// FlashAttention-3 (kernels/flash_attention3.h: built with nvcc >= 12.3, runs on H100/H200 at
/// head dim 128), cuDNN's (ATen's _scaled_dot_product_cudnn_attention) or FlashAttention-2
/// (_scaled_dot_product_flash_attention). kAuto, the default, is FlashAttention-3 where it is
/// built (and takes the operands), else cuDNN: measured in the runtime's job, Qwen3-4B shape,
/// seq 4096, 1 x H100 (2026-12-06, tools/bench/results/2026-12-06d-peers-micro/ calls 1-3, five
/// same-machine pairs of jobs in alternating order): FlashAttention-3 +1.3 to +2.4% tok/s at 8
/// and 12 rows (the GPU profile at 8 rows: attention forward 63.0 vs 75.0 ms a step, backward
/// 221.4 vs 245.9), although bench_layer times the two even at those shapes on that GPU (and cuDNN
/// 2% ahead per layer at 8 x 4096 on an H200, 2026-12-02, where no job pair was run); from 32K
/// tokens FlashAttention-3 is ahead in bench_layer too (1 x 65536: 263.6 vs 286.4 ms on the
/// H200). Process-wide; the environment variable SLIDEDP_ATTENTION=auto|fa3|cudnn|
/// flash sets the initial value (bench_layer, tests; slidedp_worker sets it from --attention).
/// Operands FlashAttention-3 does not take run cuDNN; a shape
/// cuDNN refuses falls back to FlashAttention-2 for the rest of the process (each logged once).
/// A layer's LayerActivations::attnKernel records the kernel that ran (never kAuto).
enum class AttentionKernel { kFlash, kCudnn, kFa3, kAuto };
/// kAuto.
AttentionKernel defaultAttentionKernel();
/// The kernel `k` asks for: kAuto resolved as above (before the per-call operand checks),
/// others as they are.
AttentionKernel resolveAttentionKernel(AttentionKernel k);
AttentionKernel attentionKernel();
void setAttentionKernel(AttentionKernel k);
const char* attentionKernelName(AttentionKernel k);

/// What a decoder layer's forward keeps for its backward when its activations are kept
/// (instead of recomputed): the input and every tensor that only a GEMM could give back. The
/// rest (the RMSNorm outputs, rotated q/k, the SwiGLU product) is recomputed element-wise in
/// backward from these. Per token, in the compute dtype unless noted: x C, qkv Q + 2 KV*D, attn
/// Q, h1 C, gu 2 I, plus fp32 rstd1, rstd2, rq [H], rk [KV] and the attention's fp32 log-sum-exp
/// [H] (fused and CPU flash paths). All on the compute device. Long sequences (mlp_tiles.h:
/// the MLP tiled along the tokens) keep no gu: backward recomputes it tile by tile.
/// The attention-output policy keeps less (attentionOnly(): x, attn, the log-sum-exp and the
/// attention kernel's bookkeeping, about (C + Q) * 2 + 4 H bytes per token in bf16); its
/// backward recomputes the norms, projections and MLP around the kept attention output but
/// never the attention.
struct LayerActivations {
  at::Tensor x;             // [B, T, C] layer input
  at::Tensor rstd1, rstd2;  // [N] fp32 (input_layernorm, post_attention_layernorm)
  at::Tensor qkv;           // [N, Q + 2 KV*D]: q, k, v projections (pre-norm, pre-RoPE)
  at::Tensor rq, rk;        // [N, H], [N, KV] fp32 q_norm / k_norm rstd (Qwen3), else undefined
  at::Tensor attn;          // [N, Q] attention output (before o_proj)
  at::Tensor attnOut4;      // the attention kernel's own output, attn's storage: [B, H, T, D]
                            // view (cuDNN, FlashAttention-2), [B, T, H, D] (FlashAttention-3)
  at::Tensor lse;           // flash/cuDNN attention: fp32 log-sum-exp; undefined otherwise
  at::Tensor cumSeqQ, cumSeqK, philoxSeed, philoxOffset;  // the kernel's bookkeeping
  AttentionKernel attnKernel = AttentionKernel::kFlash;  // the kernel that produced them
  at::Tensor h1;            // [N, C] residual stream after attention
  at::Tensor gu;            // [N, 2I] gate | up projections
  /// Device bytes held by these tensors (each storage counted once).
  int64_t bytes() const;
  /// The attention-output policy's subset of a kept layer's activations (x, attn, attnOut4,
  /// lse and the kernel's bookkeeping). Needs the log-sum-exp: a layer kept on a bf16 CUDA
  /// worker (cuDNN or FlashAttention-2) or on a CPU worker (ATen's CPU flash kernel);
  /// aborts otherwise (see keepsAttentionLse).
  LayerActivations attentionOnly() const;
  /// Whether this holds only the attention-output subset (then decoderLayerBackward
  /// recomputes the rest around it).
  bool isAttentionOnly() const;
  /// Takes the attention's tensors (attn .. attnKernel) of `o`.
  void copyAttention(const LayerActivations& o);
};

/// Whether a layer kept on this device and dtype carries its attention's log-sum-exp, so the
/// attention-output policy (LayerActivations::attentionOnly) applies: bf16 on CUDA, fp32 or
/// bf16 on CPU (memory_terms.h, by element size).
inline bool keepsAttentionLse(bool cuda, at::ScalarType dtype) {
  if (dtype != at::kFloat && dtype != at::kBFloat16) return false;
  return keepsAttentionLse(cuda, dtype == at::kFloat ? int64_t{4} : int64_t{2});
}



/// Decoder layer forward: x [B, T, C] -> [B, T, C], in flat's dtype, no autograd. With `keep`,
/// also fills it for decoderLayerBackward(acts). Attention: flash attention (CUDA, bf16, plain
/// causal; GQA native) or torch scaled_dot_product_attention (is_causal or ctx.mask; GQA via
/// repeat_kv), scale D^-0.5. Element-wise work runs in the fused kernels of
/// kernels/layer_ops.h; q/k/v and gate/up run as one GEMM each when their weights are adjacent
/// in the unit (no biases); the residual adds ride in the o_proj/down_proj GEMMs.
at::Tensor decoderLayerForward(const ModelConfig& config, const UnitLayout& unit,
                               const at::Tensor& flat, const at::Tensor& x,
                               const AttentionContext& ctx, LayerActivations* keep = nullptr);

/// The forward a recompute runs (activation checkpointing): fills `keep` as
/// decoderLayerForward(x, &keep) does, with the same values, but skips what only the layer's
/// output needs: the SwiGLU product and the down projection (a quarter of a Qwen3 layer's
/// GEMM FLOPs; with the MLP tiled along the tokens, mlp_tiles.h, the whole MLP: backward
/// recomputes it tile by tile, and keep.rstd2 stays undefined). With `saved` (an
/// attentionOnly() keep of this layer at this x) the attention is not run either: its output
/// and log-sum-exp are taken from `saved`, and the q/k norm + RoPE is left to backward
/// (keep.rq/rk undefined). `keep` is reset first (x and saved may be parts of it).
/// Threading and streams as decoderLayerForward (the current stream; no synchronisation).
void decoderLayerRecompute(const ModelConfig& config, const UnitLayout& unit, const at::Tensor& flat,
                           const at::Tensor& x, const AttentionContext& ctx, LayerActivations& keep,
                           const LayerActivations* saved = nullptr);

/// Decoder layer backward from kept activations (decoderLayerForward(..., &acts) or
/// decoderLayerRecompute(..., acts), or their
/// attentionOnly() subset: then the layer is recomputed around the kept attention output
/// first, the attention itself is not): adds
/// d(loss)/d(flat) to `gradFlatAccum` (fp32 [unit.numel], on flat's device; weight gradients by
/// GEMMs with fp32 output) and returns d(loss)/d(x) [B, T, C] in flat's dtype. `flat` must hold
/// the same weights as in the forward; `gradOut` [B, T, C] any float dtype. `onMlpGradients`,
/// when set, is called once the work that adds the post-attention norm's and the MLP's gradients
/// (gradFlatAccum's [ParamLayout::gradientBucketSplits()[unit], numel)) has been issued on the
/// current stream and before any attention work: the caller may hand that bucket off then.
at::Tensor decoderLayerBackward(const ModelConfig& config, const UnitLayout& unit,
                                const at::Tensor& flat, const LayerActivations& acts,
                                const at::Tensor& gradOut, const AttentionContext& ctx,
                                const at::Tensor& gradFlatAccum,
                                const std::function<void()>& onMlpGradients = {});

struct UnitGrads {
  at::Tensor gradInput;  // [B, T, C]: d(loss)/d(x)
  at::Tensor gradFlat;   // [unit.numel] fp32: d(loss)/d(flat), zero in the padding
};

/// Decoder layer backward by recompute: runs decoderLayerRecompute(x, acts) and
/// back-propagates gradOut [B, T, C] through it (activation checkpointing at unit boundaries).
UnitGrads decoderLayerBackward(const ModelConfig& config, const UnitLayout& unit,
                               const at::Tensor& flat, const at::Tensor& x,
                               const at::Tensor& gradOut, const AttentionContext& ctx);

struct HeadResult {
  double lossSum = 0;        // sum over unmasked targets of -log softmax(logits)[label]
  int64_t count = 0;         // number of labels != kIgnoreIndex
  at::Tensor gradHidden;     // [B, T, C]: gradScale * d(lossSum)/d(hidden)
  at::Tensor gradHeadFlat;   // [head unit numel] fp32: gradScale * d(lossSum)/d(head flat)
  at::Tensor gradEmbedFlat;  // tied only: [unit 0 numel] fp32, the LM head's share of the
                             // embedding gradient (add it to embeddingBackward's); else undefined
};

/// Head unit forward + backward: final RMSNorm, LM head (lm_head.weight, or the embedding
/// when tied) and cross-entropy against `labels` [B, T] int64 (aligned with hidden: the
/// target of position t is labels[t]; kIgnoreIndex = no loss), `chunkTokens` target tokens at
/// a time (0: as many as keep the [chunk, V] logits near 1 GiB, 1024..16384), so the largest
/// temporary is [chunkTokens, V] in the compute dtype. Logits are computed in the compute dtype
/// and the softmax cross-entropy in float32 (as transformers' loss upcasts them), fused with
/// its gradient in place (kernels::softmaxCrossEntropyInPlace). Gradients are of
/// gradScale * lossSum (pass 1 / global count for the mean loss).
HeadResult headForwardBackward(const ModelConfig& config, const UnitLayout& headUnit,
                               const at::Tensor& headFlat, const at::Tensor& embedFlat,
                               const at::Tensor& hidden, const at::Tensor& labels,
                               int64_t chunkTokens = 0, double gradScale = 1.0);

// lossChunkTokens(chunkTokens, V): the loss chunk headForwardBackward uses (memory_terms.h).

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
  /// Called with each new token as soon as it is chosen, on the calling thread (streaming
  /// output); may be empty.
  std::function<void(int64_t)> onToken;
};

/// Autoregressive decoding from `prompt` (token ids, e.g. starting with BOS); returns the
/// new tokens only. The prompt runs once, then each new token over itself with the earlier
/// tokens' keys and values cached (kv_cache.h); one sequence, no batching: meant for checking
/// trained models, not for serving (generate.cpp).
std::vector<int64_t> generate(const ModelConfig& config, const ParamLayout& layout,
                              const std::vector<at::Tensor>& units,
                              const std::vector<int64_t>& prompt, const GenerateOptions& options);

}  // namespace slidedp::model
