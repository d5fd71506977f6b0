// Device fill: out[i] = value for i < n, on `stream` (asynchronous). Returns the launch error.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

namespace slidedp::cuda {
cudaError_t fill(float* out, size_t n, float value, cudaStream_t stream);
}
