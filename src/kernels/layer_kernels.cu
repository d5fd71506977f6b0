// Fused decoder-layer kernels (see layer_kernels.h). Memory-bound element-wise and row-reduction
// kernels: one block per row for the forward passes (the row stays in L1/shared memory between
// its two passes), grid-stride over rows for the backward passes that reduce a weight gradient
// over rows (each block accumulates its rows in registers/shared memory and adds once to the
// fp32 accumulator, so atomics scale with the grid, not with N).
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <cfloat>
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

constexpr size_t kMaxSharedBytes = 48 * 1024;  // dynamic shared memory without opt-in
constexpr int kNormColsPerThread = 16;  // C <= 16 * 1024

template <typename T>
__global__ void rmsNormBackwardKernel(const T* __restrict__ dy, const T* __restrict__ x,
                                      const float* __restrict__ rstd, const T* __restrict__ w,
                                      T* __restrict__ dx, float* __restrict__ dw, int64_t N,
                                      int64_t C) {
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
#pragma unroll
    for (int k = 0; k < kNormColsPerThread; ++k) {
      const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
      if (j < C) dr[j] = Io<T>::st(r * (dn[k] - n[k] * dot));
    }
  }
#pragma unroll
  for (int k = 0; k < kNormColsPerThread; ++k) {
    const int64_t j = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (j < C && dw) atomicAdd(dw + j, acc[k]);
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

template <typename T>
__global__ void swigluBackwardKernel(const T* __restrict__ dact, const T* __restrict__ gu,
                                     T* __restrict__ dgu, int64_t N, int64_t I) {
  const int64_t total = N * I;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / I, c = i - row * I;
    const float g = Io<T>::ld(gu[row * 2 * I + c]), u = Io<T>::ld(gu[row * 2 * I + I + c]);
    const float a = Io<T>::ld(dact[i]);
    const float sg = sigmoidf(g), silu = g * sg;
    dgu[row * 2 * I + c] = Io<T>::st(a * u * sg * (1.f + g * (1.f - sg)));
    dgu[row * 2 * I + I + c] = Io<T>::st(a * silu);
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

int elementwiseGrid(int64_t total, int threads) {
  const int64_t g = (total + threads - 1) / threads;
  return static_cast<int>(g < 65535 * 8 ? (g > 0 ? g : 1) : 65535 * 8);
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
    rmsNormForwardKernel<T><<<static_cast<unsigned>(N), threadsFor(C / 4, 512), 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(w), static_cast<T*>(y), rstd, C, eps);
  });
}

cudaError_t rmsNormApply(DType dtype, const void* x, const float* rstd, const void* w, void* y,
                         int64_t N, int64_t C, cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    rmsNormApplyKernel<T><<<elementwiseGrid(N * C, 256), 256, 0, stream>>>(
        static_cast<const T*>(x), rstd, static_cast<const T*>(w), static_cast<T*>(y), N, C);
  });
}

cudaError_t rmsNormBackward(DType dtype, const void* dy, const void* x, const float* rstd,
                            const void* w, void* dx, float* dwAccum, int64_t N, int64_t C,
                            cudaStream_t stream) {
  if (C > kNormColsPerThread * 1024) return cudaErrorInvalidValue;
  if (N == 0) return cudaSuccess;
  const int threads = threadsFor((C + kNormColsPerThread - 1) / kNormColsPerThread);
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    rmsNormBackwardKernel<T><<<gridForRows(N), threads, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), rstd, static_cast<const T*>(w),
        static_cast<T*>(dx), dwAccum, N, C);
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
    swigluForwardKernel<T><<<elementwiseGrid(N * I, 256), 256, 0, stream>>>(
        static_cast<const T*>(gu), static_cast<T*>(act), N, I);
  });
}

cudaError_t swigluBackward(DType dtype, const void* dact, const void* gu, void* dgu, int64_t N,
                           int64_t I, cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    swigluBackwardKernel<T><<<elementwiseGrid(N * I, 256), 256, 0, stream>>>(
        static_cast<const T*>(dact), static_cast<const T*>(gu), static_cast<T*>(dgu), N, I);
  });
}

cudaError_t softmaxCrossEntropyInPlace(DType dtype, void* logits, const int64_t* labels,
                                       float* loss, int64_t n, int64_t V, float scale,
                                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    softmaxXentKernel<T><<<static_cast<unsigned>(n), threadsFor(V / 8, 1024), 0, stream>>>(
        static_cast<T*>(logits), labels, loss, V, scale);
  });
}

}  // namespace slidedp::kernels::cuda
