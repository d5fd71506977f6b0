// Checkpoint directories: sharded reading and atomic writing (see checkpoint.h).
#include "formats/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <memory>
#include <set>

#include "common/errors.h"
#include "formats/fs_util.h"

namespace slidedp::formats {

namespace {

constexpr const char* kSingleName = "model.safetensors";
constexpr const char* kIndexName = "model.safetensors.index.json";

// Writes all of [p, p+n) to fd; throws on failure.
void writeAll(int fd, const void* p, size_t n, const std::string& path) {
  const auto* c = static_cast<const uint8_t*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throwUserError("{}: write failed: {}\nHINT: check free disk space", path,
                     std::strerror(errno));
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
}

void fsyncDir(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Opens a temp file next to `path`, runs `body(fd)`, fsyncs, renames over `path`.
template <typename Body>
void atomicWrite(const std::string& path, Body&& body) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throwUserError("{}: cannot create: {}", tmp, std::strerror(errno));
  try {
    body(fd);
    if (::fsync(fd) != 0) throwUserError("{}: fsync failed: {}", tmp, std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throwUserError("{}: close failed: {}", tmp, std::strerror(errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throwUserError("{}: rename to {} failed: {}", tmp, path, std::strerror(err));
  }
  fsyncDir(parentPath(path));
}

uint64_t numelOf(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}


}  // namespace

// ---- reading ------------------------------------------------------------------------------

CheckpointReader CheckpointReader::open(const std::string& dirOrFile) {
  CheckpointReader r;
  r.path_ = dirOrFile;
  if (isRegularFile(dirOrFile)) {
    r.files_.push_back(std::make_unique<SafetensorsFile>(SafetensorsFile::open(dirOrFile)));
    for (const auto& t : r.files_[0]->tensors()) r.where_[t.name] = {0, &t};
    return r;
  }
  if (!isDirectory(dirOrFile))
    throwUserError("{}: no such checkpoint directory or safetensors file", dirOrFile);
  const std::string& dir = dirOrFile;
  const std::string index = joinPath(dir, kIndexName);
  if (!pathExists(index)) {
    const std::string single = joinPath(dir, kSingleName);
    if (!pathExists(single))
      throwUserError("{}: neither {} nor {} found: not a Hugging Face safetensors checkpoint",
                     dirOrFile, kIndexName, kSingleName);
    return open(single);
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFileBytes(index));
  } catch (const nlohmann::json::parse_error& e) {
    throwUserError("{}: not valid JSON: {}", index, e.what());
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throwUserError("{}: missing object 'weight_map'", index);
  std::map<std::string, size_t> fileIndex;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it->is_string())
      throwUserError("{}: weight_map entry '{}' is not a file name", index, it.key());
    std::string file = it->get<std::string>();
    if (file.find('/') != std::string::npos || file == ".." || file.empty())
      throwUserError("{}: weight_map entry '{}' names '{}', not a file of this directory", index,
                     it.key(), file);
    auto fi = fileIndex.find(file);
    if (fi == fileIndex.end()) {
      const std::string shard = joinPath(dir, file);
      if (!pathExists(shard))
        throwUserError("{}: tensor '{}' is mapped to shard {} which does not exist", index,
                       it.key(), shard);
      r.files_.push_back(std::make_unique<SafetensorsFile>(SafetensorsFile::open(shard)));
      fi = fileIndex.emplace(file, r.files_.size() - 1).first;
    }
    const TensorInfo* t = r.files_[fi->second]->find(it.key());
    if (!t)
      throwUserError("{}: tensor '{}' is mapped to {} but that shard does not contain it", index,
                     it.key(), r.files_[fi->second]->path());
    r.where_[it.key()] = {fi->second, t};
  }
  for (const auto& f : r.files_)
    for (const auto& t : f->tensors())
      if (!r.where_.count(t.name) || r.files_[r.where_[t.name].first].get() != f.get())
        throwUserError("{}: tensor '{}' is stored in {} but the index does not map it there", index,
                       t.name, f->path());
  return r;
}

std::vector<std::string> CheckpointReader::names() const {
  std::vector<std::string> n;
  for (const auto& kv : where_) n.push_back(kv.first);
  return n;
}

const TensorInfo* CheckpointReader::find(const std::string& name) const {
  auto it = where_.find(name);
  return it == where_.end() ? nullptr : it->second.second;
}

const TensorInfo& CheckpointReader::get(const std::string& name) const {
  const TensorInfo* t = find(name);
  if (!t) throwUserError("{}: checkpoint has no tensor named '{}'", path_, name);
  return *t;
}

const SafetensorsFile& CheckpointReader::fileOf(const std::string& name) const {
  auto it = where_.find(name);
  if (it == where_.end()) throwUserError("{}: checkpoint has no tensor named '{}'", path_, name);
  return *files_[it->second.first];
}

void CheckpointReader::readFloat32(const std::string& name, float* out) const {
  fileOf(name).readFloat32(get(name), out);
}

void checkTensors(const CheckpointReader& ckpt, const std::vector<ExpectedTensor>& expected,
                  const DType* dtype, const std::function<bool(const std::string&)>& ignorable) {
  constexpr size_t kMaxListed = 20;
  std::vector<std::string> missing, mismatched, unexpected;
  std::set<std::string> wanted;
  for (const auto& e : expected) {
    wanted.insert(e.name);
    const TensorInfo* t = ckpt.find(e.name);
    if (!t) {
      missing.push_back(e.name);
      continue;
    }
    if (t->shape != e.shape)
      mismatched.push_back(fmt::format("'{}' has shape {}, the config implies {}", e.name,
                                       shapeString(t->shape), shapeString(e.shape)));
    if (dtype && t->dtype != *dtype)
      mismatched.push_back(fmt::format("'{}' has dtype {}, the config says {}", e.name,
                                       dtypeName(t->dtype), dtypeName(*dtype)));
  }
  for (const auto& n : ckpt.names())
    if (!wanted.count(n) && !(ignorable && ignorable(n))) unexpected.push_back(n);
  if (missing.empty() && mismatched.empty() && unexpected.empty()) return;
  std::string msg = fmt::format("{}: checkpoint does not match the model config:", ckpt.path());
  auto list = [&](const char* what, const std::vector<std::string>& v) {
    if (v.empty()) return;
    msg += fmt::format("\n  {} ({}):", what, v.size());
    for (size_t i = 0; i < v.size() && i < kMaxListed; ++i) msg += "\n    " + v[i];
    if (v.size() > kMaxListed) msg += "\n    ...";
  };
  list("missing tensors", missing);
  list("shape/dtype mismatches", mismatched);
  list("unexpected tensors", unexpected);
  msg +=
      "\nHINT: check that config.json belongs to these weights (model_type, sizes, "
      "tie_word_embeddings)";
  throw UserError(msg);
}

// ---- writing ------------------------------------------------------------------------------

uint64_t tensorBytes(const TensorToWrite& t) { return numelOf(t.shape) * dtypeSize(t.dtype); }

std::string safetensorsHeader(const std::string& path, const std::vector<TensorToWrite>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& kv : metadata) m[kv.first] = kv.second;
    header["__metadata__"] = m;
  }
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    if (!seen.insert(t.name).second) throwUserError("{}: tensor '{}' given twice", path, t.name);
    const uint64_t n = tensorBytes(t);
    header[t.name] = {
        {"dtype", dtypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string h = header.dump();
  while (h.size() % 8 != 0) h.push_back(' ');
  return h;
}

void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata, FileDigest* digest) {
  for (const auto& t : tensors)
    if (t.srcDType != t.dtype && !(t.srcDType == DType::F32 && isFloating(t.dtype)))
      throwUserError("{}: tensor '{}': cannot write {} data as {}", path, t.name,
                     dtypeName(t.srcDType), dtypeName(t.dtype));
  const std::string h = safetensorsHeader(path, tensors, metadata);
  std::unique_ptr<StreamDigest> sum = digest ? std::make_unique<StreamDigest>() : nullptr;
  auto put = [&](int fd, const void* p, size_t n) {
    if (sum) sum->update(p, n);
    writeAll(fd, p, n, path);
  };
  atomicWrite(path, [&](int fd) {
    uint8_t len[8];
    uint64_t hl = h.size();
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(hl >> (8 * i));
    put(fd, len, 8);
    put(fd, h.data(), h.size());
    constexpr size_t kChunkElems = 1 << 20;
    constexpr uint64_t kPieceBytes = 4ull << 20;
    std::vector<uint8_t> buf;
    for (const auto& t : tensors) {
      uint64_t numel = numelOf(t.shape);
      if (numel == 0) continue;
      if (t.srcDType == t.dtype) {
        // In 4 MiB pieces, so the digest reads each piece while it is still in cache.
        const auto* p = static_cast<const uint8_t*>(t.src);
        const uint64_t total = numel * dtypeSize(t.dtype);
        for (uint64_t at = 0; at < total; at += kPieceBytes)
          put(fd, p + at, static_cast<size_t>(std::min<uint64_t>(kPieceBytes, total - at)));
        continue;
      }
      const auto* src = static_cast<const float*>(t.src);
      buf.resize(kChunkElems * dtypeSize(t.dtype));
      for (uint64_t i = 0; i < numel; i += kChunkElems) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkElems, numel - i));
        convertFromFloat32(src + i, n, t.dtype, buf.data());
        put(fd, buf.data(), n * dtypeSize(t.dtype));
      }
    }
  });
  if (digest) *digest = sum->finish();
}

void writeFileAtomic(const std::string& path, const std::string& text) {
  atomicWrite(path, [&](int fd) { writeAll(fd, text.data(), text.size(), path); });
}

std::vector<std::string> writeCheckpoint(const std::string& dir,
                                         const std::vector<TensorToWrite>& tensors,
                                         uint64_t maxShardBytes,
                                         const std::map<std::string, std::string>& metadata) {
  {  // across shards too (each file's writer sees only its own names)
    std::set<std::string> names;
    for (const auto& t : tensors)
      if (!names.insert(t.name).second)
        throwUserError("{}: tensor name '{}' is given twice", dir, t.name);
  }
  makeDirectories(dir);
  uint64_t total = 0;
  for (const auto& t : tensors) total += tensorBytes(t);
  std::vector<std::vector<const TensorToWrite*>> shards(1);
  uint64_t cur = 0;
  for (const auto& t : tensors) {
    uint64_t b = tensorBytes(t);
    if (cur > 0 && cur + b > maxShardBytes) {
      shards.emplace_back();
      cur = 0;
    }
    shards.back().push_back(&t);
    cur += b;
  }
  std::vector<std::string> written;
  std::set<std::string> keep;
  auto meta = metadata;
  if (!meta.count("format")) meta["format"] = "pt";  // transformers expects it
  if (shards.size() == 1) {
    std::string p = joinPath(dir, kSingleName);
    writeSafetensors(p, tensors, meta);
    written.push_back(p);
    keep.insert(kSingleName);
  } else {
    nlohmann::ordered_json weightMap = nlohmann::ordered_json::object();
    const size_t n = shards.size();
    for (size_t i = 0; i < n; ++i) {
      std::string name = fmt::format("model-{:05d}-of-{:05d}.safetensors", i + 1, n);
      std::vector<TensorToWrite> part;
      for (const auto* t : shards[i]) {
        part.push_back(*t);
        weightMap[t->name] = name;
      }
      std::string p = joinPath(dir, name);
      writeSafetensors(p, part, meta);
      written.push_back(p);
      keep.insert(name);
    }
    nlohmann::ordered_json index;
    index["metadata"] = {{"total_size", total}};
    index["weight_map"] = weightMap;
    std::string p = joinPath(dir, kIndexName);
    writeFileAtomic(p, index.dump(2) + "\n");
    written.push_back(p);
    keep.insert(kIndexName);
  }
  for (const auto& name : listDirectory(dir))
    if (isCheckpointWeightFile(name) && !keep.count(name)) removeFile(joinPath(dir, name));
  return written;
}

bool isCheckpointWeightFile(const std::string& name) {
  return name == kIndexName || (name.rfind("model", 0) == 0 && name.size() > 12 &&
                                name.compare(name.size() - 12, 12, ".safetensors") == 0);
}

const char* checkpointIndexName() { return kIndexName; }

}  // namespace slidedp::formats
