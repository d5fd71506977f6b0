// Bytes per element-wise profiler scope (see scope_bytes.h).
#include "profiling/scope_bytes.h"

namespace slidedp::profiling {

std::map<std::string, double> decoderScopeBytes(const model::ModelConfig& c, double tokens, double layers) {
  const double N = tokens, C = c.hiddenSize, I = c.intermediateSize, D = c.headDim;
  const double Q = c.numHeads * D, KVD = c.numKvHeads * D, H = c.numHeads, KV = c.numKvHeads;
  const double V = c.vocabSize, L = layers;
  const double norm = N * (4 * C + 4), qkRope = N * (4 * (Q + KVD) + 4 * D + 4 * (H + KV));
  return {{"fwd.input_norm", L * norm},
          {"fwd.post_norm", L * norm},
          {"fwd.qk_norm_rope", L * qkRope},
          {"fwd.swiglu", L * 6 * N * I},
          {"bwd.swiglu", L * 12 * N * I},  // reads gu, dact; writes dgu and the recomputed act
          {"bwd.post_norm_recompute", L * norm},
          {"bwd.input_norm_recompute", L * norm},
          {"bwd.post_norm", L * 12 * N * C},
          {"bwd.input_norm", L * 12 * N * C},
          {"bwd.qk_norm_rope_recompute", L * qkRope},
          {"bwd.qk_norm_rope", L * N * (6 * (Q + KVD) + 4 * D + 4 * KVD)},
          {"head.norm", norm},
          {"head.cross_entropy", 4 * N * V},
          {"head.norm_backward", 10 * N * C}};
}

}  // namespace slidedp::profiling
