// Pieces shared by the decoder's translation units (decoder.cpp, mlp_tiles.cpp): the profiler
// scope (profiling/scope.h) and the weight-gradient GEMM with an fp32 accumulator. Internal to
// slidedp_model.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "kernels/layer_gemm.h"
#include "profiling/scope.h"

namespace slidedp::model::detail {

using profiling::Scope;  // profiling/scope.h
using profiling::scoped;

// Weight-gradient GEMM with an fp32 accumulator: G [out, in] += A [out, N] @ B [N, in]
// (kernels/layer_gemm.h); a sequence tiled along N calls it once per tile (the tiles' products
// summed in G).
inline void addmmAccumulate(const at::Tensor& G, const at::Tensor& A, const at::Tensor& B) {
  kernels::mmAccumulate(G, A, B);
}

}  // namespace slidedp::model::detail
