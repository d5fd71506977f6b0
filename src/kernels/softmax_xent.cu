// Softmax cross-entropy over rows of logits, in place (layer_kernels.h): one block a row computes
// the row's log-sum-exp with an online max / sum, writes the row's loss, and overwrites the logits
// with the loss's gradient. Three kernels: the one-read kernel (bf16 rows that fit registers +
// shared memory), the 8-logits-an-access kernel, and the scalar kernel for any row.
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "kernels/kernel_support.cuh"

namespace slidedp::kernels::cuda {

namespace {

// The online softmax: (m, s) is a running max and the sum of exp(logit - m) over the logits seen.
__device__ __forceinline__ void combine(float& m, float& s, float m2, float s2) {
  const float M = fmaxf(m, m2);
  if (M == -INFINITY) return;  // both empty
  s = s * expf(m - M) + s2 * expf(m2 - M);
  m = M;
}

/// The row's log-sum-exp from every thread's online (m, s) over its logits: combined over the
/// warp, then over the block's warps (blockDim.x a multiple of 32, at most 1024). Thread 0 also
/// writes *loss = lse - z[y] (z: the row's logits, y: its label) before the call returns, so no
/// thread overwrites z[y] before it is read. Every thread gets the lse; synchronises the block.
/// Once per kernel: its shared memory is not guarded for a second call (no trailing barrier).
template <typename T>
__device__ __forceinline__ float rowLogSumExp(float m, float s, const T* z, int64_t y, float* loss) {
  __shared__ float sm[32], ss[32];
  __shared__ float lse_shared;
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
      *loss = lse - Io<T>::ld(z[y]);
    }
  }
  __syncthreads();  // z[y] is read before it is overwritten
  return lse_shared;
}

/// Adds 8 logits to the online (m, s): one rescale per 8.
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

/// The loss's gradient of pack j (logits 8j .. 8j+7): (softmax - one-hot(y)) * scale.
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

// Any row: one logit per access, two reads of the row.
template <typename T>
__global__ void softmaxXentKernel(T* __restrict__ logits, const int64_t* __restrict__ labels,
                                  float* __restrict__ loss, int64_t V, float scale) {
  const int64_t row = blockIdx.x, y = labels[row];
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
  const float lse = rowLogSumExp(m, s, z, y, loss + row);
  for (int64_t j = threadIdx.x; j < V; j += blockDim.x) {
    const float p = expf(Io<T>::ld(z[j]) - lse);
    z[j] = Io<T>::st((p - (j == y ? 1.f : 0.f)) * scale);
  }
}

// The same, 8 logits per access (V % 8 == 0, aligned rows): one online-softmax rescale per 8.
template <typename T>
__global__ void softmaxXentVecKernel(T* __restrict__ logits, const int64_t* __restrict__ labels,
                                     float* __restrict__ loss, int64_t V, float scale) {
  const int64_t row = blockIdx.x, V8 = V / 8, y = labels[row];
  T* z = logits + row * V;
  Pack8<T>* z8 = reinterpret_cast<Pack8<T>*>(z);
  float m = -INFINITY, s = 0.f;
  for (int64_t j = threadIdx.x; j < V8; j += blockDim.x) {
    const Pack8<T> p = z8[j];  // one 16- or 32-byte load
    xentAccumulate(p, m, s);
  }
  const float lse = rowLogSumExp(m, s, z, y, loss + row);
  for (int64_t j = threadIdx.x; j < V8; j += blockDim.x) {
    const Pack8<T> p = z8[j];
    z8[j] = xentGradient(p, j, lse, y, scale);
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

template <typename T, int K>
__global__ void __launch_bounds__(kXentThreads, 1) softmaxXentCachedKernel(
    T* __restrict__ logits, const int64_t* __restrict__ labels, float* __restrict__ loss, int64_t V,
    float scale) {
  static_assert(sizeof(Pack8<T>) == 16, "the cached kernel holds 16-byte packs");
  extern __shared__ uint4 xentRow[];  // packs K * kXentThreads .. V / 8 - 1 of the row
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
  // (rowLogSumExp's first barrier also puts every thread's packs in shared memory)
  const int64_t y = labels[row];
  const float lse = rowLogSumExp(m, s, logits + row * V, y, loss + row);
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

}  // namespace

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
