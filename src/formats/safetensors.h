// Reading safetensors files (https://github.com/huggingface/safetensors, "format" section):
// 8-byte little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}},
// then the data buffer. No LibTorch here: the leader reads checkpoints straight into its FP32
// master regions.
// Design decision: the file is mmap'd read-only and validated completely at open() (header,
// dtypes, shapes, offsets in bounds, non-overlapping and covering the buffer), so data() and
// readFloat32() never fail on a bad file later, and a load makes no second full copy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/dtype.h"

namespace slidedp::formats {

/// One tensor of a safetensors file. data_begin/data_end are byte offsets relative to the
/// start of the data buffer (after the header), as in the file's "data_offsets".
struct TensorInfo {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t data_begin = 0;
  uint64_t data_end = 0;

  /// Number of elements (product of shape; 1 for a scalar).
  int64_t numel() const;
  /// data_end - data_begin.
  uint64_t nbytes() const { return data_end - data_begin; }
};

/// Formats a shape as "[a, b]" for messages.
std::string shapeString(const std::vector<int64_t>& shape);

/// A validated, read-only, memory-mapped safetensors file. Move-only; unmaps on destruction.
class SafetensorsFile {
 public:
  /// Maps and validates `path`. Throws slidedp::UserError naming the file (and tensor) when
  /// the file cannot be opened, is shorter than 8 bytes, its header length runs past the end,
  /// its header is not a JSON object, a tensor entry lacks/mistypes dtype, shape or
  /// data_offsets, a dtype is not one of DType, data_offsets disagree with dtype x shape, lie
  /// outside the data buffer, overlap another tensor, or the tensors leave bytes of the data
  /// buffer uncovered.
  static SafetensorsFile open(const std::string& path);

  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  /// Tensors in the order of their data offsets.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  /// nullptr when absent.
  const TensorInfo* find(const std::string& name) const;
  /// Throws UserError naming the file when absent.
  const TensorInfo& get(const std::string& name) const;
  /// The "__metadata__" string map (empty when absent).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  /// Pointer to the tensor's bytes in the mapping (NOT necessarily aligned to the dtype).
  const uint8_t* data(const TensorInfo& info) const { return base_ + dataStart_ + info.data_begin; }
  /// Converts the tensor (F32, F16 or BF16) to fp32 into caller memory of numel() floats,
  /// straight from the mapping. Throws UserError for integer dtypes.
  void readFloat32(const TensorInfo& info, float* out) const;
  /// Copies an I64 or I32 tensor into numel() int64 values. Throws UserError otherwise.
  void readInt64(const TensorInfo& info, int64_t* out) const;

 private:
  SafetensorsFile() = default;
  void release();

  std::string path_;
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  uint64_t dataStart_ = 0;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace slidedp::formats
