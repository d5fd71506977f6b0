// The host optimizer engine: one fused, vectorised pass per chunk that reduces the gradient
// (G per-rank staging slots, or one already-reduced copy), scales it, applies AdamW to the
// FP32 master weights and moments, and writes the bf16 delivery copy.
//
// Design decision: every byte of a chunk is touched once per pass, and the gradient's squared
// L2 norm is a by-product of the same read. The runtime either
//   (a) runs gradSquaredNorm() over all chunks, agrees on the global norm, then update()s with
//       gradScale = (1 / global tokens) * clip coefficient (exact global-norm clipping), or
//   (b) runs updateWithNorm() per chunk as soon as the chunk is reduced (no clipping; the norm
//       is only reported).
// The arithmetic is the single-tensor (foreach=False, fused=False) path of torch.optim.AdamW,
// operation by operation, in fp32 (see StepConstants). No LibTorch, no MPI.
//
// Threading contract: a call is made by one thread (the leader's optimizer thread); it runs an
// OpenMP team of Engine::teamFor(n) threads (threads(), fewer for chunks under 1024 elements per
// thread) and returns when the chunk is done. A chunk is split
// statically into per-thread ranges of whole kPartitionBlock-element blocks (partitionRange);
// firstTouch() uses the same split, so with pinned OpenMP threads (OMP_PROC_BIND=close,
// OMP_PLACES=cores, set by launcher/) pages land on the NUMA node of the thread that later
// updates them. The passes take each range in kStealBlock-element blocks, and a thread done
// with its own range takes the untaken blocks of the others (work stealing): a thread that
// loses its core to another task (a kernel flusher, a checkpoint writer, a co-tenant) then
// costs the chunk at most one block, not its whole range, while without interference every
// thread runs its own range. Master, moments and copy do not depend on the thread count or the
// ISA (bit-identical; see Isa for the one denormal exception); the norm's last bits depend on
// the summation order, i.e. on (ISA, thread count), and are reproducible for both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slidedp::optim {

/// Element types the engine knows. Which combinations a pass accepts is a table in adamw.cpp
/// (checkSupported); anything else is rejected with UserError, never silently converted.
enum class DType : uint8_t { kF32, kBF16 };

/// Instruction-set paths. kAvx512Bf16 is kAvx512 plus the native VCVTNEPS2BF16 conversion,
/// which flushes fp32 denormal inputs to signed zero (DAZ semantics); every other path rounds
/// them to bf16 denormals, bit-identically to floatToBf16(). Everything else is bit-identical
/// between all paths (same operation order, no FMA contraction; see StepConstants).
enum class Isa : uint8_t { kAuto, kScalar, kAvx2, kAvx512, kAvx512Bf16 };

const char* isaName(Isa isa);
/// Parses "scalar", "avx2", "avx512", "avx512bf16", "auto"; throws UserError otherwise.
Isa parseIsa(const std::string& name);
/// Whether this CPU (and OS) can run `isa` (__builtin_cpu_supports). kScalar/kAuto: true.
bool isaSupported(Isa isa);
/// The fastest path this CPU supports.
Isa bestIsa();

/// Elements per partition block: 64 fp32 = 256 B, 64 bf16 = 128 B, so thread ranges begin on
/// cache-line boundaries of every array when the chunk's arrays are 64-byte aligned.
inline constexpr int64_t kPartitionBlock = 64;
/// Elements per work-stealing block of a pass (Engine::update and the norm passes): 16384
/// elements = 64 KiB of each fp32 array, ~30 us of one core's share of host memory bandwidth.
/// A thread's static range is taken block by block, and idle threads take the untaken blocks
/// of a thread that lost its core (see Engine's threading contract).
inline constexpr int64_t kStealBlock = 16384;
/// Default software prefetch distance: 1024 elements = 4 KiB ahead in each fp32 array.
/// Measured on the 32-core GPU-machine host (bench_adamw, 256M params, 32 threads): +3..6%
/// over no prefetch for G = 1 and 4, f32 and bf16 gradients; 4096 was no better.
inline constexpr int64_t kDefaultPrefetchElems = 1024;
/// Most gradient slots (ranks) one pass can sum.
inline constexpr int kMaxSlots = 16;

/// [begin, end) of thread `t` of `numThreads` over a chunk of `n` elements: whole
/// kPartitionBlock blocks, contiguous, in thread order, sizes differing by at most one block.
void partitionRange(int64_t n, int numThreads, int t, int64_t* begin, int64_t* end);

/// The gradient of one chunk: `numSlots` arrays of `n` elements of `dtype` (kF32 or kBF16),
/// summed in slot order in fp32. numSlots = G for the CPU reduction route (one staging slot per
/// rank), 1 for the GPU route (already reduced). Pointers: any alignment, must not alias the
/// state arrays.
struct GradView {
  const void* const* slots = nullptr;
  int numSlots = 0;
  DType dtype = DType::kF32;
};

/// Element i of `g`'s gradient: its slots summed in slot order in fp32 (the order of the fused
/// passes), for code that reduces slots outside them (the clipping region, saved gradients).
float slotSum(const GradView& g, int64_t i);

/// The host state of one chunk, `n` elements each: FP32 master weights, Adam moments m
/// (exp_avg) and v (exp_avg_sq), and the bf16 delivery copy (raw bits). 64-byte alignment is
/// recommended (partition blocks then never share cache lines between threads), not required.
struct ChunkState {
  float* master = nullptr;
  float* expAvg = nullptr;
  float* expAvgSq = nullptr;
  uint16_t* bf16 = nullptr;
  int64_t n = 0;
};

/// AdamW hyper-parameters of one parameter (group) at one optimizer step.
/// `step` is torch's state["step"] after its increment: 1 for the first update.
/// `lr` is the already-scheduled learning rate (see lr_schedule.h).
struct AdamWHyper {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weightDecay = 0.0;  // decoupled (Loshchilov & Hutter 2019); see decayFor()
  int64_t step = 1;
};

/// The per-step scalars, computed in double exactly as torch.optim.adam._single_tensor_adam
/// computes its Python floats, then rounded once to fp32 (as torch does when it passes a Python
/// scalar to an fp32 CPU kernel). The kernels apply, per element, in this order, in fp32:
///   g  = (slot_0 + slot_1 + ... + slot_{G-1}) * gradScale
///   p  = p * decay                               param.mul_(1 - lr * weight_decay)
///   m  = fma(oneMinusBeta1, g - m, m)            exp_avg.lerp_(grad, 1 - beta1)  [1]
///   v  = v * beta2 ; v = v + (oneMinusBeta2 * g) * g
///                                                exp_avg_sq.mul_(beta2).addcmul_(grad, grad,
///                                                                     value=1 - beta2)
///   d  = sqrt(v) / sqrtBiasCorrection2 + eps     (exp_avg_sq.sqrt() / bc2**0.5).add_(eps)
///   p  = p + (negStepSize * m) / d               param.addcdiv_(exp_avg, denom,
///                                                               value=-lr / bc1)
///   bf16 = RNE(p)
/// with bc1 = 1 - beta1**step, bc2 = 1 - beta2**step.
/// [1] ATen's vectorised lerp (aten/src/ATen/native/cpu/LerpKernel.cpp, weight < 0.5) is
/// fmadd(weight, end - self, self): one rounding, reproduced with an explicit FMA on all paths.
/// Sources: torch/optim/adam.py (_single_tensor_adam, decoupled_weight_decay=True, which is
/// what torch.optim.AdamW runs); I. Loshchilov, F. Hutter, "Decoupled Weight Decay
/// Regularization", ICLR 2019, Algorithm 2.
struct StepConstants {
  float gradScale;
  float decay;
  float oneMinusBeta1;
  float beta2;
  float oneMinusBeta2;
  float sqrtBiasCorrection2;
  float eps;
  float negStepSize;
};

/// Throws UserError if lr < 0, betas outside [0, 1), eps <= 0, weightDecay < 0, step < 1 or
/// gradScale not finite.
StepConstants makeStepConstants(const AdamWHyper& hyper, float gradScale);

/// Weight decay for a parameter of this shape: `weightDecay` when ndim >= 2, 0 for ndim < 2
/// (norm weights, biases). This is the reference recipe of shared/README.md; Hugging Face
/// Trainer (transformers trainer.py get_decay_parameter_names) excludes by name (bias, *norm*),
/// which selects the same parameters for Llama-family models.
double decayFor(const std::vector<int64_t>& shape, double weightDecay);

struct EngineOptions {
  /// Threads of the OpenMP team each pass uses; <= 0: omp_get_max_threads().
  int threads = 0;
  /// kAuto: the env var SLIDEDP_OPTIM_ISA if set (scalar|avx2|avx512|avx512bf16), else
  /// bestIsa(). Asking for a path this CPU lacks throws UserError.
  Isa isa = Isa::kAuto;
  /// Write the bf16 copy with non-temporal (streaming) stores on the AVX-512 paths when the
  /// copy's range is 32-byte aligned. Default off unless env SLIDEDP_OPTIM_STREAM=1: turn on
  /// only where bench_adamw measures it faster. Results are identical either way.
  bool streamCopy = false;
  /// Software prefetch distance in elements on the SIMD paths (0 = none, rely on the hardware
  /// prefetchers); -1 = env SLIDEDP_OPTIM_PREFETCH if set, else kDefaultPrefetchElems.
  /// Prefetches past the end of a range are harmless (prefetch never faults).
  int64_t prefetchElems = -1;
};

/// The engine. Cheap to construct; const methods may be called from one thread at a time per
/// engine (each call uses the whole thread budget).
class Engine {
 public:
  explicit Engine(EngineOptions options = {});

  Isa isa() const { return isa_; }
  int threads() const { return threads_; }
  bool streamCopy() const { return streamCopy_; }
  int64_t prefetchElems() const { return prefetchElems_; }
  /// Threads a pass over `n` elements uses: threads(), but at least 16 partition blocks
  /// (1024 elements) per thread; firstTouch() uses the same count and partitionRange().
  int teamFor(int64_t n) const;

  /// Writes zeros to master, m, v and bf16 (every non-null array of `state`) with the same
  /// thread partition as the passes, so each page is first touched by the thread that will
  /// update it (NUMA-local). Call once after allocating, before loading values.
  void firstTouch(const ChunkState& state) const;

  /// Norm-only pass: returns sum_i g_i^2 in double, g = (sum of slots) * gradScale, over
  /// `n` elements. Reads only the gradient. Each g_i^2 is exact in double; the sum is
  /// accumulated in double (order: per lane, then per kStealBlock block, then blocks in order).
  double gradSquaredNorm(const GradView& grad, int64_t n, float gradScale) const;

  /// Update pass: one AdamW step of `state` (see StepConstants for the exact arithmetic).
  /// Throws UserError for an unsupported dtype combination, numSlots outside 1..kMaxSlots,
  /// or a null pointer.
  void update(const ChunkState& state, const GradView& grad, const StepConstants& c) const;

  /// update() that also returns the chunk's squared gradient norm (as gradSquaredNorm with
  /// c.gradScale), from the same read.
  double updateWithNorm(const ChunkState& state, const GradView& grad,
                        const StepConstants& c) const;

  /// A range of a scattered pass: `length` elements from element `state` of the state arrays
  /// and from element `grad` of every gradient slot.
  struct Range {
    int64_t state = 0, grad = 0, length = 0;
  };
  /// updateWithNorm() over many ranges (e.g. the rows of a row-sparse update) in ONE OpenMP
  /// team: `state`'s arrays and `grad`'s slots are base pointers (state.n is ignored), ranges
  /// are split statically among the threads in order and taken with work stealing
  /// (optim/block_stealing.h). Every element gets exactly what updateWithNorm() on its own
  /// range would give; the norm is summed per range, then over ranges in order (reproducible
  /// for the same ranges, whatever the thread count).
  double updateRangesWithNorm(const ChunkState& state, const GradView& grad,
                              const std::vector<Range>& ranges, const StepConstants& c) const;

  /// Copies `bytes` from `src` to `dst` (must not overlap) on the passes' OpenMP team: the same
  /// threads, pinned as the passes are, in contiguous 4 KiB-aligned slices (memcpy each; glibc
  /// streams large copies with non-temporal stores). For host copies made between passes by the
  /// thread that runs them (the streamed checkpoint's copy of a unit's state into staging
  /// memory, formats/streamed_writer.h): other threads copying beside the team would take its
  /// cores, and a pass's static split makes every thread wait for the slowest. Threading: as
  /// the passes (one caller thread). Throws nothing.
  void copy(void* dst, const void* src, size_t bytes) const;

 private:
  double run(int pass, const ChunkState& state, const GradView& grad, int64_t n,
             const StepConstants& c) const;

  Isa isa_;
  int threads_;
  bool streamCopy_;
  int64_t prefetchElems_;
};

}  // namespace slidedp::optim
