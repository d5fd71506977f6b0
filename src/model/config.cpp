// config.json parsing with explicit refusal of unsupported features (see config.h).
#include "model/config.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "formats/fs_util.h"

namespace slidedp::model {

const char* ropeTypeName(RopeConfig::Type type) {
  switch (type) {
    case RopeConfig::Type::Default:
      return "default";
    case RopeConfig::Type::Linear:
      return "linear";
    case RopeConfig::Type::Dynamic:
      return "dynamic";
    case RopeConfig::Type::Yarn:
      return "yarn";
    case RopeConfig::Type::Llama3:
      return "llama3";
  }
  return "?";
}

const char* familyName(ModelFamily family) {
  switch (family) {
    case ModelFamily::Llama:
      return "llama";
    case ModelFamily::Qwen2:
      return "qwen2";
    case ModelFamily::Qwen3:
      return "qwen3";
    case ModelFamily::Mistral:
      return "mistral";
  }
  return "?";
}

namespace {

bool present(const nlohmann::json& j, const char* key) {
  return j.contains(key) && !j[key].is_null();
}

int64_t getInt(const nlohmann::json& j, const char* key, const std::string& src) {
  if (!present(j, key)) throwUserError("{}: required field '{}' is missing", src, key);
  if (!j[key].is_number_integer() || j[key].get<int64_t>() <= 0)
    throwUserError("{}: field '{}' must be a positive integer, found {}", src, key, j[key].dump());
  return j[key].get<int64_t>();
}

int64_t getInt(const nlohmann::json& j, const char* key, int64_t dflt, const std::string& src) {
  return present(j, key) ? getInt(j, key, src) : dflt;
}

double getNumber(const nlohmann::json& j, const char* key, double dflt, const std::string& src) {
  if (!present(j, key)) return dflt;
  if (!j[key].is_number())
    throwUserError("{}: field '{}' must be a number, found {}", src, key, j[key].dump());
  return j[key].get<double>();
}

bool getBool(const nlohmann::json& j, const char* key, bool dflt, const std::string& src) {
  if (!present(j, key)) return dflt;
  if (!j[key].is_boolean())
    throwUserError("{}: field '{}' must be true or false, found {}", src, key, j[key].dump());
  return j[key].get<bool>();
}

[[noreturn]] void unsupported(const std::string& src, const std::string& field,
                              const std::string& value, const std::string& why) {
  throwUserError("{}: unsupported {} = {}: {}", src, field, value, why);
}

// rope_parameters (5.x) or rope_scaling (4.x) object -> RopeConfig; theta given separately
// for 4.x. `field` names the object in messages. `maxPos` is max_position_embeddings,
// `topOrig` a top-level original_max_position_embeddings (0: none), which transformers'
// standardize_rope_params prefers for llama3/yarn.
RopeConfig parseRope(const nlohmann::json& p, double theta, int64_t maxPos, int64_t topOrig,
                     const std::string& field, const std::string& src) {
  RopeConfig r;
  r.theta = getNumber(p, "rope_theta", theta, src);
  std::string type = "default";
  if (present(p, "rope_type"))
    type = p["rope_type"].get<std::string>();
  else if (present(p, "type"))
    type = p["type"].get<std::string>();
  if (present(p, "partial_rotary_factor") && getNumber(p, "partial_rotary_factor", 1.0, src) != 1.0)
    unsupported(src, field + ".partial_rotary_factor", p["partial_rotary_factor"].dump(),
                "slidedp rotates the whole head dimension");
  auto requireFactor = [&]() {
    if (!p.contains("factor"))
      throwUserError("{}: {} has rope_type {} but no 'factor'", src, field, type);
    r.factor = getNumber(p, "factor", 1.0, src);
    if (!(r.factor >= 1.0))
      throwUserError("{}: {}.factor must be a number >= 1, found {}", src, field, p["factor"].dump());
  };
  auto originalMax = [&]() {
    r.originalMaxPositionEmbeddings =
        topOrig > 0 ? topOrig : getInt(p, "original_max_position_embeddings", maxPos, src);
  };
  if (type == "default") {
    r.type = RopeConfig::Type::Default;
  } else if (type == "linear") {
    r.type = RopeConfig::Type::Linear;
    requireFactor();
  } else if (type == "dynamic") {
    r.type = RopeConfig::Type::Dynamic;
    requireFactor();
  } else if (type == "yarn") {
    r.type = RopeConfig::Type::Yarn;
    originalMax();
    if (p.contains("factor") && p["factor"].is_null()) {
      // _compute_yarn_parameters: factor None -> max_position_embeddings / original.
      r.factor = static_cast<double>(maxPos) / static_cast<double>(r.originalMaxPositionEmbeddings);
    } else {
      requireFactor();
    }
    if (present(p, "attention_factor")) r.attentionFactor = getNumber(p, "attention_factor", 1.0, src);
    // `x or default` in transformers: 0 and null take the default too.
    if (double v = getNumber(p, "beta_fast", 0.0, src); v != 0) r.betaFast = v;
    if (double v = getNumber(p, "beta_slow", 0.0, src); v != 0) r.betaSlow = v;
    r.mscale = getNumber(p, "mscale", 0.0, src);
    r.mscaleAllDim = getNumber(p, "mscale_all_dim", 0.0, src);
    r.truncate = getBool(p, "truncate", true, src);
  } else if (type == "llama3") {
    r.type = RopeConfig::Type::Llama3;
    for (const char* k : {"factor", "low_freq_factor", "high_freq_factor"})
      if (!present(p, k)) throwUserError("{}: {} has rope_type llama3 but no '{}'", src, field, k);
    r.factor = getNumber(p, "factor", 1.0, src);
    r.lowFreqFactor = getNumber(p, "low_freq_factor", 1.0, src);
    r.highFreqFactor = getNumber(p, "high_freq_factor", 4.0, src);
    originalMax();
    if (r.highFreqFactor == r.lowFreqFactor)
      throwUserError("{}: {}: llama3 rope needs high_freq_factor != low_freq_factor", src, field);
  } else {
    unsupported(src, field + ".rope_type", "\"" + type + "\"",
                "slidedp implements rope types default, linear, dynamic, yarn and llama3");
  }
  return r;
}

}  // namespace

ModelConfig ModelConfig::fromJson(const nlohmann::json& j, const std::string& src) {
  if (!j.is_object()) throwUserError("{}: config is not a JSON object", src);
  ModelConfig c;
  c.raw = j;
  if (!present(j, "model_type") || !j["model_type"].is_string())
    throwUserError("{}: required string field 'model_type' is missing", src);
  c.modelType = j["model_type"].get<std::string>();
  if (c.modelType == "llama")
    c.family = ModelFamily::Llama;
  else if (c.modelType == "qwen2")
    c.family = ModelFamily::Qwen2;
  else if (c.modelType == "qwen3")
    c.family = ModelFamily::Qwen3;
  else if (c.modelType == "mistral")
    c.family = ModelFamily::Mistral;
  else
    unsupported(src, "model_type", "\"" + c.modelType + "\"",
                "slidedp supports llama, qwen2, qwen3 and mistral decoders");

  c.vocabSize = getInt(j, "vocab_size", src);
  c.hiddenSize = getInt(j, "hidden_size", src);
  c.intermediateSize = getInt(j, "intermediate_size", src);
  c.numLayers = getInt(j, "num_hidden_layers", src);
  c.numHeads = getInt(j, "num_attention_heads", src);
  c.numKvHeads = getInt(j, "num_key_value_heads", c.numHeads, src);
  int64_t defaultHeadDim = c.family == ModelFamily::Qwen3 ? 128 : c.hiddenSize / c.numHeads;
  c.headDim = getInt(j, "head_dim", defaultHeadDim, src);
  int64_t defaultMaxPos = 2048;
  if (c.family == ModelFamily::Qwen2 || c.family == ModelFamily::Qwen3) defaultMaxPos = 32768;
  if (c.family == ModelFamily::Mistral) defaultMaxPos = 4096 * 32;
  c.maxPositionEmbeddings = getInt(j, "max_position_embeddings", defaultMaxPos, src);
  c.rmsNormEps = getNumber(j, "rms_norm_eps", 1e-6, src);
  if (!(c.rmsNormEps > 0) || !std::isfinite(c.rmsNormEps))
    throwUserError("{}: rms_norm_eps = {} must be a finite number > 0 (RMSNorm divides by "
                   "sqrt(mean(x^2) + eps)); Qwen3 and Llama use 1e-6 or 1e-5", src, c.rmsNormEps);
  if (c.numHeads % c.numKvHeads != 0)
    throwUserError("{}: num_attention_heads = {} is not a multiple of num_key_value_heads = {}",
                   src, c.numHeads, c.numKvHeads);
  if (c.headDim % 2 != 0)
    throwUserError("{}: head_dim = {} is odd; rotary embeddings need an even head_dim", src,
                   c.headDim);
  if (c.family != ModelFamily::Qwen3 && !present(j, "head_dim") && c.hiddenSize % c.numHeads != 0)
    throwUserError("{}: hidden_size = {} is not a multiple of num_attention_heads = {}", src,
                   c.hiddenSize, c.numHeads);

  std::string act = present(j, "hidden_act") ? j["hidden_act"].dump() : "\"silu\"";
  if (act != "\"silu\"") unsupported(src, "hidden_act", act, "slidedp's MLP is SwiGLU with silu");

  c.tieWordEmbeddings = getBool(j, "tie_word_embeddings", false, src);
  switch (c.family) {
    case ModelFamily::Llama:
      c.qkvBias = c.oBias = getBool(j, "attention_bias", false, src);
      c.mlpBias = getBool(j, "mlp_bias", false, src);
      break;
    case ModelFamily::Qwen2:
      c.qkvBias = true;  // Qwen2Attention: q/k/v bias=True, o_proj bias=False
      break;
    case ModelFamily::Qwen3:
      c.qkvBias = c.oBias = getBool(j, "attention_bias", false, src);
      c.qkNorm = true;
      break;
    case ModelFamily::Mistral:
      break;  // MistralAttention/MistralMLP: no biases
  }

  // Rotary embeddings: 5.x rope_parameters, else 4.x rope_theta + rope_scaling.
  const int64_t topOrig = getInt(j, "original_max_position_embeddings", 0, src);
  if (present(j, "rope_parameters")) {
    const auto& p = j["rope_parameters"];
    if (!p.is_object()) throwUserError("{}: 'rope_parameters' is not an object", src);
    if (!p.contains("rope_type") && !p.contains("rope_theta"))
      unsupported(src, "rope_parameters", p.dump(),
                  "per-layer-type rope parameters (sliding/full attention mixes) are not "
                  "supported");
    c.rope = parseRope(p, getNumber(j, "rope_theta", 10000.0, src), c.maxPositionEmbeddings,
                       topOrig, "rope_parameters", src);
  } else {
    double theta = getNumber(j, "rope_theta", 10000.0, src);
    if (present(j, "rope_scaling")) {
      if (!j["rope_scaling"].is_object())
        throwUserError("{}: 'rope_scaling' is not an object", src);
      c.rope = parseRope(j["rope_scaling"], theta, c.maxPositionEmbeddings, topOrig,
                         "rope_scaling", src);
    } else {
      c.rope.theta = theta;
    }
  }
  if (!(c.rope.theta > 1) || !std::isfinite(c.rope.theta))
    throwUserError("{}: rope_theta must be a finite number > 1 (the rotary base: inv_freq = theta^(-2i/D)), "
                   "got {}.\nHINT: Llama 2 uses 10000, Qwen3 1000000", src, c.rope.theta);
  if (present(j, "partial_rotary_factor") && getNumber(j, "partial_rotary_factor", 1.0, src) != 1.0)
    unsupported(src, "partial_rotary_factor", j["partial_rotary_factor"].dump(),
                "slidedp rotates the whole head dimension");

  // Sliding windows.
  if (c.family == ModelFamily::Qwen2 || c.family == ModelFamily::Qwen3) {
    bool use = getBool(j, "use_sliding_window", false, src);
    if (use && present(j, "sliding_window") &&
        getInt(j, "sliding_window", src) < c.maxPositionEmbeddings)
      unsupported(src, "use_sliding_window", "true",
                  fmt::format("sliding_window = {} < max_position_embeddings = {} would make "
                              "attention windowed; slidedp implements full causal attention",
                              j["sliding_window"].dump(), c.maxPositionEmbeddings));
  }
  if (c.family == ModelFamily::Mistral && present(j, "sliding_window"))
    c.slidingWindow = getInt(j, "sliding_window", src);
  if (present(j, "layer_types")) {
    if (!j["layer_types"].is_array()) throwUserError("{}: 'layer_types' is not an array", src);
    for (size_t i = 0; i < j["layer_types"].size(); ++i) {
      const auto& t = j["layer_types"][i];
      if (t != "full_attention" && !(c.family == ModelFamily::Mistral && t == "sliding_attention"))
        unsupported(src, fmt::format("layer_types[{}]", i), t.dump(),
                    "slidedp implements full causal attention only");
    }
  }

  // Mixture of experts.
  for (const char* k : {"num_experts", "num_local_experts", "n_routed_experts",
                        "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts"}) {
    if (present(j, k) && !(j[k].is_number_integer() && j[k].get<int64_t>() == 0))
      unsupported(src, k, j[k].dump(), "mixture-of-experts layers are not supported");
  }

  if (present(j, "dtype") && j["dtype"].is_string())
    c.dtype = j["dtype"].get<std::string>();
  else if (present(j, "torch_dtype") && j["torch_dtype"].is_string())
    c.dtype = j["torch_dtype"].get<std::string>();
  if (present(j, "bos_token_id") && j["bos_token_id"].is_number_integer())
    c.bosTokenId = j["bos_token_id"].get<int64_t>();
  if (present(j, "eos_token_id")) {
    const auto& e = j["eos_token_id"];
    if (e.is_number_integer())
      c.eosTokenIds.push_back(e.get<int64_t>());
    else if (e.is_array())
      for (const auto& v : e)
        if (v.is_number_integer()) c.eosTokenIds.push_back(v.get<int64_t>());
  }
  return c;
}

ModelConfig ModelConfig::load(const std::string& path) {
  const std::string p = formats::isDirectory(path) ? formats::joinPath(path, "config.json") : path;
  if (!formats::pathExists(path))
    throwUserError("{}: no such model directory or config.json\nHINT: pass a Hugging Face model "
                   "directory (config.json and its *.safetensors) or a config.json", path);
  const std::string weights = ".safetensors";
  if (formats::isRegularFile(path) && path.size() > weights.size() &&
      path.compare(path.size() - weights.size(), weights.size(), weights) == 0)
    throwUserError("{} is a weights file, not a model directory or a config.json\nHINT: pass its "
                   "directory, {}", path, formats::parentPath(path));
  if (!formats::isRegularFile(p)) throwUserError("{}: no model config.json here", p);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(formats::readFileBytes(p));
  } catch (const nlohmann::json::parse_error& e) {
    throwUserError("{}: not valid JSON: {}", p, e.what());
  }
  return fromJson(j, p);
}

int64_t ModelConfig::maxSequenceLength() const {
  const double f = rope.factor;
  switch (rope.type) {
    case RopeConfig::Type::Default:
      return maxPositionEmbeddings;
    case RopeConfig::Type::Linear:
    case RopeConfig::Type::Dynamic:
      return std::max<int64_t>(maxPositionEmbeddings,
                               static_cast<int64_t>(f * static_cast<double>(maxPositionEmbeddings)));
    case RopeConfig::Type::Yarn:
    case RopeConfig::Type::Llama3:
      return std::max<int64_t>(maxPositionEmbeddings,
                               static_cast<int64_t>(f * static_cast<double>(rope.originalMaxPositionEmbeddings)));
  }
  return maxPositionEmbeddings;
}

void ModelConfig::checkSequenceLength(int64_t T) const {
  if (slidingWindow && *slidingWindow < T)
    unsupported("config", "sliding_window", std::to_string(*slidingWindow),
                fmt::format("sequence length {} exceeds the window, so attention would be "
                            "windowed; slidedp implements full causal attention. HINT: use "
                            "sequences of at most {} tokens",
                            T, *slidingWindow));
  const int64_t limit = maxSequenceLength();
  if (T <= limit) return;
  std::string covers = fmt::format("max_position_embeddings = {}", maxPositionEmbeddings);
  if (rope.type != RopeConfig::Type::Default)
    covers += fmt::format(", rope_type {} with factor {:g}{} (up to {})", ropeTypeName(rope.type),
                          rope.factor,
                          rope.type == RopeConfig::Type::Yarn || rope.type == RopeConfig::Type::Llama3
                              ? fmt::format(" x original_max_position_embeddings {}",
                                            rope.originalMaxPositionEmbeddings)
                              : std::string(" x max_position_embeddings"),
                          limit);
  const int64_t orig = rope.type == RopeConfig::Type::Default ? maxPositionEmbeddings
                                                              : rope.originalMaxPositionEmbeddings;
  const double need = std::ceil(static_cast<double>(T) / static_cast<double>(orig));
  throwUserError("sequence length {} exceeds what the model config covers: {}.\nHINT: extend "
                 "the context with YaRN in config.json, as Qwen3 reaches 128K: \"rope_scaling\": "
                 "{{\"rope_type\": \"yarn\", \"factor\": {:g}, \"original_max_position_embeddings\": "
                 "{}}}; or use --seq-len <= {}",
                 T, covers, need, orig, limit);
}

}  // namespace slidedp::model
