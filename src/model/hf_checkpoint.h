// Hugging Face model directories in and out of slidedp's unit buffers (no LibTorch).
// In: config.json + safetensors (single or sharded) -> one fp32 buffer per unit (ParamLayout),
// read by mmap straight into caller memory (the leader's master regions). Out: config.json as
// given, safetensors in bf16/f16/fp32 (sharded with an index above a size), tokenizer files
// copied, each file written atomically; the result loads with transformers' from_pretrained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/checkpoint.h"
#include "model/config.h"
#include "model/param_layout.h"

namespace slidedp::model {

/// Maps a config "dtype"/"torch_dtype" string ("float32", "bfloat16", "float16") to a
/// formats::DType; returns false for anything else (or "").
bool dtypeFromConfigString(const std::string& s, formats::DType* out);

/// Checks that `ckpt` holds exactly the layout's tensors (shapes from the config; also the
/// config's dtype when `checkDType` and the config names one), allowing only
/// isIgnorableCheckpointTensor extras. Throws UserError listing every discrepancy.
void validateCheckpoint(const formats::CheckpointReader& ckpt, const ModelConfig& config,
                        const ParamLayout& layout, bool checkDType = true);

/// Validates, then reads every parameter into `unitBuffers[u]` (caller memory of
/// layout.units[u].numel floats each; padding between tensors is set to 0). bf16/f16 weights
/// are widened to fp32 exactly. Throws UserError (see validateCheckpoint).
void loadUnits(const formats::CheckpointReader& ckpt, const ModelConfig& config,
               const ParamLayout& layout, const std::vector<float*>& unitBuffers,
               bool checkDType = true);

/// Reads one unit's parameters into `buffer` (unit.numel floats; padding set to 0) without
/// validating: call validateCheckpoint once first. Units are independent, so a loader may
/// run one thread per unit.
void loadUnit(const formats::CheckpointReader& ckpt, const UnitLayout& unit, float* buffer);

/// A whole model in process memory: for tests, slidedp_generate and small tools.
struct HostModel {
  std::string dir;
  ModelConfig config;
  ParamLayout layout;
  std::vector<std::vector<float>> units;  // units[u].size() == layout.units[u].numel
};

/// Loads `dir` (config.json + safetensors) into a HostModel.
HostModel loadHostModel(const std::string& dir, bool checkDType = true);

/// Files copied through from the source directory on export, when present.
const std::vector<std::string>& tokenizerFileNames();

/// Whether `name` (relative to a model directory) is a file the model directory holds for
/// slidedp and transformers: config.json, weights (*.safetensors and their index) and
/// tokenizerFileNames(). A file of the user's beside them (metrics, notes) is not.
bool isHfModelFile(const std::string& name);

/// Writes a Hugging Face model directory `outDir`: config.json (config.raw unchanged except
/// its "dtype"/"torch_dtype", set to the dtype written, so the directory validates again),
/// safetensors in `dtype` (F32, BF16 or F16; converted on the fly from the fp32 unit
/// buffers, round to nearest even), sharded with model.safetensors.index.json when the
/// weights exceed `maxShardBytes`, and tokenizerFileNames() copied from `tokenizerSrcDir`
/// (none when empty); a file of an earlier export in `outDir` that this export does not write
/// (a tokenizer file the source lacks; model*.safetensors or their index, e.g. the shards of a
/// larger export) is removed, other files (the user's, adapter_model.safetensors) stay. Tied
/// embeddings write only model.embed_tokens.weight, as transformers does. Written in a staging
/// directory (formats/staged_dir.h: inside `outDir` when it exists, else beside it) and put in
/// place by renames, weights first and config.json last: a failure while writing leaves
/// `outDir` as it was and the staging directory removed; a crash during the renames leaves
/// some files new. Throws UserError on I/O failure.
void exportHfModel(const std::string& outDir, const ModelConfig& config, const ParamLayout& layout,
                   const std::vector<const float*>& unitBuffers, formats::DType dtype,
                   uint64_t maxShardBytes = 5ull << 30, const std::string& tokenizerSrcDir = "");

}  // namespace slidedp::model
