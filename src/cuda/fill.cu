// Small device utilities of the worker (filled buffers for checks and tests).
// Compiled by nvcc in every build that has it, so CUDA compile errors show up in CI.
#include "cuda/fill.h"

namespace slidedp::cuda {

__global__ void fillKernel(float* __restrict__ out, size_t n, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

cudaError_t fill(float* out, size_t n, float value, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<size_t>((n + threads - 1) / threads, 4096));
  fillKernel<<<blocks, threads, 0, stream>>>(out, n, value);
  return cudaGetLastError();
}

}  // namespace slidedp::cuda
