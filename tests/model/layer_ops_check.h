// Shared by test_layer_ops.cpp (CPU) and test_layer_ops_gpu.cpp (CUDA): random inputs of the
// layer operations and relative-error helpers.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "model_test_util.h"

namespace slidedp::kernels::test {

inline at::Tensor randn(std::vector<int64_t> shape, at::ScalarType dt, at::Device dev,
                        double scale = 1.0) {
  return (at::randn(shape, at::TensorOptions().dtype(at::kFloat)) * scale).to(dev, dt);
}

/// cos/sin [N, D] of RoPE at positions 0..N-1 (theta 1e6), as makeAttentionContext builds them.
inline std::pair<at::Tensor, at::Tensor> ropeTables(int64_t N, int64_t D, at::ScalarType dt,
                                                    at::Device dev) {
  auto inv = 1.0 / at::pow(1e6, at::arange(0, D, 2, at::kLong).to(at::kFloat) / double(D));
  auto freqs = at::arange(N, at::kLong).to(at::kFloat).unsqueeze(-1) * inv;
  auto emb = at::cat({freqs, freqs}, -1);
  return {emb.cos().to(dev, dt), emb.sin().to(dev, dt)};
}

using slidedp::model::test::relL2Error;
using slidedp::model::test::relMaxError;

}  // namespace slidedp::kernels::test
