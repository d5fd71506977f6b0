// FlashAttention-3 (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao, "FlashAttention-3: Fast and
// Accurate Attention with Asynchrony and Low-precision", 2024; third_party/flash-attention-3):
// the Hopper (sm_90a) attention forward and backward with warp-specialised TMA/WGMMA pipelines,
// for the decoder layer's fixed-length batches. GQA native (KV heads divide H; no repeated k/v).
//
// Layout: every tensor is [B, T, heads, D] with a unit last stride and any other strides (so q,
// k, v may be views into the packed [N, Q + 2 KV*D] projections); D = 128; bf16. The
// log-sum-exp is fp32 [B, H, T], natural log, of the scaled scores. Calls run on the current
// CUDA stream of q's device. Errors: c10::Error (TORCH_CHECK) for operands the kernels do not
// take; call supports() first. The backward accumulates dq in fp32 with atomics, so dq is not
// bit-reproducible run to run (like cuDNN's); dk, dv are.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <tuple>

namespace slidedp::kernels {

/// Elements from a tensor's first to its last, strides included (1 + sum of (size - 1) *
/// stride): what an attention kernel's offsets into its storage must reach. 0 for no elements.
inline int64_t elementSpan(const at::Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t span = 1;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * t.stride(d);
  return span;
}

/// Whether this build has FlashAttention-3 (nvcc >= 12.3, -DSLIDEDP_FLASH_ATTENTION_3=ON).
bool flashAttention3Built();

/// Whether flashAttention3Forward/Backward take these operands: built, q on a compute
/// capability 9.0 device (H100/H200: the kernels are sm_90a only), bf16, head dim 128, unit
/// last stride, and every operand spanning fewer than 2^32 elements. That last limit is ours,
/// not upstream's: FlashAttention-3's strides are 64-bit, and it was checked against
/// FlashAttention-2 at 512K tokens in the decoder's layout, where q is exactly 2^31 elements and
/// the strided v spans 3.2e9 (tests/model/test_long_sequence_gpu.cpp; on the H200 on 2026-12-02:
/// relL2 out 9.0e-4, dq 8.2e-4, dk 3.0e-3, dv 2.9e-3), but not past 2^32, so longer shapes (1M
/// tokens of 32 heads) run FlashAttention-2, whose offsets are 64-bit (decoder.cpp).
/// SLIDEDP_FA3_LARGE=1 in the environment lifts it.
bool flashAttention3Supports(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);

struct AttentionForwardResult {
  at::Tensor out;  // [B, T, H, D] contiguous, q's dtype
  at::Tensor lse;  // [B, H, T] fp32
};

/// softmax(scale * q k^T [+ causal mask]) v for q [B, T, H, D], k, v [B, T, KV, D].
AttentionForwardResult flashAttention3Forward(const at::Tensor& q, const at::Tensor& k,
                                              const at::Tensor& v, double scale, bool causal);

/// Gradients of flashAttention3Forward from its out and lse: dout [B, T, H, D] (unit last
/// stride) -> dq [B, T, H, D], dk, dv [B, T, KV, D], contiguous, q's dtype.
std::tuple<at::Tensor, at::Tensor, at::Tensor> flashAttention3Backward(
    const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& out, const at::Tensor& lse, double scale, bool causal);

}  // namespace slidedp::kernels
