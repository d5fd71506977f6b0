// The residual projection of a decoder layer, out = residual + x @ w^T (o_proj onto the layer
// input, down_proj onto h1), as one GEMM that reads the residual and writes a new tensor.
//
// at::addmm(residual, x, w.t()) first copies the residual into its output and then runs the
// GEMM with beta = 1 on it: a device copy of [N, M] per call, 72 a step of a 36-layer model
// (8.5 ms of 2.41 s at 12 x 4096 tokens of the Qwen3-4B shape on an H200,
// tools/bench/results/2026-12-02e-h200x1-profile/profile-step3-resident.txt, "Memcpy DtoD").
// cuBLASLt takes C (read) and D (written) as separate matrices, so on CUDA bf16 tensors this is
// one cublasLtMatmul with C = residual, D = out, alpha = beta = 1: the residual is added to the
// fp32 accumulator and rounded once, as in addmm. It runs through kernels/lt_matmul.h (its plan
// per shape, the algorithm per --gemm-algorithm: cuBLASLt's first choice by default; under
// timed the fastest of cuBLASLt's candidates and at::addmm itself, copy included); where
// cuBLASLt is not in the process, and on CPU, fp32 or strided tensors, it is at::addmm.
#pragma once

#include <ATen/ATen.h>

namespace slidedp::kernels {

/// out [N, M] = residual [N, M] + x [N, K] @ w [M, K]^T (w an nn.Linear weight), in x's dtype
/// and device. Inputs need unit column stride (rows may be strided) and equal dtypes; the
/// sum is that of at::addmm up to the GEMM's fp32 summation order.
/// Thread-safe (descriptors are cached per shape under a mutex); runs on the current stream.
at::Tensor addmmResidual(const at::Tensor& residual, const at::Tensor& x, const at::Tensor& w);

/// The same into `out` ([N, M], unit column stride, aliasing none of the inputs), e.g. a
/// row tile of a larger output.
void addmmResidualOut(const at::Tensor& out, const at::Tensor& residual, const at::Tensor& x,
                      const at::Tensor& w);

/// Whether addmmResidual tries the single-GEMM path for these operands (cuBLASLt found in the
/// process, CUDA bf16 tensors on one device with unit column strides and 16-byte aligned rows;
/// it still falls back to at::addmm where cuBLASLt's heuristic offers no algorithm for the
/// shape and the operands' alignment); for tests.
bool residualGemmFused(const at::Tensor& residual, const at::Tensor& x, const at::Tensor& w);

}  // namespace slidedp::kernels
