// Internal: the per-ISA range kernels behind optim::Engine. Each lives in its own .cpp built
// with that ISA's flags (src/optim/CMakeLists.txt); adamw.cpp calls one only after
// isaSupported() said yes. A kernel processes [begin, end) of one chunk on the calling thread.
#pragma once

#include <cstdint>
#include <type_traits>

#include "optim/adamw.h"

namespace slidedp::optim::detail {

enum class Pass : int { kNorm = 0, kUpdate = 1, kUpdateNorm = 2 };

struct KernelArgs {
  const void* const* slots;  // numSlots gradient arrays
  int numSlots;
  DType gradDtype;
  float* master;
  float* expAvg;
  float* expAvgSq;
  uint16_t* bf16;
  StepConstants c;
  bool streamCopy;        // non-temporal stores for the bf16 copy (AVX-512 paths only)
  int64_t prefetchElems;  // software prefetch distance in elements, 0 = none (SIMD paths)
};

/// Returns the squared gradient norm of [begin, end) for kNorm/kUpdateNorm, 0 for kUpdate.
using RangeKernel = double (*)(const KernelArgs& a, Pass pass, int64_t begin, int64_t end);

double rangeScalar(const KernelArgs& a, Pass pass, int64_t begin, int64_t end);
double rangeAvx2(const KernelArgs& a, Pass pass, int64_t begin, int64_t end);
double rangeAvx512(const KernelArgs& a, Pass pass, int64_t begin, int64_t end);
double rangeAvx512Bf16(const KernelArgs& a, Pass pass, int64_t begin, int64_t end);

/// Dispatch helper shared by the kernels: calls f.template operator()<GradT, kG, kPass>()
/// with kG = numSlots for 1..4 and 0 (runtime count) above.
template <template <typename, int, Pass> class Body, typename... Args>
double dispatchKernel(const KernelArgs& a, Pass pass, Args... args) {
  auto byPass = [&](auto gradTag, auto gTag) -> double {
    using GradT = decltype(gradTag);
    constexpr int kG = decltype(gTag)::value;
    switch (pass) {
      case Pass::kNorm:
        return Body<GradT, kG, Pass::kNorm>::run(a, args...);
      case Pass::kUpdate:
        return Body<GradT, kG, Pass::kUpdate>::run(a, args...);
      default:
        return Body<GradT, kG, Pass::kUpdateNorm>::run(a, args...);
    }
  };
  auto bySlots = [&](auto gradTag) -> double {
    switch (a.numSlots) {
      case 1:
        return byPass(gradTag, std::integral_constant<int, 1>{});
      case 2:
        return byPass(gradTag, std::integral_constant<int, 2>{});
      case 3:
        return byPass(gradTag, std::integral_constant<int, 3>{});
      case 4:
        return byPass(gradTag, std::integral_constant<int, 4>{});
      default:
        return byPass(gradTag, std::integral_constant<int, 0>{});
    }
  };
  return a.gradDtype == DType::kF32 ? bySlots(float{}) : bySlots(uint16_t{});
}

}  // namespace slidedp::optim::detail
