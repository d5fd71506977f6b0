// Fused decoder-layer kernels (see layer_kernels.h). Memory-bound element-wise and row-reduction
// kernels: one block per row for the forward passes (the row stays in L1/shared memory between
// its two passes), grid-stride over rows for the backward passes that reduce a weight gradient
// over rows (each block accumulates its rows in registers/shared memory and adds once to the
// fp32 accumulator, so atomics scale with the grid, not with N).
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <type_traits>

namespace slidedp::kernels::cuda {

namespace {

using bf16 = __nv_bfloat16;

template <typename T>
struct Io;
template <>
struct Io<float> {
  static __device__ __forceinline__ float ld(float v) { return v; }
  static __device__ __forceinline__ float st(float v) { return v; }
  static __device__ __forceinline__ float rnd(float v) { return v; }
};
template <>
struct Io<bf16> {
  static __device__ __forceinline__ float ld(bf16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ bf16 st(float v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ float rnd(float v) {
    return __bfloat162float(__float2bfloat16_rn(v));
  }
};

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Sum over the block (blockDim.x a multiple of 32, <= 1024); every thread gets the result.
/// `scratch` holds 33 floats of shared memory; the call synchronises the block.
__device__ float blockSum(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float s = lane < nw ? scratch[lane] : 0.f;
    s = warpSum(s);
    if (lane == 0) scratch[32] = s;
  }
  __syncthreads();
  const float r = scratch[32];
  __syncthreads();  // scratch may be reused right after
  return r;
}

/// Eight consecutive elements, loaded and stored as one 16-byte (bf16) or 32-byte (fp32) access.
template <typename T>
struct alignas(8 * sizeof(T)) Pack8 {
  T v[8];
};

/// Whether every pointer is aligned for Pack8<T> accesses.
template <typename T>
bool aligned8(std::initializer_list<const void*> ptrs) {
  for (const void* p : ptrs)
    if (reinterpret_cast<uintptr_t>(p) % (8 * sizeof(T)) != 0) return false;
  return true;
}

int smCount() {
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

int threadsFor(int64_t work, int maxThreads = 1024) {
  int64_t t = (work + 31) / 32 * 32;
  if (t < 32) t = 32;
  if (t > maxThreads) t = maxThreads;
  return static_cast<int>(t);
}

int gridForRows(int64_t N) {
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t g = static_cast<int64_t>(sms) * 4;
  return static_cast<int>(N < g ? (N > 0 ? N : 1) : g);
}

// ---- RMSNorm -------------------------------------------------------------------------------
template <typename T>
__global__ void rmsNormForwardKernel(const T* __restrict__ x, const T* __restrict__ w,
                                     T* __restrict__ y, float* __restrict__ rstd, int64_t C,
                                     float eps) {
  __shared__ float scratch[33];
  const int64_t row = blockIdx.x;
  const T* xr = x + row * C;
  T* yr = y + row * C;
  float ss = 0.f;
  for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
    const float v = Io<T>::ld(xr[j]);
    ss += v * v;
  }
  ss = blockSum(ss, scratch);
  const float r = rsqrtf(ss / static_cast<float>(C) + eps);
  if (threadIdx.x == 0 && rstd) rstd[row] = r;
  for (int64_t j = threadIdx.x; j < C; j += blockDim.x)
    yr[j] = Io<T>::st(Io<T>::ld(w[j]) * Io<T>::rnd(Io<T>::ld(xr[j]) * r));
}

// The same with the row held in registers (one read of x): KC columns per thread, 8 at a time.
// Needs C % 8 == 0, C <= 8 * KC * blockDim.x, aligned rows.
template <typename T, int KC>
__global__ void rmsNormForwardRegKernel(const T* __restrict__ x, const T* __restrict__ w,
                                        T* __restrict__ y, float* __restrict__ rstd, int64_t C,
                                        float eps) {
  __shared__ float scratch[33];
  const int64_t row = blockIdx.x;
  const Pack8<T>* xr = reinterpret_cast<const Pack8<T>*>(x + row * C);
  Pack8<T>* yr = reinterpret_cast<Pack8<T>*>(y + row * C);
  const Pack8<T>* wr = reinterpret_cast<const Pack8<T>*>(w);
  const int64_t C8 = C / 8;
  Pack8<T> v[KC];
  float ss = 0.f;
#pragma unroll
  for (int k = 0; k < KC; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < C8) {
      v[k] = xr[j];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float f = Io<T>::ld(v[k].v[e]);
        ss += f * f;
      }
    }
  }
  ss = blockSum(ss, scratch);
  const float r = rsqrtf(ss / static_cast<float>(C) + eps);
  if (threadIdx.x == 0 && rstd) rstd[row] = r;
#pragma unroll
  for (int k = 0; k < KC; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < C8) {
      const Pack8<T> wv = wr[j];
      Pack8<T> o;
#pragma unroll
      for (int e = 0; e < 8; ++e)
        o.v[e] = Io<T>::st(Io<T>::ld(wv.v[e]) * Io<T>::rnd(Io<T>::ld(v[k].v[e]) * r));
      yr[j] = o;
    }
  }
}

template <typename T>
__global__ void rmsNormApplyKernel(const T* __restrict__ x, const float* __restrict__ rstd,
                                   const T* __restrict__ w, T* __restrict__ y, int64_t N,
                                   int64_t C) {
  const int64_t total = N * C;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / C, c = i - row * C;
    y[i] = Io<T>::st(Io<T>::ld(w[c]) * Io<T>::rnd(Io<T>::ld(x[i]) * rstd[row]));
  }
}

template <typename T>
__global__ void rmsNormApplyVecKernel(const T* __restrict__ x, const float* __restrict__ rstd,
                                      const T* __restrict__ w, T* __restrict__ y, int64_t N,
                                      int64_t C) {
  const int64_t C8 = C / 8, total = N * C8;
  const Pack8<T>* x8 = reinterpret_cast<const Pack8<T>*>(x);
  const Pack8<T>* w8 = reinterpret_cast<const Pack8<T>*>(w);
  Pack8<T>* y8 = reinterpret_cast<Pack8<T>*>(y);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / C8, c = i - row * C8;
    const float r = rstd[row];
    const Pack8<T> xv = x8[i], wv = w8[c];
    Pack8<T> o;
#pragma unroll
    for (int e = 0; e < 8; ++e) o.v[e] = Io<T>::st(Io<T>::ld(wv.v[e]) * Io<T>::rnd(Io<T>::ld(xv.v[e]) * r));
    y8[i] = o;
  }
}

constexpr size_t kMaxSharedBytes = 48 * 1024;  // dynamic shared memory without opt-in
constexpr int kNormColsPerThread = 16;  // C <= 16 * 1024

template <typename T>
__global__ void rmsNormBackwardKernel(const T* __restrict__ dy, const T* __restrict__ x,
                                      const float* __restrict__ rstd, const T* __restrict__ w,
                                      const T* __restrict__ residual, T* __restrict__ dx,
                                      float* __restrict__ dw, int64_t N, int64_t C) {
  __shared__ float scratch[33];
  float acc[kNormColsPerThread];
  float wv[kNormColsPerThread];
#pragma unroll
  for (int k = 0; k < kNormColsPerThread; ++k) {
    acc[k] = 0.f;
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    wv[k] = j < C ? Io<T>::ld(w[j]) : 0.f;
  }
  for (int64_t row = blockIdx.x; row < N; row += gridDim.x) {
    const float r = rstd[row];
    const T* xr = x + row * C;
    const T* gr = dy + row * C;
    float n[kNormColsPerThread], dn[kNormColsPerThread];
    float dot = 0.f;
#pragma unroll
    for (int k = 0; k < kNormColsPerThread; ++k) {
      const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
      n[k] = 0.f;
      dn[k] = 0.f;
      if (j < C) {
        const float g = Io<T>::ld(gr[j]);
        n[k] = Io<T>::ld(xr[j]) * r;
        acc[k] += g * Io<T>::rnd(n[k]);
        dn[k] = g * wv[k];
        dot += dn[k] * n[k];
      }
    }
    dot = blockSum(dot, scratch) / static_cast<float>(C);
    T* dr = dx + row * C;
    const T* rr = residual ? residual + row * C : nullptr;
#pragma unroll
    for (int k = 0; k < kNormColsPerThread; ++k) {
      const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
      if (j < C) {
        const float g = r * (dn[k] - n[k] * dot);
        // The residual add as the eager dx.add_(residual): dx rounded first, then the sum.
        dr[j] = rr ? Io<T>::st(Io<T>::rnd(g) + Io<T>::ld(rr[j])) : Io<T>::st(g);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kNormColsPerThread; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < C && dw) atomicAdd(dw + j, acc[k]);
  }
}

/// Two consecutive elements as one 4-byte (bf16) or 8-byte (fp32) access.
template <typename T>
struct alignas(2 * sizeof(T)) Pack2 {
  T v[2];
};

// RMSNorm backward, one warp per row (grid-stride), two passes over the row (the second reads
// it back from L2): dot = mean(dn * n), then dx. The weight gradient is summed per block in
// shared memory (lane l adds columns 2l, 2l+1 of each 64-column step: at most 2-way bank
// conflicts) and added once per block to dw. Needs C even and aligned rows.
template <typename T>
__global__ void rmsNormBackwardWarpKernel(const T* __restrict__ dy, const T* __restrict__ x,
                                          const float* __restrict__ rstd, const T* __restrict__ w,
                                          const T* __restrict__ residual, T* __restrict__ dx,
                                          float* __restrict__ dw, int64_t N, int64_t C) {
  extern __shared__ float dws[];  // [C]
  const bool wantDw = dw != nullptr;
  if (wantDw) {
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) dws[i] = 0.f;
    __syncthreads();
  }
  const int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
  const int64_t C2 = C / 2;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * wpb + (threadIdx.x >> 5); row < N;
       row += static_cast<int64_t>(gridDim.x) * wpb) {
    const float r = rstd[row];
    const Pack2<T>* x2 = reinterpret_cast<const Pack2<T>*>(x + row * C);
    const Pack2<T>* g2 = reinterpret_cast<const Pack2<T>*>(dy + row * C);
    const Pack2<T>* w2 = reinterpret_cast<const Pack2<T>*>(w);
    float dot = 0.f;
    for (int64_t j = lane; j < C2; j += 32) {
      const Pack2<T> xv = x2[j], gv = g2[j], wv = w2[j];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float n = Io<T>::ld(xv.v[e]) * r, g = Io<T>::ld(gv.v[e]);
        dot += g * Io<T>::ld(wv.v[e]) * n;
        if (wantDw) atomicAdd(dws + 2 * j + e, g * Io<T>::rnd(n));
      }
    }
    dot = warpSum(dot) / static_cast<float>(C);
    Pack2<T>* d2 = reinterpret_cast<Pack2<T>*>(dx + row * C);
    const Pack2<T>* r2 = residual ? reinterpret_cast<const Pack2<T>*>(residual + row * C) : nullptr;
    for (int64_t j = lane; j < C2; j += 32) {
      const Pack2<T> xv = x2[j], gv = g2[j], wv = w2[j];
      Pack2<T> o;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float n = Io<T>::ld(xv.v[e]) * r;
        const float g = r * (Io<T>::ld(gv.v[e]) * Io<T>::ld(wv.v[e]) - n * dot);
        o.v[e] = r2 ? Io<T>::st(Io<T>::rnd(g) + Io<T>::ld(r2[j].v[e])) : Io<T>::st(g);
      }
      d2[j] = o;
    }
  }
  if (wantDw) {
    __syncthreads();
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) atomicAdd(dw + i, dws[i]);
  }
}

// RMSNorm backward, one warp per row (grid-stride), 16-byte accesses: lane l takes the packs
// j = l, l + 32, ... of 8 columns, so every load instruction moves 512 bytes. The second pass
// reads the row back from L1/L2. The weight gradient goes to a per-warp slice of shared memory
// ([warps][C] fp32): a lane owns its columns in its warp's slice, so it adds without atomics
// (float4 read-modify-writes); the block sums its slices once and adds them to dw.
// Needs C % 8 == 0, aligned rows and warps * C * 4 bytes of dynamic shared memory.
template <typename T>
__global__ void rmsNormBackwardPackKernel(const T* __restrict__ dy, const T* __restrict__ x,
                                          const float* __restrict__ rstd, const T* __restrict__ w,
                                          const T* __restrict__ residual, T* __restrict__ dx,
                                          float* __restrict__ dw, int64_t N, int64_t C) {
  extern __shared__ float4 dws4[];  // [warps][C / 4]
  const bool wantDw = dw != nullptr;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
  const int64_t C8 = C / 8;
  float4* mine = dws4 + static_cast<int64_t>(warp) * (C / 4);
  if (wantDw)
    for (int64_t i = lane; i < C / 4; i += 32) mine[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  __syncwarp();  // lanes zeroed each other's columns
  const Pack8<T>* w8 = reinterpret_cast<const Pack8<T>*>(w);
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * wpb + warp; row < N;
       row += static_cast<int64_t>(gridDim.x) * wpb) {
    const float r = rstd[row];
    const Pack8<T>* x8 = reinterpret_cast<const Pack8<T>*>(x + row * C);
    const Pack8<T>* g8 = reinterpret_cast<const Pack8<T>*>(dy + row * C);
    float dot = 0.f;
#pragma unroll 4
    for (int64_t j = lane; j < C8; j += 32) {
      const Pack8<T> xv = x8[j], gv = g8[j], wv = w8[j];
      float gn[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float n = Io<T>::ld(xv.v[e]) * r, g = Io<T>::ld(gv.v[e]);
        dot += g * Io<T>::ld(wv.v[e]) * n;
        gn[e] = g * Io<T>::rnd(n);
      }
      if (wantDw) {
        float4 a = mine[2 * j], b = mine[2 * j + 1];
        a.x += gn[0], a.y += gn[1], a.z += gn[2], a.w += gn[3];
        b.x += gn[4], b.y += gn[5], b.z += gn[6], b.w += gn[7];
        mine[2 * j] = a, mine[2 * j + 1] = b;
      }
    }
    dot = warpSum(dot) / static_cast<float>(C);
    Pack8<T>* d8 = reinterpret_cast<Pack8<T>*>(dx + row * C);
    const Pack8<T>* r8 = residual ? reinterpret_cast<const Pack8<T>*>(residual + row * C) : nullptr;
#pragma unroll 4
    for (int64_t j = lane; j < C8; j += 32) {
      const Pack8<T> xv = x8[j], gv = g8[j], wv = w8[j];
      Pack8<T> rv;
      if (r8) rv = r8[j];
      Pack8<T> o;
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float n = Io<T>::ld(xv.v[e]) * r;
        const float g = r * (Io<T>::ld(gv.v[e]) * Io<T>::ld(wv.v[e]) - n * dot);
        o.v[e] = r8 ? Io<T>::st(Io<T>::rnd(g) + Io<T>::ld(rv.v[e])) : Io<T>::st(g);
      }
      d8[j] = o;
    }
  }
  if (wantDw) {
    __syncthreads();
    const float* dws = reinterpret_cast<const float*>(dws4);
    for (int64_t i = threadIdx.x; i < C; i += blockDim.x) {
      float sum = 0.f;
      for (int k = 0; k < wpb; ++k) sum += dws[k * C + i];
      atomicAdd(dw + i, sum);
    }
  }
}

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

// ---- SwiGLU --------------------------------------------------------------------------------
__device__ __forceinline__ float sigmoidf(float g) { return 1.f / (1.f + expf(-g)); }

template <typename T>
__global__ void swigluForwardKernel(const T* __restrict__ gu, T* __restrict__ act, int64_t N,
                                    int64_t I) {
  const int64_t total = N * I;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / I, c = i - row * I;
    const float g = Io<T>::ld(gu[row * 2 * I + c]), u = Io<T>::ld(gu[row * 2 * I + I + c]);
    act[i] = Io<T>::st(Io<T>::rnd(g * sigmoidf(g)) * u);
  }
}

// 8 columns per thread, one division per 8 (I % 8 == 0, aligned rows).
template <typename T>
__global__ void swigluForwardVecKernel(const T* __restrict__ gu, T* __restrict__ act, int64_t N,
                                       int64_t I) {
  const int64_t I8 = I / 8, total = N * I8;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / I8, c = i - row * I8;
    const Pack8<T> g8 = reinterpret_cast<const Pack8<T>*>(gu + row * 2 * I)[c];
    const Pack8<T> u8 = reinterpret_cast<const Pack8<T>*>(gu + row * 2 * I + I)[c];
    Pack8<T> o;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float g = Io<T>::ld(g8.v[e]);
      o.v[e] = Io<T>::st(Io<T>::rnd(g * sigmoidf(g)) * Io<T>::ld(u8.v[e]));
    }
    reinterpret_cast<Pack8<T>*>(act)[i] = o;
  }
}

// With `act` not null it also writes the forward's act (bit-identical to swigluForwardVecKernel),
// so backward needs no separate recompute pass over gu.
template <typename T>
__global__ void swigluBackwardVecKernel(const T* __restrict__ dact, const T* __restrict__ gu,
                                        T* __restrict__ dgu, T* __restrict__ act, int64_t N,
                                        int64_t I) {
  const int64_t I8 = I / 8, total = N * I8;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / I8, c = i - row * I8;
    const Pack8<T> g8 = reinterpret_cast<const Pack8<T>*>(gu + row * 2 * I)[c];
    const Pack8<T> u8 = reinterpret_cast<const Pack8<T>*>(gu + row * 2 * I + I)[c];
    const Pack8<T> a8 = reinterpret_cast<const Pack8<T>*>(dact)[i];
    Pack8<T> dg, du, o;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float g = Io<T>::ld(g8.v[e]), u = Io<T>::ld(u8.v[e]), a = Io<T>::ld(a8.v[e]);
      const float sg = sigmoidf(g), silu = g * sg;
      dg.v[e] = Io<T>::st(a * u * sg * (1.f + g * (1.f - sg)));
      du.v[e] = Io<T>::st(a * silu);
      o.v[e] = Io<T>::st(Io<T>::rnd(g * sigmoidf(g)) * u);
    }
    reinterpret_cast<Pack8<T>*>(dgu + row * 2 * I)[c] = dg;
    reinterpret_cast<Pack8<T>*>(dgu + row * 2 * I + I)[c] = du;
    if (act) reinterpret_cast<Pack8<T>*>(act)[i] = o;
  }
}

template <typename T>
__global__ void swigluBackwardKernel(const T* __restrict__ dact, const T* __restrict__ gu,
                                     T* __restrict__ dgu, T* __restrict__ act, int64_t N,
                                     int64_t I) {
  const int64_t total = N * I;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / I, c = i - row * I;
    const float g = Io<T>::ld(gu[row * 2 * I + c]), u = Io<T>::ld(gu[row * 2 * I + I + c]);
    const float a = Io<T>::ld(dact[i]);
    const float sg = sigmoidf(g), silu = g * sg;
    dgu[row * 2 * I + c] = Io<T>::st(a * u * sg * (1.f + g * (1.f - sg)));
    dgu[row * 2 * I + I + c] = Io<T>::st(a * silu);
    if (act) act[i] = Io<T>::st(Io<T>::rnd(g * sigmoidf(g)) * u);
  }
}

// ---- softmax cross-entropy -----------------------------------------------------------------
__device__ __forceinline__ void combine(float& m, float& s, float m2, float s2) {
  const float M = fmaxf(m, m2);
  if (M == -INFINITY) return;  // both empty
  s = s * expf(m - M) + s2 * expf(m2 - M);
  m = M;
}

template <typename T>
__global__ void softmaxXentKernel(T* __restrict__ logits, const int64_t* __restrict__ labels,
                                  float* __restrict__ loss, int64_t V, float scale) {
  __shared__ float sm[32], ss[32];
  __shared__ float lse_shared;
  const int64_t row = blockIdx.x;
  T* z = logits + row * V;
  float m = -INFINITY, s = 0.f;
  for (int64_t j = threadIdx.x; j < V; j += blockDim.x) {
    const float v = Io<T>::ld(z[j]);
    if (v > m) {
      s = s * expf(m - v) + 1.f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    combine(m, s, m2, s2);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) {
    sm[warp] = m;
    ss[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    m = lane < nw ? sm[lane] : -INFINITY;
    s = lane < nw ? ss[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
      combine(m, s, m2, s2);
    }
    if (lane == 0) {
      const float lse = m + logf(s);
      lse_shared = lse;
      const int64_t y = labels[row];
      loss[row] = lse - Io<T>::ld(z[y]);
    }
  }
  __syncthreads();  // z[y] is read before it is overwritten
  const float lse = lse_shared;
  const int64_t y = labels[row];
  for (int64_t j = threadIdx.x; j < V; j += blockDim.x) {
    const float p = expf(Io<T>::ld(z[j]) - lse);
    z[j] = Io<T>::st((p - (j == y ? 1.f : 0.f)) * scale);
  }
}

// The same, 8 logits per access (V % 8 == 0, aligned rows): one online-softmax rescale per 8.
template <typename T>
__global__ void softmaxXentVecKernel(T* __restrict__ logits, const int64_t* __restrict__ labels,
                                     float* __restrict__ loss, int64_t V, float scale) {
  __shared__ float sm[32], ss[32];
  __shared__ float lse_shared;
  const int64_t row = blockIdx.x, V8 = V / 8;
  T* z = logits + row * V;
  Pack8<T>* z8 = reinterpret_cast<Pack8<T>*>(z);
  float m = -INFINITY, s = 0.f;
  for (int64_t j = threadIdx.x; j < V8; j += blockDim.x) {
    const Pack8<T> p = z8[j];
    float v[8], mx = -INFINITY;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      v[e] = Io<T>::ld(p.v[e]);
      mx = fmaxf(mx, v[e]);
    }
    if (mx > m) {
      s *= expf(m - mx);
      m = mx;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) s += expf(v[e] - m);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    combine(m, s, m2, s2);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) {
    sm[warp] = m;
    ss[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    m = lane < nw ? sm[lane] : -INFINITY;
    s = lane < nw ? ss[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
      combine(m, s, m2, s2);
    }
    if (lane == 0) {
      const float lse = m + logf(s);
      lse_shared = lse;
      loss[row] = lse - Io<T>::ld(z[labels[row]]);
    }
  }
  __syncthreads();  // z[y] is read before it is overwritten
  const float lse = lse_shared;
  const int64_t y = labels[row];
  for (int64_t j = threadIdx.x; j < V8; j += blockDim.x) {
    const Pack8<T> p = z8[j];
    Pack8<T> o;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float q = expf(Io<T>::ld(p.v[e]) - lse);
      o.v[e] = Io<T>::st((q - (j * 8 + e == y ? 1.f : 0.f)) * scale);
    }
    z8[j] = o;
  }
}

// The same, reading the row once (the vector kernel above reads it twice: 3 passes over the
// logits instead of 2). One block of kXentThreads a row: each thread keeps its first K packs
// of the row in registers and the rest of the row sits in dynamic shared memory
// ((V / 8 - K * kXentThreads) packs of 16 bytes), so the gradient pass reads no global memory.
// A Qwen3 row (V 151936, 297 KB in bf16) takes K = 5 and 217 KB of shared memory: one block an
// SM. The same online max / sum per 8 logits and the same gradient arithmetic as
// softmaxXentVecKernel; only the order in which the threads' partial sums are formed differs.
constexpr int kXentThreads = 1024;
constexpr int kXentMaxRegisterPacks = 5;  // 20 registers a thread of the 64 a 1024-thread block has

template <typename T>
__device__ __forceinline__ void xentAccumulate(const Pack8<T>& p, float& m, float& s) {
  float v[8], mx = -INFINITY;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    v[e] = Io<T>::ld(p.v[e]);
    mx = fmaxf(mx, v[e]);
  }
  if (mx > m) {
    s *= expf(m - mx);
    m = mx;
  }
#pragma unroll
  for (int e = 0; e < 8; ++e) s += expf(v[e] - m);
}

template <typename T>
__device__ __forceinline__ Pack8<T> xentGradient(const Pack8<T>& p, int64_t j, float lse, int64_t y,
                                                 float scale) {
  Pack8<T> o;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float q = expf(Io<T>::ld(p.v[e]) - lse);
    o.v[e] = Io<T>::st((q - (j * 8 + e == y ? 1.f : 0.f)) * scale);
  }
  return o;
}

template <typename T, int K>
__global__ void __launch_bounds__(kXentThreads, 1) softmaxXentCachedKernel(
    T* __restrict__ logits, const int64_t* __restrict__ labels, float* __restrict__ loss, int64_t V,
    float scale) {
  static_assert(sizeof(Pack8<T>) == 16, "the cached kernel holds 16-byte packs");
  extern __shared__ uint4 xentRow[];  // packs K * kXentThreads .. V / 8 - 1 of the row
  __shared__ float sm[32], ss[32];
  __shared__ float lse_shared;
  Pack8<T>* cache = reinterpret_cast<Pack8<T>*>(xentRow);
  const int64_t row = blockIdx.x;
  const int V8 = static_cast<int>(V / 8), tid = static_cast<int>(threadIdx.x);
  constexpr int first = K * kXentThreads;  // the first pack in shared memory
  Pack8<T>* z8 = reinterpret_cast<Pack8<T>*>(logits + row * V);
  float m = -INFINITY, s = 0.f;
  Pack8<T> reg[K > 0 ? K : 1];
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (tid + k * kXentThreads < V8) reg[k] = z8[tid + k * kXentThreads];
  int j = first + tid;
  if (K < kXentMaxRegisterPacks) {  // two loads in flight (K = 5: no registers to spare)
    for (; j + kXentThreads < V8; j += 2 * kXentThreads) {
      const Pack8<T> a = z8[j], b = z8[j + kXentThreads];
      cache[j - first] = a;
      cache[j + kXentThreads - first] = b;
      xentAccumulate(a, m, s);
      xentAccumulate(b, m, s);
    }
  }
  for (; j < V8; j += kXentThreads) {
    const Pack8<T> a = z8[j];
    cache[j - first] = a;
    xentAccumulate(a, m, s);
  }
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (tid + k * kXentThreads < V8) xentAccumulate(reg[k], m, s);
  for (int o = 16; o > 0; o >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    combine(m, s, m2, s2);
  }
  const int lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
  if (lane == 0) {
    sm[warp] = m;
    ss[warp] = s;
  }
  __syncthreads();  // also: every thread's packs are in shared memory
  if (warp == 0) {
    m = lane < nw ? sm[lane] : -INFINITY;
    s = lane < nw ? ss[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
      combine(m, s, m2, s2);
    }
    if (lane == 0) {
      const float lse = m + logf(s);
      lse_shared = lse;
      loss[row] = lse - Io<T>::ld(logits[row * V + labels[row]]);
    }
  }
  __syncthreads();  // z[y] is read before it is overwritten
  const float lse = lse_shared;
  const int64_t y = labels[row];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int jj = tid + k * kXentThreads;
    if (jj < V8) z8[jj] = xentGradient(reg[k], jj, lse, y, scale);
  }
  for (int jj = first + tid; jj < V8; jj += kXentThreads)
    z8[jj] = xentGradient(cache[jj - first], jj, lse, y, scale);
}

/// The register packs a thread of softmaxXentCachedKernel needs for rows of V8 packs of 16 bytes
/// with `smemBytes` of dynamic shared memory a block at most; -1 where even
/// kXentMaxRegisterPacks leave too much for shared memory (the two-read kernel then).
int xentRegisterPacks(int64_t V8, int64_t smemBytes) {
  for (int k = 0; k <= kXentMaxRegisterPacks; ++k)
    if (std::max<int64_t>(0, V8 - int64_t{k} * kXentThreads) * 16 <= smemBytes) return k;
  return -1;
}

int elementwiseGrid(int64_t total, int threads) {
  const int64_t g = (total + threads - 1) / threads;
  return static_cast<int>(g < 65535 * 8 ? (g > 0 ? g : 1) : 65535 * 8);
}

/// The largest block (a multiple of 32) `kernel` can be launched with: its registers bound it.
template <typename K>
int maxThreads(K kernel) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) return 256;
  return a.maxThreadsPerBlock / 32 * 32;
}

template <typename F>
cudaError_t dispatch(DType dtype, F&& f) {
  if (dtype == DType::kBF16)
    f(static_cast<bf16*>(nullptr));
  else
    f(static_cast<float*>(nullptr));
  return cudaGetLastError();
}

}  // namespace

cudaError_t rmsNormForward(DType dtype, const void* x, const void* w, void* y, float* rstd,
                           int64_t N, int64_t C, float eps, cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const auto* xt = static_cast<const T*>(x);
    const auto* wt = static_cast<const T*>(w);
    auto* yt = static_cast<T*>(y);
    const int64_t C8 = C / 8;
    if (C % 8 == 0 && C8 <= 4 * 256 && aligned8<T>({x, w, y})) {
      const int threads = threadsFor((C8 + 3) / 4, 256);
      rmsNormForwardRegKernel<T, 4><<<static_cast<unsigned>(N), threads, 0, stream>>>(xt, wt, yt, rstd, C, eps);
    } else {
      rmsNormForwardKernel<T><<<static_cast<unsigned>(N), threadsFor(C / 4, 512), 0, stream>>>(xt, wt, yt, rstd, C, eps);
    }
  });
}

cudaError_t rmsNormApply(DType dtype, const void* x, const float* rstd, const void* w, void* y,
                         int64_t N, int64_t C, cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (C % 8 == 0 && aligned8<T>({x, w, y}))
      rmsNormApplyVecKernel<T><<<elementwiseGrid(N * C / 8, 256), 256, 0, stream>>>(
          static_cast<const T*>(x), rstd, static_cast<const T*>(w), static_cast<T*>(y), N, C);
    else
      rmsNormApplyKernel<T><<<elementwiseGrid(N * C, 256), 256, 0, stream>>>(
          static_cast<const T*>(x), rstd, static_cast<const T*>(w), static_cast<T*>(y), N, C);
  });
}

int64_t rmsNormBackwardMaxColumns(DType dtype) {
  int threads = 0;
  dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    threads = maxThreads(rmsNormBackwardKernel<T>);
  });
  return static_cast<int64_t>(threads) * kNormColsPerThread;
}

cudaError_t rmsNormBackward(DType dtype, const void* dy, const void* x, const float* rstd,
                            const void* w, const void* residual, void* dx, float* dwAccum,
                            int64_t N, int64_t C, cudaStream_t stream) {
  if (C > rmsNormBackwardMaxColumns(dtype)) return cudaErrorInvalidValue;
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const size_t smem = static_cast<size_t>(C) * sizeof(float);
    if (C % 2 == 0 && smem <= kMaxSharedBytes &&
        reinterpret_cast<uintptr_t>(dy) % (2 * sizeof(T)) == 0 &&
        reinterpret_cast<uintptr_t>(x) % (2 * sizeof(T)) == 0 &&
        reinterpret_cast<uintptr_t>(w) % (2 * sizeof(T)) == 0 &&
        reinterpret_cast<uintptr_t>(dx) % (2 * sizeof(T)) == 0 &&
        reinterpret_cast<uintptr_t>(residual) % (2 * sizeof(T)) == 0) {
      const int64_t warpGrid = std::min<int64_t>((N + 7) / 8, static_cast<int64_t>(smCount()) * 8);
      // Up to 4 warps a block: warps * C * 4 bytes of per-warp weight-gradient slices.
      const int wpb = 4 * smem <= kMaxSharedBytes ? 4 : 2 * smem <= kMaxSharedBytes ? 2 : 1;
      if (C % 8 == 0 && aligned8<T>({dy, x, w, dx, residual})) {
        const int64_t packGrid = std::min<int64_t>((N + wpb - 1) / wpb, static_cast<int64_t>(smCount()) * 64 / wpb);
        rmsNormBackwardPackKernel<T><<<static_cast<unsigned>(packGrid), 32 * wpb, dwAccum ? wpb * smem : 0, stream>>>(
            static_cast<const T*>(dy), static_cast<const T*>(x), rstd, static_cast<const T*>(w),
            static_cast<const T*>(residual), static_cast<T*>(dx), dwAccum, N, C);
        return;
      }
      rmsNormBackwardWarpKernel<T><<<static_cast<unsigned>(warpGrid), 256, smem, stream>>>(
          static_cast<const T*>(dy), static_cast<const T*>(x), rstd, static_cast<const T*>(w),
          static_cast<const T*>(residual), static_cast<T*>(dx), dwAccum, N, C);
      return;
    }
    // At least 256 threads a row (more rows' loads in flight), at most what the kernel's
    // registers allow; 8 blocks per SM.
    const int threads = std::min(threadsFor((C + kNormColsPerThread - 1) / kNormColsPerThread),
                                 maxThreads(rmsNormBackwardKernel<T>));
    rmsNormBackwardKernel<T><<<gridForRows(N), threads, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), rstd, static_cast<const T*>(w),
        static_cast<const T*>(residual), static_cast<T*>(dx), dwAccum, N, C);
  });
}

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

cudaError_t swigluForward(DType dtype, const void* gu, void* act, int64_t N, int64_t I,
                          cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (I % 8 == 0 && aligned8<T>({gu, act}))
      swigluForwardVecKernel<T><<<elementwiseGrid(N * I / 8, 256), 256, 0, stream>>>(
          static_cast<const T*>(gu), static_cast<T*>(act), N, I);
    else
      swigluForwardKernel<T><<<elementwiseGrid(N * I, 256), 256, 0, stream>>>(
          static_cast<const T*>(gu), static_cast<T*>(act), N, I);
  });
}

cudaError_t swigluBackward(DType dtype, const void* dact, const void* gu, void* dgu, void* act,
                           int64_t N, int64_t I, cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (I % 8 == 0 && aligned8<T>({dact, gu, dgu, act}))
      swigluBackwardVecKernel<T><<<elementwiseGrid(N * I / 8, 256), 256, 0, stream>>>(
          static_cast<const T*>(dact), static_cast<const T*>(gu), static_cast<T*>(dgu),
          static_cast<T*>(act), N, I);
    else
      swigluBackwardKernel<T><<<elementwiseGrid(N * I, 256), 256, 0, stream>>>(
          static_cast<const T*>(dact), static_cast<const T*>(gu), static_cast<T*>(dgu),
          static_cast<T*>(act), N, I);
  });
}

/// Launches softmaxXentCachedKernel<T, K> for rows of V logits (V % 8 == 0, 16-byte aligned
/// rows) where the device's opt-in shared memory and kXentMaxRegisterPacks hold a row; false
/// (nothing launched) otherwise.
template <typename T>
bool launchCachedXent(T* logits, const int64_t* labels, float* loss, int64_t n, int64_t V, float scale,
                      cudaStream_t stream) {
  int dev = 0, optin = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    return false;
  constexpr int64_t kStatic = 1024;  // the kernel's static shared memory (260 bytes), rounded up
  const int64_t V8 = V / 8;
  const int K = xentRegisterPacks(V8, optin - kStatic);
  if (K < 0) return false;
  const int smem = static_cast<int>(std::max<int64_t>(0, V8 - int64_t{K} * kXentThreads) * 16);
  auto launch = [&](auto kernel) {
    if (smem > static_cast<int>(kMaxSharedBytes) &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) {
      (void)cudaGetLastError();  // clear it: the caller falls back
      return false;
    }
    kernel<<<static_cast<unsigned>(n), kXentThreads, smem, stream>>>(logits, labels, loss, V, scale);
    return true;
  };
  switch (K) {
    case 0: return launch(softmaxXentCachedKernel<T, 0>);
    case 1: return launch(softmaxXentCachedKernel<T, 1>);
    case 2: return launch(softmaxXentCachedKernel<T, 2>);
    case 3: return launch(softmaxXentCachedKernel<T, 3>);
    case 4: return launch(softmaxXentCachedKernel<T, 4>);
    case 5: return launch(softmaxXentCachedKernel<T, 5>);
    default: return false;
  }
}

cudaError_t softmaxCrossEntropyInPlace(DType dtype, void* logits, const int64_t* labels,
                                       float* loss, int64_t n, int64_t V, float scale,
                                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (sizeof(T) == 2) {
      if (V % 8 == 0 && aligned8<T>({logits}) && launchCachedXent<T>(static_cast<T*>(logits), labels, loss, n, V, scale, stream))
        return;
    }
    if (V % 8 == 0 && aligned8<T>({logits}))
      softmaxXentVecKernel<T><<<static_cast<unsigned>(n), threadsFor(V / 64, 1024), 0, stream>>>(
          static_cast<T*>(logits), labels, loss, V, scale);
    else
      softmaxXentKernel<T><<<static_cast<unsigned>(n), threadsFor(V / 8, 1024), 0, stream>>>(
          static_cast<T*>(logits), labels, loss, V, scale);
  });
}

}  // namespace slidedp::kernels::cuda
