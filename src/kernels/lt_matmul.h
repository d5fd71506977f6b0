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
// layouts, dtypes, operand alignments, device, workspace) times, on the real operands and the
// current stream with CUDA events, each of the heuristic's first kTimedCandidates candidates
// and, where the caller passes one, the library's own call for the same product (ATen's
// at::mm / at::addmm: cuBLAS's choice, with cuBLAS's larger workspace): one warm-up call each,
// one timed call each, then the kTimedFinalists fastest in kTimedRounds interleaved rounds of
// kTimedCallsPerRound calls (so that the clock's ramp and other streams' load fall on all of
// them alike), each scored by its best round. The fastest is kept for the job: a cuBLASLt
// algorithm, or the library's call (ltMatmul then declines and the caller runs ATen), so a
// timed GEMM is never slower than the library's beyond the timing's noise. This is the choice
// torch.cuda.tunable (TunableOp) makes among hipBLASLt's algorithms and the default GEMM on
// ROCm. That first call synchronises the stream and costs about 60 of the GEMM's own times
// (the first step of a job: ~1 s at the Qwen3-4B shape). An accumulation (C is D, beta != 0)
// is timed into a scratch of D's layout, so D gets exactly one product; where that scratch
// does not fit, the library's choice is kept for the plan. Every candidate computes the same
// product up to the fp32 summation order of its tiling, as two cuBLAS versions do.
//
// Threading: plans are made and cached under one mutex (one worker thread runs the GEMMs; the
// mutex keeps concurrent callers correct). CUDA builds with cuBLASLt loaded by LibTorch
// (kernels/cublaslt_api.h); elsewhere ltMatmul declines and callers run ATen.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

namespace slidedp::kernels {

enum class GemmAlgorithm : uint8_t {
  kLibrary = 0,  // cuBLASLt's heuristic's first choice (what ATen runs)
  kTimed = 1,    // the fastest of its first kTimedCandidates on the first call of each shape
};

/// Under kTimed: cuBLASLt candidates a plan times; contenders (the library's call among
/// them) that go on from the one-call screening; rounds and calls per round they are timed in.
inline constexpr int kTimedCandidates = 16;
inline constexpr int kTimedFinalists = 4;
inline constexpr int kTimedRounds = 3;
inline constexpr int kTimedCallsPerRound = 2;

/// The library's own call for the problem ltMatmul is given, writing `out`: d itself, or for an
/// accumulation a scratch of d's shape and row stride that the call must update in place
/// (out = out + a @ b). Timed beside cuBLASLt's candidates under kTimed; it must throw, not
/// return, on failure.
using LibraryGemm = std::function<void(const at::Tensor& out)>;

/// Process-wide; plans made before a change keep their algorithm. Thread-safe.
void setGemmAlgorithm(GemmAlgorithm a);
GemmAlgorithm gemmAlgorithm();

/// Whether ltMatmul can take these operands: cuBLASLt in the process; every tensor 2-D, CUDA,
/// on one device; a [M, K] and b [K, N] bf16 with a unit stride in one dimension; d [M, N] bf16
/// or fp32 with unit column stride; c d itself or a tensor of d's shape, dtype and row stride;
/// every base address and leading dimension 16-byte aligned; M, N, K >= 1.
bool ltMatmulTakes(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c);

/// d = a @ b + beta * c on the current stream (fp32 accumulation; d rounded once). Returns
/// false and does nothing where ltMatmulTakes is false, the heuristic offers no algorithm for
/// the problem, or (kTimed) `library` timed fastest for it: the caller then runs the library's
/// call. Throws slidedp::Error when a cuBLASLt call fails.
bool ltMatmul(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, float beta,
              const LibraryGemm& library = nullptr);

/// Every algorithm cuBLASLt's heuristic offers for d = a @ b + beta * c (the operands as
/// ltMatmul's; at most `max`, in the heuristic's order: index 0 is what kLibrary runs), each as
/// a call that runs the product with it on the current stream of d's device and throws
/// slidedp::Error where cuBLASLt fails (as does building them, where a descriptor cannot be
/// made). Empty where ltMatmulTakes is false, `max` < 1 or the heuristic offers none. The calls share the operands (held) and their descriptors (destroyed
/// with the last call); no plan is made. For benchmarks (tools/bench/bench_gemm) that time every
/// candidate, where ltMatmul keeps one.
std::vector<std::function<void()>> ltCandidateCalls(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b,
                                                    const at::Tensor& c, float beta, int max);

/// One plan whose algorithm was chosen by timing: the problem in words ("49152x2560x4096 NT
/// bf16", M x N x K, cuBLASLt's ops of its A and B, D's dtype, "+=" for an accumulation,
/// "+ C" for a separate C), the winner (-1: the library's call; i >= 0: the heuristic's i-th
/// candidate), and the ms of one call of the winner, of the library's call and of the
/// heuristic's first candidate (a finalist's best round, else its screening call; -1 where
/// not timed); contenders: cuBLASLt candidates timed plus the library's call where given.
struct TimedGemmChoice {
  std::string problem;
  int winner = 0;
  double winner_ms = -1, library_ms = -1, first_ms = -1;
  int contenders = 0;
};

/// Every plan chosen by timing so far, in the order they were made (tests, logs). Thread-safe.
std::vector<TimedGemmChoice> ltTimedChoices();

}  // namespace slidedp::kernels
