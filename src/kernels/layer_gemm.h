// The decoder's GEMMs (projections forward, their input and weight gradients, the LM head).
// Under GemmAlgorithm::kTimed (kernels/lt_matmul.h, --gemm-algorithm timed) the fastest of
// cuBLASLt's candidates and ATen's own call, timed on each shape's first call, where cuBLASLt
// takes the operands (CUDA, bf16 inputs, 16-byte aligned), recorded for the profiler as
// "slidedp::mm" / "slidedp::mm_accumulate" with inputs a, b (profiling/gpu_profile.cpp counts
// 2 M N K FLOPs; where ATen's call won, its own op runs inside that record); otherwise ATen's
// at::mm / at::addmm, as before that option existed (cuBLAS's own choice). The same product either way up to the
// fp32 summation order. Runs on the current stream; thread-safe as lt_matmul.h.
#pragma once

#include <ATen/ATen.h>

namespace slidedp::kernels {

/// a [M, K] @ b [K, N] -> a new [M, N] tensor in a's dtype and device. a and b may be
/// transposed views (w.t()); equal dtypes.
at::Tensor mm(const at::Tensor& a, const at::Tensor& b);

/// out [M, N] (unit column stride, aliasing neither input) = a @ b.
void mmOut(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b);

/// g [M, N] fp32 += a [M, K] @ b [K, N] with a, b bf16 on CUDA: the products summed in fp32 and
/// added to g in one rounding (cuBLAS's addmm with an fp32 output, beta = 1). Other dtypes or
/// devices: at::addmm_out with out dtype fp32 (CUDA) or g += (a @ b) in fp32 (CPU).
void mmAccumulate(const at::Tensor& g, const at::Tensor& a, const at::Tensor& b);

}  // namespace slidedp::kernels
