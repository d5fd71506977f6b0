// What the fused kernels' translation units share (rms_norm.cu, qk_norm_rope.cu, swiglu.cu,
// softmax_xent.cu): bf16/fp32 load-store conversions, warp and block sums, 16-byte packs, and the
// launch helpers (grids, the device's SM count, the dtype dispatch). Included only by those .cu
// files; everything is in an anonymous namespace, so each has its own copy (no device linking).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "kernels/layer_kernels.h"

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
inline __device__ float blockSum(float v, float* scratch) {
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

inline int smCount() {
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

inline int threadsFor(int64_t work, int maxThreads = 1024) {
  int64_t t = (work + 31) / 32 * 32;
  if (t < 32) t = 32;
  if (t > maxThreads) t = maxThreads;
  return static_cast<int>(t);
}

inline int gridForRows(int64_t N) {
  const int64_t g = static_cast<int64_t>(smCount()) * 4;
  return static_cast<int>(N < g ? (N > 0 ? N : 1) : g);
}

constexpr size_t kMaxSharedBytes = 48 * 1024;  // dynamic shared memory without opt-in

inline int elementwiseGrid(int64_t total, int threads) {
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

}  // namespace slidedp::kernels::cuda
