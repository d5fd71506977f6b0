// SwiGLU forward and backward over the fused gate/up projection's output (layer_kernels.h):
// element-wise, 8 elements a thread where the rows allow 16-byte accesses.
#include "kernels/layer_kernels.h"

#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_support.cuh"

namespace slidedp::kernels::cuda {

namespace {

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

}  // namespace

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

}  // namespace slidedp::kernels::cuda
