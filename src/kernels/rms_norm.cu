// RMSNorm forward, apply and backward (with the residual's gradient added and the weight's
// gradient reduced over rows) for the decoder layer (layer_kernels.h). The forward runs one block
// a row (the row stays in registers/L1 between its two passes); the backward strides over rows
// and reduces the weight gradient in registers/shared memory, adding once a block to the fp32
// accumulator, so atomics scale with the grid, not with N.
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/kernel_support.cuh"

namespace slidedp::kernels::cuda {

namespace {

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

}  // namespace slidedp::kernels::cuda
