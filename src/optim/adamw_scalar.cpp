// Scalar reference of the fused AdamW pass: the arithmetic every SIMD path must reproduce
// bit for bit (see StepConstants in adamw.h). Built with -ffp-contract=off so the compiler
// fuses nothing; the one FMA (the lerp) is explicit std::fma, as in ATen's vectorised lerp.
#include <cmath>

#include "optim/adamw_kernels.h"
#include "common/bf16.h"

namespace slidedp::optim::detail {
namespace {

inline float loadGrad(const float* p, int64_t i) { return p[i]; }
inline float loadGrad(const uint16_t* p, int64_t i) { return bf16ToFloat(p[i]); }

template <typename GradT, int kG, Pass kPass>
struct ScalarBody {
  static double run(const KernelArgs& a, int64_t begin, int64_t end) {
    const int numSlots = kG > 0 ? kG : a.numSlots;
    const GradT* slot[kMaxSlots];
    for (int r = 0; r < numSlots; ++r) slot[r] = static_cast<const GradT*>(a.slots[r]);
    const StepConstants c = a.c;
    double norm = 0.0;
    for (int64_t i = begin; i < end; ++i) {
      float s = loadGrad(slot[0], i);
      for (int r = 1; r < numSlots; ++r) s = s + loadGrad(slot[r], i);
      const float g = s * c.gradScale;
      if (kPass != Pass::kUpdate) norm += static_cast<double>(g) * static_cast<double>(g);
      if (kPass == Pass::kNorm) continue;
      float p = a.master[i] * c.decay;
      float m = std::fma(c.oneMinusBeta1, g - a.expAvg[i], a.expAvg[i]);
      float v = a.expAvgSq[i] * c.beta2;
      v = v + (c.oneMinusBeta2 * g) * g;
      const float d = std::sqrt(v) / c.sqrtBiasCorrection2 + c.eps;
      p = p + (c.negStepSize * m) / d;
      a.master[i] = p;
      a.expAvg[i] = m;
      a.expAvgSq[i] = v;
      a.bf16[i] = floatToBf16(p);
    }
    return norm;
  }
};

}  // namespace

double rangeScalar(const KernelArgs& a, Pass pass, int64_t begin, int64_t end) {
  return dispatchKernel<ScalarBody>(a, pass, begin, end);
}

}  // namespace slidedp::optim::detail
