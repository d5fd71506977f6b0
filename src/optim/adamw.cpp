// Engine: validation (the supported dtype table), ISA selection and dispatch, and the static
// OpenMP partition of a chunk among the thread budget. The arithmetic lives in the per-ISA
// kernels (adamw_scalar.cpp, adamw_avx2.cpp, adamw_avx512.cpp).
#include "optim/adamw.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/bf16.h"
#include "common/errors.h"
#include "optim/adamw_kernels.h"
#include "optim/block_stealing.h"

namespace slidedp::optim {
namespace {

const char* dtypeName(DType d) { return d == DType::kF32 ? "f32" : "bf16"; }

// The supported combinations: {gradient, master, moments, delivery copy}. Master and moments
// are always fp32 and the copy always bf16 in this engine; the gradient may be either.
struct Combo {
  DType grad, master, moments, copy;
};
constexpr Combo kSupported[] = {
    {DType::kF32, DType::kF32, DType::kF32, DType::kBF16},
    {DType::kBF16, DType::kF32, DType::kF32, DType::kBF16},
};

void checkSupported(DType grad) {
  for (const Combo& c : kSupported)
    if (c.grad == grad) return;
  throwUserError(
      "optim: gradient dtype {} is not supported (supported: f32, bf16; master f32, "
      "moments f32, copy bf16). HINT: stage gradients as f32 or bf16.",
      dtypeName(grad));
}

void checkGrad(const GradView& grad) {
  checkSupported(grad.dtype);
  if (grad.numSlots < 1 || grad.numSlots > kMaxSlots)
    throwUserError("optim: expected 1..{} gradient slots, got {}", kMaxSlots, grad.numSlots);
  if (grad.slots == nullptr) throwUserError("optim: gradient slot array is null");
  for (int r = 0; r < grad.numSlots; ++r)
    if (grad.slots[r] == nullptr) throwUserError("optim: gradient slot {} is null", r);
}

detail::RangeKernel kernelFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx2:
      return detail::rangeAvx2;
    case Isa::kAvx512:
      return detail::rangeAvx512;
    case Isa::kAvx512Bf16:
      return detail::rangeAvx512Bf16;
    default:
      return detail::rangeScalar;
  }
}

// Threads used for a chunk of n elements: the budget, but at least 16 partition blocks
// (1024 elements) per thread so that forking costs less than the work. firstTouch() and the
// passes both use it, so an element always maps to the same thread.
int teamSize(int64_t n, int threads) {
  const int64_t blocks = (n + kPartitionBlock - 1) / kPartitionBlock;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, blocks / 16)));
}

}  // namespace

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto:
      return "auto";
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx512Bf16:
      return "avx512bf16";
  }
  return "?";
}

Isa parseIsa(const std::string& name) {
  for (Isa i : {Isa::kAuto, Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16})
    if (name == isaName(i)) return i;
  throwUserError("optim: unknown ISA '{}'; expected auto, scalar, avx2, avx512 or avx512bf16",
                 name);
}

bool isaSupported(Isa isa) {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("f16c");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl");
  switch (isa) {
    case Isa::kAuto:
    case Isa::kScalar:
      return true;
    case Isa::kAvx2:
      return avx2;
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx512Bf16:
      return avx512 && __builtin_cpu_supports("avx512bf16");
  }
  return false;
}

Isa bestIsa() {
  for (Isa i : {Isa::kAvx512Bf16, Isa::kAvx512, Isa::kAvx2})
    if (isaSupported(i)) return i;
  return Isa::kScalar;
}

void partitionRange(int64_t n, int numThreads, int t, int64_t* begin, int64_t* end) {
  const int64_t blocks = (n + kPartitionBlock - 1) / kPartitionBlock;
  const int64_t b0 = blocks * t / numThreads;
  const int64_t b1 = blocks * (t + 1) / numThreads;
  *begin = std::min(n, b0 * kPartitionBlock);
  *end = std::min(n, b1 * kPartitionBlock);
}

StepConstants makeStepConstants(const AdamWHyper& h, float gradScale) {
  if (!(h.lr >= 0.0) || !(h.beta1 >= 0.0 && h.beta1 < 1.0) || !(h.beta2 >= 0.0 && h.beta2 < 1.0) ||
      !(h.eps > 0.0) || !(h.weightDecay >= 0.0) || h.step < 1 || !std::isfinite(gradScale))
    throwUserError(
        "optim: invalid AdamW settings lr={} betas=({}, {}) eps={} weight_decay={} step={} "
        "grad_scale={}; expected lr >= 0, 0 <= beta < 1, eps > 0, weight_decay >= 0, "
        "step >= 1 and a finite grad_scale",
        h.lr, h.beta1, h.beta2, h.eps, h.weightDecay, h.step, gradScale);
  // Python floats of torch/optim/adam.py _single_tensor_adam, in double.
  const double step = static_cast<double>(h.step);
  const double bc1 = 1.0 - std::pow(h.beta1, step);
  const double bc2 = 1.0 - std::pow(h.beta2, step);
  const double stepSize = h.lr / bc1;
  const double bc2Sqrt = std::pow(bc2, 0.5);
  StepConstants c;
  c.gradScale = gradScale;
  c.decay = static_cast<float>(1.0 - h.lr * h.weightDecay);
  c.oneMinusBeta1 = static_cast<float>(1.0 - h.beta1);
  c.beta2 = static_cast<float>(h.beta2);
  c.oneMinusBeta2 = static_cast<float>(1.0 - h.beta2);
  c.sqrtBiasCorrection2 = static_cast<float>(bc2Sqrt);
  c.eps = static_cast<float>(h.eps);
  c.negStepSize = static_cast<float>(-stepSize);
  return c;
}

double decayFor(const std::vector<int64_t>& shape, double weightDecay) {
  return shape.size() >= 2 ? weightDecay : 0.0;
}

Engine::Engine(EngineOptions options) {
  Isa isa = options.isa;
  if (isa == Isa::kAuto) {
    const char* env = std::getenv("SLIDEDP_OPTIM_ISA");
    if (env != nullptr && *env != '\0') isa = parseIsa(env);
  }
  if (isa == Isa::kAuto) isa = bestIsa();
  if (!isaSupported(isa))
    throwUserError(
        "optim: ISA path '{}' was requested but this CPU does not support it (best here: {}). "
        "HINT: unset SLIDEDP_OPTIM_ISA or choose a supported path.",
        isaName(isa), isaName(bestIsa()));
  isa_ = isa;
  threads_ = options.threads > 0 ? options.threads : omp_get_max_threads();
  const char* stream = std::getenv("SLIDEDP_OPTIM_STREAM");
  streamCopy_ = options.streamCopy || (stream != nullptr && std::strcmp(stream, "1") == 0);
  prefetchElems_ = options.prefetchElems;
  if (prefetchElems_ < 0) {
    const char* prefetch = std::getenv("SLIDEDP_OPTIM_PREFETCH");
    prefetchElems_ = (prefetch != nullptr && *prefetch != '\0')
                         ? std::strtoll(prefetch, nullptr, 10)
                         : kDefaultPrefetchElems;
    if (prefetchElems_ < 0)
      throwUserError("optim: SLIDEDP_OPTIM_PREFETCH={} < 0; expected 0 (off) or an element count",
                     prefetch);
  }
}

int Engine::teamFor(int64_t n) const { return teamSize(n, threads_); }

void Engine::firstTouch(const ChunkState& s) const {
  const int64_t n = s.n;
#pragma omp parallel num_threads(teamSize(n, threads_))
  {
    int64_t b, e;
    partitionRange(n, omp_get_num_threads(), omp_get_thread_num(), &b, &e);
    if (e > b) {
      if (s.master) std::memset(s.master + b, 0, (e - b) * sizeof(float));
      if (s.expAvg) std::memset(s.expAvg + b, 0, (e - b) * sizeof(float));
      if (s.expAvgSq) std::memset(s.expAvgSq + b, 0, (e - b) * sizeof(float));
      if (s.bf16) std::memset(s.bf16 + b, 0, (e - b) * sizeof(uint16_t));
    }
  }
}

double Engine::run(int pass, const ChunkState& s, const GradView& grad, int64_t n,
                   const StepConstants& c) const {
  checkGrad(grad);
  if (n < 0) throwUserError("optim: negative chunk length {}", n);
  if (pass != static_cast<int>(detail::Pass::kNorm) &&
      (!s.master || !s.expAvg || !s.expAvgSq || !s.bf16))
    throwUserError("optim: update needs master, exp_avg, exp_avg_sq and bf16 arrays (one is null)");
  if (n == 0) return 0.0;
  const detail::KernelArgs args{grad.slots, grad.numSlots, grad.dtype, s.master,    s.expAvg,
                                s.expAvgSq, s.bf16,        c,          streamCopy_, prefetchElems_};
  const detail::RangeKernel kernel = kernelFor(isa_);
  const detail::Pass p = static_cast<detail::Pass>(pass);
  const int team = teamSize(n, threads_);
  if (team == 1) return kernel(args, p, 0, n);
  // Work stealing over the static partition (optim/block_stealing.h). The norm is summed per
  // block, then over blocks in element order: the same for the same (chunk length, team size,
  // ISA), whichever thread ran which block.
  StealSchedule blocks(team, kStealBlock,
                       [&](int t, int64_t* begin, int64_t* end) { partitionRange(n, team, t, begin, end); });
  std::vector<double> partial(blocks.numBlocks(), 0.0);
  blocks.run([&](int64_t begin, int64_t end, int64_t index) {
    partial[index] = kernel(args, p, begin, end);
  });
  double sum = 0.0;
  for (double x : partial) sum += x;
  return sum;
}

float slotSum(const GradView& g, int64_t i) {
  float s = 0;
  for (int w = 0; w < g.numSlots; ++w)
    s += g.dtype == DType::kBF16 ? bf16ToFloat(static_cast<const uint16_t*>(g.slots[w])[i])
                                 : static_cast<const float*>(g.slots[w])[i];
  return s;
}

double Engine::updateRangesWithNorm(const ChunkState& s, const GradView& grad,
                                    const std::vector<Range>& ranges, const StepConstants& c) const {
  checkGrad(grad);
  if (!s.master || !s.expAvg || !s.expAvgSq || !s.bf16)
    throwUserError("optim: update needs master, exp_avg, exp_avg_sq and bf16 arrays (one is null)");
  int64_t total = 0;
  for (const Range& r : ranges) {
    if (r.length < 0 || r.state < 0 || r.grad < 0) throwUserError("optim: negative range");
    total += r.length;
  }
  if (total == 0) return 0.0;
  const detail::RangeKernel kernel = kernelFor(isa_);
  const size_t esize = grad.dtype == DType::kBF16 ? 2 : 4;
  const int team = std::max<int64_t>(
      1, std::min<int64_t>(teamSize(total, threads_), static_cast<int64_t>(ranges.size())));
  const int64_t nr = static_cast<int64_t>(ranges.size());
  // Work stealing over the ranges (optim/block_stealing.h), thread t owning ranges
  // [nr t / team, nr (t+1) / team), taken in blocks of about kStealBlock elements' worth of
  // ranges; the norm summed per range, then over ranges in order.
  const int64_t per_block = std::max<int64_t>(1, kStealBlock / std::max<int64_t>(1, total / nr));
  StealSchedule blocks(team, per_block, [&](int t, int64_t* begin, int64_t* end) {
    *begin = nr * t / team;
    *end = nr * (t + 1) / team;
  });
  std::vector<double> partial(nr, 0.0);
  blocks.run([&](int64_t begin, int64_t end, int64_t) {
    const void* slots[kMaxSlots];
    for (int64_t i = begin; i < end; ++i) {
      const Range& r = ranges[i];
      if (r.length == 0) continue;
      for (int w = 0; w < grad.numSlots; ++w)
        slots[w] = static_cast<const char*>(grad.slots[w]) + r.grad * esize;
      const detail::KernelArgs args{slots,           grad.numSlots,     grad.dtype,
                                    s.master + r.state, s.expAvg + r.state, s.expAvgSq + r.state,
                                    s.bf16 + r.state,   c,                 streamCopy_,
                                    prefetchElems_};
      partial[i] = kernel(args, detail::Pass::kUpdateNorm, 0, r.length);
    }
  });
  double sum = 0.0;
  for (double x : partial) sum += x;
  return sum;
}

void Engine::copy(void* dst, const void* src, size_t bytes) const {
  constexpr size_t kPage = 4096, kMinPerThread = size_t{4} << 20;
  const int team = static_cast<int>(std::max<size_t>(
      1, std::min<size_t>(static_cast<size_t>(std::max(1, threads_)), bytes / kMinPerThread)));
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (team == 1) {
    if (bytes > 0) std::memcpy(d, s, bytes);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    // The team may be smaller than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC, a nested region):
    // split over the threads it has.
    const size_t k = static_cast<size_t>(omp_get_num_threads());
    const size_t slice = (bytes / k + kPage - 1) / kPage * kPage;
    const size_t b = std::min(bytes, static_cast<size_t>(omp_get_thread_num()) * slice);
    const size_t e = std::min(bytes, b + slice);
    if (e > b) std::memcpy(d + b, s + b, e - b);
  }
}

double Engine::gradSquaredNorm(const GradView& grad, int64_t n, float gradScale) const {
  StepConstants c{};
  if (!std::isfinite(gradScale)) throwUserError("optim: grad_scale {} is not finite", gradScale);
  c.gradScale = gradScale;
  return run(static_cast<int>(detail::Pass::kNorm), ChunkState{}, grad, n, c);
}

void Engine::update(const ChunkState& s, const GradView& grad, const StepConstants& c) const {
  run(static_cast<int>(detail::Pass::kUpdate), s, grad, s.n, c);
}

double Engine::updateWithNorm(const ChunkState& s, const GradView& grad,
                              const StepConstants& c) const {
  return run(static_cast<int>(detail::Pass::kUpdateNorm), s, grad, s.n, c);
}

}  // namespace slidedp::optim
