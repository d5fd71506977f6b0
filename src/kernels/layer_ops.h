// The element-wise and row-reduction operations of the decoder layer and the loss, on
// at::Tensor, forward and backward: RMSNorm, Q/K RMSNorm + RoPE, SwiGLU, softmax cross-entropy.
// Each function runs the fused CUDA kernel (layer_kernels.h) for a CUDA tensor of a CUDA build,
// and otherwise its ATen reference in `reference::`, which spells out the transformers
// formulas (modeling_llama.py LlamaRMSNorm, apply_rotary_pos_emb, LlamaMLP; modeling_qwen3.py
// q_norm/k_norm; the cross-entropy of the LM loss) with the same roundings. The tests hold every
// fused kernel to its reference (tests/model/test_layer_ops_gpu.cpp) and the references to
// autograd (tests/model/test_layer_ops.cpp).
//
// Shapes (N rows = B*T tokens): x, y [N, C]; rstd [N] fp32; q/k/v projections packed in one
// [N, ld] matrix `qkv` (q columns [0, H*D), k [H*D, (H+KV)*D), v after; row stride ld, unit
// column stride); cos/sin [N, D]; gu [N, 2I] = [gate | up]. Dtype: fp32 or bf16, the same for
// every non-fp32 argument. Gradient accumulators (`*Accum`) are fp32 tensors ADDED to (they may
// be views into a unit's flat fp32 gradient); an undefined accumulator is skipped. Calls run on
// the current CUDA stream (CUDA tensors) or synchronously (CPU). Errors: SLIDEDP_ASSERT on
// shape/dtype mismatches (internal invariants), std::runtime_error from CUDA launches.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace slidedp::kernels {

struct RmsNormResult {
  at::Tensor y;     // [N, C], x's dtype
  at::Tensor rstd;  // [N] fp32: 1 / sqrt(mean(x^2) + eps)
};

struct QkRopeResult {
  at::Tensor q, k;    // [N, H, D], [N, KV, D] contiguous, qkv's dtype: normed (if), rotated
  at::Tensor rq, rk;  // [N, H], [N, KV] fp32 per-head rstd (undefined without the norm)
};

/// Whether calls on `t` run fused CUDA kernels (CUDA build, CUDA tensor of fp32/bf16, kernels
/// not disabled by setReferenceKernels(true) or SLIDEDP_REFERENCE_KERNELS=1 in the environment).
bool fused(const at::Tensor& t);
/// Routes every call to the ATen references (benchmarks of the eager baseline, tests).
/// Process-wide; not to be flipped while another thread runs layer operations.
void setReferenceKernels(bool on);

RmsNormResult rmsNormForward(const at::Tensor& x, const at::Tensor& w, double eps);
/// The forward's y again from its saved rstd (bit-identical to rmsNormForward's y).
at::Tensor rmsNormApply(const at::Tensor& x, const at::Tensor& rstd, const at::Tensor& w);
/// dx [N, C] (plus `residual` [N, C] when defined: the residual branch's gradient, added as the
/// eager dx.add_(residual) rounds it); dwAccum [C] += d(loss)/dw.
at::Tensor rmsNormBackward(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& rstd,
                           const at::Tensor& w, const at::Tensor& dwAccum,
                           const at::Tensor& residual = at::Tensor());

/// q/k of `qkv`: per-head RMSNorm with wq/wk [D] (skipped when wq is undefined), then RoPE.
QkRopeResult qkNormRopeForward(const at::Tensor& qkv, int64_t H, int64_t KV, int64_t D,
                               const at::Tensor& wq, const at::Tensor& wk, double eps,
                               const at::Tensor& cos, const at::Tensor& sin);
/// dq [N, H, D], dk [N, KV, D] -> writes dqkv [N, ldd] columns [0, (H+KV)*D); adds the norm
/// weights' gradients to dwqAccum/dwkAccum [D].
void qkNormRopeBackward(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& qkv,
                        int64_t H, int64_t KV, int64_t D, const at::Tensor& wq,
                        const at::Tensor& wk, const QkRopeResult& saved, const at::Tensor& cos,
                        const at::Tensor& sin, const at::Tensor& dqkv,
                        const at::Tensor& dwqAccum, const at::Tensor& dwkAccum);

/// act [N, I] = silu(gate) * up.
at::Tensor swigluForward(const at::Tensor& gu);
/// dgu [N, 2I] from dact [N, I]. With `actOut` not null it is also set to the forward's act
/// [N, I] (identical to swigluForward(gu)), computed in the same pass over gu on CUDA.
at::Tensor swigluBackward(const at::Tensor& dact, const at::Tensor& gu, at::Tensor* actOut = nullptr);

/// logits [n, V] (overwritten with scale * d(sum of losses)/d(logits), its dtype), labels [n]
/// int64 in [0, V) -> per-row loss [n] fp32 (logsumexp - picked logit).
at::Tensor softmaxCrossEntropyInPlace(const at::Tensor& logits, const at::Tensor& labels,
                                      double scale);

/// The ATen compositions the fused kernels implement (any device).
namespace reference {
RmsNormResult rmsNormForward(const at::Tensor& x, const at::Tensor& w, double eps);
at::Tensor rmsNormApply(const at::Tensor& x, const at::Tensor& rstd, const at::Tensor& w);
at::Tensor rmsNormBackward(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& rstd,
                           const at::Tensor& w, const at::Tensor& dwAccum,
                           const at::Tensor& residual = at::Tensor());
QkRopeResult qkNormRopeForward(const at::Tensor& qkv, int64_t H, int64_t KV, int64_t D,
                               const at::Tensor& wq, const at::Tensor& wk, double eps,
                               const at::Tensor& cos, const at::Tensor& sin);
void qkNormRopeBackward(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& qkv,
                        int64_t H, int64_t KV, int64_t D, const at::Tensor& wq,
                        const at::Tensor& wk, const QkRopeResult& saved, const at::Tensor& cos,
                        const at::Tensor& sin, const at::Tensor& dqkv,
                        const at::Tensor& dwqAccum, const at::Tensor& dwkAccum);
at::Tensor swigluForward(const at::Tensor& gu);
at::Tensor swigluBackward(const at::Tensor& dact, const at::Tensor& gu);
at::Tensor softmaxCrossEntropyInPlace(const at::Tensor& logits, const at::Tensor& labels,
                                      double scale);
}  // namespace reference

}  // namespace slidedp::kernels
