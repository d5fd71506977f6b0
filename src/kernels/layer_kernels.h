// Fused CUDA kernels of the decoder layer and the loss: RMSNorm, Q/K RMSNorm + RoPE, SwiGLU and
// softmax cross-entropy, forward and backward. Raw-pointer launchers (no LibTorch in the .cu,
// so nvcc compiles it quickly); src/kernels/layer_ops.h wraps them for at::Tensor and holds the
// ATen reference each one is tested against (tests/model/test_layer_ops_gpu.cpp).
//
// The one design decision: each kernel reproduces the rounding sequence of the eager
// transformers code it replaces (every intermediate that HF stores in the compute dtype is
// rounded to it here too; reductions run in fp32), so a fused forward equals the eager one up
// to the order of fp32 sums; backward kernels keep their intermediates in fp32 and round once.
//
// Conventions: `dtype` is the storage type of every tensor argument that is not named fp32
// (kF32 or kBF16); rows are contiguous unless a leading dimension `ld` (elements) is given;
// every launch is asynchronous on `stream` and returns the launch error (cudaSuccess or the
// error of cudaGetLastError()). Gradient accumulators named `*Accum` are fp32 and are ADDED to
// (atomics: their sums are not bit-reproducible across runs; everything else is).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace slidedp::kernels::cuda {

enum class DType { kF32, kBF16 };

/// RMSNorm (LlamaRMSNorm): rstd[n] = 1/sqrt(mean_c x[n,c]^2 + eps) (fp32 [N]),
/// y[n,c] = round(w[c] * round(x[n,c] * rstd[n])). x, y: [N, C]; w: [C].
cudaError_t rmsNormForward(DType dtype, const void* x, const void* w, void* y, float* rstd,
                           int64_t N, int64_t C, float eps, cudaStream_t stream);

/// y = round(w * round(x * rstd)) from a saved rstd (the forward's y, recomputed).
cudaError_t rmsNormApply(DType dtype, const void* x, const float* rstd, const void* w, void* y,
                         int64_t N, int64_t C, cudaStream_t stream);

/// RMSNorm backward: with n = x * rstd and dn = dy * w,
/// dx = rstd * (dn - n * mean_c(dn * n)) (may alias neither input), plus `residual` [N, C] when
/// not null (dx rounded, then round(dx + residual): the eager dx.add_(residual) fused), and
/// dwAccum[c] += sum_n dy[n,c] * round(n[n,c]). C <= rmsNormBackwardMaxColumns(dtype)
/// (cudaErrorInvalidValue otherwise).
cudaError_t rmsNormBackward(DType dtype, const void* dy, const void* x, const float* rstd,
                            const void* w, const void* residual, void* dx, float* dwAccum,
                            int64_t N, int64_t C, cudaStream_t stream);

/// The widest row rmsNormBackward takes (16 columns per thread of the largest block the
/// kernel's registers allow; 10240 or more on sm_90).
int64_t rmsNormBackwardMaxColumns(DType dtype);

/// Q/K per-head RMSNorm (Qwen3 q_norm/k_norm; skipped when wq == nullptr) followed by rotary
/// embedding (apply_rotary_pos_emb: out = x*cos + rotate_half(x)*sin, each product rounded).
/// qkv: [N, ld] with q in columns [0, H*D) and k in [H*D, (H+KV)*D) (head-major, D contiguous);
/// cos/sin: [N, D]; out q: [N, H, D], k: [N, KV, D] contiguous; rq [N, H], rk [N, KV]: fp32
/// rstd of each head (written only with the norm). D even, ((H + KV) * D + H + KV + 2 * D) * 4 bytes <= 48 KiB (cudaErrorInvalidValue otherwise).
cudaError_t qkNormRopeForward(DType dtype, const void* qkv, int64_t ld, int64_t N, int H, int KV,
                              int D, const void* wq, const void* wk, float eps, const void* cos,
                              const void* sin, void* qOut, void* kOut, float* rq, float* rk,
                              cudaStream_t stream);

/// Backward of qkNormRopeForward: dq [N, H, D], dk [N, KV, D] -> dqkv [N, ldd] columns
/// [0, (H+KV)*D) (written, not added); dwqAccum/dwkAccum [D] += the norm weights' gradients
/// (ignored without the norm).
cudaError_t qkNormRopeBackward(DType dtype, const void* dq, const void* dk, const void* qkv,
                               int64_t ld, int64_t N, int H, int KV, int D, const void* wq,
                               const void* wk, const float* rq, const float* rk, const void* cos,
                               const void* sin, void* dqkv, int64_t ldd, float* dwqAccum,
                               float* dwkAccum, cudaStream_t stream);

/// SwiGLU (LlamaMLP): gu [N, 2I] = [gate | up] -> act [N, I] = round(round(silu(gate)) * up).
cudaError_t swigluForward(DType dtype, const void* gu, void* act, int64_t N, int64_t I,
                          cudaStream_t stream);

/// SwiGLU backward: dgu [N, 2I] = [dact * up * silu'(gate) | dact * silu(gate)]; with `act`
/// [N, I] not null it also writes the forward's act (bit-identical to swigluForward), so a
/// backward that recomputes act for the down projection's weight gradient reads gu once.
cudaError_t swigluBackward(DType dtype, const void* dact, const void* gu, void* dgu, void* act,
                           int64_t N, int64_t I, cudaStream_t stream);

/// Softmax cross-entropy of n rows of logits [n, V] against labels [n] (int64, each in [0, V)):
/// loss[n] = logsumexp(z[n]) - z[n, label] (fp32), computed in fp32 from the stored logits; the
/// logits are then overwritten IN PLACE with round((softmax(z[n]) - onehot(label)) * scale),
/// the gradient of scale * sum(loss). bf16 rows that fit a block's registers and shared memory
/// (V up to 156 672 on an H100/H200) are read once; others twice.
cudaError_t softmaxCrossEntropyInPlace(DType dtype, void* logits, const int64_t* labels,
                                       float* loss, int64_t n, int64_t V, float scale,
                                       cudaStream_t stream);

}  // namespace slidedp::kernels::cuda
