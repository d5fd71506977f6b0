// safetensors reader: mmap + full validation at open (see safetensors.h).
#include "formats/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace slidedp::formats {

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

namespace {

// Limit from the safetensors reference implementation (100 MB header).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

TensorInfo parseEntry(const std::string& path, const std::string& name, const nlohmann::json& e) {
  if (!e.is_object())
    throwUserError("{}: tensor '{}': header entry is not a JSON object", path, name);
  TensorInfo t;
  t.name = name;
  auto dt = e.find("dtype");
  if (dt == e.end() || !dt->is_string())
    throwUserError("{}: tensor '{}': missing string field 'dtype'", path, name);
  if (!parseDType(dt->get<std::string>(), &t.dtype))
    throwUserError(
        "{}: tensor '{}': unsupported dtype '{}' (slidedp reads F32, F16, BF16, I64, "
        "I32)\nHINT: convert the checkpoint with safetensors/torch to bf16 or fp32",
        path, name, dt->get<std::string>());
  auto sh = e.find("shape");
  if (sh == e.end() || !sh->is_array())
    throwUserError("{}: tensor '{}': missing array field 'shape'", path, name);
  for (const auto& d : *sh) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      throwUserError("{}: tensor '{}': shape {} has a non-integer or negative dimension", path,
                     name, sh->dump());
    t.shape.push_back(d.get<int64_t>());
  }
  auto off = e.find("data_offsets");
  if (off == e.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    throwUserError("{}: tensor '{}': 'data_offsets' must be two non-negative integers, found {}",
                   path, name, off == e.end() ? std::string("nothing") : off->dump());
  t.data_begin = (*off)[0].get<uint64_t>();
  t.data_end = (*off)[1].get<uint64_t>();
  if (t.data_end < t.data_begin)
    throwUserError("{}: tensor '{}': data_offsets [{}, {}] end before they begin", path, name,
                   t.data_begin, t.data_end);
  uint64_t expected = static_cast<uint64_t>(t.numel()) * dtypeSize(t.dtype);
  if (t.nbytes() != expected)
    throwUserError(
        "{}: tensor '{}': data_offsets [{}, {}] hold {} bytes but dtype {} x shape {} "
        "needs {}",
        path, name, t.data_begin, t.data_end, t.nbytes(), dtypeName(t.dtype), shapeString(t.shape),
        expected);
  return t;
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throwUserError("{}: cannot open safetensors file: {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throwUserError("{}: cannot stat: {}", path, std::strerror(err));
  }
  f.size_ = static_cast<size_t>(st.st_size);
  if (f.size_ < 8) {
    ::close(fd);
    throwUserError(
        "{}: truncated safetensors file: {} bytes, shorter than the 8-byte header "
        "length",
        path, f.size_);
  }
  void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throwUserError("{}: mmap failed: {}", path, std::strerror(err));
  f.base_ = static_cast<const uint8_t*>(p);

  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | f.base_[i];  // little-endian
  if (headerLen > f.size_ - 8)
    throwUserError(
        "{}: header length {} runs past the end of the file ({} bytes): the file is "
        "truncated or not safetensors",
        path, headerLen, f.size_);
  if (headerLen > kMaxHeaderBytes)
    throwUserError("{}: header length {} exceeds the 100 MB limit of the format", path, headerLen);
  f.dataStart_ = 8 + headerLen;
  const uint64_t dataBytes = f.size_ - f.dataStart_;

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(f.base_ + 8, f.base_ + 8 + headerLen);
  } catch (const nlohmann::json::parse_error& e) {
    throwUserError("{}: header is not valid JSON: {}", path, e.what());
  }
  if (!header.is_object()) throwUserError("{}: header is not a JSON object", path);

  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throwUserError("{}: '__metadata__' is not an object", path);
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string())
          throwUserError("{}: '__metadata__' value of '{}' is not a string", path, m.key());
        f.metadata_[m.key()] = m->get<std::string>();
      }
      continue;
    }
    f.tensors_.push_back(parseEntry(path, it.key(), *it));
  }
  std::sort(f.tensors_.begin(), f.tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.data_begin != b.data_begin ? a.data_begin < b.data_begin : a.data_end < b.data_end;
  });
  uint64_t cursor = 0;
  const TensorInfo* prev = nullptr;
  for (const auto& t : f.tensors_) {
    if (t.data_end > dataBytes)
      throwUserError(
          "{}: tensor '{}': data_offsets [{}, {}] lie outside the data buffer of {} "
          "bytes (file truncated?)",
          path, t.name, t.data_begin, t.data_end, dataBytes);
    if (t.data_begin < cursor)
      throwUserError("{}: tensor '{}': data_offsets [{}, {}] overlap tensor '{}' [{}, {}]", path,
                     t.name, t.data_begin, t.data_end, prev->name, prev->data_begin,
                     prev->data_end);
    if (t.data_begin > cursor)
      throwUserError(
          "{}: bytes [{}, {}) of the data buffer belong to no tensor (before '{}'): "
          "offsets must cover the buffer without holes",
          path, cursor, t.data_begin, t.name);
    cursor = t.data_end;
    prev = &t;
  }
  if (cursor != dataBytes)
    throwUserError(
        "{}: the data buffer has {} bytes but the tensors cover only {}: trailing "
        "bytes belong to no tensor",
        path, dataBytes, cursor);
  for (size_t i = 0; i < f.tensors_.size(); ++i) f.index_[f.tensors_[i].name] = i;
  return f;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept { *this = std::move(o); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    base_ = o.base_;
    size_ = o.size_;
    dataStart_ = o.dataStart_;
    tensors_ = std::move(o.tensors_);
    index_ = std::move(o.index_);
    metadata_ = std::move(o.metadata_);
    o.base_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() { release(); }

void SafetensorsFile::release() {
  if (base_) munmap(const_cast<uint8_t*>(base_), size_);
  base_ = nullptr;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& SafetensorsFile::get(const std::string& name) const {
  const TensorInfo* t = find(name);
  if (!t) throwUserError("{}: no tensor named '{}'", path_, name);
  return *t;
}

void SafetensorsFile::readFloat32(const TensorInfo& info, float* out) const {
  if (!isFloating(info.dtype))
    throwUserError("{}: tensor '{}' has dtype {}; expected F32, F16 or BF16", path_, info.name,
                   dtypeName(info.dtype));
  convertToFloat32(info.dtype, data(info), static_cast<size_t>(info.numel()), out);
}

void SafetensorsFile::readInt64(const TensorInfo& info, int64_t* out) const {
  const uint8_t* p = data(info);
  size_t n = static_cast<size_t>(info.numel());
  if (info.dtype == DType::I64) {
    std::memcpy(out, p, n * 8);
  } else if (info.dtype == DType::I32) {
    for (size_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = v;
    }
  } else {
    throwUserError("{}: tensor '{}' has dtype {}; expected I64 or I32", path_, info.name,
                   dtypeName(info.dtype));
  }
}

}  // namespace slidedp::formats
