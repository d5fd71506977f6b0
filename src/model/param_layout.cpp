// Unit layouts (see param_layout.h).
#include "model/param_layout.h"

#include "common/errors.h"

namespace slidedp::model {

namespace {

int64_t alignUp(int64_t n) {
  return (n + kParamAlignElements - 1) / kParamAlignElements * kParamAlignElements;
}

void add(UnitLayout& u, std::string name, std::vector<int64_t> shape) {
  ParamEntry e;
  e.name = std::move(name);
  e.numel = 1;
  for (int64_t d : shape) e.numel *= d;
  e.ndim = static_cast<int>(shape.size());
  e.shape = std::move(shape);
  e.offset = u.numel;
  u.numel = alignUp(e.offset + e.numel);
  u.params.push_back(std::move(e));
}

}  // namespace

const ParamEntry* UnitLayout::find(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

const ParamEntry& UnitLayout::get(const std::string& name) const {
  const ParamEntry* p = find(name);
  SLIDEDP_ASSERT(p != nullptr, "unit {} has no parameter {}", index, name);
  return *p;
}

ParamLayout ParamLayout::build(const ModelConfig& c) {
  ParamLayout l;
  const int64_t C = c.hiddenSize, Q = c.qDim(), KV = c.kvDim(), I = c.intermediateSize;
  UnitLayout emb;
  emb.index = 0;
  emb.kind = UnitKind::Embedding;
  add(emb, "model.embed_tokens.weight", {c.vocabSize, C});
  l.units.push_back(std::move(emb));
  for (int64_t i = 0; i < c.numLayers; ++i) {
    UnitLayout u;
    u.index = static_cast<int>(i + 1);
    u.kind = UnitKind::Decoder;
    u.layer = static_cast<int>(i);
    const std::string p = "model.layers." + std::to_string(i) + ".";
    add(u, p + "input_layernorm.weight", {C});
    const struct {
      const char* name;
      int64_t out;
    } proj[] = {{"q_proj", Q}, {"k_proj", KV}, {"v_proj", KV}};
    for (const auto& pr : proj) {
      add(u, p + "self_attn." + pr.name + ".weight", {pr.out, C});
      if (c.qkvBias) add(u, p + "self_attn." + pr.name + ".bias", {pr.out});
    }
    add(u, p + "self_attn.o_proj.weight", {C, Q});
    if (c.oBias) add(u, p + "self_attn.o_proj.bias", {C});
    if (c.qkNorm) {
      add(u, p + "self_attn.q_norm.weight", {c.headDim});
      add(u, p + "self_attn.k_norm.weight", {c.headDim});
    }
    add(u, p + "post_attention_layernorm.weight", {C});
    add(u, p + "mlp.gate_proj.weight", {I, C});
    if (c.mlpBias) add(u, p + "mlp.gate_proj.bias", {I});
    add(u, p + "mlp.up_proj.weight", {I, C});
    if (c.mlpBias) add(u, p + "mlp.up_proj.bias", {I});
    add(u, p + "mlp.down_proj.weight", {C, I});
    if (c.mlpBias) add(u, p + "mlp.down_proj.bias", {C});
    l.units.push_back(std::move(u));
  }
  UnitLayout head;
  head.index = static_cast<int>(c.numLayers + 1);
  head.kind = UnitKind::Head;
  add(head, "model.norm.weight", {C});
  if (!c.tieWordEmbeddings) add(head, "lm_head.weight", {c.vocabSize, C});
  l.units.push_back(std::move(head));
  return l;
}

std::vector<int64_t> ParamLayout::gradientBucketSplits() const {
  std::vector<int64_t> splits(units.size(), 0);
  for (const UnitLayout& u : units) {
    if (u.kind != UnitKind::Decoder) continue;
    const ParamEntry& e = u.get("model.layers." + std::to_string(u.layer) + ".post_attention_layernorm.weight");
    splits[u.index] = e.offset;
  }
  return splits;
}

int64_t ParamLayout::totalNumel() const {
  int64_t n = 0;
  for (const auto& u : units) n += u.numel;
  return n;
}

int64_t ParamLayout::parameterCount() const {
  int64_t n = 0;
  for (const auto& u : units)
    for (const auto& p : u.params) n += p.numel;
  return n;
}

bool ParamLayout::locate(const std::string& name, int* unit, const ParamEntry** entry) const {
  for (const auto& u : units) {
    if (const ParamEntry* p = u.find(name)) {
      if (unit) *unit = u.index;
      if (entry) *entry = p;
      return true;
    }
  }
  return false;
}

std::vector<formats::ExpectedTensor> ParamLayout::expectedTensors() const {
  std::vector<formats::ExpectedTensor> v;
  for (const auto& u : units)
    for (const auto& p : u.params) v.push_back({p.name, p.shape});
  return v;
}

bool isIgnorableCheckpointTensor(const ModelConfig& config, const std::string& name) {
  const std::string kRotary = "rotary_emb.inv_freq";
  if (name.size() >= kRotary.size() &&
      name.compare(name.size() - kRotary.size(), kRotary.size(), kRotary) == 0)
    return true;
  return config.tieWordEmbeddings && name == "lm_head.weight";
}

}  // namespace slidedp::model
