// ModelConfig parsing (both config styles, every family, every refusal), ParamLayout, and HF
// directory load/export (no LibTorch).
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/errors.h"
#include "formats/checkpoint.h"
#include "formats/fs_util.h"
#include "model/config.h"
#include "model/hf_checkpoint.h"
#include "model/param_layout.h"

namespace fs = std::filesystem;
using namespace slidedp::model;
using nlohmann::json;

namespace {

const std::string kStories = std::string(SLIDEDP_SHARED_DIR) + "/models/stories260K";

json llama3New() {
  return json::parse(R"({
    "model_type": "llama", "vocab_size": 128, "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "hidden_act": "silu",
    "tie_word_embeddings": false, "dtype": "bfloat16", "bos_token_id": 1,
    "eos_token_id": [2, 3],
    "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 64}})");
}

json llama3Old() {
  return json::parse(R"({
    "model_type": "llama", "vocab_size": 128, "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "hidden_act": "silu",
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "bos_token_id": 1,
    "eos_token_id": [2, 3], "rope_theta": 500000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 64}})");
}

json qwen2() {
  return json::parse(R"({
    "model_type": "qwen2", "vocab_size": 100, "hidden_size": 32, "intermediate_size": 48,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
    "max_position_embeddings": 512, "use_sliding_window": false, "sliding_window": 128,
    "max_window_layers": 1, "tie_word_embeddings": true, "rope_theta": 1000000.0})");
}

json qwen3() {
  return json::parse(R"({
    "model_type": "qwen3", "vocab_size": 100, "hidden_size": 32, "intermediate_size": 48,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 1,
    "head_dim": 16, "max_position_embeddings": 512, "attention_bias": false,
    "use_sliding_window": false, "sliding_window": null, "tie_word_embeddings": true,
    "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}})");
}

json mistral() {
  return json::parse(R"({
    "model_type": "mistral", "vocab_size": 100, "hidden_size": 32, "intermediate_size": 48,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
    "max_position_embeddings": 512, "sliding_window": 64, "rope_theta": 10000.0})");
}

// Expects fromJson to refuse with a message containing every needle.
void expectRefused(const json& j, const std::vector<std::string>& needles) {
  try {
    ModelConfig::fromJson(j, "test-config");
    FAIL() << "accepted: " << j.dump();
  } catch (const slidedp::UserError& e) {
    for (const auto& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

std::string tempDir(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("slidedp_model_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

}  // namespace

TEST(ModelConfig, Stories260K) {
  auto c = ModelConfig::load(kStories);
  EXPECT_EQ(c.family, ModelFamily::Llama);
  EXPECT_EQ(c.vocabSize, 512);
  EXPECT_EQ(c.hiddenSize, 64);
  EXPECT_EQ(c.intermediateSize, 172);
  EXPECT_EQ(c.numLayers, 5);
  EXPECT_EQ(c.numHeads, 8);
  EXPECT_EQ(c.numKvHeads, 4);
  EXPECT_EQ(c.headDim, 8);
  EXPECT_DOUBLE_EQ(c.rmsNormEps, 1e-5);
  EXPECT_EQ(c.rope.type, RopeConfig::Type::Default);
  EXPECT_DOUBLE_EQ(c.rope.theta, 10000.0);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_FALSE(c.qkvBias || c.oBias || c.mlpBias || c.qkNorm);
  EXPECT_EQ(c.dtype, "float32");
  EXPECT_EQ(*c.bosTokenId, 1);
  EXPECT_EQ(c.eosTokenIds, std::vector<int64_t>{2});
}

TEST(ModelConfig, BothConfigStylesAgree) {
  auto a = ModelConfig::fromJson(llama3New(), "new");
  auto b = ModelConfig::fromJson(llama3Old(), "old");
  for (const auto* c : {&a, &b}) {
    EXPECT_EQ(c->rope.type, RopeConfig::Type::Llama3);
    EXPECT_DOUBLE_EQ(c->rope.theta, 500000.0);
    EXPECT_DOUBLE_EQ(c->rope.factor, 8.0);
    EXPECT_DOUBLE_EQ(c->rope.lowFreqFactor, 1.0);
    EXPECT_DOUBLE_EQ(c->rope.highFreqFactor, 4.0);
    EXPECT_EQ(c->rope.originalMaxPositionEmbeddings, 64);
    EXPECT_EQ(c->dtype, "bfloat16");
    EXPECT_EQ(c->headDim, 16);
    EXPECT_EQ(c->eosTokenIds, (std::vector<int64_t>{2, 3}));
    EXPECT_FALSE(c->tieWordEmbeddings);
  }
  json old = llama3Old();
  old["rope_scaling"].erase("rope_type");
  old["rope_scaling"]["type"] = "llama3";  // the oldest spelling
  EXPECT_EQ(ModelConfig::fromJson(old, "x").rope.type, RopeConfig::Type::Llama3);
}

TEST(ModelConfig, Families) {
  auto q2 = ModelConfig::fromJson(qwen2(), "q2");
  EXPECT_EQ(q2.family, ModelFamily::Qwen2);
  EXPECT_TRUE(q2.qkvBias);
  EXPECT_FALSE(q2.oBias);
  EXPECT_FALSE(q2.qkNorm);
  EXPECT_EQ(q2.headDim, 8);
  auto q3 = ModelConfig::fromJson(qwen3(), "q3");
  EXPECT_TRUE(q3.qkNorm);
  EXPECT_FALSE(q3.qkvBias);
  EXPECT_EQ(q3.headDim, 16);  // != hidden / heads = 8
  EXPECT_EQ(q3.qDim(), 64);
  EXPECT_EQ(q3.kvDim(), 16);
  auto m = ModelConfig::fromJson(mistral(), "m");
  EXPECT_EQ(m.family, ModelFamily::Mistral);
  EXPECT_EQ(*m.slidingWindow, 64);
  EXPECT_NO_THROW(m.checkSequenceLength(64));
  EXPECT_THROW(m.checkSequenceLength(65), slidedp::UserError);
  json mn = mistral();
  mn["sliding_window"] = nullptr;
  EXPECT_NO_THROW(ModelConfig::fromJson(mn, "m").checkSequenceLength(512));
}

TEST(ModelConfig, Refusals) {
  json j = llama3New();
  j["model_type"] = "gemma";
  expectRefused(j, {"model_type", "\"gemma\""});
  j = llama3New();
  j["hidden_act"] = "gelu";
  expectRefused(j, {"hidden_act", "\"gelu\""});
  for (double eps : {-1.0, 0.0}) {  // the loss was -nan at step 1
    j = llama3New();
    j["rms_norm_eps"] = eps;
    expectRefused(j, {"rms_norm_eps", "must be a finite number > 0"});
  }
  for (double theta : {-1.0, 0.0, 1.0}) {  // 0: the loss was nan at step 1
    j = mistral();  // top-level rope_theta (4.x)
    j["rope_theta"] = theta;
    expectRefused(j, {"rope_theta must be a finite number > 1"});
    j = llama3New();  // inside rope_parameters (5.x)
    j["rope_parameters"]["rope_theta"] = theta;
    expectRefused(j, {"rope_theta must be a finite number > 1"});
  }
  j = llama3New();
  j["rope_parameters"]["rope_type"] = "longrope";
  expectRefused(j, {"rope_parameters.rope_type", "\"longrope\""});
  j = llama3Old();
  j["rope_scaling"] = {{"type", "linear"}};
  expectRefused(j, {"rope_type linear", "'factor'"});
  j = llama3Old();
  j["rope_scaling"] = {{"type", "yarn"}, {"factor", 0.5}};
  expectRefused(j, {"factor must be a number >= 1"});
  j = llama3New();
  j["rope_parameters"].erase("low_freq_factor");
  expectRefused(j, {"low_freq_factor"});
  j = qwen2();
  j["use_sliding_window"] = true;
  expectRefused(j, {"use_sliding_window", "sliding_window = 128"});
  j["sliding_window"] = 512;  // window >= max positions: never active
  EXPECT_NO_THROW(ModelConfig::fromJson(j, "x"));
  j = qwen3();
  j["layer_types"] = {"full_attention", "sliding_attention"};
  expectRefused(j, {"layer_types[1]", "sliding_attention"});
  j = qwen3();
  j["num_experts"] = 8;
  expectRefused(j, {"num_experts", "8"});
  j = llama3New();
  j["num_local_experts"] = 4;
  expectRefused(j, {"num_local_experts"});
  j = llama3New();
  j["num_key_value_heads"] = 3;
  expectRefused(j, {"num_key_value_heads = 3"});
  j = llama3New();
  j.erase("hidden_size");
  expectRefused(j, {"'hidden_size'", "missing"});
  j = llama3New();
  j["rope_parameters"]["partial_rotary_factor"] = 0.5;
  expectRefused(j, {"partial_rotary_factor"});
}

TEST(ModelConfig, RopeTypesAndTheSequenceTheyCover) {
  // Qwen3's documented 128K set-up: YaRN factor 4 over 32K, max_position_embeddings 40960.
  json q = qwen3();
  q.erase("rope_parameters");  // the 4.x spelling: rope_theta + rope_scaling
  q["rope_theta"] = 1e6;
  q["max_position_embeddings"] = 40960;
  q["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0},
                       {"original_max_position_embeddings", 32768}};
  auto y = ModelConfig::fromJson(q, "q3");
  EXPECT_EQ(y.rope.type, RopeConfig::Type::Yarn);
  EXPECT_DOUBLE_EQ(y.rope.factor, 4.0);
  EXPECT_EQ(y.rope.originalMaxPositionEmbeddings, 32768);
  EXPECT_DOUBLE_EQ(y.rope.betaFast, 32.0);
  EXPECT_DOUBLE_EQ(y.rope.betaSlow, 1.0);
  EXPECT_TRUE(y.rope.truncate);
  EXPECT_FALSE(y.rope.attentionFactor.has_value());
  EXPECT_EQ(y.maxSequenceLength(), 131072);
  EXPECT_NO_THROW(y.checkSequenceLength(131072));
  try {
    y.checkSequenceLength(131073);
    ADD_FAILURE() << "no error";
  } catch (const slidedp::UserError& e) {
    const std::string m = e.what();
    for (const char* part : {"131073", "max_position_embeddings = 40960", "rope_type yarn",
                             "factor 4", "(up to 131072)", "\"factor\": 5"})
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
  }
  // 5.x spelling with every optional field; a top-level original_max_position_embeddings
  // wins (transformers' standardize_rope_params).
  json q5 = qwen3();
  q5["rope_parameters"] = {{"rope_type", "yarn"}, {"rope_theta", 1e6}, {"factor", 8.0},
                           {"beta_fast", 16}, {"beta_slow", 2}, {"mscale", 0.707},
                           {"mscale_all_dim", 1.0}, {"attention_factor", 1.25},
                           {"truncate", false}};
  auto y5 = ModelConfig::fromJson(q5, "q5");
  EXPECT_EQ(y5.rope.originalMaxPositionEmbeddings, 512);  // default: max_position_embeddings
  EXPECT_DOUBLE_EQ(y5.rope.betaFast, 16);
  EXPECT_DOUBLE_EQ(y5.rope.betaSlow, 2);
  EXPECT_DOUBLE_EQ(y5.rope.mscale, 0.707);
  EXPECT_DOUBLE_EQ(*y5.rope.attentionFactor, 1.25);
  EXPECT_FALSE(y5.rope.truncate);
  q5["original_max_position_embeddings"] = 128;
  EXPECT_EQ(ModelConfig::fromJson(q5, "q5").rope.originalMaxPositionEmbeddings, 128);
  // factor null: max_position_embeddings / original.
  json qn = qwen3();
  qn.erase("rope_parameters");
  qn["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", nullptr},
                        {"original_max_position_embeddings", 128}};
  EXPECT_DOUBLE_EQ(ModelConfig::fromJson(qn, "qn").rope.factor, 4.0);
  // linear and dynamic stretch max_position_embeddings itself.
  json l = llama3Old();
  l["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  auto lc = ModelConfig::fromJson(l, "l");
  EXPECT_EQ(lc.rope.type, RopeConfig::Type::Linear);
  EXPECT_EQ(lc.maxSequenceLength(), 512);
  l["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 4.0}};
  auto dc = ModelConfig::fromJson(l, "d");
  EXPECT_EQ(dc.rope.type, RopeConfig::Type::Dynamic);
  EXPECT_EQ(dc.maxSequenceLength(), 1024);
  EXPECT_THROW(dc.checkSequenceLength(1025), slidedp::UserError);
  // llama3: the longer of max_position_embeddings and factor x original.
  auto l3 = ModelConfig::fromJson(llama3New(), "l3");
  EXPECT_EQ(l3.maxSequenceLength(), 512);  // 8 x 64 > 256
  // No scaling: max_position_embeddings.
  EXPECT_EQ(ModelConfig::fromJson(qwen3(), "q3").maxSequenceLength(), 512);
}

TEST(ParamLayout, Stories260K) {
  auto c = ModelConfig::load(kStories);
  auto l = ParamLayout::build(c);
  ASSERT_EQ(l.numUnits(), 7);
  EXPECT_EQ(l.units[0].kind, UnitKind::Embedding);
  EXPECT_EQ(l.units[0].numel, 512 * 64);
  EXPECT_EQ(l.units[6].kind, UnitKind::Head);
  ASSERT_EQ(l.units[6].params.size(), 1u);  // tied: only model.norm.weight
  EXPECT_EQ(l.units[6].params[0].name, "model.norm.weight");
  EXPECT_EQ(l.units[6].numel, 64);
  const auto& u = l.units[l.decoderUnit(2)];
  EXPECT_EQ(u.layer, 2);
  std::vector<std::string> names;
  for (const auto& p : u.params) {
    names.push_back(p.name.substr(std::string("model.layers.2.").size()));
    EXPECT_EQ(p.offset % kParamAlignElements, 0) << p.name;
    EXPECT_EQ(p.ndim, static_cast<int>(p.shape.size()));
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "input_layernorm.weight", "self_attn.q_proj.weight",
                       "self_attn.k_proj.weight", "self_attn.v_proj.weight",
                       "self_attn.o_proj.weight", "post_attention_layernorm.weight",
                       "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"}));
  EXPECT_EQ(u.numel % kParamAlignElements, 0);
  EXPECT_EQ(u.get("model.layers.2.self_attn.k_proj.weight").shape, (std::vector<int64_t>{32, 64}));
  // Every checkpoint tensor is in the layout, and the counts agree.
  auto ckpt = slidedp::formats::CheckpointReader::open(kStories);
  int64_t n = 0;
  for (const auto& name : ckpt.names()) {
    int unit = -1;
    const ParamEntry* e = nullptr;
    ASSERT_TRUE(l.locate(name, &unit, &e)) << name;
    EXPECT_EQ(e->shape, ckpt.get(name).shape);
    n += ckpt.get(name).numel();
  }
  EXPECT_EQ(n, l.parameterCount());
  // Deterministic.
  auto l2 = ParamLayout::build(c);
  for (int i = 0; i < l.numUnits(); ++i) {
    ASSERT_EQ(l.units[i].numel, l2.units[i].numel);
    for (size_t k = 0; k < l.units[i].params.size(); ++k)
      EXPECT_EQ(l.units[i].params[k].offset, l2.units[i].params[k].offset);
  }
}

TEST(ParamLayout, BiasesNormsAndUntiedHead) {
  auto q2 = ParamLayout::build(ModelConfig::fromJson(qwen2(), "q2"));
  EXPECT_NE(q2.units[1].find("model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_NE(q2.units[1].find("model.layers.0.self_attn.v_proj.bias"), nullptr);
  EXPECT_EQ(q2.units[1].find("model.layers.0.self_attn.o_proj.bias"), nullptr);
  auto q3 = ParamLayout::build(ModelConfig::fromJson(qwen3(), "q3"));
  EXPECT_EQ(q3.units[1].get("model.layers.0.self_attn.q_norm.weight").shape,
            std::vector<int64_t>{16});
  EXPECT_EQ(q3.units[1].get("model.layers.0.self_attn.q_proj.weight").shape,
            (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(q3.units[1].get("model.layers.0.self_attn.o_proj.weight").shape,
            (std::vector<int64_t>{32, 64}));
  auto ll = ParamLayout::build(ModelConfig::fromJson(llama3New(), "l"));
  ASSERT_EQ(ll.units.back().params.size(), 2u);
  EXPECT_EQ(ll.units.back().params[1].name, "lm_head.weight");
  EXPECT_EQ(ll.units.back().params[1].offset, 64);
}

TEST(HfCheckpoint, LoadUnitsAndExportRoundTrip) {
  auto m = loadHostModel(kStories);
  auto ckpt = slidedp::formats::CheckpointReader::open(kStories);
  for (const auto& u : m.layout.units) {
    int64_t cursor = 0;
    for (const auto& p : u.params) {
      for (int64_t i = cursor; i < p.offset; ++i) EXPECT_EQ(m.units[u.index][i], 0.0f);
      std::vector<float> ref(p.numel);
      ckpt.readFloat32(p.name, ref.data());
      EXPECT_EQ(0, std::memcmp(ref.data(), m.units[u.index].data() + p.offset, 4 * p.numel));
      cursor = p.offset + p.numel;
    }
  }
  std::string dir = tempDir("export");
  std::vector<const float*> ptrs;
  for (const auto& u : m.units) ptrs.push_back(u.data());
  // fp32, sharded (small max shard size), tokenizer copied; reload is bit-identical.
  exportHfModel(dir + "/f32", m.config, m.layout, ptrs, slidedp::formats::DType::F32, 100000,
                kStories);
  EXPECT_TRUE(fs::exists(dir + "/f32/model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(dir + "/f32/tokenizer.model"));
  EXPECT_TRUE(fs::exists(dir + "/f32/generation_config.json"));
  auto back = loadHostModel(dir + "/f32");
  EXPECT_EQ(back.config.raw, m.config.raw);
  for (size_t u = 0; u < m.units.size(); ++u) EXPECT_EQ(back.units[u], m.units[u]);
  // An export over an earlier one with a tokenizer.json the source lacks (another model's, or
  // damaged): removed, so the directory's tokenizer is the source's (stories260K: .model only).
  { std::ofstream(dir + "/f32/tokenizer.json") << "{ not json"; }
  exportHfModel(dir + "/f32", m.config, m.layout, ptrs, slidedp::formats::DType::F32, 100000,
                kStories);
  EXPECT_FALSE(fs::exists(dir + "/f32/tokenizer.json")) << "a stale tokenizer file stayed";
  EXPECT_TRUE(fs::exists(dir + "/f32/tokenizer.model"));
  // The export is written beside and put in place by renames: a failed one (here a duplicate
  // tensor name, refused by the writer) leaves the
  // directory as it was, and no staging directory.
  auto listing = [](const std::string& d) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  { std::ofstream(dir + "/f32/notes.txt") << "the user's own file"; }
  { std::ofstream(dir + "/f32/adapter_model.safetensors") << "a LoRA adapter's weights, not the export's"; }
  const auto before = listing(dir + "/f32");
  const std::string index_before = slidedp::formats::readFileBytes(dir + "/f32/model.safetensors.index.json");
  ParamLayout bad = m.layout;
  bad.units.back().params.back().name = bad.units[1].params[0].name;
  EXPECT_THROW(exportHfModel(dir + "/f32", m.config, bad, ptrs, slidedp::formats::DType::BF16, 1ull << 40, kStories),
               slidedp::UserError);
  EXPECT_THROW(exportHfModel(dir + "/f32", m.config, bad, ptrs, slidedp::formats::DType::BF16, 100000, kStories),
               slidedp::UserError);  // sharded: the two names in different files
  EXPECT_EQ(listing(dir + "/f32"), before);
  EXPECT_EQ(slidedp::formats::readFileBytes(dir + "/f32/model.safetensors.index.json"), index_before);
  EXPECT_THROW(exportHfModel(dir + "/new", m.config, bad, ptrs, slidedp::formats::DType::BF16, 1ull << 40, kStories),
               slidedp::UserError);
  EXPECT_FALSE(fs::exists(dir + "/new")) << "a failed export left a directory";
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"f32"}));
  // One file over the shards of the earlier export: the shards and their index go, the user's
  // files stay; so does nothing of a staging directory a killed export left (pid 999999999: no
  // such process).
  fs::create_directories(dir + "/f32/.tmp-export-999999999");
  { std::ofstream(dir + "/f32/.tmp-export-999999999/model.safetensors") << "a killed export's"; }
  exportHfModel(dir + "/f32", m.config, m.layout, ptrs, slidedp::formats::DType::F32, 1ull << 40, kStories);
  EXPECT_EQ(listing(dir + "/f32"), (std::vector<std::string>{"adapter_model.safetensors", "config.json",
                                                             "generation_config.json", "model.safetensors",
                                                             "notes.txt", "tokenizer.model"}));
  EXPECT_EQ(loadHostModel(dir + "/f32").units, m.units);
  // bf16: the config's dtype follows, and values are the rounded fp32 values.
  exportHfModel(dir + "/bf16", m.config, m.layout, ptrs, slidedp::formats::DType::BF16);
  auto b = loadHostModel(dir + "/bf16");
  EXPECT_EQ(b.config.dtype, "bfloat16");
  for (size_t u = 0; u < m.units.size(); ++u)
    for (size_t i = 0; i < m.units[u].size(); ++i)
      ASSERT_EQ(b.units[u][i],
                slidedp::formats::bf16ToFloat(slidedp::formats::floatToBf16(m.units[u][i])));
  fs::remove_all(dir);
}

TEST(HfCheckpoint, RefusesMismatchedCheckpoint) {
  auto m = loadHostModel(kStories);
  json j = m.config.raw;
  j["tie_word_embeddings"] = false;  // now lm_head.weight is expected and missing
  j["intermediate_size"] = 128;      // and the MLP shapes disagree
  auto c = ModelConfig::fromJson(j, "x");
  auto l = ParamLayout::build(c);
  auto ckpt = slidedp::formats::CheckpointReader::open(kStories);
  try {
    validateCheckpoint(ckpt, c, l);
    FAIL();
  } catch (const slidedp::UserError& e) {
    std::string s = e.what();
    EXPECT_NE(s.find("lm_head.weight"), std::string::npos) << s;
    EXPECT_NE(s.find("mlp.up_proj.weight' has shape [172, 64], the config implies [128, 64]"),
              std::string::npos)
        << s;
  }
  json d = m.config.raw;
  d["dtype"] = "bfloat16";
  auto cd = ModelConfig::fromJson(d, "x");
  EXPECT_THROW(validateCheckpoint(ckpt, cd, ParamLayout::build(cd)), slidedp::UserError);
  EXPECT_NO_THROW(validateCheckpoint(ckpt, cd, ParamLayout::build(cd), /*checkDType=*/false));
}

// Published config.json files (transformers 4.x style) and their published parameter counts:
// the layout must hold exactly the model's parameters.
TEST(ParamLayout, PublishedModels) {
  const struct {
    const char* name;
    const char* json;
    int64_t params;
  } kModels[] = {
      {"Llama-3.2-1B",
       R"({"architectures":["LlamaForCausalLM"],"attention_bias":false,"attention_dropout":0.0,
       "bos_token_id":128000,"eos_token_id":128001,"head_dim":64,"hidden_act":"silu",
       "hidden_size":2048,"initializer_range":0.02,"intermediate_size":8192,
       "max_position_embeddings":131072,"mlp_bias":false,"model_type":"llama",
       "num_attention_heads":32,"num_hidden_layers":16,"num_key_value_heads":8,
       "pretraining_tp":1,"rms_norm_eps":1e-05,"rope_scaling":{"factor":32.0,
       "high_freq_factor":4.0,"low_freq_factor":1.0,"original_max_position_embeddings":8192,
       "rope_type":"llama3"},"rope_theta":500000.0,"tie_word_embeddings":true,
       "torch_dtype":"bfloat16","use_cache":true,"vocab_size":128256})",
       1235814400},
      {"Qwen2.5-0.5B",
       R"({"architectures":["Qwen2ForCausalLM"],"attention_dropout":0.0,"bos_token_id":151643,
       "eos_token_id":151643,"hidden_act":"silu","hidden_size":896,"initializer_range":0.02,
       "intermediate_size":4864,"max_position_embeddings":32768,"max_window_layers":24,
       "model_type":"qwen2","num_attention_heads":14,"num_hidden_layers":24,
       "num_key_value_heads":2,"rms_norm_eps":1e-06,"rope_theta":1000000.0,
       "sliding_window":32768,"tie_word_embeddings":true,"torch_dtype":"bfloat16",
       "use_cache":true,"use_sliding_window":false,"vocab_size":151936})",
       494032768},
      {"Qwen3-0.6B",
       R"({"architectures":["Qwen3ForCausalLM"],"attention_bias":false,"attention_dropout":0.0,
       "bos_token_id":151643,"eos_token_id":151645,"head_dim":128,"hidden_act":"silu",
       "hidden_size":1024,"initializer_range":0.02,"intermediate_size":3072,
       "max_position_embeddings":40960,"max_window_layers":28,"model_type":"qwen3",
       "num_attention_heads":16,"num_hidden_layers":28,"num_key_value_heads":8,
       "rms_norm_eps":1e-06,"rope_scaling":null,"rope_theta":1000000,"sliding_window":null,
       "tie_word_embeddings":true,"torch_dtype":"bfloat16","use_cache":true,
       "use_sliding_window":false,"vocab_size":151936})",
       596049920},
      {"Mistral-7B-v0.3",
       R"({"architectures":["MistralForCausalLM"],"attention_dropout":0.0,"bos_token_id":1,
       "eos_token_id":2,"hidden_act":"silu","hidden_size":4096,"initializer_range":0.02,
       "intermediate_size":14336,"max_position_embeddings":32768,"model_type":"mistral",
       "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,
       "rms_norm_eps":1e-05,"rope_theta":1000000.0,"sliding_window":null,
       "tie_word_embeddings":false,"torch_dtype":"bfloat16","use_cache":true,
       "vocab_size":32768})",
       7248023552}};
  for (const auto& m : kModels) {
    auto c = ModelConfig::fromJson(json::parse(m.json), m.name);
    auto l = ParamLayout::build(c);
    EXPECT_EQ(l.parameterCount(), m.params) << m.name;
    EXPECT_EQ(l.numUnits(), c.numLayers + 2) << m.name;
    for (const auto& u : l.units) {
      EXPECT_EQ(u.numel % kParamAlignElements, 0) << m.name;
      for (const auto& p : u.params) EXPECT_EQ(p.offset % kParamAlignElements, 0) << p.name;
    }
  }
}
