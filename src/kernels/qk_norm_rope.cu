// Q/K RMSNorm + rotary position embedding, forward and backward (layer_kernels.h): per
// (row, head) the head's RMSNorm with its weight, then RoPE, reading Q and K from the fused QKV
// projection's output; the backward also reduces the two norm weights' gradients.
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "kernels/kernel_support.cuh"

namespace slidedp::kernels::cuda {

namespace {

// ---- Q/K norm + RoPE -----------------------------------------------------------------------
template <typename T>
__global__ void qkNormRopeForwardKernel(const T* __restrict__ qkv, int64_t ld, int H, int KV,
                                        int D, const T* __restrict__ wq, const T* __restrict__ wk,
                                        float eps, const T* __restrict__ cosv,
                                        const T* __restrict__ sinv, T* __restrict__ qo,
                                        T* __restrict__ ko, float* __restrict__ rq,
                                        float* __restrict__ rk) {
  extern __shared__ float sh[];
  const int W = (H + KV) * D, heads = H + KV, half = D / 2;
  float* ss = sh + W;
  const int64_t row = blockIdx.x;
  const T* src = qkv + row * ld;
  const bool norm = wq != nullptr;
  for (int h = threadIdx.x; h < heads; h += blockDim.x) ss[h] = 0.f;
  __syncthreads();
  for (int j = threadIdx.x; j < W; j += blockDim.x) {
    const float v = Io<T>::ld(src[j]);
    sh[j] = v;
    if (norm) atomicAdd(ss + j / D, v * v);
  }
  __syncthreads();
  if (norm) {
    for (int h = threadIdx.x; h < heads; h += blockDim.x) {
      const float r = rsqrtf(ss[h] / static_cast<float>(D) + eps);
      ss[h] = r;
      if (h < H)
        rq[row * H + h] = r;
      else
        rk[row * KV + (h - H)] = r;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < W; j += blockDim.x) {
      const int h = j / D, d = j - h * D;
      const float wv = Io<T>::ld(h < H ? wq[d] : wk[d]);
      sh[j] = Io<T>::rnd(wv * Io<T>::rnd(sh[j] * ss[h]));
    }
    __syncthreads();
  }
  const T* c = cosv + row * D;
  const T* s = sinv + row * D;
  for (int j = threadIdx.x; j < W; j += blockDim.x) {
    const int h = j / D, d = j - h * D;
    const float v = sh[j];
    const float rh = d < half ? -sh[j + half] : sh[j - half];
    const float o = Io<T>::rnd(Io<T>::rnd(v * Io<T>::ld(c[d])) + Io<T>::rnd(rh * Io<T>::ld(s[d])));
    if (h < H)
      qo[row * static_cast<int64_t>(H) * D + j] = Io<T>::st(o);
    else
      ko[row * static_cast<int64_t>(KV) * D + (j - H * D)] = Io<T>::st(o);
  }
}

template <typename T>
__global__ void qkNormRopeBackwardKernel(const T* __restrict__ dq, const T* __restrict__ dk,
                                         const T* __restrict__ qkv, int64_t ld, int64_t N, int H,
                                         int KV, int D, const T* __restrict__ wq,
                                         const T* __restrict__ wk, const float* __restrict__ rq,
                                         const float* __restrict__ rk,
                                         const T* __restrict__ cosv, const T* __restrict__ sinv,
                                         T* __restrict__ dqkv, int64_t ldd, float* dwq,
                                         float* dwk) {
  extern __shared__ float sh[];
  const int W = (H + KV) * D, heads = H + KV, half = D / 2;
  float* dot = sh + W;          // [heads]
  float* dwacc = dot + heads;   // [2 * D]: q_norm then k_norm
  const bool norm = wq != nullptr;
  for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) dwacc[i] = 0.f;
  __syncthreads();
  for (int64_t row = blockIdx.x; row < N; row += gridDim.x) {
    const T* gq = dq + row * static_cast<int64_t>(H) * D;
    const T* gk = dk + row * static_cast<int64_t>(KV) * D;
    const T* c = cosv + row * D;
    const T* s = sinv + row * D;
    for (int h = threadIdx.x; h < heads; h += blockDim.x) dot[h] = 0.f;
    // d(normed) = dout * cos + rotate_half^T(dout * sin)
    for (int j = threadIdx.x; j < W; j += blockDim.x) {
      const int h = j / D, d = j - h * D;
      const T* g = h < H ? gq + j : gk + (j - H * D);
      float v = Io<T>::ld(g[0]) * Io<T>::ld(c[d]);
      if (d < half)
        v += Io<T>::ld(g[half]) * Io<T>::ld(s[d + half]);
      else
        v -= Io<T>::ld(g[-half]) * Io<T>::ld(s[d - half]);
      sh[j] = v;
    }
    __syncthreads();
    T* out = dqkv + row * ldd;
    if (norm) {
      const T* src = qkv + row * ld;
      for (int j = threadIdx.x; j < W; j += blockDim.x) {
        const int h = j / D, d = j - h * D;
        const float r = h < H ? rq[row * H + h] : rk[row * KV + (h - H)];
        const float n = Io<T>::ld(src[j]) * r;
        const float g = sh[j];
        atomicAdd(dwacc + (h < H ? 0 : D) + d, g * Io<T>::rnd(n));
        const float dn = g * Io<T>::ld(h < H ? wq[d] : wk[d]);
        sh[j] = dn;
        atomicAdd(dot + h, dn * n);
      }
      __syncthreads();
      for (int j = threadIdx.x; j < W; j += blockDim.x) {
        const int h = j / D;
        const float r = h < H ? rq[row * H + h] : rk[row * KV + (h - H)];
        const float n = Io<T>::ld(src[j]) * r;
        out[j] = Io<T>::st(r * (sh[j] - n * dot[h] / static_cast<float>(D)));
      }
    } else {
      for (int j = threadIdx.x; j < W; j += blockDim.x) out[j] = Io<T>::st(sh[j]);
    }
    __syncthreads();  // sh/dot are rewritten by the next row
  }
  if (norm)
    for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) atomicAdd(i < D ? dwq + i : dwk + (i - D), dwacc[i]);
}

// One warp per (row, head): the head's D = 32 * E values in registers, element k of lane l at
// d = l + 32 k, so RoPE's partner d +- D/2 is element k +- E/2 of the same lane and the head's
// sum of squares is one warp reduction (no shared-memory atomics, no __syncthreads).
template <typename T, int E>
__global__ void qkNormRopeForwardWarpKernel(const T* __restrict__ qkv, int64_t ld, int64_t N,
                                            int H, int KV, const T* __restrict__ wq,
                                            const T* __restrict__ wk, float eps,
                                            const T* __restrict__ cosv, const T* __restrict__ sinv,
                                            T* __restrict__ qo, T* __restrict__ ko,
                                            float* __restrict__ rq, float* __restrict__ rk) {
  constexpr int D = 32 * E, HK = E / 2;
  const int heads = H + KV, lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  if (warp >= N * heads) return;
  const int64_t row = warp / heads;
  const int h = static_cast<int>(warp - row * heads);
  const bool isQ = h < H;
  const T* src = qkv + row * ld + static_cast<int64_t>(h) * D;
  float v[E];
#pragma unroll
  for (int k = 0; k < E; ++k) v[k] = Io<T>::ld(src[lane + 32 * k]);
  if (wq != nullptr) {
    float ss = 0.f;
#pragma unroll
    for (int k = 0; k < E; ++k) ss += v[k] * v[k];
    const float r = rsqrtf(warpSum(ss) / static_cast<float>(D) + eps);
    if (lane == 0) {
      if (isQ)
        rq[row * H + h] = r;
      else
        rk[row * KV + (h - H)] = r;
    }
    const T* w = isQ ? wq : wk;
#pragma unroll
    for (int k = 0; k < E; ++k) v[k] = Io<T>::rnd(Io<T>::ld(w[lane + 32 * k]) * Io<T>::rnd(v[k] * r));
  }
  const T* c = cosv + row * D;
  const T* s = sinv + row * D;
  T* out = isQ ? qo + (row * H + h) * static_cast<int64_t>(D)
               : ko + (row * KV + (h - H)) * static_cast<int64_t>(D);
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const int d = lane + 32 * k;
    const float rh = k < HK ? -v[k + HK] : v[k - HK];
    out[d] = Io<T>::st(Io<T>::rnd(Io<T>::rnd(v[k] * Io<T>::ld(c[d])) + Io<T>::rnd(rh * Io<T>::ld(s[d]))));
  }
}

// Backward of the warp kernel: warps stride over (row, head); each lane keeps its E columns of
// the q_norm and k_norm weight gradients in registers, the block sums its warps' in shared
// memory and adds once to the fp32 accumulators.
template <typename T, int E>
__global__ void qkNormRopeBackwardWarpKernel(const T* __restrict__ dq, const T* __restrict__ dk,
                                             const T* __restrict__ qkv, int64_t ld, int64_t N,
                                             int H, int KV, const T* __restrict__ wq,
                                             const T* __restrict__ wk, const float* __restrict__ rq,
                                             const float* __restrict__ rk,
                                             const T* __restrict__ cosv, const T* __restrict__ sinv,
                                             T* __restrict__ dqkv, int64_t ldd, float* dwq,
                                             float* dwk) {
  constexpr int D = 32 * E, HK = E / 2;
  __shared__ float dwacc[2 * D];
  const int heads = H + KV, lane = threadIdx.x & 31;
  const bool norm = wq != nullptr;
  float accq[E], acck[E];
#pragma unroll
  for (int k = 0; k < E; ++k) accq[k] = acck[k] = 0.f;
  const int64_t total = N * heads, stride = (gridDim.x * static_cast<int64_t>(blockDim.x)) >> 5;
  for (int64_t wi = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5; wi < total;
       wi += stride) {
    const int64_t row = wi / heads;
    const int h = static_cast<int>(wi - row * heads);
    const bool isQ = h < H;
    const T* g = isQ ? dq + (row * H + h) * static_cast<int64_t>(D)
                     : dk + (row * KV + (h - H)) * static_cast<int64_t>(D);
    const T* c = cosv + row * D;
    const T* s = sinv + row * D;
    float gv[E], p[E], dn[E];
#pragma unroll
    for (int k = 0; k < E; ++k) {
      gv[k] = Io<T>::ld(g[lane + 32 * k]);
      p[k] = gv[k] * Io<T>::ld(s[lane + 32 * k]);
    }
    // d(normed) = dout * cos + rotate_half^T(dout * sin)
#pragma unroll
    for (int k = 0; k < E; ++k) dn[k] = gv[k] * Io<T>::ld(c[lane + 32 * k]) + (k < HK ? p[k + HK] : -p[k - HK]);
    T* out = dqkv + row * ldd + static_cast<int64_t>(h) * D;
    if (norm) {
      const T* src = qkv + row * ld + static_cast<int64_t>(h) * D;
      const float r = isQ ? rq[row * H + h] : rk[row * KV + (h - H)];
      const T* w = isQ ? wq : wk;
      float n[E], dot = 0.f;
#pragma unroll
      for (int k = 0; k < E; ++k) {
        n[k] = Io<T>::ld(src[lane + 32 * k]) * r;
        const float gw = dn[k] * Io<T>::rnd(n[k]);
        if (isQ)
          accq[k] += gw;
        else
          acck[k] += gw;
        dn[k] *= Io<T>::ld(w[lane + 32 * k]);
        dot += dn[k] * n[k];
      }
      dot = warpSum(dot) / static_cast<float>(D);
#pragma unroll
      for (int k = 0; k < E; ++k) out[lane + 32 * k] = Io<T>::st(r * (dn[k] - n[k] * dot));
    } else {
#pragma unroll
      for (int k = 0; k < E; ++k) out[lane + 32 * k] = Io<T>::st(dn[k]);
    }
  }
  if (!norm) return;
  for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) dwacc[i] = 0.f;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < E; ++k) {
    atomicAdd(dwacc + lane + 32 * k, accq[k]);
    atomicAdd(dwacc + D + lane + 32 * k, acck[k]);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) atomicAdd(i < D ? dwq + i : dwk + (i - D), dwacc[i]);
}

// Group kernels: a group of D/8 lanes per (row, head) with 16-byte accesses. Lane s of a group
// holds d = 8s .. 8s+7, so RoPE's partner d +- D/2 is the same element of lane s ^ (D/16) (one
// shuffle) and the head's sum of squares is a reduction over the group's lanes. The
// arithmetic (and its rounding) is that of the warp kernels above. Needs D in {64, 128, 256},
// leading dimensions that are multiples of 8 and 16-byte aligned pointers.
template <int LPH>
__device__ __forceinline__ float groupSum(float v) {
#pragma unroll
  for (int o = LPH / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Forward group kernel: groups stride over (row, head) as the backward's do (every lane of a
// warp runs the same iterations, for the shuffles). The grid makes the stride a multiple of the
// heads (qkNormRopeGroupGrid), so a lane keeps one head and loads its norm weight once.
// 456 against 473 us for a grid of one group per (row, head) at 12 x 4096 Qwen3-4B rows on an
// H100, 438 against 464 on an H200 (tools/bench/results/2026-12-05e-h200x1-lookup, variant 1).
template <typename T, int D>
__global__ void __launch_bounds__(256, 4) qkNormRopeForwardGroupKernel(
    const T* __restrict__ qkv, int64_t ld, int64_t N, int H, int KV, const T* __restrict__ wq,
    const T* __restrict__ wk, float eps, const T* __restrict__ cosv, const T* __restrict__ sinv,
    T* __restrict__ qo, T* __restrict__ ko, float* __restrict__ rq, float* __restrict__ rk) {
  constexpr int LPH = D / 8, HALF = LPH / 2;
  const int heads = H + KV, sub = static_cast<int>(threadIdx.x & (LPH - 1));
  const int64_t total = N * heads, stride = gridDim.x * static_cast<int64_t>(blockDim.x) / LPH;
  const int64_t first = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / LPH;
  const int h = static_cast<int>(first % heads);  // the same every iteration (stride % heads == 0)
  const bool isQ = h < H, norm = wq != nullptr;
  const int64_t rowStride = stride / heads;
  const T* x0 = qkv + static_cast<int64_t>(h) * D;
  T* o0 = isQ ? qo + static_cast<int64_t>(h) * D : ko + static_cast<int64_t>(h - H) * D;
  const int64_t old = static_cast<int64_t>(isQ ? H : KV) * D;  // the output's row stride
  float* r0 = isQ ? rq + h : rk + (h - H);
  const int rld = isQ ? H : KV;
  float w[8];
  if (norm) {
    const Pack8<T> wp = reinterpret_cast<const Pack8<T>*>(isQ ? wq : wk)[sub];
#pragma unroll
    for (int e = 0; e < 8; ++e) w[e] = Io<T>::ld(wp.v[e]);
  }
  // Warp-uniform loop bound: inactive lanes (row >= N) still join the shuffles.
  const int64_t warpFirst = (blockIdx.x * static_cast<int64_t>(blockDim.x) + (threadIdx.x & ~31u)) / LPH;
  int64_t row = first / heads;
  for (int64_t base = warpFirst; base < total; base += stride, row += rowStride) {
    const bool active = row < N;
    Pack8<T> x{}, c{}, sn{};
    if (active) {
      x = reinterpret_cast<const Pack8<T>*>(x0 + row * ld)[sub];
      c = reinterpret_cast<const Pack8<T>*>(cosv + row * D)[sub];
      sn = reinterpret_cast<const Pack8<T>*>(sinv + row * D)[sub];
    }
    float v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = Io<T>::ld(x.v[e]);
    if (norm) {
      float ss = 0.f;
#pragma unroll
      for (int e = 0; e < 8; ++e) ss += v[e] * v[e];
      const float r = rsqrtf(groupSum<LPH>(ss) / static_cast<float>(D) + eps);
      if (active && sub == 0) r0[row * rld] = r;
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = Io<T>::rnd(w[e] * Io<T>::rnd(v[e] * r));
    }
    float partner[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) partner[e] = __shfl_xor_sync(0xffffffffu, v[e], HALF);
    if (active) {
      Pack8<T> o;
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float rh = sub < HALF ? -partner[e] : partner[e];
        o.v[e] = Io<T>::st(Io<T>::rnd(Io<T>::rnd(v[e] * Io<T>::ld(c.v[e])) + Io<T>::rnd(rh * Io<T>::ld(sn.v[e]))));
      }
      reinterpret_cast<Pack8<T>*>(o0 + row * old)[sub] = o;
    }
  }
}

// Backward of the group kernel: groups stride over (row, head) (every lane of a warp runs the
// same iterations, for the shuffles). The grid makes the stride a multiple of the heads
// (qkNormRopeGroupGrid), so a lane keeps one head: its norm weight is loaded once and
// its 8 columns of that weight's gradient stay in registers; the block sums them in shared
// memory and adds once. Every load of an iteration is issued first (the norm's rstd, input and
// weight with the gradient): one memory round trip an iteration. At most 64 registers (4
// blocks an SM, a few bytes spilled): 441 against 477 us at 74 registers for Qwen3-4B's 12 x
// 4096 tokens on an H200, 539 us before these changes (tools/bench/bench_kernels.cpp,
// tools/bench/results/2026-12-05d-h200x1-kernels/).
template <typename T, int D>
__global__ void __launch_bounds__(256, 4) qkNormRopeBackwardGroupKernel(
    const T* __restrict__ dq, const T* __restrict__ dk, const T* __restrict__ qkv, int64_t ld,
    int64_t N, int H, int KV, const T* __restrict__ wq, const T* __restrict__ wk,
    const float* __restrict__ rq, const float* __restrict__ rk, const T* __restrict__ cosv,
    const T* __restrict__ sinv, T* __restrict__ dqkv, int64_t ldd, float* dwq, float* dwk) {
  constexpr int LPH = D / 8, HALF = LPH / 2;
  __shared__ float dwacc[2 * D];
  const int heads = H + KV, lane = threadIdx.x & 31, sub = lane & (LPH - 1);
  const bool norm = wq != nullptr;
  const int64_t total = N * heads, stride = gridDim.x * static_cast<int64_t>(blockDim.x) / LPH;
  const int64_t first = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / LPH;
  const int h = static_cast<int>(first % heads);  // the same every iteration (stride % heads == 0)
  const bool isQ = h < H;
  const int64_t rowStride = stride / heads;
  const T* g0 = isQ ? dq + static_cast<int64_t>(h) * D : dk + static_cast<int64_t>(h - H) * D;
  const int64_t gld = static_cast<int64_t>(isQ ? H : KV) * D;
  const float* r0 = isQ ? rq + h : rk + (h - H);
  const int rld = isQ ? H : KV;
  Pack8<T> wp;
  if (norm) wp = reinterpret_cast<const Pack8<T>*>(isQ ? wq : wk)[sub];
  float acc[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) acc[e] = 0.f;
  const int64_t warpFirst = (blockIdx.x * static_cast<int64_t>(blockDim.x) + (threadIdx.x & ~31)) / LPH;
  int64_t row = first / heads;
  for (int64_t base = warpFirst; base < total; base += stride, row += rowStride) {
    const bool active = row < N;
    float gv[8], c[8], sn[8];
    Pack8<T> xp;
    float r = 0.f;
    if (active) {
      const Pack8<T> gp = reinterpret_cast<const Pack8<T>*>(g0 + row * gld)[sub];
      const Pack8<T> cp = reinterpret_cast<const Pack8<T>*>(cosv + row * D)[sub];
      const Pack8<T> sp = reinterpret_cast<const Pack8<T>*>(sinv + row * D)[sub];
      if (norm) {
        r = r0[row * rld];
        xp = reinterpret_cast<const Pack8<T>*>(qkv + row * ld + static_cast<int64_t>(h) * D)[sub];
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) gv[e] = Io<T>::ld(gp.v[e]), c[e] = Io<T>::ld(cp.v[e]), sn[e] = Io<T>::ld(sp.v[e]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) gv[e] = c[e] = sn[e] = 0.f;
    }
    // d(normed) = dout * cos + rotate_half^T(dout * sin)
    float dn[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float p = __shfl_xor_sync(0xffffffffu, gv[e] * sn[e], HALF);
      dn[e] = gv[e] * c[e] + (sub < HALF ? p : -p);
    }
    Pack8<T> o;
    if (norm) {
      float n[8], dot = 0.f;
      if (active) {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          n[e] = Io<T>::ld(xp.v[e]) * r;
          acc[e] += dn[e] * Io<T>::rnd(n[e]);
          dn[e] *= Io<T>::ld(wp.v[e]);
          dot += dn[e] * n[e];
        }
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) n[e] = 0.f;
      }
      dot = groupSum<LPH>(dot) / static_cast<float>(D);
#pragma unroll
      for (int e = 0; e < 8; ++e) o.v[e] = Io<T>::st(r * (dn[e] - n[e] * dot));
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) o.v[e] = Io<T>::st(dn[e]);
    }
    if (active) reinterpret_cast<Pack8<T>*>(dqkv + row * ldd + static_cast<int64_t>(h) * D)[sub] = o;
  }
  if (!norm) return;
  for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) dwacc[i] = 0.f;
  __syncthreads();
  float* mine = dwacc + (isQ ? 0 : D) + 8 * sub;
#pragma unroll
  for (int e = 0; e < 8; ++e) atomicAdd(mine + e, acc[e]);
  __syncthreads();
  for (int i = threadIdx.x; i < 2 * D; i += blockDim.x) atomicAdd(i < D ? dwq + i : dwk + (i - D), dwacc[i]);
}

/// The grid of the Q/K-norm + RoPE group kernels <T, D> (256 threads, 256 / (D / 8) groups a block)
/// for N rows of `heads` heads: enough blocks for every (row, head), at most 8 an SM, and a
/// multiple of heads / gcd(heads, groups a block) so that a lane's stride keeps its head.
unsigned qkNormRopeGroupGrid(int64_t N, int heads, int D) {
  const int64_t perBlock = 256 / (D / 8);
  const int64_t need = (N * heads + perBlock - 1) / perBlock;
  const int64_t unit = heads / std::gcd<int64_t>(heads, perBlock);
  const int64_t cap = std::max<int64_t>(unit, static_cast<int64_t>(smCount()) * 8 / unit * unit);
  return static_cast<unsigned>(std::min<int64_t>((need + unit - 1) / unit * unit, cap));
}

}  // namespace

cudaError_t qkNormRopeForward(DType dtype, const void* qkv, int64_t ld, int64_t N, int H, int KV,
                              int D, const void* wq, const void* wk, float eps, const void* cos,
                              const void* sin, void* qOut, void* kOut, float* rq, float* rk,
                              cudaStream_t stream) {
  const int W = (H + KV) * D;
  const size_t smem = static_cast<size_t>(W + H + KV) * sizeof(float);
  if (D % 2 || smem > kMaxSharedBytes) return cudaErrorInvalidValue;
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const int64_t warps = N * (H + KV);
    const unsigned grid = static_cast<unsigned>((warps + 7) / 8);
    const bool group = ld % 8 == 0 && aligned8<T>({qkv, wq, wk, cos, sin, qOut, kOut});
#define SLIDEDP_QK_FWD_GROUP(DD)                                                                 \
  qkNormRopeForwardGroupKernel<T, DD><<<qkNormRopeGroupGrid(N, H + KV, DD), 256, 0, stream>>>( \
      static_cast<const T*>(qkv), ld, N, H, KV, static_cast<const T*>(wq),                     \
      static_cast<const T*>(wk), eps, static_cast<const T*>(cos), static_cast<const T*>(sin),  \
      static_cast<T*>(qOut), static_cast<T*>(kOut), rq, rk)
    if (group && D == 64) { SLIDEDP_QK_FWD_GROUP(64); return; }
    if (group && D == 128) { SLIDEDP_QK_FWD_GROUP(128); return; }
    if (group && D == 256) { SLIDEDP_QK_FWD_GROUP(256); return; }
#undef SLIDEDP_QK_FWD_GROUP
#define SLIDEDP_QK_FWD(E)                                                                      \
  qkNormRopeForwardWarpKernel<T, E><<<grid, 256, 0, stream>>>(                                 \
      static_cast<const T*>(qkv), ld, N, H, KV, static_cast<const T*>(wq),                     \
      static_cast<const T*>(wk), eps, static_cast<const T*>(cos), static_cast<const T*>(sin),  \
      static_cast<T*>(qOut), static_cast<T*>(kOut), rq, rk)
    if (D == 64) { SLIDEDP_QK_FWD(2); return; }
    if (D == 128) { SLIDEDP_QK_FWD(4); return; }
    if (D == 256) { SLIDEDP_QK_FWD(8); return; }
#undef SLIDEDP_QK_FWD
    qkNormRopeForwardKernel<T><<<static_cast<unsigned>(N), threadsFor(W / 4, 512), smem, stream>>>(
        static_cast<const T*>(qkv), ld, H, KV, D, static_cast<const T*>(wq),
        static_cast<const T*>(wk), eps, static_cast<const T*>(cos), static_cast<const T*>(sin),
        static_cast<T*>(qOut), static_cast<T*>(kOut), rq, rk);
  });
}

cudaError_t qkNormRopeBackward(DType dtype, const void* dq, const void* dk, const void* qkv,
                               int64_t ld, int64_t N, int H, int KV, int D, const void* wq,
                               const void* wk, const float* rq, const float* rk, const void* cos,
                               const void* sin, void* dqkv, int64_t ldd, float* dwqAccum,
                               float* dwkAccum, cudaStream_t stream) {
  const int W = (H + KV) * D;
  const size_t smem = static_cast<size_t>(W + H + KV + 2 * D) * sizeof(float);
  if (D % 2 || smem > kMaxSharedBytes) return cudaErrorInvalidValue;
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const int64_t warps = N * (H + KV);
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>((warps + 7) / 8, static_cast<int64_t>(smCount()) * 8));
    const bool group = ld % 8 == 0 && ldd % 8 == 0 && aligned8<T>({dq, dk, qkv, wq, wk, cos, sin, dqkv});
#define SLIDEDP_QK_BWD_GROUP(DD)                                                                    \
  qkNormRopeBackwardGroupKernel<T, DD><<<qkNormRopeGroupGrid(N, H + KV, DD), 256, 0, stream>>>( \
      static_cast<const T*>(dq), static_cast<const T*>(dk), static_cast<const T*>(qkv), ld, N, H, \
      KV, static_cast<const T*>(wq), static_cast<const T*>(wk), rq, rk,                           \
      static_cast<const T*>(cos), static_cast<const T*>(sin), static_cast<T*>(dqkv), ldd,         \
      dwqAccum, dwkAccum)
    if (group && D == 64) { SLIDEDP_QK_BWD_GROUP(64); return; }
    if (group && D == 128) { SLIDEDP_QK_BWD_GROUP(128); return; }
    if (group && D == 256) { SLIDEDP_QK_BWD_GROUP(256); return; }
#undef SLIDEDP_QK_BWD_GROUP
#define SLIDEDP_QK_BWD(E)                                                                         \
  qkNormRopeBackwardWarpKernel<T, E><<<grid, 256, 0, stream>>>(                                   \
      static_cast<const T*>(dq), static_cast<const T*>(dk), static_cast<const T*>(qkv), ld, N, H, \
      KV, static_cast<const T*>(wq), static_cast<const T*>(wk), rq, rk,                           \
      static_cast<const T*>(cos), static_cast<const T*>(sin), static_cast<T*>(dqkv), ldd,         \
      dwqAccum, dwkAccum)
    if (D == 64) { SLIDEDP_QK_BWD(2); return; }
    if (D == 128) { SLIDEDP_QK_BWD(4); return; }
    if (D == 256) { SLIDEDP_QK_BWD(8); return; }
#undef SLIDEDP_QK_BWD
    qkNormRopeBackwardKernel<T><<<gridForRows(N), threadsFor(W / 4, 512), smem, stream>>>(
        static_cast<const T*>(dq), static_cast<const T*>(dk), static_cast<const T*>(qkv), ld, N,
        H, KV, D, static_cast<const T*>(wq), static_cast<const T*>(wk), rq, rk,
        static_cast<const T*>(cos), static_cast<const T*>(sin), static_cast<T*>(dqkv), ldd,
        dwqAccum, dwkAccum);
  });
}

}  // namespace slidedp::kernels::cuda
