// AVX-512 path of the fused AdamW pass (16 fp32 lanes), built with
// -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -ffp-contract=off. Two kernels:
//   rangeAvx512     : software RNE bf16 rounding, bit-identical to the scalar reference;
//   rangeAvx512Bf16 : native VCVTNEPS2BF16 (RNE, NaN -> quiet NaN, but fp32 denormal inputs
//                     flushed to signed zero: DAZ), called only where avx512_bf16 exists.
// The tail (< 16 elements) runs the same vector code under a lane mask, so no scalar epilogue
// and no per-element branch exists. With KernelArgs::streamCopy the bf16 copy is written with
// non-temporal stores (no read-for-ownership of the copy; it is next read by H2D DMA, not by
// this core) when the range's copy is 32-byte aligned; the choice is made once per range.
// Software prefetch (KernelArgs::prefetchElems ahead, one line of every stream per step) runs
// in its own loop, chosen once per range.
// GCC 12's avx512fintrin.h trips -Wuninitialized on its own _mm512_undefined_*() helpers
// (GCC PR 105593, fixed in GCC 13); silence only that, only here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "optim/adamw_kernels.h"

namespace slidedp::optim::detail {
namespace {

template <bool kMasked>
inline __m512 loadF32(const float* p, __mmask16 k) {
  return kMasked ? _mm512_maskz_loadu_ps(k, p) : _mm512_loadu_ps(p);
}

template <bool kMasked>
inline __m512 loadGrad(const float* p, __mmask16 k) {
  return loadF32<kMasked>(p, k);
}

template <bool kMasked>
inline __m512 loadGrad(const uint16_t* p, __mmask16 k) {
  const __m256i h = kMasked ? _mm256_maskz_loadu_epi16(k, p)
                            : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

template <bool kNative>
inline __m256i toBf16(__m512 p) {
  if constexpr (kNative) {
    return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(p));
  } else {
    const __m512i u = _mm512_castps_si512(p);
    const __m512i hi = _mm512_srli_epi32(u, 16);
    const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
    r = _mm512_srli_epi32(r, 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(p, p, _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
    return _mm512_cvtepi32_epi16(r);
  }
}

struct Consts {
  explicit Consts(const StepConstants& c)
      : scale(_mm512_set1_ps(c.gradScale)),
        decay(_mm512_set1_ps(c.decay)),
        w1(_mm512_set1_ps(c.oneMinusBeta1)),
        b2(_mm512_set1_ps(c.beta2)),
        c2(_mm512_set1_ps(c.oneMinusBeta2)),
        sbc2(_mm512_set1_ps(c.sqrtBiasCorrection2)),
        eps(_mm512_set1_ps(c.eps)),
        nstep(_mm512_set1_ps(c.negStepSize)) {}
  __m512 scale, decay, w1, b2, c2, sbc2, eps, nstep;
};

template <bool kNative, bool kStream>
struct Avx512 {
  template <typename GradT, int kG, Pass kPass>
  struct Body {
    template <bool kMasked>
    static inline void step(const GradT* const* slot, int numSlots, const KernelArgs& a,
                            const Consts& k, int64_t i, __mmask16 mask, __m512d& n0, __m512d& n1) {
      __m512 s = loadGrad<kMasked>(slot[0] + i, mask);
      for (int r = 1; r < (kG > 0 ? kG : numSlots); ++r)
        s = _mm512_add_ps(s, loadGrad<kMasked>(slot[r] + i, mask));
      const __m512 g = _mm512_mul_ps(s, k.scale);
      if constexpr (kPass != Pass::kUpdate) {
        const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(g));
        const __m512d hi =
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(g), 1)));
        n0 = _mm512_fmadd_pd(lo, lo, n0);
        n1 = _mm512_fmadd_pd(hi, hi, n1);
      }
      if constexpr (kPass != Pass::kNorm) {
        __m512 p = loadF32<kMasked>(a.master + i, mask);
        __m512 m = loadF32<kMasked>(a.expAvg + i, mask);
        __m512 v = loadF32<kMasked>(a.expAvgSq + i, mask);
        p = _mm512_mul_ps(p, k.decay);
        m = _mm512_fmadd_ps(k.w1, _mm512_sub_ps(g, m), m);
        v = _mm512_mul_ps(v, k.b2);
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_mul_ps(k.c2, g), g));
        const __m512 d = _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(v), k.sbc2), k.eps);
        p = _mm512_add_ps(p, _mm512_div_ps(_mm512_mul_ps(k.nstep, m), d));
        const __m256i h = toBf16<kNative>(p);
        if constexpr (kMasked) {
          _mm512_mask_storeu_ps(a.master + i, mask, p);
          _mm512_mask_storeu_ps(a.expAvg + i, mask, m);
          _mm512_mask_storeu_ps(a.expAvgSq + i, mask, v);
          _mm256_mask_storeu_epi16(a.bf16 + i, mask, h);
        } else {
          _mm512_storeu_ps(a.master + i, p);
          _mm512_storeu_ps(a.expAvg + i, m);
          _mm512_storeu_ps(a.expAvgSq + i, v);
          if constexpr (kStream) {
            _mm256_stream_si256(reinterpret_cast<__m256i*>(a.bf16 + i), h);
          } else {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(a.bf16 + i), h);
          }
        }
      }
    }

    static double run(const KernelArgs& a, int64_t begin, int64_t end) {
      const int numSlots = kG > 0 ? kG : a.numSlots;
      const GradT* slot[kMaxSlots];
      for (int r = 0; r < numSlots; ++r) slot[r] = static_cast<const GradT*>(a.slots[r]);
      const Consts k(a.c);
      __m512d n0 = _mm512_setzero_pd(), n1 = _mm512_setzero_pd();
      int64_t i = begin;
      const int64_t pf = a.prefetchElems;
      if (pf > 0) {
        for (; i + 16 <= end; i += 16) {
          for (int r = 0; r < numSlots; ++r)
            _mm_prefetch(reinterpret_cast<const char*>(slot[r] + i + pf), _MM_HINT_T0);
          if constexpr (kPass != Pass::kNorm) {
            _mm_prefetch(reinterpret_cast<const char*>(a.master + i + pf), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a.expAvg + i + pf), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a.expAvgSq + i + pf), _MM_HINT_T0);
          }
          step<false>(slot, numSlots, a, k, i, 0xffff, n0, n1);
        }
      }
      for (; i + 16 <= end; i += 16) step<false>(slot, numSlots, a, k, i, 0xffff, n0, n1);
      if (i < end) {
        const __mmask16 mask = static_cast<__mmask16>((1u << (end - i)) - 1u);
        step<true>(slot, numSlots, a, k, i, mask, n0, n1);
      }
      if constexpr (kStream) _mm_sfence();  // order the streamed copy before the return
      if constexpr (kPass == Pass::kUpdate) return 0.0;
      return _mm512_reduce_add_pd(_mm512_add_pd(n0, n1));
    }
  };
};

template <bool kNative>
double dispatchStream(const KernelArgs& a, Pass pass, int64_t begin, int64_t end) {
  const bool aligned = (reinterpret_cast<uintptr_t>(a.bf16 + begin) & 31u) == 0;
  if (a.streamCopy && aligned && pass != Pass::kNorm)
    return dispatchKernel<Avx512<kNative, true>::template Body>(a, pass, begin, end);
  return dispatchKernel<Avx512<kNative, false>::template Body>(a, pass, begin, end);
}

}  // namespace

double rangeAvx512(const KernelArgs& a, Pass pass, int64_t begin, int64_t end) {
  return dispatchStream<false>(a, pass, begin, end);
}

double rangeAvx512Bf16(const KernelArgs& a, Pass pass, int64_t begin, int64_t end) {
  return dispatchStream<true>(a, pass, begin, end);
}

}  // namespace slidedp::optim::detail
