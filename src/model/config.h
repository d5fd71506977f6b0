// The decoder architecture, parsed from a Hugging Face `config.json` (no LibTorch).
// Supported: Llama 3.x (rope_type default or llama3), Qwen2/Qwen2.5 (q/k/v bias), Qwen3 (q/k
// RMSNorm, explicit head_dim), Mistral; GQA; tied or untied embeddings; both config styles
// (transformers 4.x: rope_theta + rope_scaling + torch_dtype; 5.x: rope_parameters + dtype).
// Design decision: anything whose math slidedp does not implement (another model_type, an
// activation other than silu, another rope type, an active sliding window, MoE fields,
// partial rotary) is refused at parse time with the field and its value named, never ignored.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace slidedp::model {

enum class ModelFamily { Llama, Qwen2, Qwen3, Mistral };

/// "llama", "qwen2", "qwen3", "mistral" (the HF model_type).
const char* familyName(ModelFamily family);

/// Rotary position embedding (HF modeling_rope_utils.py; the math is in model/rope.h).
struct RopeConfig {
  enum class Type { Default, Linear, Dynamic, Yarn, Llama3 };
  Type type = Type::Default;
  double theta = 10000.0;
  double factor = 1.0;  // linear, dynamic, yarn, llama3: the context extension factor
  // llama3 (_compute_llama3_parameters):
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  // llama3, yarn: the pre-training context (default: max_position_embeddings, as
  // transformers' standardize_rope_params; a top-level original_max_position_embeddings wins)
  int64_t originalMaxPositionEmbeddings = 8192;
  // yarn (_compute_yarn_parameters):
  std::optional<double> attentionFactor;  // cos/sin scaling; default from factor and mscale
  double betaFast = 32.0;
  double betaSlow = 1.0;
  double mscale = 0.0;        // 0: absent
  double mscaleAllDim = 0.0;  // 0: absent
  bool truncate = true;
};

/// "default", "linear", "dynamic", "yarn", "llama3".
const char* ropeTypeName(RopeConfig::Type type);

struct ModelConfig {
  ModelFamily family = ModelFamily::Llama;
  std::string modelType;         // as in config.json
  int64_t vocabSize = 0;         // V
  int64_t hiddenSize = 0;        // C
  int64_t intermediateSize = 0;  // MLP width
  int64_t numLayers = 0;         // L
  int64_t numHeads = 0;          // H (query heads)
  int64_t numKvHeads = 0;        // key/value heads (GQA: divides H)
  int64_t headDim = 0;           // D (Qwen3 may have H * D != C)
  int64_t maxPositionEmbeddings = 0;
  double rmsNormEps = 1e-6;
  RopeConfig rope;
  bool tieWordEmbeddings = false;  // lm_head.weight IS model.embed_tokens.weight
  bool qkvBias = false;            // q/k/v_proj.bias (Qwen2 always; Llama/Qwen3 attention_bias)
  bool oBias = false;              // o_proj.bias (Llama/Qwen3 attention_bias)
  bool mlpBias = false;            // gate/up/down_proj.bias (Llama mlp_bias)
  bool qkNorm = false;             // self_attn.q_norm / k_norm (Qwen3)
  std::optional<int64_t> slidingWindow;  // Mistral: checked against T by checkSequenceLength
  std::string dtype;                     // "float32", "bfloat16", ... ("" when absent)
  std::optional<int64_t> bosTokenId;
  std::vector<int64_t> eosTokenIds;
  nlohmann::json raw;  // the config.json as given (exported unchanged)

  /// Parses a config.json object; `source` names it in errors. Throws slidedp::UserError for
  /// missing/mistyped required fields and for every unsupported feature (message names the
  /// field and its value).
  static ModelConfig fromJson(const nlohmann::json& j, const std::string& source);
  /// Reads and parses `path` (a config.json, or a directory holding one).
  static ModelConfig load(const std::string& path);

  /// The longest sequence the config covers: max_position_embeddings, or where rope scaling
  /// extends the context, the longer of it and the extended length (linear, dynamic:
  /// factor x max_position_embeddings; yarn, llama3: factor x original_max_position_embeddings).
  int64_t maxSequenceLength() const;

  /// Refuses a sequence length the model cannot be trained on: longer than
  /// maxSequenceLength() (the message says how to extend the context with YaRN), or Mistral
  /// with sliding_window < T (a window would be active). Throws UserError. Cheap: call it
  /// before any rank allocates.
  void checkSequenceLength(int64_t T) const;

  /// Query width H * D and key/value width numKvHeads * D.
  int64_t qDim() const { return numHeads * headDim; }
  int64_t kvDim() const { return numKvHeads * headDim; }
};

}  // namespace slidedp::model
