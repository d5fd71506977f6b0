// Prepared token files (see prepared_file.h; the format: tools/data/token_format.py).
#include "data/prepared_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/errors.h"
#include "data/parallel_scan.h"
#include "data/sha256.h"

namespace slidedp::data {
namespace {

constexpr char kMagic[8] = {'S', 'L', 'I', 'D', 'E', 'D', 'P', 'T'};
constexpr uint32_t kVersion = 1;

std::string prepareHint(const std::string& model_dir) {
  return fmt::format("HINT: prepare the data with the model's own tokenizer: launcher/slidedp-run "
                     "prepare --model {} --input YOUR_DATA.jsonl --out {}",
                     model_dir.empty() ? "MODEL_DIR" : model_dir, "train.tok");
}

}  // namespace

bool PreparedFile::detect(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[8];
  const bool ok = ::read(fd, head, 8) == 8 && std::memcmp(head, kMagic, 8) == 0;
  ::close(fd);
  return ok;
}

void PreparedFile::release() {
  if (base_ != nullptr) ::munmap(const_cast<uint8_t*>(base_), bytes_);
  base_ = nullptr;
  bytes_ = 0;
}

PreparedFile::PreparedFile(PreparedFile&& o) noexcept { *this = std::move(o); }

PreparedFile& PreparedFile::operator=(PreparedFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    header_ = std::move(o.header_);
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    tokens_ = o.tokens_;
    mask_ = o.mask_;
    offsets_ = o.offsets_;
    u32_ = o.u32_;
    n_ = o.n_;
    d_ = o.d_;
    targets_ = o.targets_;
    tokenizerCheck_ = std::move(o.tokenizerCheck_);
  }
  return *this;
}

PreparedFile::~PreparedFile() { release(); }

PreparedFile PreparedFile::open(const std::string& path, int64_t vocab_size,
                                const std::string& model_dir) {
  PreparedFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throwUserError("cannot open data file {}: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throwUserError("data file {} is not a regular file", path);
  }
  f.bytes_ = static_cast<size_t>(st.st_size);
  if (f.bytes_ < 16) {
    ::close(fd);
    throwUserError("{}: a slidedp token file of {} bytes, shorter than its 16-byte preamble "
                   "(truncated)\n{}", path, f.bytes_, prepareHint(model_dir));
  }
  void* p = ::mmap(nullptr, f.bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throwUserError("cannot mmap data file {}: {}", path, std::strerror(err));
  f.base_ = static_cast<const uint8_t*>(p);
  uint32_t version = 0, hlen = 0;
  std::memcpy(&version, f.base_ + 8, 4);
  std::memcpy(&hlen, f.base_ + 12, 4);
  if (version != kVersion)
    throwUserError("{}: slidedp token file of format version {}, this runtime reads version {}\n{}",
                   path, version, kVersion, prepareHint(model_dir));
  if (16 + size_t{hlen} > f.bytes_)
    throwUserError("{}: the header ({} bytes) runs past the end of the file ({} bytes): the file "
                   "is truncated\n{}", path, hlen, f.bytes_, prepareHint(model_dir));
  try {
    f.header_ = nlohmann::json::parse(f.base_ + 16, f.base_ + 16 + hlen);
  } catch (const nlohmann::json::exception& e) {
    throwUserError("{}: the JSON header cannot be parsed ({})\n{}", path, e.what(), prepareHint(model_dir));
  }
  const nlohmann::json& h = f.header_;
  auto num = [&](const nlohmann::json& j, const char* key) -> int64_t {
    if (!j.is_object() || !j.contains(key) || !j.at(key).is_number_integer() || j.at(key).get<int64_t>() < 0)
      throwUserError("{}: the header lacks a non-negative integer \"{}\" (header: {})\n{}", path, key,
                     h.dump().substr(0, 300), prepareHint(model_dir));
    return j.at(key).get<int64_t>();
  };
  const std::string dtype = h.value("dtype", "");
  if (dtype != "uint16" && dtype != "uint32")
    throwUserError("{}: header dtype '{}' (expected uint16 or uint32)\n{}", path, dtype, prepareHint(model_dir));
  f.u32_ = dtype == "uint32";
  const int64_t hv = num(h, "vocab_size");
  f.n_ = num(h, "num_tokens");
  f.d_ = num(h, "num_documents");
  const int64_t header_targets = num(h, "num_target_tokens");
  if (!f.u32_ && hv > 65536)
    throwUserError("{}: uint16 token ids cannot hold a vocabulary of {} tokens (the header is "
                   "inconsistent)\n{}", path, hv, prepareHint(model_dir));
  if (hv > vocab_size)
    throwUserError("{}: prepared with a tokenizer of {} tokens, but the model's vocabulary has {}: "
                   "the data belongs to another model\n{}", path, hv, vocab_size, prepareHint(model_dir));
  // Tokenizer identity.
  const nlohmann::json tok = h.value("tokenizer", nlohmann::json::object());
  const std::string tfile = tok.is_object() ? tok.value("file", "") : "";
  const std::string tsha = tok.is_object() ? tok.value("sha256", "") : "";
  const std::string mine = model_dir.empty() || tfile.empty() ? "" : model_dir + "/" + tfile;
  if (!mine.empty() && ::access(mine.c_str(), R_OK) == 0) {
    const std::string got = sha256File(mine);
    if (got != tsha)
      throwUserError("{}: prepared with another tokenizer: the header's {} has SHA-256 {} ({}), "
                     "the model's {} has {}\n{}", path, tfile, tsha.substr(0, 16),
                     tok.value("name_or_path", "?"), mine, got.substr(0, 16), prepareHint(model_dir));
    f.tokenizerCheck_ = fmt::format("tokenizer {} matches the model's (sha256 {})", tfile, got.substr(0, 12));
    f.tokenizerVerified_ = true;
  } else {
    f.tokenizerCheck_ = fmt::format("tokenizer {} sha256 {} (not checked: the model has no {})",
                                    tfile, tsha.substr(0, 12), tfile.empty() ? "tokenizer file" : tfile);
  }
  // Sections.
  const nlohmann::json sec = h.value("sections", nlohmann::json::object());
  auto section = [&](const char* name, int64_t want_bytes, size_t align) -> const uint8_t* {
    if (!sec.contains(name)) throwUserError("{}: the header has no \"{}\" section\n{}", path, name, prepareHint(model_dir));
    const int64_t off = num(sec.at(name), "offset"), b = num(sec.at(name), "bytes");
    if (b != want_bytes || off % static_cast<int64_t>(align) != 0 ||
        static_cast<size_t>(off) + static_cast<size_t>(b) > f.bytes_)
      throwUserError("{}: section \"{}\" at offset {} with {} bytes does not fit (expected {} "
                     "bytes, aligned to {}, inside the file's {} bytes): truncated or corrupt\n{}",
                     path, name, off, b, want_bytes, align, f.bytes_, prepareHint(model_dir));
    return f.base_ + off;
  };
  f.tokens_ = section("tokens", f.n_ * (f.u32_ ? 4 : 2), f.u32_ ? 4 : 2);
  f.mask_ = section("loss_mask", f.n_, 1);
  f.offsets_ = reinterpret_cast<const int64_t*>(section("doc_offsets", (f.d_ + 1) * 8, 8));
  if (f.n_ == 0 || f.d_ == 0) throwUserError("{}: holds no token\n{}", path, prepareHint(model_dir));
  // Document offsets: 0 = o[0] < o[1] < ... < o[D] = N.
  if (f.offsets_[0] != 0 || f.offsets_[f.d_] != f.n_)
    throwUserError("{}: document offsets run from {} to {}, expected 0 to {} (corrupt)\n{}", path,
                   f.offsets_[0], f.offsets_[f.d_], f.n_, prepareHint(model_dir));
  for (int64_t d = 0; d < f.d_; ++d)
    if (f.offsets_[d + 1] <= f.offsets_[d])
      throwUserError("{}: document {} has offsets [{}, {}): not increasing (corrupt)\n{}", path, d,
                     f.offsets_[d], f.offsets_[d + 1], prepareHint(model_dir));
  // Every id and mask byte, in parallel over the mapping.
  struct Scan {
    int64_t bad_id = -1, bad_mask = -1, ones = 0;
  };
  const PreparedFile& cf = f;
  const auto parts = parallelScan<Scan>(f.n_, [&cf, vocab_size](int64_t b, int64_t e) {
    Scan s;
    for (int64_t i = b; i < e; ++i) {
      if (s.bad_id < 0 && cf.token(i) >= vocab_size) s.bad_id = i;
      const uint8_t m = cf.mask_[i];
      if (m > 1 && s.bad_mask < 0) s.bad_mask = i;
      s.ones += m == 1;
    }
    return s;
  });
  int64_t ones = 0;
  for (const Scan& s : parts) {
    if (s.bad_id >= 0)
      throwUserError("{}: token id {} at token index {} is outside the model's vocabulary [0, {})\n{}",
                     path, f.token(s.bad_id), s.bad_id, vocab_size, prepareHint(model_dir));
    if (s.bad_mask >= 0)
      throwUserError("{}: loss-mask byte {} at token index {} (expected 0 or 1): corrupt\n{}", path,
                     int(f.mask_[s.bad_mask]), s.bad_mask, prepareHint(model_dir));
    ones += s.ones;
  }
  for (int64_t d = 0; d < f.d_; ++d) ones -= f.mask_[f.offsets_[d]];
  if (ones != header_targets)
    throwUserError("{}: the header says {} target tokens, the mask has {} (corrupt)\n{}", path,
                   header_targets, ones, prepareHint(model_dir));
  if (ones == 0)
    throwUserError("{}: no token is a training target (every loss-mask byte is 0 past the documents' "
                   "first tokens), there is nothing to learn\nHINT: chat data needs assistant turns; "
                   "or prepare with --train-on-all", path);
  f.targets_ = ones;
  return f;
}

std::string PreparedFile::describe() const {
  return fmt::format("{} ids, tokenizer vocabulary {}, {} of {} next-token positions trained; {}",
                     u32_ ? "uint32" : "uint16", header_.value("vocab_size", int64_t{0}), targets_,
                     n_ - d_, tokenizerCheck_);
}

std::string PreparedFile::tokenizerFile() const {
  const nlohmann::json tok = header_.value("tokenizer", nlohmann::json::object());
  return tok.is_object() && tok.contains("file") && tok["file"].is_string() ? tok["file"].get<std::string>() : "";
}

std::string PreparedFile::tokenizerSha256() const {
  const nlohmann::json tok = header_.value("tokenizer", nlohmann::json::object());
  return tok.is_object() && tok.contains("sha256") && tok["sha256"].is_string() ? tok["sha256"].get<std::string>() : "";
}

int64_t PreparedFile::tokenizerEosId() const {
  const nlohmann::json tok = header_.value("tokenizer", nlohmann::json::object());
  return tok.is_object() && tok.contains("eos_token_id") && tok["eos_token_id"].is_number_integer()
             ? tok["eos_token_id"].get<int64_t>()
             : -1;
}

}  // namespace slidedp::data
