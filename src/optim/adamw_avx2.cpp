// AVX2 path of the fused AdamW pass (8 fp32 lanes, 16 elements per iteration so two vectors
// pack into one 256-bit store of bf16), built with -mavx2 -mfma -mf16c -ffp-contract=off.
// Bit-identical to the scalar reference. The tail (< 16 elements) is copied into zero-padded
// stack buffers and runs the same vector code, so no scalar epilogue exists.
#include <immintrin.h>

#include <cstring>

#include "optim/adamw_kernels.h"

namespace slidedp::optim::detail {
namespace {

inline __m256 loadGrad(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 loadGrad(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// RNE of 8 floats to bf16 in the low 16 bits of each 32-bit lane (values <= 0xffff).
inline __m256i roundBf16(__m256 p) {
  const __m256i u = _mm256_castps_si256(p);
  const __m256i hi = _mm256_srli_epi32(u, 16);
  const __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
  __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  r = _mm256_srli_epi32(r, 16);
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(p, p, _CMP_UNORD_Q));
  return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}

struct Consts {
  explicit Consts(const StepConstants& c)
      : scale(_mm256_set1_ps(c.gradScale)),
        decay(_mm256_set1_ps(c.decay)),
        w1(_mm256_set1_ps(c.oneMinusBeta1)),
        b2(_mm256_set1_ps(c.beta2)),
        c2(_mm256_set1_ps(c.oneMinusBeta2)),
        sbc2(_mm256_set1_ps(c.sqrtBiasCorrection2)),
        eps(_mm256_set1_ps(c.eps)),
        nstep(_mm256_set1_ps(c.negStepSize)) {}
  __m256 scale, decay, w1, b2, c2, sbc2, eps, nstep;
};

struct Arrays {
  float* p;
  float* m;
  float* v;
  uint16_t* o;
};

template <typename GradT, int kG, Pass kPass>
struct Body {
  // One half (8 lanes) of a 16-element step; returns the new master weights.
  static inline __m256 half(const GradT* const* slot, int numSlots, const Arrays& x,
                            const Consts& k, int64_t i, __m256d& n0, __m256d& n1) {
    __m256 s = loadGrad(slot[0] + i);
    for (int r = 1; r < (kG > 0 ? kG : numSlots); ++r) s = _mm256_add_ps(s, loadGrad(slot[r] + i));
    const __m256 g = _mm256_mul_ps(s, k.scale);
    if constexpr (kPass != Pass::kUpdate) {
      const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(g));
      const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(g, 1));
      n0 = _mm256_fmadd_pd(lo, lo, n0);
      n1 = _mm256_fmadd_pd(hi, hi, n1);
    }
    if constexpr (kPass == Pass::kNorm) {
      return g;
    } else {
      __m256 p = _mm256_loadu_ps(x.p + i);
      __m256 m = _mm256_loadu_ps(x.m + i);
      __m256 v = _mm256_loadu_ps(x.v + i);
      p = _mm256_mul_ps(p, k.decay);
      m = _mm256_fmadd_ps(k.w1, _mm256_sub_ps(g, m), m);
      v = _mm256_mul_ps(v, k.b2);
      v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_mul_ps(k.c2, g), g));
      const __m256 d = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(v), k.sbc2), k.eps);
      p = _mm256_add_ps(p, _mm256_div_ps(_mm256_mul_ps(k.nstep, m), d));
      _mm256_storeu_ps(x.p + i, p);
      _mm256_storeu_ps(x.m + i, m);
      _mm256_storeu_ps(x.v + i, v);
      return p;
    }
  }

  static inline void step(const GradT* const* slot, int numSlots, const Arrays& x, const Consts& k,
                          int64_t i, __m256d& n0, __m256d& n1) {
    const __m256 p0 = half(slot, numSlots, x, k, i, n0, n1);
    const __m256 p1 = half(slot, numSlots, x, k, i + 8, n0, n1);
    if constexpr (kPass != Pass::kNorm) {
      const __m256i packed =
          _mm256_permute4x64_epi64(_mm256_packus_epi32(roundBf16(p0), roundBf16(p1)), 0xd8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(x.o + i), packed);
    }
  }

  static double run(const KernelArgs& a, int64_t begin, int64_t end) {
    const int numSlots = kG > 0 ? kG : a.numSlots;
    const GradT* slot[kMaxSlots];
    for (int r = 0; r < numSlots; ++r) slot[r] = static_cast<const GradT*>(a.slots[r]);
    const Consts k(a.c);
    const Arrays x{a.master, a.expAvg, a.expAvgSq, a.bf16};
    __m256d n0 = _mm256_setzero_pd(), n1 = _mm256_setzero_pd();
    int64_t i = begin;
    const int64_t pf = a.prefetchElems;
    if (pf > 0) {
      for (; i + 16 <= end; i += 16) {
        // One line of each fp32 array per 16 elements (a bf16 slot line covers two steps).
        for (int r = 0; r < numSlots; ++r)
          _mm_prefetch(reinterpret_cast<const char*>(slot[r] + i + pf), _MM_HINT_T0);
        if constexpr (kPass != Pass::kNorm) {
          _mm_prefetch(reinterpret_cast<const char*>(a.master + i + pf), _MM_HINT_T0);
          _mm_prefetch(reinterpret_cast<const char*>(a.expAvg + i + pf), _MM_HINT_T0);
          _mm_prefetch(reinterpret_cast<const char*>(a.expAvgSq + i + pf), _MM_HINT_T0);
        }
        step(slot, numSlots, x, k, i, n0, n1);
      }
    }
    for (; i + 16 <= end; i += 16) step(slot, numSlots, x, k, i, n0, n1);
    if (i < end) {
      const int64_t rest = end - i;
      alignas(32) GradT gbuf[kMaxSlots][16] = {};
      alignas(32) float pbuf[16] = {}, mbuf[16] = {}, vbuf[16] = {};
      alignas(32) uint16_t obuf[16] = {};
      const GradT* tslot[kMaxSlots] = {};
      for (int r = 0; r < numSlots; ++r) {
        std::memcpy(gbuf[r], slot[r] + i, rest * sizeof(GradT));
        tslot[r] = gbuf[r];
      }
      if constexpr (kPass != Pass::kNorm) {
        std::memcpy(pbuf, a.master + i, rest * sizeof(float));
        std::memcpy(mbuf, a.expAvg + i, rest * sizeof(float));
        std::memcpy(vbuf, a.expAvgSq + i, rest * sizeof(float));
      }
      step(tslot, numSlots, Arrays{pbuf, mbuf, vbuf, obuf}, k, 0, n0, n1);
      if constexpr (kPass != Pass::kNorm) {
        std::memcpy(a.master + i, pbuf, rest * sizeof(float));
        std::memcpy(a.expAvg + i, mbuf, rest * sizeof(float));
        std::memcpy(a.expAvgSq + i, vbuf, rest * sizeof(float));
        std::memcpy(a.bf16 + i, obuf, rest * sizeof(uint16_t));
      }
    }
    if constexpr (kPass == Pass::kUpdate) return 0.0;
    alignas(32) double t[4];
    _mm256_store_pd(t, _mm256_add_pd(n0, n1));
    return (t[0] + t[1]) + (t[2] + t[3]);
  }
};

}  // namespace

double rangeAvx2(const KernelArgs& a, Pass pass, int64_t begin, int64_t end) {
  return dispatchKernel<Body>(a, pass, begin, end);
}

}  // namespace slidedp::optim::detail
