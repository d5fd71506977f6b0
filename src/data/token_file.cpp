// Memory-mapped token files (see token_file.h).
#include "data/token_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "data/parallel_scan.h"

namespace slidedp::data {
namespace {

constexpr int32_t kLlmcMagic = 20240520;
constexpr size_t kLlmcHeaderBytes = 256 * sizeof(int32_t);

int32_t loadI32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The value of key `key` in a npy header dict ("{'descr': '<u2', 'fortran_order': False,
// 'shape': (3,), }"): the text after "'key':" up to the matching end (quote, ')' or ',').
std::string npyField(const std::string& header, const std::string& key, const std::string& path) {
  const std::string k = "'" + key + "'";
  size_t p = header.find(k);
  if (p == std::string::npos) {
    throwUserError("{}: the .npy header has no '{}' entry (header: {})\nHINT: write the file "
                   "with numpy.save.", path, key, header);
  }
  p = header.find(':', p + k.size());
  if (p == std::string::npos) throwUserError("{}: bad .npy header: {}", path, header);
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  if (p >= header.size()) throwUserError("{}: bad .npy header: {}", path, header);
  size_t e;
  if (header[p] == '\'' || header[p] == '"') {
    e = header.find(header[p], p + 1);
    if (e == std::string::npos) throwUserError("{}: bad .npy header: {}", path, header);
    return header.substr(p + 1, e - p - 1);
  }
  if (header[p] == '(') {
    e = header.find(')', p);
    if (e == std::string::npos) throwUserError("{}: bad .npy header: {}", path, header);
    return header.substr(p, e - p + 1);
  }
  e = header.find_first_of(",}", p);
  if (e == std::string::npos) e = header.size();
  std::string v = header.substr(p, e - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

int64_t loadToken(const uint8_t* p, TokenDType dt) {
  switch (dt) {
    case TokenDType::kU16: { uint16_t x; std::memcpy(&x, p, 2); return x; }
    case TokenDType::kU32: { uint32_t x; std::memcpy(&x, p, 4); return x; }
    case TokenDType::kI32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    default: { int64_t x; std::memcpy(&x, p, 8); return x; }
  }
}

}  // namespace

const char* tokenDTypeName(TokenDType d) {
  switch (d) {
    case TokenDType::kU16: return "uint16";
    case TokenDType::kU32: return "uint32";
    case TokenDType::kI32: return "int32";
    case TokenDType::kI64: return "int64";
  }
  return "?";
}

int tokenDTypeSize(TokenDType d) {
  switch (d) {
    case TokenDType::kU16: return 2;
    case TokenDType::kU32: return 4;
    case TokenDType::kI32: return 4;
    case TokenDType::kI64: return 8;
  }
  return 0;
}

void TokenFile::map(const std::string& path) {
  path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throwUserError("cannot open data file {}: {}\nHINT: check the --data path.", path,
                   std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throwUserError("data file {} is not a regular file\nHINT: pass a token file (.bin, .npy), "
                   "a .jsonl or a .txt.", path);
  }
  bytes_ = static_cast<size_t>(st.st_size);
  if (bytes_ > 0) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throwUserError("cannot mmap data file {} ({} bytes): {}", path, bytes_, std::strerror(err));
    }
    base_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
}

void TokenFile::release() {
  if (base_ != nullptr) ::munmap(const_cast<uint8_t*>(base_), bytes_);
  base_ = nullptr;
  data_ = nullptr;
  bytes_ = 0;
  n_ = 0;
}

TokenFile::TokenFile(TokenFile&& o) noexcept { *this = std::move(o); }

TokenFile& TokenFile::operator=(TokenFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    kind_ = std::move(o.kind_);
    base_ = o.base_;
    bytes_ = o.bytes_;
    data_ = o.data_;
    n_ = o.n_;
    dtype_ = o.dtype_;
    o.base_ = nullptr;
    o.data_ = nullptr;
    o.bytes_ = 0;
    o.n_ = 0;
  }
  return *this;
}

TokenFile::~TokenFile() { release(); }

TokenFile TokenFile::openBin(const std::string& path, const std::string& dtype, int64_t vocab_size) {
  if (dtype != "auto" && dtype != "uint16" && dtype != "uint32") {
    throwUserError("token_dtype '{}' is not supported for .bin file {}\nHINT: use auto, uint16 "
                   "(nanoGPT) or uint32; llm.c files carry their dtype in their header.",
                   dtype, path);
  }
  TokenFile f;
  f.map(path);
  if (f.bytes_ >= kLlmcHeaderBytes && loadI32(f.base_) == kLlmcMagic) {
    const int32_t version = loadI32(f.base_ + 4);
    const int32_t count = loadI32(f.base_ + 8);
    if (version != 1 && version != 2) {
      throwUserError("{}: llm.c token file of version {} (expected 1 = uint16 or 2 = uint32)"
                     "\nHINT: regenerate it with llm.c's dev/data scripts.", path, version);
    }
    f.dtype_ = version == 1 ? TokenDType::kU16 : TokenDType::kU32;
    if (dtype != "auto" && dtype != tokenDTypeName(f.dtype_)) {
      throwUserError("{}: token_dtype {} contradicts the llm.c header (version {} = {})\nHINT: "
                     "leave token_dtype at auto for llm.c files.", path, dtype, version,
                     tokenDTypeName(f.dtype_));
    }
    const size_t expect = kLlmcHeaderBytes + static_cast<size_t>(count < 0 ? 0 : count) *
                                                 tokenDTypeSize(f.dtype_);
    if (count < 0 || expect != f.bytes_) {
      throwUserError("{}: the llm.c header says {} tokens ({} bytes with the header) but the "
                     "file has {} bytes\nHINT: the file is truncated or not an llm.c token file.",
                     path, count, expect, f.bytes_);
    }
    f.n_ = count;
    f.data_ = f.base_ + kLlmcHeaderBytes;
    f.kind_ = fmt::format("llm.c .bin v{} ({})", version, tokenDTypeName(f.dtype_));
    return f;
  }
  if (dtype == "auto" && vocab_size > 65536) {
    throwUserError("{}: a headerless .bin token file and a vocabulary of {} tokens (> 65,536): "
                   "its ids may be uint16 or uint32, and reading one as the other trains on "
                   "garbage\nHINT: pass --token-dtype uint32 (or uint16) as the file was written, "
                   "or tokenise with launcher/slidedp-run prepare (a file with a header).",
                   path, vocab_size);
  }
  f.dtype_ = dtype == "uint32" ? TokenDType::kU32 : TokenDType::kU16;
  const int es = tokenDTypeSize(f.dtype_);
  if (f.bytes_ % es != 0) {
    throwUserError("{}: headerless {} token file of {} bytes, not a multiple of {}\nHINT: set "
                   "token_dtype to the dtype the file was written with (nanoGPT: uint16).",
                   path, tokenDTypeName(f.dtype_), f.bytes_, es);
  }
  f.n_ = static_cast<int64_t>(f.bytes_ / es);
  f.data_ = f.base_;
  f.kind_ = fmt::format("headerless .bin ({})", tokenDTypeName(f.dtype_));
  return f;
}

TokenFile TokenFile::openNpy(const std::string& path) {
  TokenFile f;
  f.map(path);
  static const char kMagic[] = "\x93NUMPY";
  if (f.bytes_ < 10 || std::memcmp(f.base_, kMagic, 6) != 0) {
    throwUserError("{}: not a .npy file (no \\x93NUMPY magic)\nHINT: write it with numpy.save, "
                   "or name raw token files .bin.", path);
  }
  const int major = f.base_[6];
  size_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = f.base_[8] | (size_t{f.base_[9]} << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (f.bytes_ < 12) throwUserError("{}: truncated .npy header", path);
    headerLen = static_cast<uint32_t>(loadI32(f.base_ + 8));
    headerStart = 12;
  } else {
    throwUserError("{}: .npy format version {} is not supported (1, 2 or 3)", path, major);
  }
  if (headerStart + headerLen > f.bytes_) {
    throwUserError("{}: the .npy header ({} bytes) runs past the end of the file ({} bytes)",
                   path, headerLen, f.bytes_);
  }
  const std::string header(reinterpret_cast<const char*>(f.base_ + headerStart), headerLen);
  const std::string descr = npyField(header, "descr", path);
  const std::string shape = npyField(header, "shape", path);
  if (descr == "<u2" || descr == "|u2" || descr == "=u2") {
    f.dtype_ = TokenDType::kU16;
  } else if (descr == "<u4" || descr == "=u4") {
    f.dtype_ = TokenDType::kU32;
  } else if (descr == "<i4" || descr == "=i4") {
    f.dtype_ = TokenDType::kI32;
  } else if (descr == "<i8" || descr == "=i8") {
    f.dtype_ = TokenDType::kI64;
  } else {
    throwUserError("{}: .npy dtype '{}' is not supported\nHINT: token arrays must be "
                   "little-endian uint16, uint32, int32 or int64 (numpy: arr.astype(np.uint16) "
                   "or np.int32 / np.int64).", path, descr);
  }
  // shape: "(N,)" is 1-D; "()" is a scalar; "(A, B)" is 2-D.
  std::vector<int64_t> dims;
  {
    std::string s = shape.substr(1, shape.size() - 2);
    size_t p = 0;
    while (p < s.size()) {
      while (p < s.size() && (s[p] == ' ' || s[p] == ',')) ++p;
      if (p >= s.size()) break;
      size_t e = p;
      while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
      if (e == p) throwUserError("{}: cannot parse the .npy shape {}", path, shape);
      dims.push_back(std::stoll(s.substr(p, e - p)));
      p = e;
    }
  }
  if (dims.size() != 1) {
    throwUserError("{}: .npy array of shape {} is not 1-D\nHINT: save a flat token stream "
                   "(numpy: arr.reshape(-1)).", path, shape);
  }
  const size_t dataStart = headerStart + headerLen;
  const size_t need = static_cast<size_t>(dims[0]) * tokenDTypeSize(f.dtype_);
  if (f.bytes_ - dataStart != need) {
    throwUserError("{}: .npy shape {} of {} needs {} data bytes, the file has {}", path, shape,
                   descr, need, f.bytes_ - dataStart);
  }
  f.n_ = dims[0];
  f.data_ = f.base_ + dataStart;
  f.kind_ = fmt::format(".npy ({})", tokenDTypeName(f.dtype_));
  return f;
}

void TokenFile::read(int64_t begin, int64_t count, int64_t vocab_size, int64_t* out) const {
  SLIDEDP_ASSERT(begin >= 0 && count >= 0 && begin + count <= n_, "read [{}, +{}) of {}", begin,
                 count, n_);
  const int es = tokenDTypeSize(dtype_);
  const uint8_t* p = data_ + static_cast<size_t>(begin) * es;
  for (int64_t i = 0; i < count; ++i, p += es) {
    int64_t v;
    switch (dtype_) {
      case TokenDType::kU16: { uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
      case TokenDType::kU32: { uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
      case TokenDType::kI32: { int32_t x; std::memcpy(&x, p, 4); v = x; break; }
      default: { int64_t x; std::memcpy(&x, p, 8); v = x; break; }
    }
    if (v < 0 || v >= vocab_size) {
      throwUserError("{}: token id {} at token index {} is outside [0, vocab_size = {})\nHINT: "
                     "the data was tokenised for another vocabulary, or token_dtype is wrong.",
                     path_, v, begin + i, vocab_size);
    }
    out[i] = v;
  }
}

void TokenFile::checkIds(int64_t vocab_size) const {
  const int es = tokenDTypeSize(dtype_);
  const uint8_t* data = data_;
  const TokenDType dt = dtype_;
  const auto bad = parallelScan<int64_t>(n_, [=](int64_t b, int64_t e) -> int64_t {
    for (int64_t i = b; i < e; ++i) {
      const int64_t v = loadToken(data + static_cast<size_t>(i) * es, dt);
      if (v < 0 || v >= vocab_size) return i;
    }
    return -1;
  });
  for (int64_t i : bad) {
    if (i < 0) continue;
    const int64_t v = loadToken(data + static_cast<size_t>(i) * es, dt);
    throwUserError("{}: token id {} at token index {} ({}) is outside [0, vocab_size = {}); "
                   "checked before the first step\nHINT: the data was tokenised for another "
                   "vocabulary, or the dtype is wrong (--token-dtype).", path_, v, i, kind_,
                   vocab_size);
  }
}

}  // namespace slidedp::data
