// The layer units that stream between host and GPU, and the fixed layout of each unit's flat
// fp32 buffer (no LibTorch). Unit 0 = embedding, units 1..L = decoder layers, unit L+1 = final
// norm (+ lm_head when untied; with tied embeddings the LM head IS unit 0's embedding, one
// parameter, and the head step reads unit 0 as well).
// Design decision: a pure function of the ModelConfig, with every tensor's offset aligned to
// kParamAlignElements, so the leader and every worker compute the same layout independently and
// a chunk of a unit is a contiguous element range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/checkpoint.h"
#include "model/config.h"

namespace slidedp::model {

/// Every tensor's offset, and every unit's total numel, is a multiple of this (64 elements =
/// 256 bytes of fp32, 128 of bf16).
constexpr int64_t kParamAlignElements = 64;

/// One parameter inside a unit's flat buffer.
struct ParamEntry {
  std::string name;            // HF tensor name, e.g. "model.layers.3.self_attn.q_proj.weight"
  std::vector<int64_t> shape;  // HF shape (out, in) for linear weights
  int64_t offset = 0;          // elements from the start of the unit
  int64_t numel = 0;
  int ndim = 0;  // shape.size(): weight decay applies to ndim >= 2
};

enum class UnitKind { Embedding, Decoder, Head };

struct UnitLayout {
  int index = 0;  // 0..L+1
  UnitKind kind = UnitKind::Decoder;
  int layer = -1;  // decoder layer index for Decoder units, else -1
  std::vector<ParamEntry> params;
  int64_t numel = 0;  // padded total, a multiple of kParamAlignElements

  /// nullptr when absent.
  const ParamEntry* find(const std::string& name) const;
  /// Aborts (internal error) when absent.
  const ParamEntry& get(const std::string& name) const;
};

/// Per decoder layer, the parameter order is: input_layernorm, q_proj (.weight, .bias),
/// k_proj, v_proj, o_proj, q_norm, k_norm, post_attention_layernorm, gate_proj, up_proj,
/// down_proj — each present only when the config has it.
struct ParamLayout {
  std::vector<UnitLayout> units;

  /// Builds the layout; deterministic in the config.
  static ParamLayout build(const ModelConfig& config);

  int numUnits() const { return static_cast<int>(units.size()); }
  int embeddingUnit() const { return 0; }
  int headUnit() const { return numUnits() - 1; }
  int decoderUnit(int layer) const { return 1 + layer; }
  /// Sum of the units' padded numel.
  int64_t totalNumel() const;
  /// Number of real parameters (without padding).
  int64_t parameterCount() const;
  /// Per unit, where the part of its gradient that its backward finishes first begins
  /// (ChunkPlan::bucket_splits): a decoder layer's post_attention_layernorm offset, since
  /// decoderLayerBackward completes the post-attention norm and MLP gradients ([that offset,
  /// numel)) before the attention's; 0 (one bucket) for the embedding and the head.
  std::vector<int64_t> gradientBucketSplits() const;
  /// Locates an HF tensor name; returns false when no unit holds it.
  bool locate(const std::string& name, int* unit, const ParamEntry** entry) const;
  /// Every parameter as (name, shape), for formats::checkTensors.
  std::vector<formats::ExpectedTensor> expectedTensors() const;
};

/// Names a checkpoint may hold beyond the layout without being an error: rotary buffers
/// ("*.rotary_emb.inv_freq") and, with tied embeddings, a redundant "lm_head.weight".
bool isIgnorableCheckpointTensor(const ModelConfig& config, const std::string& name);

}  // namespace slidedp::model
