#include "apps/resume_model_checks.h"

#include <fmt/format.h>

#include <vector>

namespace slidedp {

namespace {

void add(std::vector<std::string>& list, const char* field, const std::string& was, const std::string& now) {
  if (was != now) list.push_back(fmt::format("{} {} -> {}", field, was, now));
}

std::string joined(const std::vector<std::string>& list) {
  std::string s;
  for (const auto& item : list) s += (s.empty() ? "" : ", ") + item;
  return s;
}

}  // namespace

ModelChange compareResumedModel(const model::ModelConfig& was, const model::ModelConfig& now) {
  std::vector<std::string> shape, numerics;
  auto n = [](int64_t v) { return std::to_string(v); };
  auto g = [](double v) { return fmt::format("{:g}", v); };
  add(shape, "hidden_size", n(was.hiddenSize), n(now.hiddenSize));
  add(shape, "intermediate_size", n(was.intermediateSize), n(now.intermediateSize));
  add(shape, "num_hidden_layers", n(was.numLayers), n(now.numLayers));
  add(shape, "vocab_size", n(was.vocabSize), n(now.vocabSize));
  add(shape, "num_attention_heads", n(was.numHeads), n(now.numHeads));
  add(shape, "num_key_value_heads", n(was.numKvHeads), n(now.numKvHeads));
  add(shape, "head_dim", n(was.headDim), n(now.headDim));
  add(numerics, "model_type", was.modelType, now.modelType);
  add(numerics, "rms_norm_eps", g(was.rmsNormEps), g(now.rmsNormEps));
  add(numerics, "rope_type", model::ropeTypeName(was.rope.type), model::ropeTypeName(now.rope.type));
  add(numerics, "rope_theta", g(was.rope.theta), g(now.rope.theta));
  add(numerics, "rope factor", g(was.rope.factor), g(now.rope.factor));
  add(numerics, "rope low_freq_factor", g(was.rope.lowFreqFactor), g(now.rope.lowFreqFactor));
  add(numerics, "rope high_freq_factor", g(was.rope.highFreqFactor), g(now.rope.highFreqFactor));
  add(numerics, "original_max_position_embeddings", n(was.rope.originalMaxPositionEmbeddings),
      n(now.rope.originalMaxPositionEmbeddings));
  add(numerics, "rope beta_fast", g(was.rope.betaFast), g(now.rope.betaFast));
  add(numerics, "rope beta_slow", g(was.rope.betaSlow), g(now.rope.betaSlow));
  add(numerics, "rope attention_factor", was.rope.attentionFactor ? g(*was.rope.attentionFactor) : "default",
      now.rope.attentionFactor ? g(*now.rope.attentionFactor) : "default");
  add(numerics, "max_position_embeddings", n(was.maxPositionEmbeddings), n(now.maxPositionEmbeddings));
  add(numerics, "sliding_window", was.slidingWindow ? n(*was.slidingWindow) : "none",
      now.slidingWindow ? n(*now.slidingWindow) : "none");
  ModelChange c;
  if (!shape.empty()) c.refusal = joined(shape);
  if (!numerics.empty()) c.warning = joined(numerics);
  return c;
}

}  // namespace slidedp
