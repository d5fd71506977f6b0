// Row-major GEMMs through cuBLASLt with a plan per shape, and how its algorithm is chosen.
//
// D [M, N] = A [M, K] @ B [K, N] + beta * C, each of A and B a row-major matrix or the
// transposed view of one (w.t() of an nn.Linear weight, dy.t() of a gradient), C and D
// row-major with one leading dimension (C may be D: an accumulation). In cuBLASLt's
// column-major terms that is D^T = B^T @ A^T: its A is our B, its B our A.
//
// The algorithm. cuBLASLt's heuristic (cublasLtMatmulAlgoGetHeuristic) lists candidate
// algorithms for a problem in its own order of preference; ATen, and this file under
// GemmAlgorithm::kLibrary, run its first. Under kTimed the first call of each plan (shape,
// layouts, dtypes, operand alignments, device, workspace) runs each of the heuristic's first
// kTimedCandidates candidates on the real operands and the current stream, timed by CUDA
// events (1 warm-up, then the mean of 3 calls), and keeps the fastest: the choice
// torch.cuda.tunable (TunableOp) makes among hipBLASLt's algorithms on ROCm. That first call
// synchronises the stream and costs a few dozen of the GEMM's own times (the first step of a
// job: ~1 s at the Qwen3-4B shape). An accumulation (C is D, beta != 0) is timed into a scratch
// copy of D's shape, so D gets exactly one product; where that scratch does not fit, the
// library's choice is kept for the plan. Every candidate computes the same product up to the
// fp32 summation order of its tiling, as two cuBLAS versions do.
//
// Threading: plans are made and cached under one mutex (one worker thread runs the GEMMs; the
// mutex keeps concurrent callers correct). CUDA builds with cuBLASLt loaded by LibTorch
// (kernels/cublaslt_api.h); elsewhere ltMatmul declines and callers run ATen.
#pragma once

#include <ATen/ATen.h>

namespace slidedp::kernels {

enum class GemmAlgorithm : uint8_t {
  kLibrary = 0,  // cuBLASLt's heuristic's first choice (what ATen runs)
  kTimed = 1,    // the fastest of its first kTimedCandidates on the first call of each shape
};

/// Candidates timed per plan under kTimed.
inline constexpr int kTimedCandidates = 16;

/// Process-wide; plans made before a change keep their algorithm. Thread-safe.
void setGemmAlgorithm(GemmAlgorithm a);
GemmAlgorithm gemmAlgorithm();

/// Whether ltMatmul can take these operands: cuBLASLt in the process; every tensor 2-D, CUDA,
/// on one device; a [M, K] and b [K, N] bf16 with a unit stride in one dimension; d [M, N] bf16
/// or fp32 with unit column stride; c d itself or a tensor of d's shape, dtype and row stride;
/// every base address and leading dimension 16-byte aligned; M, N, K >= 1.
bool ltMatmulTakes(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c);

/// d = a @ b + beta * c on the current stream (fp32 accumulation; d rounded once). Returns
/// false and does nothing where ltMatmulTakes is false or the heuristic offers no algorithm for
/// the problem (the caller then runs ATen). Throws slidedp::Error when a cuBLASLt call fails.
bool ltMatmul(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, float beta);

/// The number of plans made so far whose algorithm was chosen by timing (under kTimed,
/// where the heuristic offered more than one candidate), for tests and logs.
int64_t ltTimedPlans();

}  // namespace slidedp::kernels
