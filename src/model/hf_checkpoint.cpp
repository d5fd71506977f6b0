// HF model directories <-> unit buffers (see hf_checkpoint.h).
#include "model/hf_checkpoint.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "formats/checkpoint.h"
#include "formats/fs_util.h"
#include "formats/staged_dir.h"

namespace slidedp::model {

bool dtypeFromConfigString(const std::string& s, formats::DType* out) {
  if (s == "float32")
    *out = formats::DType::F32;
  else if (s == "bfloat16")
    *out = formats::DType::BF16;
  else if (s == "float16")
    *out = formats::DType::F16;
  else
    return false;
  return true;
}

void validateCheckpoint(const formats::CheckpointReader& ckpt, const ModelConfig& config,
                        const ParamLayout& layout, bool checkDType) {
  formats::DType dt;
  const formats::DType* dtp =
      checkDType && dtypeFromConfigString(config.dtype, &dt) ? &dt : nullptr;
  formats::checkTensors(ckpt, layout.expectedTensors(), dtp, [&](const std::string& n) {
    return isIgnorableCheckpointTensor(config, n);
  });
}

void loadUnit(const formats::CheckpointReader& ckpt, const UnitLayout& unit, float* buf) {
  int64_t cursor = 0;
  for (const auto& p : unit.params) {
    std::memset(buf + cursor, 0, sizeof(float) * (p.offset - cursor));
    ckpt.readFloat32(p.name, buf + p.offset);
    cursor = p.offset + p.numel;
  }
  std::memset(buf + cursor, 0, sizeof(float) * (unit.numel - cursor));
}

void loadUnits(const formats::CheckpointReader& ckpt, const ModelConfig& config,
               const ParamLayout& layout, const std::vector<float*>& unitBuffers,
               bool checkDType) {
  SLIDEDP_ASSERT(unitBuffers.size() == layout.units.size(), "{} buffers for {} units",
                 unitBuffers.size(), layout.units.size());
  validateCheckpoint(ckpt, config, layout, checkDType);
  for (const auto& u : layout.units) loadUnit(ckpt, u, unitBuffers[u.index]);
}

HostModel loadHostModel(const std::string& dir, bool checkDType) {
  HostModel m;
  m.dir = dir;
  m.config = ModelConfig::load(dir);
  m.layout = ParamLayout::build(m.config);
  auto ckpt = formats::CheckpointReader::open(dir);
  std::vector<float*> ptrs;
  for (const auto& u : m.layout.units) {
    m.units.emplace_back(static_cast<size_t>(u.numel));
    ptrs.push_back(m.units.back().data());
  }
  loadUnits(ckpt, m.config, m.layout, ptrs, checkDType);
  return m;
}

const std::vector<std::string>& tokenizerFileNames() {
  static const std::vector<std::string> kNames = {"tokenizer.model",
                                                  "tokenizer.json",
                                                  "tokenizer_config.json",
                                                  "special_tokens_map.json",
                                                  "added_tokens.json",
                                                  "vocab.json",
                                                  "merges.txt",
                                                  "generation_config.json",
                                                  "chat_template.jinja"};
  return kNames;
}

bool isHfModelFile(const std::string& name) {
  const auto& tok = tokenizerFileNames();
  if (name == "config.json" || std::find(tok.begin(), tok.end(), name) != tok.end()) return true;
  const auto endsWith = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name.find('/') == std::string::npos && (endsWith(".safetensors") || endsWith(".safetensors.index.json"));
}

void exportHfModel(const std::string& outDir, const ModelConfig& config, const ParamLayout& layout,
                   const std::vector<const float*>& unitBuffers, formats::DType dtype,
                   uint64_t maxShardBytes, const std::string& tokenizerSrcDir) {
  SLIDEDP_ASSERT(unitBuffers.size() == layout.units.size(), "{} buffers for {} units",
                 unitBuffers.size(), layout.units.size());
  if (!formats::isFloating(dtype))
    throwUserError("export dtype must be F32, BF16 or F16, not {}", formats::dtypeName(dtype));
  std::vector<formats::TensorToWrite> tensors;
  for (const auto& u : layout.units)
    for (const auto& p : u.params)
      tensors.push_back(
          {p.name, dtype, p.shape, unitBuffers[u.index] + p.offset, formats::DType::F32});
  // Written in a staging directory first (inside outDir when it exists, else beside it), then
  // put in place by renames, the config last: a failed write (a full disk, a kill) leaves
  // outDir as it was, not weights of this run beside an earlier export's config.
  const std::string staging = formats::stagingDirFor(outDir, "export");
  try {
    formats::makeDirectories(staging);
    formats::writeCheckpoint(staging, tensors, maxShardBytes);
    nlohmann::json raw = config.raw;
    const char* dtypeString = dtype == formats::DType::F32    ? "float32"
                              : dtype == formats::DType::BF16 ? "bfloat16"
                                                              : "float16";
    bool named = false;
    for (const char* key : {"dtype", "torch_dtype"}) {
      if (raw.contains(key)) {
        raw[key] = dtypeString;
        named = true;
      }
    }
    if (!named) raw["torch_dtype"] = dtypeString;
    formats::writeFileAtomic(formats::joinPath(staging, "config.json"), raw.dump(2) + "\n");
    // The tokenizer files are the source model's, and only those: one an earlier export left in
    // outDir (another model's, or a damaged one) would be loaded beside these weights (it is
    // removed as the new files are put in place: isHfModelFile).
    for (const auto& name : tokenizerFileNames()) {
      const std::string src = tokenizerSrcDir.empty() ? std::string() : formats::joinPath(tokenizerSrcDir, name);
      if (!src.empty() && formats::isRegularFile(src))
        formats::writeFileAtomic(formats::joinPath(staging, name), formats::readFileBytes(src));
    }
    // What an export owns (writeCheckpoint's weight files, config.json, the tokenizer files):
    // an earlier export's are replaced or removed; other files (a LoRA adapter's
    // adapter_model.safetensors, the user's notes) stay.
    const auto& tok = tokenizerFileNames();
    formats::PublishRules rules;
    rules.owned = [&](const std::string& name) {
      return name == "config.json" || formats::isCheckpointWeightFile(name) ||
             std::find(tok.begin(), tok.end(), name) != tok.end();
    };
    rules.order = [](const std::string& name) {  // shards, their index, tokenizer, config
      return name == formats::checkpointIndexName() ? 1 : formats::isCheckpointWeightFile(name) ? 0
                                                        : name == "config.json"                ? 3
                                                                                               : 2;
    };
    rules.remove_first = [](const std::string& name) { return name == formats::checkpointIndexName(); };
    formats::publishStagedDirectory(staging, outDir, rules);
  } catch (...) {
    formats::removeTree(staging);
    throw;
  }
}

}  // namespace slidedp::model
