// Pieces shared by the decoder's translation units (decoder.cpp, mlp_tiles.cpp): the profiler
// scope (profiling/scope.h) and the weight-gradient GEMM with an fp32 accumulator. Internal to
// slidedp_model.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "profiling/scope.h"

namespace slidedp::model::detail {

using profiling::Scope;  // profiling/scope.h
using profiling::scoped;

// Weight-gradient GEMM with an fp32 accumulator: G [out, in] += A [out, N] @ B [N, in].
// cuBLAS computes bf16 products in fp32 and writes fp32 directly (addmm.dtype_out); a sequence
// tiled along N calls it once per tile (beta = 1: the tiles' products summed in G).
inline void addmmAccumulate(const at::Tensor& G, const at::Tensor& A, const at::Tensor& B) {
  if (A.scalar_type() == at::kFloat) {
    const_cast<at::Tensor&>(G).addmm_(A, B);
  } else if (A.is_cuda()) {
    at::Tensor out = G;
    at::addmm_out(out, G, A, B, at::kFloat);
  } else {
    const_cast<at::Tensor&>(G).add_(at::mm(A, B).to(at::kFloat));
  }
}

}  // namespace slidedp::model::detail
