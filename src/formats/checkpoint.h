// Hugging Face checkpoint directories: one `model.safetensors`, or shards named by
// `model.safetensors.index.json` ({"metadata": {"total_size": N}, "weight_map": {tensor: file}}).
// Reading maps every shard once (SafetensorsFile); writing is atomic per file (temp file in the
// same directory, fsync, rename, fsync of the directory) and writes the index last, so a crash
// never leaves a directory whose index names a half-written shard.
// Design decision: the writer converts from the caller's fp32 buffers into the target dtype
// while streaming to disk, so saving a model needs no second copy of it in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "formats/file_digest.h"
#include "formats/safetensors.h"

namespace slidedp::formats {

/// A checkpoint directory opened for reading: tensor name -> (shard, TensorInfo).
class CheckpointReader {
 public:
  /// Opens `dir`: `model.safetensors.index.json` when present (every shard it names is opened
  /// and validated; a weight_map entry whose shard lacks the tensor, or a shard tensor absent
  /// from the weight_map, is an error), else `model.safetensors`. A path to a single
  /// .safetensors file is accepted too. Throws UserError naming the file and tensor.
  static CheckpointReader open(const std::string& dir);

  /// All tensor names, sorted.
  std::vector<std::string> names() const;
  /// nullptr when absent.
  const TensorInfo* find(const std::string& name) const;
  /// Throws UserError naming the directory when absent.
  const TensorInfo& get(const std::string& name) const;
  /// The shard that holds `name` (throws when absent).
  const SafetensorsFile& fileOf(const std::string& name) const;
  /// Reads tensor `name` as fp32 into caller memory of numel floats, straight from the mapping.
  void readFloat32(const std::string& name, float* out) const;
  const std::string& path() const { return path_; }
  size_t numFiles() const { return files_.size(); }

 private:
  std::string path_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, std::pair<size_t, const TensorInfo*>> where_;
};

/// What a checkpoint must contain: name and shape (dtype checked separately, if at all).
struct ExpectedTensor {
  std::string name;
  std::vector<int64_t> shape;
};

/// Checks that `ckpt` holds exactly `expected` (in shape) plus only tensors `ignorable(name)`
/// allows; when `dtype` is non-null every expected tensor must have that dtype. Throws one
/// UserError listing every missing tensor, every unexpected tensor and every shape/dtype
/// mismatch (up to 20 of each) with the checkpoint's path.
void checkTensors(const CheckpointReader& ckpt, const std::vector<ExpectedTensor>& expected,
                  const DType* dtype, const std::function<bool(const std::string&)>& ignorable);

/// One tensor to write. The source is `src` (count numel elements of `srcDType`); floating
/// sources are converted to `dtype` on the fly (F32 -> BF16/F16/F32); otherwise srcDType must
/// equal dtype and the bytes are copied.
struct TensorToWrite {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  const void* src = nullptr;
  DType srcDType = DType::F32;
};

/// Bytes of `t`'s data in the file (its dtype's size times its shape's element count).
uint64_t tensorBytes(const TensorToWrite& t);

/// The safetensors header of `tensors` laid out back to back in the given order: the JSON
/// (`__metadata__` first when given, then each tensor's dtype, shape and data_offsets) padded
/// with spaces to a multiple of 8 bytes, without the leading 8-byte length. Throws UserError
/// naming `path` when a name is given twice.
std::string safetensorsHeader(const std::string& path, const std::vector<TensorToWrite>& tensors,
                              const std::map<std::string, std::string>& metadata);

/// Writes one safetensors file atomically (path.tmp.<pid>, fsync, rename, fsync dir). Tensors
/// are laid out in the given order; the header is padded with spaces to a multiple of 8 bytes
/// (as the reference implementation does). Throws UserError on I/O failure (the temp file is
/// removed) or duplicate names. With `digest`, the size and XXH3-64 of the bytes written are
/// stored there (computed while writing: no second pass).
void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata = {},
                      FileDigest* digest = nullptr);

/// Writes a checkpoint into directory `dir` (created if needed): a single `model.safetensors`
/// when the data fits in `maxShardBytes`, else shards `model-0000i-of-0000N.safetensors` of at
/// most maxShardBytes each (a single larger tensor gets a shard of its own) plus
/// `model.safetensors.index.json`, written last. Stale model*.safetensors/index files from an
/// earlier save in `dir` are removed after the new ones are in place. Returns the files written.
std::vector<std::string> writeCheckpoint(const std::string& dir,
                                         const std::vector<TensorToWrite>& tensors,
                                         uint64_t maxShardBytes,
                                         const std::map<std::string, std::string>& metadata = {});

/// Whether `name` (in a checkpoint directory) is a weight file writeCheckpoint writes:
/// model.safetensors.index.json or model*.safetensors (the single file, or a shard).
bool isCheckpointWeightFile(const std::string& name);

/// The shard index's name, "model.safetensors.index.json".
const char* checkpointIndexName();

/// Writes `text` to `path` atomically (temp file, fsync, rename). Throws UserError.
void writeFileAtomic(const std::string& path, const std::string& text);

}  // namespace slidedp::formats
