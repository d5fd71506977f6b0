// RoPE tables per rope type (see rope.h). Each formula is transcribed from transformers 5.17
// modeling_rope_utils.py with the same float32 tensor operations, in the same order.
#include "model/rope.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/errors.h"

namespace slidedp::model {

namespace {

using at::Tensor;

// arange(0, D, 2) / D in float32 (the exponent of every type).
Tensor exponents(int64_t D) {
  return at::arange(0, D, 2, at::kLong).to(at::kFloat) / static_cast<double>(D);
}

// _compute_default_rope_parameters: 1 / theta^(arange(0, D, 2) / D).
Tensor defaultInvFreq(double theta, int64_t D) { return 1.0 / at::pow(theta, exponents(D)); }

// _compute_dynamic_ntk_parameters with seq_len a tensor (how dynamic_rope_update calls it):
// the new base is a float32 0-dim tensor.
Tensor dynamicInvFreq(const ModelConfig& c, int64_t seqLen) {
  const int64_t D = c.headDim;
  const double factor = c.rope.factor;
  const auto M = c.maxPositionEmbeddings;
  if (seqLen <= M) return defaultInvFreq(c.rope.theta, D);  // seq_len = max(seq_len, M): base
  auto S = at::scalar_tensor(seqLen, at::kLong);
  // base * ((factor * seq_len / M) - (factor - 1)) ** (dim / (dim - 2)), all float32
  auto base = c.rope.theta * at::pow((factor * S / static_cast<double>(M)) - (factor - 1.0),
                                     static_cast<double>(D) / static_cast<double>(D - 2));
  return 1.0 / at::pow(base, exponents(D));
}

// _compute_yarn_parameters.
Tensor yarnInvFreq(const ModelConfig& c) {
  const RopeConfig& r = c.rope;
  const int64_t D = c.headDim;
  const double base = r.theta, factor = r.factor;
  const double orig = static_cast<double>(r.originalMaxPositionEmbeddings);
  auto correctionDim = [&](double rotations) {
    return (static_cast<double>(D) * std::log(orig / (rotations * 2 * M_PI))) / (2 * std::log(base));
  };
  double low = correctionDim(r.betaFast), high = correctionDim(r.betaSlow);
  if (r.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(D - 1));
  if (low == high) high += 0.001;  // linear_ramp_factor: prevent singularity
  auto ramp = at::clamp((at::arange(D / 2, at::kFloat) - low) / (high - low), 0, 1);
  auto posFreqs = at::pow(base, at::arange(0, D, 2).to(at::kFloat) / static_cast<double>(D));
  auto extrapolation = 1.0 / posFreqs;
  auto interpolation = 1.0 / (factor * posFreqs);
  auto extrapolationFactor = 1 - ramp;
  return interpolation * (1 - extrapolationFactor) + extrapolation * extrapolationFactor;
}

// _compute_llama3_parameters.
Tensor llama3InvFreq(const ModelConfig& c) {
  auto invFreq = defaultInvFreq(c.rope.theta, c.headDim);
  const double factor = c.rope.factor, low = c.rope.lowFreqFactor, high = c.rope.highFreqFactor;
  const double oldLen = static_cast<double>(c.rope.originalMaxPositionEmbeddings);
  const double lowFreqWavelen = oldLen / low, highFreqWavelen = oldLen / high;
  auto wavelen = 2 * M_PI / invFreq;
  auto invFreqLlama = at::where(wavelen > lowFreqWavelen, invFreq / factor, invFreq);
  auto smooth = (oldLen / wavelen - low) / (high - low);
  auto smoothed = (1 - smooth) * invFreqLlama / factor + smooth * invFreqLlama;
  auto isMedium = at::logical_not(wavelen < highFreqWavelen)
                      .logical_and(at::logical_not(wavelen > lowFreqWavelen));
  return at::where(isMedium, smoothed, invFreqLlama);
}

}  // namespace

at::Tensor ropeInvFreq(const ModelConfig& c, int64_t seqLen) {
  switch (c.rope.type) {
    case RopeConfig::Type::Default:
      return defaultInvFreq(c.rope.theta, c.headDim);
    case RopeConfig::Type::Linear:
      return defaultInvFreq(c.rope.theta, c.headDim) / c.rope.factor;
    case RopeConfig::Type::Dynamic:
      return dynamicInvFreq(c, seqLen);
    case RopeConfig::Type::Yarn:
      return yarnInvFreq(c);
    case RopeConfig::Type::Llama3:
      return llama3InvFreq(c);
  }
  SLIDEDP_ASSERT(false, "unknown rope type");
  return {};
}

double ropeAttentionScaling(const ModelConfig& c) {
  if (c.rope.type != RopeConfig::Type::Yarn) return 1.0;
  const RopeConfig& r = c.rope;
  if (r.attentionFactor) return *r.attentionFactor;
  auto mscale = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
  if (r.mscale != 0 && r.mscaleAllDim != 0)
    return mscale(r.factor, r.mscale) / mscale(r.factor, r.mscaleAllDim);
  return mscale(r.factor, 1.0);
}

void ropeCosSin(const ModelConfig& c, const at::Tensor& positionIds, at::Tensor* cos,
                at::Tensor* sin) {
  SLIDEDP_ASSERT(positionIds.dim() == 2 && positionIds.scalar_type() == at::kLong,
                 "position_ids must be [B, T] int64");
  const auto device = positionIds.device();
  const Tensor pos = positionIds.to(at::kFloat).unsqueeze(-1);  // [B, T, 1]
  Tensor freqs;                                                 // [B, T, D/2]
  if (c.rope.type == RopeConfig::Type::Dynamic &&
      positionIds.max().item<int64_t>() + 1 > c.maxPositionEmbeddings) {
    // Each document's length: the position at its last token + 1 (documents as in
    // makeAttentionContext), spread over the document's tokens.
    const int64_t B = positionIds.size(0), T = positionIds.size(1);
    auto starts = at::ones({B, T}, positionIds.options().dtype(at::kBool));
    if (T > 1)
      starts.narrow(1, 1, T - 1)
          .copy_(positionIds.narrow(1, 1, T - 1) != positionIds.narrow(1, 0, T - 1) + 1);
    auto doc = starts.to(at::kLong).cumsum(1) - 1;                        // [B, T], from 0
    auto flatDoc = (doc + at::arange(B, positionIds.options()).unsqueeze(1) * T).reshape({-1});
    auto last = at::zeros({B * T}, positionIds.options())
                    .scatter_reduce(0, flatDoc, positionIds.reshape({-1}), "amax", false);
    auto docLen = (last.index_select(0, flatDoc) + 1).reshape({B, T, 1});
    freqs = pos * ropeInvFreq(c, 0).to(device);
    auto longer = docLen.gt(c.maxPositionEmbeddings);
    auto lengths = std::get<0>(at::_unique(docLen.masked_select(longer).cpu()));
    const int64_t* l = lengths.data_ptr<int64_t>();
    for (int64_t i = 0; i < lengths.numel(); ++i)
      freqs = at::where(docLen.eq(l[i]), pos * ropeInvFreq(c, l[i]).to(device), freqs);
  } else {
    freqs = pos * ropeInvFreq(c, 0).to(device);
  }
  auto emb = at::cat({freqs, freqs}, -1);
  const double scaling = ropeAttentionScaling(c);
  *cos = emb.cos();
  *sin = emb.sin();
  if (scaling != 1.0) {
    *cos = *cos * scaling;
    *sin = *sin * scaling;
  }
}

}  // namespace slidedp::model
