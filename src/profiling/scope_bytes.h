// Bytes the decoder's element-wise profiler scopes move, for their GB/s in a profile
// (profiling/gpu_profile.h): per the fused kernels' shapes in kernels/layer_ops.h, bf16
// activations and fp32 row statistics read + written; the weights' few KiB are left out.
#pragma once

#include <map>
#include <string>

#include "model/config.h"

namespace slidedp::profiling {

/// Scope name -> bytes read + written by `layers` decoder layers' and one head's element-wise
/// scopes at `tokens` tokens (every micro-batch together). Units: bytes. Thread-safe (pure).
std::map<std::string, double> decoderScopeBytes(const model::ModelConfig& c, double tokens, double layers);

}  // namespace slidedp::profiling
